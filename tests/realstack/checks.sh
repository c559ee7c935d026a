#!/bin/bash
# Host-side checks of the real-stack lane (see lane.sh): conformance suites on the lunlab LUN
# (must all pass), the same suites on Debian's qcow handler and the kernel's fileio backstore
# (printed beside ours as the comparison), a two-LUN EXTENDED COPY, and lunlab-bench.
# env: BUILD (build dir), URL (iscsi://127.0.0.1:PORT/IQN, no LUN)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-/tmp/lunlab-realstack/checks}
mkdir -p "$OUT"
BENCH=$BUILD/client/lunlab-bench
rc=0
fail() { echo "realstack: FAIL: $*"; rc=1; }

for lun in 0 2 3; do
	name=$([ $lun = 0 ] && echo lunlab || { [ $lun = 2 ] && echo qcow || echo fileio; })
	CONF_LOG_DIR=$OUT/$name CONF_SUMMARY=$OUT/$name.summary CU_EXTRA_ARGS=--dataloss \
		bash "$TOP/tests/conformance/run-suites.sh" "$URL/$lun" "$HERE/lunlab.suites" \
		> "$OUT/$name.table" 2>&1
	r=$?
	if [ $lun = 0 ] && [ $r -ne 0 ]; then cat "$OUT/$name.table"; fail "conformance on the lunlab LUN"; fi
done

echo "== iscsi-test-cu under LIO + tcmu-runner: passed/failed/skipped per backstore"
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
	grep -q '"xcopy": *true' "$OUT/xcopy2.json" || fail "two-LUN clone was not offloaded"
	grep -q '"verified": *true' "$OUT/xcopy2.json" || fail "two-LUN clone data not verified"
else
	cat "$OUT/xcopy2.err"; fail "two-LUN clone"
fi

echo "== lunlab-bench info"
"$BENCH" info "$URL/0" | tee "$OUT/info.txt" || fail "lunlab-bench info"
grep -qi 'extended copy.*yes' "$OUT/info.txt" || fail "info does not report EXTENDED COPY"

echo "== lunlab-bench clone (short): must be offloaded"
if "$BENCH" clone "$URL/0" --template-size 8m --vms 4 --chunk 256k --verify --json > "$OUT/clone.json"; then
	grep -q '"xcopy": *true' "$OUT/clone.json" || fail "clone fell back to the software datamover"
	cat "$OUT/clone.json"
else
	fail "lunlab-bench clone"
fi
exit $rc
