#!/bin/bash
# tests/calibrate/unlimited.sh BUILD_DIR - calibrate against a LU faster than this host can
# measure: lunlab's `unlimited` profile (no modeled cost, no pacing) over loopback, where every
# figure is this machine's.  calibrate must say so (docs/calibrate.md "When the LU is faster
# than this host can measure"): MACHINE-LIMITED in the table, machine-limited measurements
# named in the notes and kept out of the fit, and still a profile lunlab-target loads.
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
build=$(cd "${1:?usage: unlimited.sh BUILD_DIR}" && pwd)
target=$build/target/lunlab-target
bench=$build/client/lunlab-bench
[[ -x $target ]] || { echo "SKIP: no lunlab-target in $build"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
work=$(mktemp -d /tmp/lunlab-calib-unlimited.XXXXXX)
status=0
finish() {
    ll_stop_verified "$work/target.log" || status=1
    (( status == 0 )) && rm -rf "$work"
    exit "$status"
}
trap finish EXIT
fail() { echo "FAIL: $*"; status=1; }

ll_start_lunlab "$target" "$work/target.log" --quiet --handler-path "$build/handlers" \
    --lun size=1G,model=unlimited || { status=1; exit; }
url=iscsi://127.0.0.1:$LL_PORT/iqn.2026-11.org.lunlab:target/0
timeout 300 "$bench" calibrate "$url" --out "$work/unlimited.yaml" --dataloss --capacity-use 256m --budget 20s \
    --quiet --json >"$work/run.json" 2>"$work/err" || { cat "$work/err"; fail "calibrate failed"; exit; }
jq -r '.notes[]' "$work/run.json" | sed 's/^/   note: /'
jq -e '.machine_limited == true' "$work/run.json" >/dev/null &&
    echo "ok: the run says its figures are this host's (machine_limited)" || fail "machine_limited is not set"
n=$(jq '[.points[] | select(.machine_limited)] | length' "$work/run.json")
(( n > 0 )) && echo "ok: $n saturated measurements named as this host's, kept out of the fit" ||
    fail "no measurement named as limited by this host"
jq -e '[.points[] | select(.machine_limited and .saturated != null and (.saturated.bound_only | not))] | length == 0' \
    "$work/run.json" >/dev/null && echo "ok: none of them fitted as the LU's" || fail "a machine-limited measurement was fitted"
# the table says it too, and the profile loads
timeout 300 "$bench" calibrate "$url" --out "$work/unlimited2.yaml" --dataloss --capacity-use 256m --budget 10s \
    --quiet >"$work/table.txt" 2>&1 || fail "calibrate (table) failed"
grep -q "MACHINE-LIMITED" "$work/table.txt" && echo "ok: the table says MACHINE-LIMITED" || fail "no MACHINE-LIMITED line"
grep -q "The LU is faster than this host can measure" "$work/table.txt" || fail "no note saying the LU is faster than this host can measure"
ll_stop_verified "$work/target.log" || status=1
ll_start_lunlab "$target" "$work/target.log" --quiet --handler-path "$build/handlers" \
    --lun "size=256M,profile=$work/unlimited.yaml" || fail "lunlab-target refused the profile"
(( status == 0 )) && echo "ok: a LU faster than this host can measure is said to be"
