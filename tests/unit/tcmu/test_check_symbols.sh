#!/bin/sh
# test_check_symbols.sh CHECK_SCRIPT GOOD_SO BAD_SO BAD_NEEDED_SO TARGET EXTRA_SO
# Self-test of tests/check-handler-symbols.sh: a fake build dir with a good
# handler passes; a handler needing symbols the hosts lack, linked against
# libtcmu, binding a lunlab_* symbol by name, or exporting more than
# handler_init fails and is named.
set -u
CHECK=$1 GOOD=$2 BAD=$3 NEEDED=$4 TARGET=$5 EXTRA=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/handlers" "$tmp/target"
ln -s "$TARGET" "$tmp/target/lunlab-target"
fail=0

run() { # expected-rc so-file
	ln -sf "$2" "$tmp/handlers/handler_lunlab.so"
	out=$(sh "$CHECK" "$tmp" 2>&1)
	rc=$?
	if [ "$rc" = 77 ]; then echo "tcmu-runner not installed"; exit 77; fi
	if [ "$rc" != "$1" ]; then
		echo "FAIL: $2: exit $rc, expected $1"; echo "$out"; fail=1
	fi
}

run 0 "$GOOD"
run 1 "$BAD"
echo "$out" | grep -q "Debian's tcmu-runner/libtcmu.so.2 do not export:" || { echo "FAIL: no Debian list"; fail=1; }
echo "$out" | grep -qx "  tcmu_emulate_inquiry" || { echo "FAIL: tcmu_emulate_inquiry not named"; fail=1; }
echo "$out" | grep -q "lunlab-target does not export:" || { echo "FAIL: no lunlab list"; fail=1; }
echo "$out" | grep -qx "  tcmu_dev_get_fd" || { echo "FAIL: tcmu_dev_get_fd not named"; fail=1; }
echo "$out" | grep -q "binds lunlab host symbols by name" || { echo "FAIL: by-name lunlab symbol not reported"; fail=1; }
echo "$out" | grep -qx "  lunlab_host_cmd_nexus" || { echo "FAIL: lunlab_host_cmd_nexus not named"; fail=1; }
run 1 "$EXTRA"
echo "$out" | grep -q "exports more than handler_init" || { echo "FAIL: extra exports not reported"; fail=1; }
echo "$out" | grep -qx "  hosttest_busy" || { echo "FAIL: hosttest_busy not named"; fail=1; }
if [ "$NEEDED" != none ]; then
	run 1 "$NEEDED"
	echo "$out" | grep -q "linked against libtcmu" || { echo "FAIL: NEEDED libtcmu not reported"; fail=1; }
fi
[ "$fail" = 0 ] && echo "check-handler-symbols self-test: ok"
exit "$fail"
