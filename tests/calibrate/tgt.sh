#!/bin/bash
# tests/calibrate/tgt.sh BUILD_DIR - lunlab-bench calibrate against a peer lunlab does not
# model: Debian's tgtd (userspace iSCSI, a LUN file on /dev/shm) on 127.0.0.1.  What a user
# pointing calibrate at another target must get (docs/calibrate.md "Peers"):
#   - a run that completes within its budget (plus the slowest commands' minimum), commands
#     tgt lacks (EXTENDED COPY, ...) reported as not measured, not as failures;
#   - no data-reduction figures invented (tgt reports no de-duplicated/compressed counts);
#   - honest figures: where this host, not tgt, set a rate, calibrate says so the same way in its
#     JSON, notes and table, and what no command measured is "not measured"; tgt answers VERIFY
#     without reading, which calibrate notices and leaves out;
#   - a profile lunlab-target loads and serves;
#   - nothing written outside the region.
# The profile is printed: docs/calibrate.md shows one.  Needs root (tgtd); 77 (skip) without.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
# shellcheck source=tests/calibrate/host_limit.sh
source "$here/host_limit.sh"
build=$(cd "${1:?usage: tgt.sh BUILD_DIR}" && pwd)
bench=$build/client/lunlab-bench
target=$build/target/lunlab-target
command -v tgtd >/dev/null && command -v tgtadm >/dev/null || { echo "SKIP: tgtd not installed"; exit 77; }
(( EUID == 0 )) || { echo "SKIP: tgtd needs root"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
work=$(mktemp -d /tmp/lunlab-calib-tgt.XXXXXX)
img=/dev/shm/lunlab-calib-tgt.$$.img
iqn=iqn.2026-11.org.lunlab:calib-tgt
status=0
cleanup() {
    ll_stop_tgt >/dev/null 2>&1
    [[ -n ${LL_PID:-} ]] && ll_stop_lunlab "$LL_PID" >/dev/null 2>&1
    rm -f "$img"
    (( status == 0 )) && rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; status=1; }

truncate -s 512M "$img"
# what lies around the region must survive: 1 MiB before it, 1 MiB after it
head -c $((1 << 20)) /dev/urandom >"$work/before"
head -c $((1 << 20)) /dev/urandom >"$work/after"
dd if="$work/before" of="$img" bs=1M seek=0 conv=notrunc status=none
dd if="$work/after" of="$img" bs=1M seek=257 conv=notrunc status=none
ll_start_tgt "$img" "$iqn" "$work/tgtd.log" || { cat "$work/tgtd.log"; echo "FAIL: tgtd did not start"; exit 1; }
url="iscsi://127.0.0.1:$TGT_PORT/$iqn/1"
budget=${CALIB_TGT_BUDGET:-40s}
t0=$SECONDS
"$bench" calibrate "$url" --out "$work/tgt.yaml" --dataloss --offset 1m --capacity-use 256m --budget "$budget" \
    --quiet >"$work/table.txt" 2>"$work/err.txt" || { cat "$work/err.txt"; fail "calibrate against tgt failed"; exit 1; }
echo "calibrate against tgtd took $((SECONDS - t0)) s"
"$bench" calibrate "$url" --out "$work/tgt2.yaml" --dataloss --offset 1m --capacity-use 256m --budget 20s \
    --quiet --json >"$work/run.json" 2>"$work/err2.txt" || { cat "$work/err2.txt"; fail "calibrate --json failed"; }
ll_stop_tgt
cat "$work/table.txt"
echo "---- the profile ----"
cat "$work/tgt.yaml"
echo "---------------------"

cmp -s <(dd if="$img" bs=1M count=1 status=none) "$work/before" &&
    cmp -s <(dd if="$img" bs=1M skip=257 count=1 status=none) "$work/after" &&
    echo "ok: the MiB before and the MiB after the region are untouched" || fail "calibrate wrote outside its region"
jq -e '.supported.XCOPY == false' "$work/run.json" >/dev/null &&
    echo "ok: EXTENDED COPY not measured (tgt has none)" || fail "EXTENDED COPY reported measured on tgt"
# What a fit can identify on a real peer depends on the noise of the run (a per-command
# journal cost, say, comes out "fitted" in one run and "bound" in the next on the same tgt):
# only what no outcome of the noise can change is asserted here.  The fit's rules are tested on
# controlled input (tests/unit/client/test_calib_fit.c, test_calib_host_limit.c).
#  - a parameter no command measured is "not measured": tgt has no EXTENDED COPY
jq -e '.fit.params.xcopy_per_mib.status == "not measured"' "$work/run.json" >/dev/null &&
    echo "ok: what tgt cannot show is not measured (xcopy_per_mib)" ||
    fail "xcopy_per_mib is not 'not measured' on a target without EXTENDED COPY: $(jq -c '.fit.params.xcopy_per_mib' "$work/run.json")"
#  - every status is one the docs define, and a fitted or weak value has its interval
jq -e '.fit.params | to_entries | all(.value.status as $s |
        (["not measured", "bound", "confounded", "weak", "fitted"] | index($s)) != null and
        (if $s == "fitted" or $s == "weak" then (.value.value > 0 and .value.ci95_rel != null) else true end))' \
    "$work/run.json" >/dev/null && echo "ok: every parameter has a defined status ($(jq -c '.fit.params | map_values(.status)' "$work/run.json"))" ||
    fail "a parameter's status or interval is inconsistent: $(jq -c '.fit.params' "$work/run.json")"
jq -e '.data_reduction == null and (.data_reduction_reason | length > 0)' "$work/run.json" >/dev/null &&
    echo "ok: no data reduction invented ($(jq -r '.data_reduction_reason' "$work/run.json"))" ||
    fail "data reduction figures for tgt: $(jq -c '.data_reduction' "$work/run.json")"
#  - whether this host limited a figure depends on how fast tgt and the loopback ran this time:
#    whichever it was, every verdict must follow calibrate's rules from the figures the run
#    reported (a limited point, or a fixed latency within the NOP round trip's noise), and the
#    JSON, its notes and the table must all say the same (tests/calibrate/host_limit.jq)
why=$(host_limit_json "$work/run.json") &&
    echo "ok: the JSON says consistently whether this host set figures (machine_limited: $(jq -c .machine_limited "$work/run.json"))" ||
    fail "machine_limited is reported inconsistently: $why"
why=$(host_limit_table "$work/table.txt") &&
    echo "ok: the table says consistently whether this host set figures ($(grep -c '^MACHINE-LIMITED' "$work/table.txt"))" ||
    fail "table: $why"
grep -q "^profile written: $work/tgt.yaml" "$work/table.txt" || fail "the table does not name the profile"
# the profile is one lunlab serves
ll_start_lunlab "$target" "$work/lunlab.log" --quiet --handler-path "$build/handlers" \
    --lun "size=256M,profile=$work/tgt.yaml" || fail "lunlab-target refused the profile"
if [[ -n ${LL_PID:-} ]]; then
    timeout 60 "$bench" info "iscsi://127.0.0.1:$LL_PORT/iqn.2026-11.org.lunlab:target/0" --quiet >/dev/null ||
        fail "lunlab-target serving the profile did not answer"
    ll_stop_lunlab "$LL_PID" || fail "lunlab-target did not stop cleanly"
    LL_PID=
fi
(( status == 0 )) && echo "ok: calibrate against tgtd: honest figures and a profile lunlab serves"
exit $status
