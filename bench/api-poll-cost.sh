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
api_bench_start "$build" api-poll-cost --lun size=1G,model=unlimited
for (( i = 0; i < nvol; i++ )); do
    curl -sk -u "$API_USER:$API_PASSWORD" -o /dev/null -w '%{http_code}\n' \
        -d "{\"vol-name\": \"poll-$i\", \"vol-size\": \"1g\"}" "https://$API/api/json/v2/types/volumes"
done | sort | uniq -c | sed 's/^/POST volumes: /'
api_bench_run bench/api_poll_cost.py
