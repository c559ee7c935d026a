# shellcheck shell=bash
# Start and stop the iSCSI targets that lunlab's scripts test against: lunlab-target
# and Debian's tgtd (the peer in benchmarks and the parser check of the conformance runner).
# Sourced by ci/test.sh, ci/demo.sh, tests/integration/run-target.sh and bench/speed.sh.
# Every function acts only on the process it started itself (by pid), never by name.

# A TCP port on 127.0.0.1 that no socket uses right now (listening or connected).  Random
# rather than fixed so that several runs (and several people on one machine) do not collide;
# the caller still retries when another process wins the race for the port.  Drawn from below
# the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 on Debian): a port
# in that range can be taken at any moment as the local end of some test's outgoing
# connection, and a bind to it then fails (under a loaded ASan run of integration-api beside
# integration-faults, every retry of fault_run.sh's second portal did).
ll_free_port() {
    local port tries=0 lo=10000 hi=32767 eph_lo
    read -r eph_lo _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || eph_lo=32768
    (( eph_lo - 1 - lo >= 2000 )) && hi=$(( eph_lo - 1 ))
    while (( tries++ < 200 )); do
        port=$(( lo + RANDOM % (hi - lo + 1) ))
        if ! ss -Htan "sport = :$port" 2>/dev/null | grep -q .; then
            echo "$port"
            return 0
        fi
    done
    echo "ll_free_port: no free port found" >&2
    return 1
}

# Wait until an iSCSI target on 127.0.0.1:$1 answers a discovery login (iscsi-ls), while the
# process $2 is still alive.  A listening socket alone is not enough: the scripts that follow
# need the login path to work.
ll_wait_iscsi() {
    local port=$1 pid=$2 deadline=$(( SECONDS + ${3:-60} ))
    while (( SECONDS < deadline )); do
        if ! kill -0 "$pid" 2>/dev/null; then
            return 2
        fi
        if timeout 10 iscsi-ls "iscsi://127.0.0.1:$port" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.2
    done
    return 1
}

