#!/bin/bash
# bench/api-lookup-cost.sh [BUILD]: the target's CPU per GET volumes?name= and volumes/INDEX at
# 3,000 volumes, and with IGS=500 per full listing of 500 initiator groups of INITS (4)
# initiators (bench/api_lookup_cost.py; VOLUMES, SAMPLE, CLIENTS, LISTINGS as it says).  Starts
# BUILD's (default build) lunlab-target with the API on 127.0.0.1 (no state directory)
# and stops it (its log judged as the tests do).  A measurement, not a test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
# shellcheck source=tests/api/run-api-target.sh
source tests/api/run-api-target.sh
api_bench_start "$build" api-lookup-cost
api_bench_run bench/api_lookup_cost.py
