#!/bin/bash
# Host-side checks of the real-stack lane (see lane.sh): conformance suites on the lunlab LUN
# (must all pass), the same suites on Debian's qcow handler and the kernel's fileio backstore
# (printed beside ours as the comparison), a two-LUN EXTENDED COPY, lunlab-bench, and
# lunlab-bench calibrate against the qcow LUN (LIO + tcmu-runner, a peer lunlab does not model).
# env: BUILD (build dir), URL (iscsi://127.0.0.1:PORT/IQN, no LUN)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-/tmp/lunlab-realstack/checks}
mkdir -p "$OUT"
BENCH=$BUILD/client/lunlab-bench
rc=0 npass=0 nfail=0
fail() { echo "realstack: FAIL: $*"; rc=1; nfail=$((nfail + 1)); }
pass() { echo "realstack: ok: $*"; npass=$((npass + 1)); }

# handler_lunlab.so as the package installed it (lane.sh: dpkg -i in the guest): the running
# tcmu-runner mapped it from its own handler directory, and dpkg owns and verifies that file
if [ -n "${ORIGIN:-}" ]; then
	echo "== where tcmu-runner loaded its handlers from (guest: /proc/PID/maps, dpkg)"
	sed 's/^/    /' "$ORIGIN"
	h=$RUNNER_HANDLERS/handler_lunlab.so
	if [ "$(sed -n '/^maps:/,/^owner:/p' "$ORIGIN" | grep -c 'handler_lunlab\.so')" = 1 ] &&
		sed -n '/^maps:/,/^owner:/p' "$ORIGIN" | grep -qx "$h"; then
		pass "tcmu-runner loaded handler_lunlab.so from $h (its /proc/PID/maps)"
	else
		fail "tcmu-runner did not map $h (and only it)"
	fi
	if grep -qx "lunlab-tcmu-handler: $h" "$ORIGIN" && sed -n '/^verify:/,$p' "$ORIGIN" | grep -qx clean; then
		pass "that file is lunlab-tcmu-handler's, installed by dpkg -i (dpkg-query -S, dpkg -V clean)"
	else
		fail "$h is not the package's file as dpkg installed it"
	fi
fi

# the three backstores run at once: each command crosses qemu's emulated NIC (~5 ms), so the
# suites are latency-bound and overlap well
pids=()
for lun in 0 2 3; do
	name=$([ $lun = 0 ] && echo lunlab || { [ $lun = 2 ] && echo qcow || echo fileio; })
	CONF_LOG_DIR=$OUT/$name CONF_SUMMARY=$OUT/$name.summary \
		bash "$TOP/tests/conformance/run-suites.sh" "$URL/$lun" "$HERE/lunlab.suites" \
		> "$OUT/$name.table" 2>&1 &
	pids+=($!)
done
wait "${pids[1]}" "${pids[2]}"
wait "${pids[0]}"
r=$?
cat "$OUT/lunlab.table"
[ $r -eq 0 ] || { echo "realstack: FAIL: conformance on the lunlab LUN"; rc=1; }

echo "== iscsi-test-cu under LIO + tcmu-runner, per backstore: tests/passed/failed (the rest skipped)"
printf '%-20s %-22s %-22s %-22s\n' suite lunlab qcow fileio
for s in $(awk '$1=="suite"{print $2}' "$HERE/lunlab.suites"); do
	row=()
	for name in lunlab qcow fileio; do
		row+=("$(awk -v s="$s" '$1==s {print $2"/"$3"/"$4; exit}' "$OUT/$name.table")")
	done
	printf '%-20s %-22s %-22s %-22s\n' "$s" "${row[@]}"
done
for name in lunlab qcow fileio; do printf 'total %-8s %s\n' "$name" "$(cat "$OUT/$name.summary" 2>/dev/null)"; done

