#!/bin/bash
# bench/api-post-cost.sh [BUILD]: the target's CPU per POST volumes at 1,000 and 5,000 volumes
# with --state-dir (bench/api_post_cost.py; VOLUMES, SAMPLE, CLIENTS as it says).  Starts
# BUILD's (default build) lunlab-target with the API on 127.0.0.1 and a scratch state
# directory, and stops it (its log judged as the tests do).  A measurement, not a test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
# shellcheck source=tests/api/run-api-target.sh
source tests/api/run-api-target.sh
API_BENCH_STATE=1 api_bench_start "$build" api-post-cost
api_bench_run bench/api_post_cost.py
