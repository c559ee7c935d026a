#!/bin/bash
# tests/calibrate/unlimited.sh BUILD_DIR - calibrate against a LU faster than this host can
# measure: lunlab's `unlimited` profile (no modeled cost, no pacing) over loopback, where every
# figure is this machine's (docs/calibrate.md "When the LU is faster than this host can
# measure").  Which figures calibrate's rules then call this host's depends on how fast the
# client, the target and the loopback ran this time (a busy machine can keep every rate under
# every threshold), so what is asserted is what holds for every outcome of that noise: each
# verdict follows the rules from the figures the run reported (tests/calibrate/host_limit.jq;
# the rules themselves: tests/unit/client/test_calib_host_limit.c), the JSON, its notes and the
# table say it the same way, no machine-limited measurement is fitted as the LU's, and the
# profile is one lunlab-target loads.  (It used to require MACHINE-LIMITED in every run.)
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
# shellcheck source=tests/calibrate/host_limit.sh
source "$here/host_limit.sh"
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
n=$(jq '[.points[] | select(.measured and .machine_limited)] | length' "$work/run.json")
echo "   this run: machine_limited $(jq .machine_limited "$work/run.json"), $n measurement(s) named as this host's"
why=$(host_limit_json "$work/run.json") &&
    echo "ok: every verdict on this host's share follows calibrate's rules from the run's own figures, the notes say the same" ||
    fail "the verdicts disagree with the rules or the notes: $why"
jq -e '[.points[] | select(.machine_limited and .saturated != null and (.saturated.bound_only | not))] | length == 0' \
    "$work/run.json" >/dev/null && echo "ok: no machine-limited measurement fitted as the LU's" ||
    fail "a machine-limited measurement was fitted"
# the table says it the same way, and the profile loads
timeout 300 "$bench" calibrate "$url" --out "$work/unlimited2.yaml" --dataloss --capacity-use 256m --budget 10s \
    --quiet >"$work/table.txt" 2>&1 || fail "calibrate (table) failed"
why=$(host_limit_table "$work/table.txt") &&
    echo "ok: the table's MACHINE-LIMITED line ($(grep -c '^MACHINE-LIMITED' "$work/table.txt")) agrees with its notes" ||
    fail "table: $why"
ll_stop_verified "$work/target.log" || status=1
ll_start_lunlab "$target" "$work/target.log" --quiet --handler-path "$build/handlers" \
    --lun "size=256M,profile=$work/unlimited.yaml" || fail "lunlab-target refused the profile"
(( status == 0 )) && echo "ok: calibrate said consistently where this host set the figures, and its profile loads"
