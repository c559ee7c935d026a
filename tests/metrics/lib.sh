# shellcheck shell=bash
# Shared by the metrics tests (tests/metrics/prometheus.sh, tests/browser/run-dashboard.sh,
# tests/metrics/learn-offload.sh): a lunlab-target with its HTTPS API on free ports of
# 127.0.0.1, started and stopped by pid (ci/lib/target-ctl.sh).
# shellcheck source=../../ci/lib/target-ctl.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../ci/lib/target-ctl.sh"

# mt_auth_file DIR: an auth file with one API user (mode 0600, as lunlab-target requires);
# prints its path.  User "metrics", password in $MT_API_PASS.
MT_API_PASS=lunlab-metrics-test-secret
mt_auth_file() {
    local f=$1/auth
    printf 'api metrics %s\n' "$MT_API_PASS" >"$f"
    chmod 600 "$f"
    echo "$f"
}

# mt_start BIN LOG AUTH [more lunlab-target args]: lunlab-target with --api on a free port;
# sets LL_PID, LL_PORT (iSCSI) and MT_API_PORT, MT_BASE (https://127.0.0.1:PORT).
mt_start() {
    local bin=$1 log=$2 auth=$3 attempt
    shift 3
    for attempt in 1 2 3; do
        MT_API_PORT=$(ll_free_port) || return 1
        if ll_start_lunlab "$bin" "$log" --api "127.0.0.1:$MT_API_PORT" --auth-file "$auth" "$@"; then
            MT_BASE="https://127.0.0.1:$MT_API_PORT"
            mt_wait_http "$MT_BASE/dashboard/dashboard.css" && return 0
            ll_stop_lunlab "$LL_PID"
        fi
        echo "lunlab-target with --api did not come up (attempt $attempt)" >&2
    done
    return 1
}

# mt_wait_http URL: until the URL answers at all (any HTTP status), 30 s at most
mt_wait_http() {
    local i
    for (( i = 0; i < 150; i++ )); do
        curl -sk -o /dev/null --max-time 2 "$1" && return 0
        sleep 0.2
    done
    return 1
}

# mt_metric NAME LABEL_SUBSTRING: the sum of the /metrics series of NAME whose labels contain
# LABEL_SUBSTRING (exact lines: name{labels} value)
mt_metric() {
    curl -sk --max-time 10 "$MT_BASE/metrics" |
        awk -v n="$1" -v l="$2" 'index($0, n "{") == 1 && index($0, l) { s += $NF } END { printf "%.0f\n", s }'
}
