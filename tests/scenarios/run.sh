#!/usr/bin/env bash
# Scenario runner tests (docs/scenarios.md "Tests"):
#   library DIR   every scenario of DIR: exit 0 (1 for must-fail-*.yaml), its JUnit file read by
#                 python3-junitparser and checked against its --json, nothing left behind;
#                 DIR/real-time/*.yaml only read (--check): their figures depend on the machine
#   sigint        Ctrl-C in the middle of a run: exit 2, every process stopped, no port left
#   badfile       a bad file: exit 2, one line FILE:LINE:COLUMN, nothing started
#   stalled DIR   the scenarios that hold their workload at an event's point pass with the
#                 runner SIGSTOPped for 3 s as soon as the workload started
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
            # the failure names the expectation and what was observed, on stderr and in JUnit:
            # each must-fail file says which in an "# expect-failure: TEXT" line
            expected=$(sed -n 's/^# expect-failure: //p' "$f")
            [[ -n $expected ]] || fail "$name: no '# expect-failure: TEXT' line in the file"
            grep -qF -- "expectation failed: $expected" "$work/$name.log" ||
                fail "$name: no line 'expectation failed: $expected'"
            x=${expected//&/"&amp;"} && x=${x//</"&lt;"} && x=${x//>/"&gt;"} && x=${x//\"/"&quot;"}
            grep -qF -- "$x" "$work/$name.xml" || fail "$name: the JUnit file does not name the failure"
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
    # volumes: reached by every kind of login the workloads make: scale with several VMs (one
    # name each), a run: command as $LUNLAB_INITIATOR at $LUNLAB_A_PROD_URL, and a verify
    # stream started once portal 1 is down (so, on any machine, it moves to portal 2 and
    # must find the volume's LUN there too).  The volume comes before the LUN in the file:
    # its LUN is still its map's.
    cat >"$work/vols.yaml" <<'YAML'
name: volumes
arrays:
  a:
    portals: 2
    volumes: {prod: {size: 8M}}
    luns: {boot: {size: 1M}}   # smaller than w's region: w on LUN 0 by mistake fails
workloads:
  s: {kind: scale, lun: prod, vms: 3, bs: 64k, commands: 8}
  r: {kind: run, start: event, command: 'echo "$LUNLAB_INITIATOR $LUNLAB_A_PROD_URL"; "$LUNLAB_BENCH" scale "$LUNLAB_A_PROD_URL" --vms 1 --bs 64k --count 4 --json --quiet'}
  w: {kind: verify, start: event, lun: prod, size: 2M, bs: 64k}
timeline:
  - {when: {workload: s, finished: true}, start_workload: r}
  - {when: {workload: r, finished: true}, portal_down: 1, name: down}
  - {when: {after: down, delay: 0s}, start_workload: w}
expect:
  - {workload: s, finished: true}
  - {workload: s, json: runs.0.count, min: 8, max: 8}
  - {workload: r, finished: true}
  - {workload: r, output: 'iqn.2026-11.org.lunlab:bench iscsi://127.0.0.1:[0-9]+/iqn.2026-11.org.lunlab:scenario-a/1'}
  - {workload: w, verified: true}
  - {workload: w, json: failovers, min: 1}
YAML
    rc=0
    "$bench" scenario "$work/vols.yaml" --junit "$work/vols.xml" --json "$work/vols.json" >"$work/vols.log" 2>&1 || rc=$?
    (( rc == 0 )) || { fail "volumes: exit $rc, want 0"; cat "$work/vols.log"; }
    grep -q 'array a: volume prod (8 MiB) made through the API, LUN 1 for the workloads' "$work/vols.log" || fail "volumes: no line for the volume"
    /usr/bin/python3 "$here/junit_check.py" "$work/vols.xml" "$work/vols.json" || fail "volumes: JUnit check"
    leftovers "$work/vols.log"
    echo "ok: volumes: reached by scale's 3 VMs, a run: command and a verify stream on both portals"
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
    # Ctrl-C while the arrays start (as soon as the run directory is made, before any
    # target listens): exit 2, said, the target stopped.  If this machine was quicker than
    # the signal, the run is interrupted later instead: the same checks hold.
    "$bench" scenario "$work/long.yaml" --junit "$work/early.xml" --json "$work/early.json" >"$work/early.log" 2>&1 &
    runner=$!
    for (( i = 0; i < 3000; i++ )); do
        grep -q 'run directory' "$work/early.log" && break
        sleep 0.001
    done
    kill -INT "$runner"
    rc=0
    wait "$runner" || rc=$?
    (( rc == 2 )) || fail "exit $rc after SIGINT at start, want 2"
    cat "$work/early.log"
    grep -q 'could not run: .*interrupted' "$work/early.log" || fail "SIGINT at start: no 'interrupted' in the message"
    rundir=$(grep -oE 'run directory [^ ]+' "$work/early.log" | cut -d' ' -f3)
    [[ -n $rundir ]] || fail "SIGINT at start: no run directory named"
    if [[ -n $rundir ]] && pgrep -f -- "$rundir" >/dev/null; then
        fail "SIGINT at start: a process of the run is left: $(pgrep -a -f -- "$rundir")"
    fi
    leftovers "$work/early.log"
    /usr/bin/python3 "$here/junit_check.py" "$work/early.xml" "$work/early.json" || fail "JUnit check after SIGINT at start"
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
    # every kind of file error through the command itself (the unit test client-scn_parse has
    # the full list): one exact line, exit 2, nothing started
    base='arrays:\n  a:\n    luns: {d: {size: 16M}}\nworkloads:\n  w: {kind: verify, lun: d, size: 1M}\ntimeline:\n  - {at: 1s, fault: "lun=0,op=read,sense=medium-error", name: f}\nexpect:\n  - {workload: w, finished: true}\n'
    while IFS='|' read -r kind from to want; do
        printf "$base" | sed "s/$from/$to/" >"$work/$kind.yaml"
        rc=0
        "$bench" scenario "$work/$kind.yaml" --junit "$work/$kind.xml" >"$work/$kind.out" 2>"$work/$kind.err" || rc=$?
        (( rc == 2 )) || fail "$kind: exit $rc, want 2"
        [[ $(cat "$work/$kind.err") == "$work/$kind.yaml:$want" ]] ||
            fail "$kind: got '$(cat "$work/$kind.err")', want '$work/$kind.yaml:$want'"
        [[ ! -s $work/$kind.out && ! -e $work/$kind.xml ]] || fail "$kind: something ran"
        compgen -G "$work/lunlab-scenario-*" >/dev/null && fail "$kind: a run directory was made"
    done <<'CASES'
syntax|{size: 16M}}|{size: 16M}|4:1: yaml: did not find expected ',' or '}' while parsing a flow mapping
unknown key|size: 1M}|size: 1M, sise: 2}|5:39: workloads.w.sise: unknown key (known: kind, start, lun, bs, size, offset, sync_every, reconnect, seed, read_only, reread_for)
wrong type|size: 1M}|size: [1]}|5:35: workloads.w.size: expected a string, got a sequence
no such LUN|lun: d,|lun: e,|5:26: workloads.w.lun: 'e': array a has no LUN 'e'
no such workload|workload: w, finished|workload: x, finished|9:16: expect[0].workload: 'x': no such workload
event after the timeout|at: 1s|at: 200s|7:5: timeline[0]: at 200s is not before the scenario's timeout (120s)
restart without a state directory|fault: "lun=0,op=read,sense=medium-error", name: f|restart: true|7:14: restart: array a has no state_dir: a restart would find it empty
CASES
    # a target that will not start: exit 2, said in one line, nothing left
    printf 'arrays:\n  a:\n    model: nosuch\n    luns: {d: {size: 16M}}\nworkloads:\n  w: {kind: verify, lun: a.d}\nexpect:\n  - {workload: w, finished: true}\n' >"$work/nostart.yaml"
    rc=0
    "$bench" scenario "$work/nostart.yaml" >"$work/nostart.out" 2>"$work/nostart.err" || rc=$?
    (( rc == 2 )) || fail "target that does not start: exit $rc, want 2"
    grep -q "could not run: array a: lunlab-target exited at start" "$work/nostart.err" || fail "nostart: $(cat "$work/nostart.err")"
    rm -rf "$work"/lunlab-scenario-*   # kept on purpose for a run that could not start (its log)
    # an action the array refuses in the middle of a run (a fault rule that does not exist):
    # exit 2 naming it, and everything started is stopped on this path too
    printf 'arrays:\n  a:\n    portals: 2\n    luns: {d: {size: 16M}}\nworkloads:\n  w: {kind: verify, lun: d, size: 1M}\n  s: {kind: run, command: "sleep 100"}\ntimeline:\n  - {when: {workload: w, finished: true}, api: {method: DELETE, path: /api/lunlab/faults/999}}\nexpect:\n  - {workload: w, finished: true}\n' >"$work/refused.yaml"
    rc=0
    "$bench" scenario "$work/refused.yaml" >"$work/refused.log" 2>&1 || rc=$?
    (( rc == 2 )) || fail "refused action: exit $rc, want 2"
    grep -q 'could not run: .*refused.yaml:9:5: timeline\[0\]: DELETE /api/lunlab/faults/999: HTTP 404' "$work/refused.log" ||
        fail "refused action: $(tail -1 "$work/refused.log")"
    rm -rf "$work"/lunlab-scenario-*   # kept on purpose (exit 2): the target's log says why
    leftovers "$work/refused.log"
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
  # once the rule has fired, the api workload reads the rule list, and only after it has,
  # every rule goes, through the API action (idle waits for it): in this order on any
  # machine (both at the rule's start, the DELETE once came before the workload's GET)
  - {when: {api: /api/lunlab/faults, match: '"hits": ?[1-9]'}, start_workload: api}
  - {when: {workload: api, finished: true}, api: {method: DELETE, path: /api/lunlab/faults}}
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
snippets)
    # docs/scenarios.md's GitLab CI and GitHub Actions snippets: their YAML parses, and their
    # loops, run in a tree with a library of one passing and one must-fail scenario, exit 0
    # with one JUnit file (the must-fail one left out) that junitparser reads
    /usr/bin/python3 "$here/snippets.py" "$here/../../docs/scenarios.md" "$work" || fail "the snippets do not parse"
    for ci in gitlab github; do
        [[ -s $work/$ci.sh ]] || continue
        bash -n "$work/$ci.sh" || fail "$ci: its shell does not parse"
        tree=$work/tree-$ci
        mkdir -p "$tree/scenarios" "$tree/build/client"
        ln -s "$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")" "$tree/build/client/lunlab-bench"
        cp "$here/../../scenarios/virtual-clock-clone.yaml" "$here/../../scenarios/must-fail-slow-clone.yaml" "$tree/scenarios/"
        rc=0
        (cd "$tree" && bash "$work/$ci.sh") >"$work/$ci.log" 2>&1 || rc=$?
        (( rc == 0 )) || { fail "$ci: its loop exited $rc"; cat "$work/$ci.log"; }
        [[ $(ls "$tree/junit") == virtual-clock-clone.xml ]] || fail "$ci: JUnit files $(ls "$tree/junit" | tr '\n' ' ')"
        /usr/bin/python3 -c 'import junitparser, sys; s = list(junitparser.JUnitXml.fromfile(sys.argv[1])); assert s[0].name == "virtual-clock-clone" and s[0].tests == 4 and s[0].failures == 0, s' \
            "$tree/junit/virtual-clock-clone.xml" || fail "$ci: its JUnit file"
        leftovers "$work/$ci.log"
        echo "ok: the $ci snippet's loop runs the library, leaves the must-fail file out, writes its JUnit file"
    done
    ;;
