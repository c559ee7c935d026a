#!/bin/bash
# run-suites.sh TARGET_URL [SECOND_URL] EXPECT_FILE
#
# Runs libiscsi's iscsi-test-cu once per suite (one process per suite, so that a test that
# leaves state behind - e.g. CompareAndWrite.InvalidDataOutSize's CDB hook - cannot spoil the
# next suite), decides each test's outcome from the printed text, and prints a per-suite table.
# SECOND_URL, if given, is passed too: iscsi-test-cu's second path for MultipathIO.
#
# Why parse text: iscsi-test-cu's exit status does not say whether tests failed, and libiscsi
# reports "not supported by the target" as [SKIPPED] while CUnit counts it as passed.  So a test
# PASSES only when CUnit's verdict for it is not FAILED and the test printed no [SKIPPED]
# (see parse_log for where one test's text ends).
#
# EXPECT_FILE lines (# starts a comment):
#   suite NAME [on=LU,...]     run ALL.NAME.*          (suite ALL = every suite of the ALL family)
#   allow-skip SUITE.TEST [on=LU,...] WHY
#                              a [SKIPPED] of that test is accepted (a feature lunlab does not
#                              emulate; the reason is printed)
#   known-fail SUITE.TEST WHY  a FAILED of that test is reported but not counted as a failure:
#                              only for limits of a host lunlab does not control (e.g. what
#                              tcmu-runner 1.5.4 cannot tell the kernel); the reason is printed
# on=LU,... names the kinds of LU a line applies to (run-all.sh: 512, 4k, pb, ro, mp and rw for
# any read-write LU); without on= a line means on=rw.  CONF_LUN lists the names of the LU under
# test (e.g. "pb rw"); a line applies when one of them is in its on= list.  Without CONF_LUN
# every line applies (how ci/test.sh runs issue2/issue3.suites).
# Exit status 0 only if no test FAILED, none was skipped without an allow-skip line, and every
# test that iscsi-test-cu --list names for a suite produced an outcome.
#
# Environment: CONF_LOG_DIR (default: a temp dir) keeps one log per suite;
#   CONF_SUMMARY=FILE writes "passed failed skipped" for ci/test.sh to add up;
#   CONF_SUITE_TIMEOUT seconds per suite (default 300); CONF_TOTAL_TIMEOUT seconds for all suites
#   (default 3600: once spent, the remaining suites count as failed, not run - a hung target must
#   not eat a CI budget 300 s per suite); CU_EXTRA_ARGS extra iscsi-test-cu options;
#   CONF_LUN (see on= above).
set -uo pipefail

