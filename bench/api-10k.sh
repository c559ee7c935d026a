#!/bin/bash
# bench/api-10k.sh [BUILD]: issue 21's 10,000-volume figures in one command.  Starts BUILD's
# (default build) lunlab-target with the API on 127.0.0.1 (tests/api/run-api-target.sh),
# creates VOLUMES (10000) 1 GiB volumes through POST volumes (4 API clients), times ROUNDS (7)
# GET /api/json/v2/types/volumes?full=1 (goal: under 1 s) with bench/api_list.py, then reports
# the target's threads and resident memory at that count, and how long it takes to stop
# (SIGTERM to exit; the target's log judged as the tests do).  The machine's load average is
# printed before and after: the figures mean something only on a quiet machine.
# A measurement, not a test: it fails only when the target does (docs/api.md "Benchmarks").
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
export VOLUMES=${VOLUMES:-10000} ROUNDS=${ROUNDS:-7}
source tests/api/run-api-target.sh
work=$(mktemp -d /tmp/lunlab-api-10k.XXXXXX)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(git rev-parse --short HEAD 2>/dev/null)"
api_start "$build/target/lunlab-target" "$build/handlers" "$work" --quiet || exit 1
trap '[[ -n ${LL_PID:-} ]] && ll_stop_lunlab; rm -rf "$work"' EXIT
LUNLAB_PID=$LL_PID LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD /usr/bin/python3 bench/api_list.py
rc=$?
status=/proc/$LL_PID/status
echo "target at $VOLUMES volumes: $(awk '/^Threads/ {print $2}' "$status") threads," \
     "resident $(awk '/^VmRSS/ {print $2, $3}' "$status")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# the stop, timed: SIGTERM until the process is gone (no 30 s limit as in ll_stop_lunlab)
t0=$(date +%s.%N)
kill -TERM "$LL_PID"
stop_rc=0
wait "$LL_PID" || stop_rc=$?
t1=$(date +%s.%N)
pid=$LL_PID
LL_PID=
echo "shutdown: $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') s from SIGTERM to exit (pid $pid, exit status $stop_rc)"
if ! ll_stop_verified "$API_LOG" >/dev/null || (( stop_rc != 0 )); then
    echo "FAIL: the target did not stop cleanly; its log (kept): $API_LOG"
    tail -n 20 "$API_LOG"
    trap - EXIT
    exit 1
fi
exit $rc
