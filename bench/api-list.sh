#!/bin/bash
# bench/api-list.sh BUILD: the 10,000-volume listing of issue 21 (GET volumes?full=1 under 1 s).
# Starts BUILD's lunlab-target with the API on 127.0.0.1 (tests/api/run-api-target.sh), creates
# VOLUMES (counts, "1000,2500,5000,10000") 1 GiB volumes through POST volumes (the only way in: the API has no bulk or
# admin path for volumes), timing ROUNDS (7) listings at each count; bench/api_list.py prints the
# figures.  bench/api-10k.sh: the same at 10,000 volumes, with threads, memory and shutdown time.
# Not a test: a measurement (docs/api.md "Benchmarks").
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: bench/api-list.sh BUILD}
source tests/api/run-api-target.sh
work=$(mktemp -d /tmp/lunlab-api-list.XXXXXX)
api_start "$build/target/lunlab-target" "$build/handlers" "$work" || exit 1
trap 'api_stop; rm -rf "$work"' EXIT
LUNLAB_PID=$LL_PID LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD /usr/bin/python3 bench/api_list.py
rc=$?
echo "target: pid $LL_PID, resident $(awk '/VmRSS/ {print $2, $3}' /proc/"$LL_PID"/status)"
exit $rc
