#!/bin/bash
# bench/api-lookup-cost.sh [BUILD]: the target's CPU per GET volumes?name= and volumes/INDEX at
# 3,000 volumes, and with IGS=500 per full listing of 500 initiator groups of INITS (4)
# initiators (bench/api_lookup_cost.py; VOLUMES, SAMPLE, CLIENTS, LISTINGS as it says).  Starts
# BUILD's (default build) lunlab-target with the API on 127.0.0.1 (no state directory)
# and stops it (its log judged as the tests do).  A measurement, not a test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
source tests/api/run-api-target.sh
work=$(mktemp -d /tmp/lunlab-api-lookup-cost.XXXXXX)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(git rev-parse --short HEAD 2>/dev/null)"
api_start "$build/target/lunlab-target" "$build/handlers" "$work" --quiet || exit 1
trap '[[ -n ${LL_PID:-} ]] && ll_stop_lunlab; rm -rf "$work"' EXIT
LUNLAB_PID=$LL_PID LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD \
    /usr/bin/python3 bench/api_lookup_cost.py
rc=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
api_stop || rc=1
LL_PID=
exit $rc