if (( $# < 2 || $# > 3 )); then
    echo "usage: $0 TARGET_URL [SECOND_URL] EXPECT_FILE" >&2
    exit 2
fi
urls=("${@:1:$#-1}")
expect=${!#}
[[ -r $expect ]] || { echo "run-suites: cannot read expect file '$expect'" >&2; exit 2; }
command -v iscsi-test-cu >/dev/null || { echo "run-suites: iscsi-test-cu not found (apt-get install libiscsi-bin)" >&2; exit 2; }

logdir=${CONF_LOG_DIR:-$(mktemp -d /tmp/lunlab-conformance.XXXXXX)}
mkdir -p "$logdir"
suite_timeout=${CONF_SUITE_TIMEOUT:-300}
total_timeout=${CONF_TOTAL_TIMEOUT:-3600}
run_started=$SECONDS
read -r -a extra_args <<<"${CU_EXTRA_ARGS:-}"
read -r -a lun_names <<<"${CONF_LUN:-}"

# applies ON_LIST: does a line with on=ON_LIST (comma-separated) apply to the LU under test?
applies() {
    local want n
    (( ${#lun_names[@]} == 0 )) && return 0
    for want in ${1//,/ }; do
        for n in "${lun_names[@]}"; do
            [[ $want == "$n" ]] && return 0
        done
    done
    return 1
}

listing=$(iscsi-test-cu --list 2>&1)

suites=()
declare -A allowed=() known=()
lineno=0
while IFS= read -r line || [[ -n $line ]]; do
    lineno=$((lineno + 1))
    line=${line%%#*}
    read -r kw name reason <<<"$line"
    [[ -z ${kw:-} ]] && continue
    on=rw
    if [[ ${reason:-} == on=* ]]; then
        read -r on reason <<<"$reason"
        on=${on#on=}
        [[ $on =~ ^[A-Za-z0-9]+(,[A-Za-z0-9]+)*$ ]] || { echo "$expect:$lineno: bad on= list '$on'" >&2; exit 2; }
    fi
    if [[ $kw == suite && -n ${reason:-} ]]; then
        echo "$expect:$lineno: 'suite $name' takes only an on= list, not '$reason'" >&2
        exit 2
    fi
    applies "$on" || continue
    case $kw in
        suite)
            if [[ $name == ALL ]]; then
                while IFS= read -r s; do suites+=("$s"); done < <(
                    grep -E '^ALL\.[A-Za-z0-9_-]+$' <<<"$listing" | sed 's/^ALL\.//')
            else
                suites+=("$name")
            fi ;;
        allow-skip)
            [[ -n ${name:-} ]] || { echo "$expect:$lineno: allow-skip needs SUITE.TEST" >&2; exit 2; }
            allowed[$name]=${reason:-no reason given} ;;
        known-fail)
            [[ -n ${name:-} && -n ${reason:-} ]] || { echo "$expect:$lineno: known-fail needs SUITE.TEST and a reason" >&2; exit 2; }
            known[$name]=$reason ;;
        *)
            echo "$expect:$lineno: unknown keyword '$kw' (expected suite, allow-skip or known-fail)" >&2
            exit 2 ;;
    esac
done <"$expect"
if (( ${#suites[@]} == 0 )); then
    if (( ${#lun_names[@]} > 0 )); then
        # nothing of this file is meant for this kind of LU: an empty, successful run
        echo "run-suites: no suite of $expect applies to LU '${CONF_LUN}'"
        [[ -n ${CONF_SUMMARY:-} ]] && echo "0 0 0" >"$CONF_SUMMARY"
        echo "conformance: 0 passed, 0 failed, 0 skipped"
        exit 0
    fi
    echo "run-suites: $expect names no suite" >&2
    exit 2
fi

# Parse one suite log into lines "TEST<TAB>OUTCOME<TAB>REASON", OUTCOME in passed|failed|skipped.
#
# What iscsi-test-cu prints for one test: "  Test: NAME ..." then the test's own messages (each
# indented, e.g. "    [SKIPPED] ... not implemented", or "    [FAILED] WRITE10 command failed"
# from a helper when the test EXPECTS that command to fail), then CUnit's verdict word "passed"
# or "FAILED" at the start of a line (or right after "..."), then, after the verdict, the failed
# assertions ("    1. file.c:98  - CU_ASSERT...") or messages of the suite's teardown (e.g. its
# PERSISTENT RESERVE cleanup), which belong to no test.  So:
#   verdict FAILED                                  -> failed
#   verdict passed, a [SKIPPED] before the verdict  -> skipped
#   verdict passed otherwise                        -> passed
#   no verdict (process died or hung mid-test)      -> failed
parse_log() {
    awk '
    function flush(   out, reason) {
        if (name == "") return
        if (verdict == "FAILED")            out = "failed"
        else if (verdict == "")             out = "failed"
        else if (pre ~ /\[SKIPPED\]/)       out = "skipped"
        else                                out = "passed"
        reason = ""
        if (out == "skipped") reason = first_match(pre, "\\[SKIPPED\\]")
        if (out == "failed" && verdict == "") reason = "no outcome printed (iscsi-test-cu died or timed out)"
        if (out == "failed" && verdict != "") {
            reason = last_match(pre, "\\[FAILED\\]")
            if (reason == "") reason = first_match(post, "CU_ASSERT")
            else { a = first_match(post, "CU_ASSERT"); sub(/^[ \t]+/, "", a); if (a != "") reason = reason " (" a ")" }
        }
        gsub(/^[ \t.]+|[ \t]+$/, "", reason); gsub(/\t/, " ", reason)
        printf "%s\t%s\t%s\n", name, out, reason
        name = ""; pre = ""; post = ""; verdict = ""
    }
    function first_match(text, re,   n, ls, i) {
        n = split(text, ls, "\n")
        for (i = 1; i <= n; i++) if (ls[i] ~ re) return ls[i]
        return ""
    }
    function last_match(text, re,   n, ls, i, r) {
        n = split(text, ls, "\n"); r = ""
        for (i = 1; i <= n; i++) if (ls[i] ~ re) r = ls[i]
        return r
    }
    function take(line) {
        if (verdict != "") { post = post "\n" line; return }
        if (line ~ /^passed/)      { verdict = "passed"; post = substr(line, 7) }
        else if (line ~ /^FAILED/) { verdict = "FAILED"; post = substr(line, 7) }
        else pre = pre "\n" line
    }
    /^  Test: / {
        flush()
        line = $0; sub(/^  Test: /, "", line)
        name = line; sub(/ \.\.\..*$/, "", name)
        rest = line; sub(/^[^.]*\.\.\./, "", rest)
        take(rest)
        next
    }
    /^Run Summary:/ || /^Suite: / { flush(); next }
    { if (name != "") take($0) }
    END { flush() }
    ' "$1"
}

tot_pass=0 tot_fail=0 tot_skip_ok=0 tot_skip_bad=0
known_hit=()
skip_hit=()
problems=()
printf '%-26s %6s %7s %7s %8s %9s\n' suite tests passed failed skipped unexpected
printf '%-26s %6s %7s %7s %8s %9s\n' -------------------------- ------ ------- ------- -------- ---------
for suite in "${suites[@]}"; do
    log="$logdir/$suite.log"
    if (( SECONDS - run_started >= total_timeout )); then
        problems+=("$suite: not run: the ${total_timeout}s budget for all suites was spent")
        tot_fail=$((tot_fail + 1))
        printf '%-26s %6s %7s %7s %8s %9s\n' "$suite" 0 0 1 0 0
        continue
    fi
    timeout --kill-after=10 "$suite_timeout" \
        iscsi-test-cu --dataloss "${extra_args[@]}" --test="ALL.$suite.*" "${urls[@]}" >"$log" 2>&1
    rc=$?
    (( rc == 124 || rc == 137 )) && echo "  (suite $suite timed out after ${suite_timeout}s)" >>"$log"

    mapfile -t expected_tests < <(grep -E "^ALL\.$suite\.[^.]+$" <<<"$listing" | sed "s/^ALL\.$suite\.//")
    if (( ${#expected_tests[@]} == 0 )); then
        problems+=("$suite: no such suite in iscsi-test-cu --list")
        tot_fail=$((tot_fail + 1))
        printf '%-26s %6s %7s %7s %8s %9s\n' "$suite" 0 0 1 0 0
        continue
    fi
    declare -A seen=()
    p=0 f=0 so=0 sb=0
    while IFS=$'\t' read -r t out reason; do
        [[ -n $t ]] || continue
        seen[$t]=1
        case $out in
            passed) p=$((p + 1)) ;;
            skipped)
                if [[ -n ${allowed[$suite.$t]:-} ]]; then so=$((so + 1)); skip_hit+=("$suite.$t: ${allowed[$suite.$t]}")
                else sb=$((sb + 1)); problems+=("$suite.$t: SKIPPED, not allowed by $expect: $reason"); fi ;;
            *)
                if [[ -n ${known[$suite.$t]:-} ]]; then so=$((so + 1)); known_hit+=("$suite.$t: FAILED as known: ${known[$suite.$t]}")
                else f=$((f + 1)); problems+=("$suite.$t: FAILED: $reason"); fi ;;
        esac
    done < <(parse_log "$log")
    for t in "${expected_tests[@]}"; do
        if [[ -z ${seen[$t]:-} ]]; then
            f=$((f + 1))
            problems+=("$suite.$t: did not run (iscsi-test-cu exit $rc; see $log)")
        fi
    done
    unset seen
    printf '%-26s %6d %7d %7d %8d %9d\n' "$suite" "${#expected_tests[@]}" "$p" "$f" "$((so + sb))" "$sb"
    tot_pass=$((tot_pass + p)); tot_fail=$((tot_fail + f))
    tot_skip_ok=$((tot_skip_ok + so)); tot_skip_bad=$((tot_skip_bad + sb))
done
printf '%-26s %6d %7d %7d %8d %9d\n' TOTAL $((tot_pass + tot_fail + tot_skip_ok + tot_skip_bad)) \
    "$tot_pass" "$tot_fail" $((tot_skip_ok + tot_skip_bad)) "$tot_skip_bad"

if (( ${#skip_hit[@]} > 0 )); then
    echo "allowed skips:"
    printf '  %s\n' "${skip_hit[@]}"
fi
if (( ${#known_hit[@]} > 0 )); then
    echo "known failures (counted as skipped, not passed):"
    printf '  %s\n' "${known_hit[@]}"
fi
if (( ${#problems[@]} > 0 )); then
    echo "problems:"
    printf '  %s\n' "${problems[@]}"
fi
echo "logs: $logdir"
# unexpected skips count as failures: the suite did not prove the feature
if [[ -n ${CONF_SUMMARY:-} ]]; then
    echo "$tot_pass $((tot_fail + tot_skip_bad)) $tot_skip_ok" >"$CONF_SUMMARY"
fi
echo "conformance: $tot_pass passed, $((tot_fail + tot_skip_bad)) failed, $tot_skip_ok skipped"
(( tot_fail == 0 && tot_skip_bad == 0 ))
