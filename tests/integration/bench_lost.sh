#!/bin/bash
# tests/integration/bench_lost.sh BENCH TARGET_BIN HANDLER_DIR CASE
#
# lunlab-bench when the target goes away (docs/bench.md "Lost connections and timeouts"): a
# real lunlab-target on 127.0.0.1 is killed (SIGKILL), restarted, stopped (SIGSTOP) or cut off
# behind a TCP proxy (socat) while a subcommand runs, and the checks are on what lunlab-bench
# then does, with a short --timeout:
#   kill-info, kill-scale, kill-clone, kill-drr
#       the target is killed during the subcommand and not restarted: lunlab-bench exits 3
#       within --timeout (plus a little) with exactly one line on stderr naming the URL and the
#       cause, and uses no CPU while it waits for the target (no spin on a dead socket);
#   restart-info, restart-scale
#       the target is killed and started again on the same port within --timeout: the run
#       completes (exit 0) and its JSON counts the re-logins;
#   restart-drr
#       the same during drr's write: the new target does not hold what the old one had
#       acknowledged, so drr must not report figures: exit 1 naming the data that is gone;
#   flap-drr, flap-clone
#       the path goes away and comes back (the proxy is killed and restarted) while the target
#       keeps its data: the run continues; drr's figures equal an uninterrupted run's on a
#       second array, clone's copies verify;
#   hang
#       the target stops answering (SIGSTOP) during scale: each command gets ABORT TASK after
#       --timeout, no answer comes, the session is dropped and no login is answered: exit 3
#       with one line naming the command and ABORT TASK, no CPU spent waiting;
#   refused, not-found
#       nothing listens on the port: login retried for --timeout, then exit 3 naming the last
#       error; a target name the target does not have (login status 02/03) fails at once;
#   kill-watch, restart-watch
#       the same for watch, which reads the target's /metrics.json over HTTPS: killed, exit 3
#       within --timeout with one line naming the URL (without its password); killed and
#       restarted on the same ports, watch goes on and prints every reading asked for;
#   kill-metrics
#       scale with --metrics-url when the target is killed: the session's one line and exit
#       3, nothing from the recorder (no last reading of a target that is gone);
#   kill-snapclone
#       clone --mode snapshot while it makes snapshots through the management API: the API
#       request that meets the dead target ends the run with exit 3 and one line naming the
#       request (a POST that was sent is not sent twice);
#   kill-calibrate, flap-calibrate
#       calibrate (its ten sessions: identification, the load pool, NOP-Outs) when the target
#       dies: exit 3 within --timeout, one line, no CPU spent waiting; when the path goes away
#       for a second: the run completes (exit 0), its JSON counts the re-logins, and the
#       profile it wrote loads in lunlab-target.
# Noise.  Every event lands after what it needs exists: a kill, a stop or a cut path waits until
# the bench holds its sessions (or has printed the readings the case counts), then the case's
# delay; on a loaded machine (a sanitizer build starting) logging in can take longer than the
# delay alone, and a kill before the login is another case.  How long the bench takes to give
# up is checked from below only, where it holds by construction (its deadlines run from the
# loss, which follows the event); "within N s" would be a wall-clock threshold, and when the
# connection layer gives up is its rule, tested on controlled elapsed times
# (tests/unit/client/test_conn_policy.c).  The CPU check needs no bound on time: a waiting
# client's CPU does not grow with the machine's load.
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build, or socat or curl missing).
set -uo pipefail
(( $# == 4 )) || { echo "usage: $0 BENCH TARGET_BIN HANDLER_DIR CASE" >&2; exit 2; }
bench=$1 bin=$2 handler_dir=$3 case=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

[[ -n $bin ]] || { echo "SKIP: lunlab-target is not part of this build"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
if [[ $case == flap-* ]] && ! command -v socat >/dev/null; then
    echo "SKIP: socat not installed (ci/install-deps.sh installs it)"; exit 77
fi
if [[ $case == *watch || $case == *-metrics || $case == *snapclone ]] && ! command -v curl >/dev/null; then
    echo "SKIP: curl not installed (ci/install-deps.sh installs it)"; exit 77
fi

iqn=iqn.2026-11.org.lunlab:lost
work=$(mktemp -d "/tmp/lunlab-bench-lost-$case.XXXXXX")
log=$work/target.log
status=0
bench_pid= proxy_pid= restarted_pid= killed_pid= stopped=0
extra_args=()            # start_api_target: the API's options, kept for a restart
hz=$(getconf CLK_TCK)

fail() { echo "FAIL: $*"; status=1; }
ok() { echo "ok: $*"; }

cleanup() {
    [[ -n $bench_pid ]] && kill -KILL "$bench_pid" 2>/dev/null
    [[ -n $proxy_pid ]] && kill -KILL -- "-$proxy_pid" 2>/dev/null
    if (( stopped )) && [[ -n ${LL_PID:-} ]]; then kill -CONT "$LL_PID" 2>/dev/null; fi
    if [[ -n $restarted_pid ]]; then LL_PID=$restarted_pid; fi
    if [[ -n ${LL_PID:-} ]]; then ll_stop_verified "$log" || status=1; fi
    if (( status != 0 )); then
        for f in "$work"/*.err "$work"/*.out; do [[ -s $f ]] && { echo "---- $f"; tail -n 20 "$f"; }; done
        [[ -s $log ]] && { echo "---- target log"; tail -n 30 "$log"; }
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'status=1; exit' INT TERM

# time and CPU samples without forking (bash builtins): on a loaded machine a fork can take
# a good part of a second, which would blur what is measured
elapsed() { echo "$EPOCHREALTIME - $1" | bc; }
# ticks=the bench's CPU time so far in clock ticks (user + system: fields 14 and 15 of
# /proc/PID/stat), -1 when it is gone; no command substitution (that forks)
cpu_ticks() {
    local f
    if read -r -a f 2>/dev/null <"/proc/$1/stat"; then ticks=$(( f[13] + f[14] )); else ticks=-1; fi
}

# start_target LUNSPEC...: lunlab-target on a free port with the given LUNs (LL_PID, LL_PORT)
start_target() {
    local args=() spec
    for spec in "$@"; do args+=(--lun "$spec"); done
    ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$handler_dir" --quiet "${extra_args[@]}" \
        "${args[@]}" || { fail "lunlab-target did not start"; exit; }
    url="iscsi://127.0.0.1:$LL_PORT/$iqn"
}

# start_api_target LUNSPEC...: start_target with the HTTPS API on a free port and one API user
# (admin, $api_pass); api=https://127.0.0.1:PORT, murl the /metrics.json base with the password
api_pass=lunlab-lost-test-secret
start_api_target() {
    local i
    api_port=$(ll_free_port)
    printf 'api admin %s\n' "$api_pass" >"$work/auth"
    chmod 600 "$work/auth"
    extra_args=(--api "127.0.0.1:$api_port" --auth-file "$work/auth")
    start_target "$@"
    api=https://127.0.0.1:$api_port
    murl=https://admin:$api_pass@127.0.0.1:$api_port
    for (( i = 0; i < 150; i++ )); do
        curl -sk -o /dev/null --max-time 2 "$api/metrics.json" && return
        sleep 0.2
    done
    fail "the API did not answer on $api"; exit
}

# restart_target LUNSPEC...: the same target again on the same port, fresh (memory-only)
restart_target() {
    local args=() spec
    for spec in "$@"; do args+=(--lun "$spec"); done
    "$bin" --listen "127.0.0.1:$LL_PORT" --iqn "$iqn" --handler-path "$handler_dir" --quiet "${extra_args[@]}" \
        "${args[@]}" >>"$log" 2>&1 &
    restarted_pid=$!
}

kill_target() {
    kill -KILL "$LL_PID"
    wait "$LL_PID" 2>/dev/null
    LL_PID=
}

# kill_target_nowait: SIGKILL and return at once (an instrumented target can take a second or
# more to be torn down; the bench's clock starts when its socket closes, not when we reap it)
kill_target_nowait() {
    killed_pid=$LL_PID
    kill -KILL "$LL_PID"
    LL_PID=
}

# run_bench NAME ARGS...: lunlab-bench in the background (bench_pid, started)
run_bench() {
    local name=$1
    shift
    "$bench" "$@" >"$work/$name.out" 2>"$work/$name.err" &
    bench_pid=$!
    started=$EPOCHREALTIME
}

# wait_sessions PORT N: until the bench holds N established TCP connections to PORT (its
# sessions), or has exited; no time limit: the case's own meson timeout is the hang guard
wait_sessions() {
    local port=$1 n=$2 c
    while kill -0 "$bench_pid" 2>/dev/null; do
        c=$(ss -Htnp state established "( dport = :$port )" 2>/dev/null | grep -c "pid=$bench_pid,")
        (( c >= n )) && return 0
        sleep 0.05
    done
}

# wait_readings FILE N: until FILE holds N JSON readings (watch --json), or the bench has exited
wait_readings() {
    while kill -0 "$bench_pid" 2>/dev/null; do
        (( $(jq -s length "$1" 2>/dev/null || echo 0) >= $2 )) && return 0
        sleep 0.1
    done
}

# wait_bench: wait for it; sets rc and took (seconds since it was started... or since $1)
wait_bench() {
    local from=${1:-$started}
    rc=0
    wait "$bench_pid" || rc=$?
    bench_pid=
    took=$(elapsed "$from")
}

# expect_lost NAME TIMEOUT FROM MAX: exit 3, within MAX s of FROM, one line on stderr matching
# the lost-connection message for $url
expect_one_line() {
    local name=$1 pattern=$2 lines
    lines=$(wc -l <"$work/$name.err")
    if (( lines != 1 )); then
        fail "$name: $lines lines on stderr, want exactly one"
        sed 's/^/    /' "$work/$name.err"
    elif grep -Eq -- "$pattern" "$work/$name.err"; then
        ok "$name: one line: $(cat "$work/$name.err")"
    else
        fail "$name: stderr does not match /$pattern/: $(cat "$work/$name.err")"
    fi
}

# expect_exit NAME WANT MIN: exit WANT, and not sooner than MIN s after the event (by
# construction: see "Noise" above; the 0.1 s is the shell's clock against the bench's)
expect_exit() {
    local name=$1 want=$2 min=$3
    (( rc == want )) && ok "$name: exit $rc" || fail "$name: exit $rc, want $want"
    if (( $(echo "$took >= $min - 0.1" | bc) )); then ok "$name: done $took s after the event (not before $min s)"
    else fail "$name: gave up $took s after the event, before $min s"; fi
}

# cpu_until_exit PID: sample the bench's CPU time every 0.2 s until it exits; over the span of
# the samples (at least 1 s) it must stay under 5 % of one core, plus two clock ticks of
# rounding (a spin on poll() takes ~100 %).  Sampling to the end rather than over a fixed
# window keeps the check valid on a loaded machine, where the forks of the sampling itself
# can take a good part of a second.
cpu_until_exit() {
    local pid=$1 c t c0= t0= c1= t1=
    while kill -0 "$pid" 2>/dev/null; do
        cpu_ticks "$pid"; c=$ticks; t=$EPOCHREALTIME
        if (( c >= 0 )); then
            [[ -z $c0 ]] && { c0=$c; t0=$t; }
            c1=$c; t1=$t
        fi
        sleep 0.2
    done
    if [[ -z $c0 ]] || (( $(echo "$t1 - $t0 < 1" | bc) )); then
        fail "CPU while waiting: the bench exited too soon to sample it (${t0:-never} .. ${t1:-never})"
        return
    fi
    local used allowed span
    used=$(( c1 - c0 ))
    span=$(echo "$t1 - $t0" | bc)
    allowed=$(echo "$span * $hz * 0.05 + 2" | bc | cut -d. -f1)
    if (( used <= allowed )); then ok "CPU while waiting: $used ticks in $span s (limit $allowed)"
    else fail "CPU while waiting: $used ticks of $hz/s in $span s: the client spins"; fi
}

T=3                      # --timeout of the give-up cases
lost_msg() {             # the one line of a session lost and not back
    echo "^lunlab-bench: ${url//./\\.}/0: connection lost \(.+\) and no session again within --timeout $T s \([0-9]+ login attempts?, the last: .+\)$"
}

# kill_running NAME SLEEP [SESSIONS]: the target dies SLEEP s after the bench started as NAME
# holds SESSIONS sessions (default 1; 0: do not wait for any) and stays dead: exit 3 after
# --timeout, no CPU spent waiting (1 when the bench ended before the kill)
kill_running() {
    local name=$1 delay=$2 sessions=${3:-1}
    (( sessions > 0 )) && wait_sessions "$LL_PORT" "$sessions"
    sleep "$delay"
    kill -0 "$bench_pid" 2>/dev/null ||
        { wait_bench; fail "$name finished (exit $rc) before the target was killed: make the case slower"; return 1; }
    local k=$EPOCHREALTIME
    kill_target_nowait
    # from 0.3 s after the kill until it gives up, the bench only waits for a login
    sleep 0.3
    cpu_until_exit "$bench_pid"
    wait_bench "$k"
    wait "$killed_pid" 2>/dev/null
    # the session was lost at the kill or later, and logging in is retried for T from then
    expect_exit "$name" 3 "$T"
}

# kill_case NAME SLEEP SESSIONS ARGS...: the target dies SLEEP s into the subcommand (after
# its first SESSIONS sessions are up) and stays dead
kill_case() {
    local name=$1 delay=$2 sessions=$3
    shift 3
    run_bench "$name" "$@" --timeout "$T" --quiet
    kill_running "$name" "$delay" "$sessions" || return
    expect_one_line "$name" "$(lost_msg)"
    [[ -s $work/$name.out ]] && fail "$name printed a report after losing the target: $(head -c 200 "$work/$name.out")"
}

case $case in
kill-info)
    # slow motion: every command of info takes ~0.3 s, so the kill lands in the middle of one
    start_target size=1G,model=x2,time_scale=20000
    kill_case info 1 1 info "$url/0"
    ;;
kill-scale)
    start_target size=1G,model=x2
    kill_case scale 1.5 4 scale "$url/0" --vms 4 --bs 1m --qd 2 --duration 30 --warmup 0
    ;;
kill-clone)
    start_target size=2G,model=x2,time_scale=1000
    kill_case clone 1.5 1 clone "$url/0" --template-size 16m --vms 20 --chunk 1m --no-template
    ;;
kill-drr)
    start_target size=1G,model=x2,time_scale=1000
    kill_case drr 1.5 1 drr "$url/0" --synthetic win10 --size 32m
    ;;
restart-info)
    spec=size=1G,model=x2,time_scale=20000
    start_target "$spec"
    run_bench info info "$url/0" --timeout 15 --json --quiet
    wait_sessions "$LL_PORT" 1
    sleep 1
    kill_target
    sleep 1
    restart_target "$spec"
    wait_bench
    (( rc == 0 )) && ok "info completed across the restart" || fail "info: exit $rc, want 0: $(cat "$work/info.err")"
    jq -e '.connection.reconnects == 1 and .connection.resent >= 1 and .connection.longest_outage_s >= 0.9 and
           .capacity_bytes == 1073741824 and .vendor == "LUNLAB"' "$work/info.out" >/dev/null &&
        ok "info: $(jq -c .connection "$work/info.out")" || fail "info JSON: $(jq -c '{connection, capacity_bytes, vendor}' "$work/info.out")"
    ;;
restart-scale)
    spec=size=1G,model=x2
    start_target "$spec"
    run_bench scale scale "$url/0" --vms 4 --bs 1m --qd 2 --duration 5 --warmup 0 --timeout 15 --json --quiet
    wait_sessions "$LL_PORT" 4
    sleep 1.5
    kill_target
    sleep 1
    restart_target "$spec"
    wait_bench
    (( rc == 0 )) && ok "scale completed across the restart" || fail "scale: exit $rc, want 0: $(cat "$work/scale.err")"
    # every VM's session was lost and logged in again once; every VM moved data
    jq -e '.runs[0].connection.reconnects == 4 and .runs[0].connection.resent >= 4 and
           .runs[0].connection.longest_outage_s >= 0.9 and .connection.reconnects == 4 and
           .runs[0].min_mbps > 0' "$work/scale.out" >/dev/null &&
        ok "scale: $(jq -c .runs[0].connection "$work/scale.out")" ||
        fail "scale JSON: $(jq -c '.runs[0]' "$work/scale.out")"
    ;;
restart-drr)
    spec=size=1G,model=x2,time_scale=1000
    start_target "$spec"
    run_bench drr drr "$url/0" --synthetic win10 --size 32m --timeout 15 --json --quiet
    wait_sessions "$LL_PORT" 1
    sleep 1.5
    kill_target
    sleep 1
    restart_target "$spec"
    wait_bench
    (( rc == 1 )) && ok "drr refused to report figures of a target that lost the image" || fail "drr: exit $rc, want 1"
    expect_one_line drr "^lunlab-bench: ${url//./\\.}/0: the session was lost and logged in again, and data the target had acknowledged reads back different at byte [0-9]+ \(LBA [0-9]+\): the target did not keep it"
    [[ -s $work/drr.out ]] && fail "drr printed figures: $(cat "$work/drr.out")"
    ;;
flap-drr|flap-clone|flap-calibrate)
    # bench -> socat on PPORT -> lunlab-target: killing the proxy cuts the path, the target keeps
    # its data; the proxy comes back on the same port
    if [[ $case == flap-drr ]]; then
        start_target size=1G,model=x2,time_scale=1000 size=1G,model=x2,time_scale=0,array=ref
    elif [[ $case == flap-calibrate ]]; then
        start_target size=1G,model=x2,time_scale=10
    else
        start_target size=2G,model=x2,time_scale=1000
    fi
    pport=$(ll_free_port)
    start_proxy() {
        setsid socat "TCP-LISTEN:$pport,bind=127.0.0.1,reuseaddr,fork" "TCP:127.0.0.1:$LL_PORT" \
            2>>"$work/socat.log" &
        proxy_pid=$!
        for _ in $(seq 50); do ss -Hltn "sport = :$pport" | grep -q . && return; sleep 0.1; done
        fail "socat did not listen on $pport"; exit
    }
    start_proxy
    purl="iscsi://127.0.0.1:$pport/$iqn"
    if [[ $case == flap-drr ]]; then
        run_bench drr drr "$purl/0" --synthetic win10 --size 32m --timeout 15 --json --quiet
    elif [[ $case == flap-calibrate ]]; then
        run_bench calibrate calibrate "$purl/0" --out "$work/cal.yaml" --dataloss --budget 20s \
            --capacity-use 128m --time-scale 10 --timeout 15 --json --quiet
    else
        run_bench clone clone "$purl/0" --template-size 16m --vms 4 --chunk 1m --verify --timeout 15 --json --quiet
    fi
    wait_sessions "$pport" 1
    sleep 1.5
    kill -0 "$bench_pid" 2>/dev/null || fail "$case: the run ended before the path was cut (make it slower)"
    kill -KILL -- "-$proxy_pid"; wait "$proxy_pid" 2>/dev/null; proxy_pid=
    sleep 1
    start_proxy
    wait_bench
    name=${case#flap-}
    (( rc == 0 )) && ok "$name completed across the lost path" || fail "$name: exit $rc, want 0: $(cat "$work/$name.err")"
    jq -e '.connection.reconnects >= 1 and .connection.longest_outage_s >= 0.9' "$work/$name.out" >/dev/null &&
        ok "$name: $(jq -c .connection "$work/$name.out")" || fail "$name: no re-login counted: $(jq -c .connection "$work/$name.out")"
    if [[ $case == flap-calibrate ]]; then
        # what it wrote is a profile lunlab-target serves
        LL_PID_SAVE=$LL_PID LL_PORT_SAVE=$LL_PORT
        if ll_start_lunlab "$bin" "$work/check.log" --iqn "$iqn:check" --handler-path "$handler_dir" --quiet \
            --lun "size=64M,profile=$work/cal.yaml"; then
            ok "the calibrated profile loads: $(jq -r .profile.name "$work/calibrate.out")"
            ll_stop_verified "$work/check.log" || fail "the check target did not stop cleanly"
        else
            fail "lunlab-target does not load the calibrated profile: $(tail -n 3 "$work/check.log")"
        fi
        LL_PID=$LL_PID_SAVE LL_PORT=$LL_PORT_SAVE
    elif [[ $case == flap-drr ]]; then
        # the same image on a second, uninterrupted array of the same target: the figures must
        # be exactly the same (writes resent after the loss rewrite the same content)
        "$bench" drr "$url/1" --synthetic win10 --size 32m --json --quiet >"$work/ref.out" 2>"$work/ref.err" ||
            fail "reference drr failed: $(cat "$work/ref.err")"
        for k in logical_bytes unique_bytes physical_bytes; do
            a=$(jq ".$k" "$work/drr.out"); b=$(jq ".$k" "$work/ref.out")
            [[ $a == "$b" && $a != 0 ]] && ok "drr $k $a equals the uninterrupted run's" || fail "drr $k $a, uninterrupted $b"
        done
        jq -e '.readback_bytes > 0 and .settled' "$work/drr.out" >/dev/null &&
            ok "drr read $(jq .readback_bytes "$work/drr.out") bytes back after the re-login" ||
            fail "drr did not check the data after the re-login: $(jq -c '{readback_bytes, settled}' "$work/drr.out")"
    else
        jq -e '.verified == true and .xcopy == true' "$work/clone.out" >/dev/null &&
            ok "clone: every copy verified" || fail "clone: $(jq -c '{verified, xcopy, fallback_reason}' "$work/clone.out")"
    fi
    ;;
hang)
    start_target size=1G,model=x2
    run_bench scale scale "$url/0" --vms 2 --bs 1m --qd 2 --duration 60 --warmup 0 --timeout "$T" --quiet
    wait_sessions "$LL_PORT" 2
    sleep 1.5
    kill -STOP "$LL_PID"; stopped=1
    k=$EPOCHREALTIME
    # T (the command) + T (its ABORT TASK) + T (a login nobody answers); the command may
    # have been sent before the stop, so from the stop on at least the last two
    sleep 1
    cpu_until_exit "$bench_pid"
    wait_bench "$k"
    expect_exit scale 3 "$(echo "2 * $T" | bc)"
    expect_one_line scale "^lunlab-bench: ${url//./\\.}/0: connection lost \((READ|WRITE)\(16\) at LBA [0-9]+ got no answer within --timeout $T s, nor did its ABORT TASK\) and no session again within --timeout $T s \(1 login attempt, the last: no answer to the login in [0-9.]+ s\)$"
    kill -CONT "$LL_PID"; stopped=0
    ;;
refused)
    port=$(ll_free_port)
    url="iscsi://127.0.0.1:$port/$iqn"
    run_bench info info "$url/0" --timeout "$T"
    sleep 0.2
    cpu_until_exit "$bench_pid"
    wait_bench
    expect_exit info 3 "$T"
    expect_one_line info "^lunlab-bench: ${url//./\\.}/0: no session within --timeout $T s \([0-9]+ login attempts, the last: connection failed: Connection refused\(111\).*\)$"
    ;;
not-found)
    start_target size=64M
    run_bench info info "iscsi://127.0.0.1:$LL_PORT/iqn.2026-11.org.lunlab:nobody/0" --timeout 20
    wait_bench
    # a login refusal that retrying cannot fix (status class 2) ends the run at once: the
    # message says so ("login refused", not "no session within --timeout" after retries);
    # conn_policy's finality rule: test_conn_policy.c, one refusal counted: test_conn.c
    (( rc == 3 )) && ok "info: exit $rc" || fail "info: exit $rc, want 3"
    expect_one_line info "^lunlab-bench: iscsi://127\.0\.0\.1:$LL_PORT/iqn\.2026-11\.org\.lunlab:nobody/0: login refused: .*\(515\)$"
    ;;
kill-watch)
    start_api_target size=64M
    run_bench watch watch "$murl" --metrics-insecure --interval 0.5 --timeout "$T" --json
    wait_readings "$work/watch.out" 2
    kill_running watch 0 0 || exit
    expect_one_line watch "^lunlab-bench: https://admin@127\.0\.0\.1:$api_port/metrics\.json: connection lost \(.+\) and no answer again within --timeout $T s \([0-9]+ attempts?, the last: .+\)$"
    n=$(jq -s length "$work/watch.out" 2>/dev/null || echo 0)
    (( n >= 2 )) && ok "watch printed $n readings before the target died" || fail "watch printed $n readings"
    ;;
restart-watch)
    start_api_target size=64M
    run_bench watch watch "$murl" --metrics-insecure --interval 0.5 --count 10 --timeout 15 --json
    wait_readings "$work/watch.out" 2
    kill_target
    sleep 1
    restart_target size=64M
    wait_bench
    (( rc == 0 )) && ok "watch went on across the restart" || fail "watch: exit $rc, want 0: $(cat "$work/watch.err")"
    n=$(jq -s length "$work/watch.out" 2>/dev/null || echo 0)
    (( n == 10 )) && ok "watch printed all 10 readings" || fail "watch printed $n readings, want 10"
    [[ -s $work/watch.err ]] && fail "watch wrote to stderr: $(cat "$work/watch.err")"
    ;;
kill-metrics)
    start_api_target size=1G,model=x2
    kill_case scale 1.5 4 scale "$url/0" --vms 4 --bs 1m --qd 2 --duration 30 --warmup 0 \
        --metrics-url "$murl" --metrics-insecure
    ;;
kill-snapclone)
    start_api_target size=64M
    A=(curl -sk -u "admin:$api_pass")
    U=$api/api/json/v2/types
    "${A[@]}" -X POST -d '{"vol-name":"tmpl","vol-size":"64m"}' "$U/volumes" >/dev/null
    "${A[@]}" -X POST -d '{"ig-name":"bench"}' "$U/initiator-groups" >/dev/null
    "${A[@]}" -X POST -d '{"ig-id":"bench","port-address":"iqn.2026-11.org.lunlab:bench"}' "$U/initiators" >/dev/null
    href=$("${A[@]}" -X POST -d '{"vol-id":"tmpl","ig-id":"bench"}' "$U/lun-maps" | jq -r '.links[0].href')
    lun=$("${A[@]}" "$href" | jq -r .content.lun)
    [[ $lun =~ ^[0-9]+$ ]] || { fail "mapping the template volume: no LUN ($lun)"; exit; }
    # the clones are made back to back through the API; the kill lands among them
    LUNLAB_API_PASSWORD=$api_pass run_bench snapclone clone "$url/$lun" --mode snapshot --api "$api" \
        --api-insecure --vms 100000 --template-size 1m --no-template --timeout "$T" --quiet
    # its clones are API calls (no iSCSI session to wait for); the pattern below takes either
    # side of a request the kill lands in
    kill_running snapclone 1.5 0 || exit
    expect_one_line snapclone "^lunlab-bench: (POST|GET) $api/api/json/v2/types/snapshot[-a-z]*(\?[^ ]*)?: connection lost \(.+\) (and no answer again within --timeout $T s \([0-9]+ attempts?, the last: .+\)|after the request was sent; not sent twice)$"
    [[ -s $work/snapclone.out ]] && fail "snapclone printed a report: $(head -c 200 "$work/snapclone.out")"
    ;;
kill-calibrate)
    start_target size=1G,model=x2,time_scale=10
    # its identification session and its pool of 8 (docs/calibrate.md) up before the delay
    kill_case calibrate 2 9 calibrate "$url/0" --out "$work/cal.yaml" --dataloss --budget 60s --capacity-use 128m \
        --time-scale 10
    ;;
*)
    echo "unknown case '$case'"; status=2 ;;
esac
