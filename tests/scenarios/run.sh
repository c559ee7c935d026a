#!/usr/bin/env bash
# Scenario runner tests (docs/scenarios.md "Tests"):
#   library DIR   every scenario of DIR: exit 0 (1 for must-fail-*.yaml), its JUnit file read by
#                 python3-junitparser and checked against its --json, nothing left behind;
#                 DIR/real-time/*.yaml only read (--check): their figures depend on the machine
#   sigint        Ctrl-C in the middle of a run: exit 2, every process stopped, no port left
#   badfile       a bad file: exit 2, one line FILE:LINE:COLUMN, nothing started
# "Nothing left behind" is checked, not assumed: every PID the timeline printed is gone (or is
# no longer ours), every 127.0.0.1 port it printed has no listener (ss), and a run: command's
# own children (its process group) are gone too.
set -uo pipefail

bench=$1 target=$2 mode=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/lunlab-scn-test.XXXXXX")
export TMPDIR=$work           # the runner's run directories go here
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [[ -z $target || ! -x $target ]]; then
    echo "SKIP: no lunlab-target in this build"
    exit 77
fi
export LUNLAB_TARGET=$target

# leftovers LOG: every pid and 127.0.0.1 port the timeline in LOG names must be gone
leftovers() {
    local log=$1 pid port n=0
    for pid in $(grep -oE 'pid [0-9]+' "$log" | awk '{print $2}' | sort -u); do
        n=$((n + 1))
        if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' </proc/$pid/cmdline | grep -q -e lunlab -e sleep; then
            fail "$log: process $pid ($(tr '\0' ' ' </proc/$pid/cmdline)) is still there"
        fi
        if ps -o pid= -g "$pid" 2>/dev/null | grep -q .; then
            fail "$log: process group $pid still has members: $(ps -o pid=,args= -g "$pid")"
        fi
    done
    for port in $(grep -oE '127\.0\.0\.1:[0-9]+' "$log" | cut -d: -f2 | sort -u); do
        n=$((n + 1))
        if ss -Hltn "sport = :$port" | grep -q .; then
            fail "$log: port $port is still listening: $(ss -Hltnp "sport = :$port")"
        fi
    done
    (( n > 0 )) || fail "$log: no pid or port in the timeline to check"
    if compgen -G "$work/lunlab-scenario-*" >/dev/null; then
        fail "a run directory was left: $(echo "$work"/lunlab-scenario-*)"
        rm -rf "$work"/lunlab-scenario-*
    fi
}

