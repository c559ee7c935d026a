#!/bin/bash
# Self-test of run-suites.sh's verdicts, with a stand-in iscsi-test-cu printing recorded output:
# a FAILED test (with and without a [FAILED] message), an allowed and a not-allowed [SKIPPED]
# (which CUnit itself counts as passed), a process that dies mid-test, an unknown suite, and
# text that is no verdict (helper [FAILED] lines of an expected failure, teardown [SKIPPED]).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$here/selftest/fake-iscsi-test-cu" "$tmp/bin/iscsi-test-cu"
export PATH="$tmp/bin:$PATH"
status=0

check() { # LABEL CONDITION-RESULT
    if [[ $2 == 0 ]]; then echo "ok: $1"; else echo "FAIL: $1"; status=1; fi
}

out=$(CONF_LOG_DIR="$tmp/logs1" CONF_SUMMARY="$tmp/sum1" \
      "$here/run-suites.sh" iscsi://127.0.0.1:1/iqn.x:y/0 "$here/selftest/strict.expect" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
check "failing run exits non-zero" "$(( rc == 0 ))"
# Alpha: 1 pass 2 fail; Beta: 1 allowed skip, 1 unexpected skip; Gamma: 1 pass, 1 no outcome;
# Epsilon: 2 pass (a test's "[FAILED]" helper lines for a command it expects to fail, and the
# suite teardown's [SKIPPED] after the last verdict, are no verdicts); Delta: not a suite
check "summary counts" "$([[ $(cat "$tmp/sum1") == "4 5 1" ]]; echo $?)"
check "closing line" "$(tail -n 1 <<<"$out" | grep -qx 'conformance: 4 passed, 5 failed, 1 skipped'; echo $?)"
check "expected-failure logging is not a failure" "$(grep -Eq '^Epsilon +2 +2 +0 +0 +0$' <<<"$out"; echo $?)"
check "FAILED with message" "$(grep -q 'Alpha.Two: FAILED: \[FAILED\] READ10 successful' <<<"$out"; echo $?)"
check "FAILED with assertion only" "$(grep -q 'Alpha.Three: FAILED: 1. test_alpha_three.c:98' <<<"$out"; echo $?)"
check "unexpected skip reported" "$(grep -q 'Beta.Skippy: SKIPPED, not allowed' <<<"$out"; echo $?)"
check "allowed skip listed" "$(grep -q 'Beta.Simple: thick LU' <<<"$out"; echo $?)"
check "crash mid-test is a failure" "$(grep -q 'Gamma.Second: FAILED: no outcome printed' <<<"$out"; echo $?)"
check "unknown suite is a failure" "$(grep -q 'Delta: no such suite' <<<"$out"; echo $?)"
check "per-suite row" "$(grep -Eq '^Alpha +3 +1 +2 +0 +0$' <<<"$out"; echo $?)"

out=$(CONF_LOG_DIR="$tmp/logs2" "$here/run-suites.sh" iscsi://127.0.0.1:1/iqn.x:y/0 \
      "$here/selftest/clean.expect" 2>&1)
rc=$?
check "all-allowed run exits 0" "$rc"
check "all-allowed closing line" "$(tail -n 1 <<<"$out" | grep -qx 'conformance: 0 passed, 0 failed, 2 skipped'; echo $?)"

# on= lists and a second URL: with CONF_LUN=ro, Alpha and Beta run (Epsilon is rw only), Beta.Simple's
# allow-skip is for 512 only; both URLs reach iscsi-test-cu
out=$(CONF_LUN=ro FAKE_ARGS_LOG="$tmp/args" CONF_LOG_DIR="$tmp/logs3" "$here/run-suites.sh" \
      iscsi://127.0.0.1:1/iqn.x:y/0 iscsi://127.0.0.1:2/iqn.x:y/0 "$here/selftest/lun.expect" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
check "on= run exits non-zero" "$(( rc == 0 ))"
check "on= closing line" "$(tail -n 1 <<<"$out" | grep -qx 'conformance: 1 passed, 3 failed, 1 skipped'; echo $?)"
check "suite for another LU not run" "$(grep -q '^Epsilon' <<<"$out"; (( $? == 1 )); echo $?)"
check "allow-skip for another LU does not apply" "$(grep -q 'Beta.Simple: SKIPPED, not allowed' <<<"$out"; echo $?)"
check "both URLs passed" "$(grep -q -- '--test=ALL.Alpha.\* iscsi://127.0.0.1:1/iqn.x:y/0 iscsi://127.0.0.1:2/iqn.x:y/0$' "$tmp/args"; echo $?)"
out=$(CONF_LUN=mp CONF_LOG_DIR="$tmp/logs4" "$here/run-suites.sh" iscsi://127.0.0.1:1/iqn.x:y/0 \
      "$here/selftest/lun.expect" 2>&1)
rc=$?
check "no suite for this LU: exit 0" "$rc"
check "no suite for this LU: zero line" "$(tail -n 1 <<<"$out" | grep -qx 'conformance: 0 passed, 0 failed, 0 skipped'; echo $?)"

if (( status == 0 )); then echo "run-suites.sh self-test: PASS"; else echo "run-suites.sh self-test: FAIL"; fi
exit $status
