#!/bin/bash
# bench/api-poll-cost.sh [BUILD]: the target's CPU per request for each GET the pollers of
# bench/api-pollers.sh make, at VOLUMES (100) volumes, with no I/O (bench/api_poll_cost.py;
# ROUNDS, N, EVENTS as it says).  Starts BUILD's (default build) lunlab-target with the API on
# 127.0.0.1 and stops it (its log judged as the tests do).  A measurement, not a test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
nvol=${VOLUMES:-100}
# shellcheck source=tests/api/run-api-target.sh
source tests/api/run-api-target.sh
work=$(mktemp -d /tmp/lunlab-api-poll-cost.XXXXXX)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(git rev-parse --short HEAD 2>/dev/null)"
api_start "$build/target/lunlab-target" "$build/handlers" "$work" --quiet --lun size=1G,model=unlimited || exit 1
trap '[[ -n ${LL_PID:-} ]] && ll_stop_lunlab; rm -rf "$work"' EXIT
for (( i = 0; i < nvol; i++ )); do
    curl -sk -u "$API_USER:$API_PASSWORD" -o /dev/null -w '%{http_code}\n' \
        -d "{\"vol-name\": \"poll-$i\", \"vol-size\": \"1g\"}" "https://$API/api/json/v2/types/volumes"
done | sort | uniq -c | sed 's/^/POST volumes: /'
LUNLAB_PID=$LL_PID LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD \
    /usr/bin/python3 bench/api_poll_cost.py
rc=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
api_stop || rc=1
LL_PID=
exit $rc
