#!/bin/bash
# bench/api-post-cost.sh [BUILD]: the target's CPU per POST volumes at 1,000 and 5,000 volumes
# with --state-dir (bench/api_post_cost.py; VOLUMES, SAMPLE, CLIENTS as it says).  Starts
# BUILD's (default build) lunlab-target with the API on 127.0.0.1 and a scratch state
# directory, and stops it (its log judged as the tests do).  A measurement, not a test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
source tests/api/run-api-target.sh
work=$(mktemp -d /tmp/lunlab-api-post-cost.XXXXXX)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(git rev-parse --short HEAD 2>/dev/null)"
mkdir -p "$work/state"
api_start "$build/target/lunlab-target" "$build/handlers" "$work" --quiet --state-dir "$work/state" || exit 1
trap '[[ -n ${LL_PID:-} ]] && ll_stop_lunlab; rm -rf "$work"' EXIT
LUNLAB_PID=$LL_PID LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD \
    /usr/bin/python3 bench/api_post_cost.py
rc=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
api_stop || rc=1
LL_PID=
exit $rc