case $mode in
library)
    dir=$4
    n=0
    for f in "$dir"/*.yaml; do
        n=$((n + 1))
        name=$(basename "$f" .yaml)
        grep -q "'$name.yaml'" "$dir/meson.build" || fail "$name.yaml is not installed: add it to $dir/meson.build"
        want=0
        [[ $name == must-fail-* ]] && want=1
        rc=0
        "$bench" scenario "$f" --junit "$work/$name.xml" --json "$work/$name.json" >"$work/$name.log" 2>&1 || rc=$?
        if (( rc != want )); then
            fail "$name: exit $rc, want $want"
            cat "$work/$name.log"
        else
            echo "ok: $name exit $rc ($(grep -c '^\[.*\] PASS' "$work/$name.log") held, $(grep -c '^\[.*\] FAIL' "$work/$name.log") failed)"
        fi
        if (( want == 1 )); then
            # the failure names the expectation and what was observed, on stderr and in JUnit
            grep -q "expectation failed: workload writer: acknowledged data verified: observed 15 of 16 acknowledged pieces read back right, 1 wrong, the first at LBA 256" "$work/$name.log" ||
                fail "$name: no line naming the failed expectation with its observed value"
        fi
        /usr/bin/python3 "$here/junit_check.py" "$work/$name.xml" "$work/$name.json" || fail "$name: JUnit check"
        leftovers "$work/$name.log"
    done
    (( n >= 6 )) || fail "only $n scenarios in $dir"
    # skip_if end to end: a check whose report field is true is skipped (SKIP, JUnit
    # <skipped> with the reason, exit 0), one whose field is false is judged as usual
    cat >"$work/skip.yaml" <<'YAML'
name: skip-if
arrays:
  a: {time_scale: virtual, luns: {src: {size: 16M}}}
workloads:
  c: {kind: clone, lun: src, template_size: 1M, clones: 2, chunk: 256k, mode: xcopy}
expect:
  - {workload: c, json: xcopy_bytes, max: 0, skip_if: xcopy, name: "skipped: the clone used XCOPY"}
  - {workload: c, json: xcopy_bytes, min: 2097152, max: 2097152, skip_if: fell_back, name: "judged: it did not fall back"}
YAML
    rc=0
    "$bench" scenario "$work/skip.yaml" --junit "$work/skip.xml" --json "$work/skip.json" >"$work/skip.log" 2>&1 || rc=$?
    (( rc == 0 )) || { fail "skip_if: exit $rc, want 0"; cat "$work/skip.log"; }
    grep -q '\] SKIP skipped: the clone used XCOPY: xcopy is true in its report' "$work/skip.log" || fail "skip_if: no SKIP line"
    grep -q '\] PASS judged: it did not fall back' "$work/skip.log" || fail "skip_if: the other check was not judged"
    /usr/bin/python3 "$here/junit_check.py" "$work/skip.xml" "$work/skip.json" || fail "skip_if: JUnit check"
    grep -q '<skipped message="xcopy is true in its report' "$work/skip.xml" || fail "skip_if: no <skipped> with the reason"
    leftovers "$work/skip.log"
    # the real-time ones (figures that depend on the machine) are read, never run here
    for f in "$dir"/real-time/*.yaml; do
        name=$(basename "$f" .yaml)
        grep -q "'real-time/$name.yaml'" "$dir/meson.build" || fail "real-time/$name.yaml is not installed: add it to $dir/meson.build"
        out=$("$bench" scenario "$f" --check 2>&1) || fail "real-time/$name.yaml does not read: $out"
        [[ $out == "$f: "*" expectation(s)" ]] || fail "real-time/$name.yaml --check printed: $out"
        compgen -G "$work/lunlab-scenario-*" >/dev/null && fail "real-time/$name.yaml --check made a run directory"
        echo "ok: real-time/$name.yaml reads (not run: its figures depend on the machine)"
    done
    ;;
sigint)
    cat >"$work/long.yaml" <<'YAML'
name: interrupted
timeout: 120s
arrays:
  a:
    portals: 2
    state_dir: true
    luns:
      data: {size: 16M}
    faults:
      - op=write,delay=20
workloads:
  writer: {kind: verify, lun: a.data, size: 8M, bs: 64k}
  sleeper: {kind: run, command: "sleep 100 & sleep 100; wait"}
timeline:
  - {at: 60s, portal_down: 2}
expect:
  - {workload: writer, finished: true}
YAML
    "$bench" scenario "$work/long.yaml" --junit "$work/long.xml" --json "$work/long.json" >"$work/long.log" 2>&1 &
    runner=$!
    # until both have started or the runner is gone: no 30 s limit of our own (meson's timeout
    # is the hang guard)
    while kill -0 "$runner" 2>/dev/null; do
        grep -q 'workload sleeper (run): started' "$work/long.log" && grep -q 'workload writer (verify): started' "$work/long.log" && break
        sleep 0.1
    done
    grep -q 'workload sleeper (run): started' "$work/long.log" || fail "the workloads did not start"
    sleep 0.3
    kill -INT "$runner"
    rc=0
    wait "$runner" || rc=$?
    (( rc == 2 )) || fail "exit $rc after SIGINT, want 2"
    grep -q 'interrupted' "$work/long.log" || fail "no 'interrupted' in the timeline"
    cat "$work/long.log"
    leftovers "$work/long.log"
    # the JUnit file says the run could not run (an error test case), the expectation skipped
    /usr/bin/python3 "$here/junit_check.py" "$work/long.xml" "$work/long.json" || fail "JUnit check after SIGINT"
    ;;
badfile)
    printf 'arrays:\n  a:\n    luns: {d: {size: 16M}}\nworkloads:\n  w: {kind: verify, lun: a.nope}\nexpect:\n  - {workload: w, finished: true}\n' >"$work/bad.yaml"
    rc=0
    "$bench" scenario "$work/bad.yaml" --junit "$work/bad.xml" >"$work/bad.out" 2>"$work/bad.err" || rc=$?
    (( rc == 2 )) || fail "bad file: exit $rc, want 2"
    [[ $(wc -l <"$work/bad.err") == 1 ]] || fail "bad file: $(wc -l <"$work/bad.err") lines on stderr, want 1"
    want="$work/bad.yaml:5:26: workloads.w.lun: 'a.nope': array a has no LUN 'nope'"
    [[ $(cat "$work/bad.err") == "$want" ]] || fail "bad file: got '$(cat "$work/bad.err")', want '$want'"
    [[ ! -s $work/bad.out ]] || fail "bad file: something ran: $(cat "$work/bad.out")"
    [[ ! -e $work/bad.xml ]] || fail "bad file: a JUnit file was written before the file was valid"
    compgen -G "$work/lunlab-scenario-*" >/dev/null && fail "bad file: a run directory was made"
    # a target that will not start: exit 2, said in one line, nothing left
    printf 'arrays:\n  a:\n    model: nosuch\n    luns: {d: {size: 16M}}\nworkloads:\n  w: {kind: verify, lun: a.d}\nexpect:\n  - {workload: w, finished: true}\n' >"$work/nostart.yaml"
    rc=0
    "$bench" scenario "$work/nostart.yaml" >"$work/nostart.out" 2>"$work/nostart.err" || rc=$?
    (( rc == 2 )) || fail "target that does not start: exit $rc, want 2"
    grep -q "could not run: array a: lunlab-target exited at start" "$work/nostart.err" || fail "nostart: $(cat "$work/nostart.err")"
    rm -rf "$work"/lunlab-scenario-*   # kept on purpose for a run that could not start (its log)
    echo "ok: bad files refused with one line, exit 2"
    ;;
external)
    # an existing target (url: and api:): the runner drives its API and leaves it running
    # shellcheck source=../../ci/lib/target-ctl.sh
    source "$here/../../ci/lib/target-ctl.sh"
    umask 077
    printf 'api admin ext-secret-123\n' >"$work/auth"
    api_port=$(ll_free_port)
    ll_start_lunlab "$target" "$work/target.log" --lun size=64M,model=x2 --api "127.0.0.1:$api_port" \
        --auth-file "$work/auth" --quiet || { echo "FAIL: the test's own target did not start"; exit 1; }
    cat >"$work/ext.yaml" <<YAML
arrays:
  ext:
    url: iscsi://127.0.0.1:$LL_PORT/iqn.2026-11.org.lunlab:target
    api: https://127.0.0.1:$api_port
    luns: {d: {size: 64M}}
workloads:
  w: {kind: verify, lun: d, size: 2M, start: event}
  # the run lasts until the timeline's DELETE is done (once the rule has fired), not a fixed
  # second: on a loaded machine the condition's poll could come after a 1 s run had ended
  idle: {kind: run, command: 'until curl -sk -u "\$LUNLAB_EXT_API_USER:\$LUNLAB_EXT_API_PASSWORD" "\$LUNLAB_EXT_API/metrics" | grep -q ''^lunlab_fault_hits_total{action="sense"} [1-9]'' && curl -sk -u "\$LUNLAB_EXT_API_USER:\$LUNLAB_EXT_API_PASSWORD" "\$LUNLAB_EXT_API/api/lunlab/faults" | grep -Eq ''"faults": ?\[ ?\]''; do sleep 0.2; done'}
  api: {kind: run, start: event, command: 'curl -sk -u "\$LUNLAB_EXT_API_USER:\$LUNLAB_EXT_API_PASSWORD" "\$LUNLAB_EXT_API/api/lunlab/faults"'}
timeline:
  - {at: 0s, fault: 'lun=0,op=read,lba=0-15,sense=medium-error', name: m}
  - {when: {after: m, delay: 0s}, start_workload: w}
  - {when: {after: m, delay: 0s}, start_workload: api}
  # once the rule has fired, every rule goes, through the API action (idle waits for it)
  - {when: {api: /api/lunlab/faults, match: '"hits": ?[1-9]'}, api: {method: DELETE, path: /api/lunlab/faults}}
expect:
  - {workload: w, fails_with: 03/11/00}
  - {workload: api, output: '"spec": ?"lun=0,op=read,lba=0-15,sense=03/11/00"'}
  - {metric: 'lunlab_fault_hits_total{action="sense"}', min: 1}
  - {api: /api/lunlab/faults, match: '"faults": ?\\[ ?\\]', name: "no rule left"}
YAML
    rc=0
    LUNLAB_API_PASSWORD=ext-secret-123 "$bench" scenario "$work/ext.yaml" >"$work/ext.log" 2>&1 || rc=$?
    cat "$work/ext.log"
    (( rc == 0 )) || fail "existing target: exit $rc, want 0"
    kill -0 "$LL_PID" 2>/dev/null || fail "the runner stopped a target it did not start"
    rc=0
    LUNLAB_API_PASSWORD=wrong-password "$bench" scenario "$work/ext.yaml" >"$work/ext2.log" 2>&1 || rc=$?
    (( rc == 2 )) || fail "wrong API password: exit $rc, want 2"
    grep -q "timeline\[0\]: POST /api/lunlab/faults: HTTP 401" "$work/ext2.log" || fail "wrong API password: $(tail -1 "$work/ext2.log")"
    rm -rf "$work"/lunlab-scenario-*
    ll_stop_verified "$work/target.log" || fail "the test's own target did not stop cleanly"
    ;;
*)
    echo "usage: $0 BENCH TARGET library DIR | sigint | badfile | external" >&2
    exit 2
    ;;
esac
(( fails == 0 )) || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
