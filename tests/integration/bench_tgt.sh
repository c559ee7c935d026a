#!/bin/bash
# tests/integration/bench_tgt.sh BENCH - lunlab-bench against a peer that is not lunlab:
# Debian's tgtd (userspace iSCSI, no EXTENDED COPY, no vendor log pages), on 127.0.0.1 with a
# LUN file on /dev/shm.  What a user pointing lunlab-bench at another array must get:
#   info   identity and capacity right, EXTENDED COPY reported as not supported;
#   clone  the software datamover (READ + WRITE through the host), said so, clones verified;
#   scale  every VM moved data, one row per VM count;
#   drr    the image written, and no data reduction figures invented (tgt reports none).
# Needs root (tgtd); without tgtd or root: exit 77 (meson SKIP).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
bench=${1:?usage: bench_tgt.sh LUNLAB_BENCH}

command -v tgtd >/dev/null && command -v tgtadm >/dev/null || { echo "SKIP: tgtd not installed"; exit 77; }
(( EUID == 0 )) || { echo "SKIP: tgtd needs root"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }

work=$(mktemp -d /tmp/lunlab-bench-tgt.XXXXXX)
img=/dev/shm/lunlab-bench-tgt.$$.img
iqn=iqn.2026-11.org.lunlab:bench-tgt
status=0
cleanup() {
    ll_stop_tgt >/dev/null 2>&1
    rm -f "$img"
    rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; status=1; }

truncate -s 256M "$img"
ll_start_tgt "$img" "$iqn" "$work/tgtd.log" || { cat "$work/tgtd.log"; echo "FAIL: tgtd did not start"; exit 1; }
url="iscsi://127.0.0.1:$TGT_PORT/$iqn/1"

# info
"$bench" info "$url" --json >"$work/info.json" 2>"$work/info.err" || { cat "$work/info.err"; fail "info exited non-zero"; }
jq -e '.capacity_bytes == 268435456 and .block_size == 512' "$work/info.json" >/dev/null ||
    fail "info: capacity/block size $(jq -c '{capacity_bytes, block_size}' "$work/info.json")"
jq -e '.vaai.extended_copy == false' "$work/info.json" >/dev/null ||
    fail "info: tgt has no EXTENDED COPY, info says $(jq -c '.vaai.extended_copy' "$work/info.json")"
jq -e '.array == null' "$work/info.json" >/dev/null || fail "info: array figures reported for tgt"

# clone: auto mode falls back to the software datamover, and every clone reads back equal
"$bench" clone "$url" --template-size 4m --vms 3 --chunk 1m --parallel 2 --outstanding 2 --verify \
    --json >"$work/clone.json" 2>"$work/clone.err" || { cat "$work/clone.err"; fail "clone exited non-zero"; }
jq -e '.xcopy == false and .verified == true and .commands > 0' "$work/clone.json" >/dev/null ||
    fail "clone: $(jq -c '{xcopy, verified, commands}' "$work/clone.json")"
jq -e '.fallback_reason | test("software datamover")' "$work/clone.json" >/dev/null ||
    fail "clone: the fallback is not explained: $(jq -c '.fallback_reason' "$work/clone.json")"
jq -e '.modeled == null' "$work/clone.json" >/dev/null || fail "clone: modeled figures reported for tgt"
# table output says it too
"$bench" clone "$url" --template-size 1m --vms 1 --chunk 1m --quiet >"$work/clone.txt" 2>&1 ||
    fail "clone (table) exited non-zero"
grep -q "software datamover" "$work/clone.txt" || { cat "$work/clone.txt"; fail "clone table does not name the software datamover"; }

# --mode xcopy against a target without it: exit 1 naming the refusal (tgt: 05/20/00), never a
# silent software copy
rc=0
"$bench" clone "$url" --template-size 1m --vms 1 --chunk 1m --mode xcopy --quiet >"$work/forced.txt" 2>&1 || rc=$?
(( rc == 1 )) || fail "--mode xcopy on tgt: exit $rc, want 1"
grep -q "EXTENDED COPY failed.*sense 05/20/00" "$work/forced.txt" || { cat "$work/forced.txt"; fail "--mode xcopy on tgt: no EXTENDED COPY refusal named"; }

# scale: two VM counts, each VM moved data (a fixed count of commands per VM, not a 1 s window
# that a stall could end before a VM's first answer)
"$bench" scale "$url" --vms 1,2 --bs 1m --qd 1 --count 4 --json >"$work/scale.json" 2>"$work/scale.err" ||
    { cat "$work/scale.err"; fail "scale exited non-zero"; }
jq -e '(.runs | length) == 2 and .runs[0].vms == 1 and .runs[1].vms == 2 and
       all(.runs[]; .total_mbps > 0 and .min_mbps > 0 and .fairness >= 1)' "$work/scale.json" >/dev/null ||
    fail "scale: $(jq -c '.runs' "$work/scale.json")"

# drr: the image is written; tgt reports no capacity page, so no ratios
"$bench" drr "$url" --synthetic win10 --size 16m --seed 1 --json >"$work/drr.json" 2>"$work/drr.err" ||
    { cat "$work/drr.err"; fail "drr exited non-zero"; }
jq -e '.reported == false' "$work/drr.json" >/dev/null || fail "drr: figures reported for tgt: $(cat "$work/drr.json")"

if (( status == 0 )); then
    echo "ok: lunlab-bench info, clone (software datamover, verified), scale and drr against tgtd"
fi
exit $status