# ll_start_lunlab BIN LOG [lunlab-target args after --listen ...]
# Sets LL_PID and LL_PORT.  Retries on a new port when the target dies at start (e.g. the port
# was taken between ll_free_port and bind).  A target that listens on more ports writes @PORT2@
# and @PORT3@ in its arguments (e.g. --listen 127.0.0.1:@PORT2@,tpg=2 --api 127.0.0.1:@PORT3@):
# each attempt draws them anew too (a port lost to a race is not tried five times) and sets
# LL_PORT2 / LL_PORT3 to the ones that worked.
ll_start_lunlab() {
    local bin=$1 log=$2 attempt rc a args
    shift 2
    for attempt in 1 2 3 4 5; do
        LL_PORT=$(ll_free_port) || return 1
        LL_PORT2=$(ll_free_port) || return 1
        LL_PORT3=$(ll_free_port) || return 1
        # three draws from ~22,000 ports may meet; draw again until they differ
        while [[ $LL_PORT2 == "$LL_PORT" ]]; do LL_PORT2=$(ll_free_port) || return 1; done
        while [[ $LL_PORT3 == "$LL_PORT" || $LL_PORT3 == "$LL_PORT2" ]]; do LL_PORT3=$(ll_free_port) || return 1; done
        args=()
        for a in "$@"; do
            a=${a//@PORT2@/$LL_PORT2}
            args+=("${a//@PORT3@/$LL_PORT3}")
        done
        "$bin" --listen "127.0.0.1:$LL_PORT" "${args[@]}" >>"$log" 2>&1 &
        LL_PID=$!
        rc=0
        ll_wait_iscsi "$LL_PORT" "$LL_PID" "${LL_START_TIMEOUT:-60}" || rc=$?
        if (( rc == 0 )); then
            return 0
        fi
        if (( rc == 1 )); then
            echo "lunlab-target (pid $LL_PID) did not answer on 127.0.0.1:$LL_PORT; log $log:" >&2
            tail -n 30 "$log" >&2
            kill -TERM "$LL_PID" 2>/dev/null; wait "$LL_PID" 2>/dev/null
            return 1
        fi
        wait "$LL_PID" 2>/dev/null
        echo "lunlab-target exited at start on port $LL_PORT (attempt $attempt); retrying" >&2
    done
    echo "lunlab-target would not start; log $log:" >&2
    tail -n 30 "$log" >&2
    return 1
}

# Stop the lunlab-target we started with SIGTERM and return its exit status (0 = clean shutdown).
# A target that ignores SIGTERM for 30 s is killed and reported as a failure (status 124).
ll_stop_lunlab() {
    local pid=${1:-$LL_PID} i rc
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for (( i = 0; i < 300; i++ )); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "lunlab-target (pid $pid) ignored SIGTERM for 30 s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        return 124
    fi
    rc=0
    wait "$pid" 2>/dev/null || rc=$?
    return "$rc"
}

# ll_stop_verified LOG: stop $LL_PID (if any) and judge the shutdown for a test script: the
# target must exit 0 on SIGTERM and its LOG must hold no sanitizer or valgrind report.  Prints
# one FAIL line per problem (and the report); returns 1 on any, 0 on a clean stop.  Clears LL_PID.
ll_stop_verified() {
    local log=$1 rc=0 bad=0
    local report='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|definitely lost: [1-9]|Invalid (read|write)'
    if [[ -n ${LL_PID:-} ]]; then
        ll_stop_lunlab "$LL_PID" || rc=$?
        LL_PID=
        if (( rc != 0 )); then
            echo "FAIL: lunlab-target exited with status $rc after SIGTERM (want 0; a sanitizer report makes it non-zero)"
            bad=1
        else
            echo "lunlab-target stopped cleanly (exit 0)"
        fi
    fi
    if grep -Eq "$report" "$log" 2>/dev/null; then
        echo "FAIL: sanitizer / valgrind report in the target log:"
        grep -E -A30 "$report" "$log" | head -n 80
        bad=1
    fi
    return "$bad"
}

# ll_test_scratch NAME BIN: the start of an integration script that runs lunlab-target BIN.
# Exits 77 (meson's "skipped") when BIN is empty (no lunlab-target in this build).  Else sets
# work (a new /tmp/lunlab-NAME.XXXXXX), log ($work/target.log, for ll_start_lunlab) and status=0,
# and traps EXIT to ll_test_finish (INT/TERM: status 1).  The script sets status=1 on a failure.
ll_test_scratch() {
    if [[ -z $2 ]]; then
        echo "SKIP: lunlab-target is not part of this build"
        exit 77
    fi
    work=$(mktemp -d "/tmp/lunlab-$1.XXXXXX")
    log=$work/target.log
    status=0
    trap ll_test_finish EXIT
    trap 'status=1; exit' INT TERM
}

# The EXIT trap of ll_test_scratch: stop the target (a dirty stop or a sanitizer report fails
# the test, ll_stop_verified), then on failure show the log's tail and keep $work for a look,
# on success remove it; exit with $status.
ll_test_finish() {
    ll_stop_verified "$log" || status=1
    if (( status != 0 )); then
        echo "---- last lines of the target log ($log) ----"
        tail -n 60 "$log"
    else
        rm -rf "$work"
    fi
    exit "$status"
}

# ll_expect_log LABEL ERE: an "ok:" line when a line of $log matches ERE, else a "FAIL:" line
# and status=1.
ll_expect_log() {
    if grep -Eq -- "$2" "$log"; then echo "ok: log: $1"; else echo "FAIL: log: $1 (no line matches /$2/)"; status=1; fi
}

# ll_start_tgt BACKING_FILE IQN LOG
# Starts Debian's tgtd in the foreground on a free port with its own control port (so it never
# touches another tgtd's management socket), one target, LUN 1 = BACKING_FILE.
# Sets TGT_PID, TGT_PORT, TGT_CP.  Needs root (tgtd's management socket lives in /var/run).
ll_start_tgt() {
    local file=$1 iqn=$2 log=$3 attempt rc
    for attempt in 1 2 3 4 5; do
        TGT_PORT=$(ll_free_port) || return 1
        TGT_CP=$(( 100 + RANDOM % 9000 ))
        if [[ -e /var/run/tgtd/socket.$TGT_CP ]]; then
            continue
        fi
        tgtd -f -C "$TGT_CP" --iscsi "portal=127.0.0.1:$TGT_PORT" >>"$log" 2>&1 &
        TGT_PID=$!
        # the management socket appears a moment after start
        for (( i = 0; i < 100; i++ )); do
            tgtadm -C "$TGT_CP" --mode system --op show >/dev/null 2>&1 && break
            kill -0 "$TGT_PID" 2>/dev/null || break
            sleep 0.1
        done
        if ! kill -0 "$TGT_PID" 2>/dev/null; then
            wait "$TGT_PID" 2>/dev/null
            echo "tgtd exited at start (attempt $attempt); retrying" >&2
            continue
        fi
        tgtadm -C "$TGT_CP" --lld iscsi --mode target --op new --tid 1 --targetname "$iqn" &&
        tgtadm -C "$TGT_CP" --lld iscsi --mode logicalunit --op new --tid 1 --lun 1 \
            --backing-store "$file" &&
        tgtadm -C "$TGT_CP" --lld iscsi --mode target --op bind --tid 1 -I ALL || {
            echo "tgtadm setup failed; log $log" >&2; ll_stop_tgt; return 1; }
        rc=0
        ll_wait_iscsi "$TGT_PORT" "$TGT_PID" 30 || rc=$?
        if (( rc == 0 )); then
            return 0
        fi
        ll_stop_tgt
        echo "tgtd did not answer on port $TGT_PORT (attempt $attempt); retrying" >&2
    done
    return 1
}

# tgtd ignores SIGTERM: it is stopped through its management socket.  "system delete" is
# refused ("invalid request") while a target exists, so the target goes first (--force: even
# with sessions logged in).  SIGKILL only if tgtd is still there 10 s later.
ll_stop_tgt() {
    local i
    [[ -n ${TGT_PID:-} ]] || return 0
    tgtadm -C "$TGT_CP" --lld iscsi --mode target --op delete --force --tid 1 >/dev/null 2>&1 || true
    tgtadm -C "$TGT_CP" --mode system --op delete >/dev/null 2>&1 || true
    for (( i = 0; i < 100; i++ )); do
        kill -0 "$TGT_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$TGT_PID" 2>/dev/null; then
        echo "tgtd (pid $TGT_PID) did not stop through tgtadm; killing it" >&2
        kill -KILL "$TGT_PID" 2>/dev/null
    fi
    wait "$TGT_PID" 2>/dev/null || true
    TGT_PID=
}
