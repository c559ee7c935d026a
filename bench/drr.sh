#!/bin/bash
# bench/drr.sh: lunlab-bench drr --synthetic win10 at its default size (11.9 GiB) against a
# fresh lunlab-target (one x2 LU by default), timed, with the target's peak resident memory
# (VmHWM) and the figures it reports once its accounting is done.  Not a test: a measurement.
# usage: bench/drr.sh [BUILD_DIR]   env: MODEL (x2), SIZE (the image, default: drr's 11.9 GiB),
#        LUN_SIZE (16G)
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
model=${MODEL:-x2}
lun_size=${LUN_SIZE:-16G}
bin=$build/target/lunlab-target
bench=$build/client/lunlab-bench
[[ -x $bin && -x $bench ]] || { echo "drr.sh: build first (ninja -C $build)" >&2; exit 2; }
log=$(mktemp /tmp/lunlab-drr.XXXXXX)
trap '[[ -n ${LL_PID:-} ]] && ll_stop_lunlab "$LL_PID"; rm -f "$log"' EXIT
iqn=iqn.2026-11.org.lunlab:drr
ll_start_lunlab "$bin" "$log" --quiet --iqn "$iqn" --handler-path "$build/handlers" \
	--lun "size=$lun_size,model=$model" >/dev/null
echo "drr: synthetic win10${SIZE:+ $SIZE}, model $model, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
t0=$(date +%s.%N)
out=$("$bench" drr "iscsi://127.0.0.1:$LL_PORT/$iqn/0" --synthetic win10 ${SIZE:+--size "$SIZE"} --json --quiet)
t1=$(date +%s.%N)
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$LL_PID/status")
jq -r --arg wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" --arg hwm "$hwm" '
	"image \(.image_bytes / 1073741824 * 100 | round / 100) GiB: wall \($wall) s (writing \(.write_s * 10 | round / 10) s at \(.image_bytes / .write_s / 1e6 | round) MB/s, accounting settled \(.settle_s // 0 | . * 10 | round / 10) s later: \(.settled))",
	"target peak RSS (VmHWM) \($hwm | tonumber / 1024 | round) MiB",
	"figures: logical \(.logical_bytes) unique \(.unique_bytes) physical \(.physical_bytes) bytes; dedup \(.dedup_ratio * 1000 | round / 1000) x compression \(.compression_ratio * 1000 | round / 1000) = DRR \(.drr * 1000 | round / 1000)"' <<<"$out"