echo "== two-LUN EXTENDED COPY (LUN 0 -> LUN 1, same array, two 0xE4 descriptors)"
if "$BENCH" clone "$URL/0" --dest "$URL/1" --template-size 4m --vms 2 --chunk 1m --verify --json \
	> "$OUT/xcopy2.json" 2> "$OUT/xcopy2.err"; then
	if grep -q '"xcopy": *true' "$OUT/xcopy2.json" && grep -q '"verified": *true' "$OUT/xcopy2.json"; then
		pass "two-LUN clone offloaded and verified"
	else
		fail "two-LUN clone not offloaded or not verified"
	fi
else
	cat "$OUT/xcopy2.err"; fail "two-LUN clone"
fi

echo "== lunlab-bench info"
if "$BENCH" info "$URL/0" | tee "$OUT/info.txt" && grep -qi 'extended copy.*yes' "$OUT/info.txt"; then
	pass "lunlab-bench info reports EXTENDED COPY"
else
	fail "lunlab-bench info"
fi

echo "== lunlab-bench clone (short): must be offloaded"
if "$BENCH" clone "$URL/0" --template-size 8m --vms 4 --chunk 256k --verify --json > "$OUT/clone.json"; then
	if grep -q '"xcopy": *true' "$OUT/clone.json" && grep -q '"verified": *true' "$OUT/clone.json"; then
		pass "clone offloaded by EXTENDED COPY and verified"
	else
		fail "clone fell back to the software datamover or did not verify"
	fi
	grep -E '"(wall_s|duration_s|peak_latency_ms|peak_cpu_pct)"' "$OUT/clone.json" | head -8
else
	fail "lunlab-bench clone"
fi
echo "== lunlab-bench calibrate against LIO + tcmu-runner (Debian's qcow handler, LUN 2): an unmodeled peer"
# The profile of a stack lunlab does not model, measured through qemu's emulated NIC: its
# figures are this lane's (calibrate must say so), and the profile must load in lunlab-target.
# Each command crosses qemu's emulated NIC (~1 ms, a few MB/s): commands up to 256 KiB, so that
# the step stays a minute or two of the lane's ten.  --timeout 90: under TCG an EXTENDED COPY
# with several outstanding can take LIO longer than lunlab-bench's default 30 s, and LIO
# answers it itself after tcmu's own 30 s command timeout (02/08/00, which calibrate reports as
# the LU failing that size); with 30 s lunlab-bench aborted it first, twice, and gave up (exit 3).
if timeout 420 "$BENCH" calibrate "$URL/2" --out "$OUT/lio-qcow.yaml" --dataloss --capacity-use 64m \
	--max-io 256k --budget "${LANE_CALIBRATE_BUDGET:-40s}" --timeout 90 --quiet \
	> "$OUT/calibrate.txt" 2> "$OUT/calibrate.err"; then
	cat "$OUT/calibrate.txt"
	echo "---- $OUT/lio-qcow.yaml ----"
	cat "$OUT/lio-qcow.yaml"
	if "$BUILD/target/lunlab-target" --help >/dev/null 2>&1 &&
		timeout 60 bash -c 'source "$1"; ll_start_lunlab "$2" "$3" --quiet --handler-path "$4" --lun "size=64M,profile=$5" &&
			ll_stop_lunlab "$LL_PID"' _ "$TOP/ci/lib/target-ctl.sh" "$BUILD/target/lunlab-target" \
			"$OUT/lunlab-lio-qcow.log" "$BUILD/handlers" "$OUT/lio-qcow.yaml"; then
		pass "calibrate against LIO + tcmu-runner wrote a profile lunlab-target serves"
	else
		fail "lunlab-target refused the profile calibrate wrote for LIO + tcmu-runner"
	fi
else
	cat "$OUT/calibrate.err"
	fail "lunlab-bench calibrate against LIO + tcmu-runner"
fi
# summary for ci/test.sh: the lunlab LUN's conformance counts plus these checks
read -r cp cf cs < "$OUT/lunlab.summary" || { cp=0 cf=1 cs=0; }
echo "$((cp + npass)) $((cf + nfail)) $cs" > "$OUT/summary"
echo "realstack: $((cp + npass)) passed, $((cf + nfail)) failed, $cs skipped"
exit $rc
