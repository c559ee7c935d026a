#!/bin/bash
# tests/integration/bench_host_streams.sh TARGET_BIN HANDLER_DIR BENCH - on a virtual clock the
# modeled host is the run's: lunlab-bench clone sets the LU's host streams to --parallel x
# --outstanding (LOG SELECT of page 0x31 parameter 0x000A) unless the LU pinned them with
# host_streams=N, and says which.  Figures checked exactly against the x2 profile (docs/models.md):
# a 256 KiB XCOPY holds the journal 1,094 + 16 x 958 = 16,422 ns (its latency on an idle array)
# and the host turns around in 13,180 + 117,930 / 4 = 42,662 ns, so
#   1 stream:  128 commands in 127 x (16,422 + 42,662) + 16,422 = 7,520,090 ns
#   4 streams: the journal never idles: 128 x 16,422 = 2,102,016 ns (+ the first arrivals)
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
bin=$1 handler_dir=$2 bench=$3
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
ll_test_scratch host-streams "$bin"
iqn=iqn.2026-11.org.lunlab:streams
fail() { echo "FAIL: $*"; status=1; }

ll_start_lunlab "$bin" "$log" --quiet --iqn "$iqn" --handler-path "$handler_dir" \
    --lun size=1G,model=x2,time_scale=virtual,array=free \
    --lun size=1G,model=x2,time_scale=virtual,host_streams=4,array=pinned || { status=1; exit; }

# clone LUN P O -> modeled fields as one JSON line
clone() {
    timeout 120 "$bench" clone "iscsi://127.0.0.1:$LL_PORT/$iqn/$1" --template-size 8m --vms 4 --chunk 256k \
        --parallel "$2" --outstanding "$3" --mode xcopy --quiet --json | jq -c '.modeled'
}
# expect LABEL JSON JQ-FILTER
expect() {
    if jq -e "$3" <<<"$2" >/dev/null; then echo "ok: $1"; else fail "$1: $2"; fi
}

m=$(clone 0 1 1) || fail "clone 1x1 on LUN 0"
expect "1 x 1 on an unpinned LU models 1 host stream, set by the run" "$m" \
    '.clock == "virtual" and .host_streams == 1 and .host_streams_source == "run"'
expect "1 stream: 7,520,090 ns modeled" "$m" '(.duration_s * 1e9 | round) == 7520090'
m=$(clone 0 2 2) || fail "clone 2x2 on LUN 0"
expect "2 x 2 on the same LU models 4 streams" "$m" '.host_streams == 4 and .host_streams_source == "run"'
expect "4 streams keep the journal busy: 2.10-2.16 ms" "$m" '.duration_s > 0.002102 and .duration_s < 0.00216'
m=$(clone 1 1 1) || fail "clone 1x1 on LUN 1"
expect "a pinned LU keeps its 4 streams and says so" "$m" '.host_streams == 4 and .host_streams_source == "pinned"'
expect "pinned: the 1 x 1 run is modeled as 4 streams" "$m" '.duration_s > 0.002102 and .duration_s < 0.00216'
out=$(timeout 120 "$bench" clone "iscsi://127.0.0.1:$LL_PORT/$iqn/1" --template-size 8m --vms 1 --chunk 256k \
    --parallel 1 --outstanding 1 --mode xcopy --quiet 2>&1)
grep -q "pins them (host_streams=4), so this run's 1 x 1 = 1 outstanding does not change" <<<"$out" ||
    fail "the table does not say why the streams were not set: $out"
