#!/bin/bash
# crash.sh TARGET_BIN HANDLER_DIR CRASH_CLIENT [KILLS]
#
# The crash test (docs/persistence.md "The crash test"): lunlab-target with --state-dir and two
# LUNs of one array, crash_client writing tagged data to both (WRITE with and without FUA,
# SYNCHRONIZE CACHE, UNMAP, WRITE SAME, COMPARE AND WRITE, EXTENDED COPY), and KILLS times
# (default 30): a random pause, SIGKILL of the target, lunlab-target --check-state on the state
# directory (must say consistent), a restart on the same port, and the client's verification of
# every block after it ("verified K" in its status file).  At the end the client stops, the target
# gets SIGTERM and must exit 0, and the state is checked once more.
# CRASH_SEED (default: random) makes a run repeatable; CRASH_THREADS (4), CRASH_BLOCKS (128);
# CRASH_CHUNKS=1: the client copies whole 4 MiB map chunks too (shared maps; CRASH_BLOCKS 512).
# The target runs with LUNLAB_ARRAY_STATE_CHECK=1 (unless the caller set it): every commit also
# checks that no volume record changed without its mark (docs/persistence.md); a commit refused so
# fails the client's syncs, and a line of it in the target's log fails the test.
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail
export LUNLAB_ARRAY_STATE_CHECK=${LUNLAB_ARRAY_STATE_CHECK:-1}

if (( $# < 3 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR CRASH_CLIENT [KILLS]" >&2
    exit 2
fi
bin=$1 handler_dir=$2 client=$3 kills=${4:-30}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
[[ -n $bin && -x $bin ]] || { echo "SKIP: lunlab-target is not part of this build"; exit 77; }

seed=${CRASH_SEED:-$RANDOM$RANDOM}
iqn=iqn.2026-11.org.lunlab:crash
work=$(mktemp -d /tmp/lunlab-crash.XXXXXX)
state=$work/state
log=$work/target.log
status=0 tpid= cpid=

finish() {
    [[ -n $cpid ]] && kill -TERM "$cpid" 2>/dev/null && wait "$cpid" 2>/dev/null
    [[ -n $tpid ]] && kill -KILL "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
    if (( status != 0 )); then
        echo "---- last lines of the target log ($log) ----"
        tail -n 30 "$log"
        echo "---- client log ----"
        tail -n 30 "$work/client.log"
        echo "(work directory kept: $work; seed $seed)"
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap finish EXIT
trap 'status=1; exit' INT TERM

fail() { echo "FAIL: $*"; status=1; exit; }

# the target on $port (fixed across restarts: the client reconnects to it)
start_target() {
    "$bin" --listen "127.0.0.1:$port" --iqn "$iqn" --handler-path "$handler_dir" --state-dir "$state" \
        --lun size=64M,array=crash,serial=crash0 --lun size=64M,array=crash,serial=crash1 \
        --quiet >>"$log" 2>&1 &
    tpid=$!
    ll_wait_iscsi "$port" "$tpid" 60
}

# wait until the client's status file says it verified restart $1, or the client is gone: no
# 120 s limit of our own (a loaded machine's verification after a restart only takes longer;
# meson's timeout is the hang guard)
wait_verified() {
    while :; do
        grep -qx "verified $1" "$work/status" 2>/dev/null && return 0
        kill -0 "$cpid" 2>/dev/null || return 1
        sleep 0.05
    done
}

for attempt in 1 2 3 4 5; do
    port=$(ll_free_port) || fail "no free port"
    start_target && break
    kill -KILL "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null; tpid=
done
[[ -n $tpid ]] || fail "lunlab-target did not start"
: >"$work/status"
# (the sanitizer build: libiscsi's own leak on a failed connect is not the client's; libiscsi has
# no frame pointers, so the slow unwinder finds the function to suppress)
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan.supp" \
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" \
"$client" --port "$port" --iqn "$iqn" --status "$work/status" --seed "$seed" \
    --threads "${CRASH_THREADS:-4}" --blocks "${CRASH_BLOCKS:-128}" ${CRASH_CHUNKS:+--chunk-copies} \
    >"$work/client.log" 2>&1 &
cpid=$!
wait_verified 0 || fail "the client did not start (seed $seed)"
echo "crash test: $kills kills, seed $seed, state $state"

t0=$SECONDS
for (( k = 1; k <= kills; k++ )); do
    # a random moment: 0.1 .. 1.2 s of the client's commands
    sleep "$(printf '0.%03d' $(( 100 + RANDOM % 900 )))"
    (( RANDOM % 4 == 0 )) && sleep 0.3
    kill -KILL "$tpid" 2>/dev/null
    wait "$tpid" 2>/dev/null
    tpid=
    out=$("$bin" --check-state "$state" --handler-path "$handler_dir" 2>&1) ||
        fail "kill $k: --check-state: $out"
    start_target || fail "kill $k: the target did not restart"
    wait_verified "$k" || fail "kill $k: the client did not verify the restart (seed $seed)"
done
echo "crash test: $kills kills, each followed by --check-state and a verification, in $(( SECONDS - t0 )) s"

kill -TERM "$cpid"
wait "$cpid"
crc=$?
cpid=
tail -n 1 "$work/client.log"
grep -q "^crash-client: ERROR" "$work/client.log" && { grep "^crash-client: ERROR" "$work/client.log" | head -20; }
(( crc == 0 )) || fail "the client found errors (seed $seed)"
kill -TERM "$tpid"
wait "$tpid"
trc=$?
tpid=
(( trc == 0 )) || fail "lunlab-target exited $trc on SIGTERM"
out=$("$bin" --check-state "$state" --handler-path "$handler_dir" 2>&1) || fail "final --check-state: $out"
! grep -m 3 "without a mark" "$log" || fail "a volume record changed without its mark (LUNLAB_ARRAY_STATE_CHECK)"
echo "$out" | tail -n 2
echo "PASS: crash test ($kills kills)"