stalled)
    # The scenarios whose event must land while their workload runs (a kill, a portal down,
    # an ALUA change keyed on the workload's own point) hold it there with a hold rule that
    # the event or its release: lets go, so they pass however late the runner gets to the
    # event.  Checked by making it late: the runner is SIGSTOPped for STALL seconds (default
    # 3) as soon as the workload has started - longer than the whole of each workload alone,
    # and far beyond the margins the delay rules gave before (docs/testing.md).  Run against
    # those older files (DIR) the same stall failed them.  The stall is the input, not a
    # bound judged: nothing here can fail because this machine is slow.
    dir=$4 stall=${STALL:-3}
    for name in sigkill-during-writes:writer alua-standby-and-back:writer path-flaps-during-clone:clone \
                odx-clone-path-flaps:clone; do
        w=${name#*:} name=${name%%:*}
        log=$work/$name.stalled.log
        "$bench" scenario "$dir/$name.yaml" >"$log" 2>&1 &
        runner=$!
        # until the workload has started or the runner is gone (meson's timeout guards a hang)
        while kill -0 "$runner" 2>/dev/null && ! grep -q "workload $w ([a-z]*): started" "$log"; do
            sleep 0.02
        done
        if kill -STOP "$runner" 2>/dev/null; then
            sleep "$stall"
            kill -CONT "$runner"
        fi
        rc=0
        wait "$runner" || rc=$?
        if (( rc == 0 )); then
            echo "ok: $name passes with the runner stopped ${stall} s once $w started"
        else
            fail "$name: exit $rc with the runner stopped ${stall} s once $w started"
            cat "$log"
        fi
        leftovers "$log"
    done
    ;;
*)
    echo "usage: $0 BENCH TARGET library DIR | stalled DIR | sigint | badfile | external | snippets" >&2
    exit 2
    ;;
esac
(( fails == 0 )) || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
