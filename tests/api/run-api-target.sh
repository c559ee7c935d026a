# shellcheck shell=bash
# Sourced by the API's integration scripts (tests/api/*.sh): start lunlab-target with the
# HTTPS management API on 127.0.0.1, a free iSCSI port and API port 0 (the kernel picks; the
# target's log line "api: https://127.0.0.1:PORT/..." says which), an auth file with an API
# user, and stop it again, judging the shutdown (exit 0, no sanitizer report).
#
# api_start BIN HANDLER_DIR WORKDIR [more lunlab-target args]
#   sets API (127.0.0.1:PORT), API_USER, API_PASSWORD, PORTAL (127.0.0.1:PORT), IQN, LL_PID
# api_stop: 0 on a clean stop
here_api=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here_api/../../ci/lib/target-ctl.sh"

api_start() {
    local bin=$1 handlers=$2 dir=$3 i
    shift 3
    IQN=iqn.2026-11.org.lunlab:api-test
    API_USER=admin
    API_PASSWORD=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
    API_LOG=$dir/target.log
    umask 077
    printf 'api %s %s\n' "$API_USER" "$API_PASSWORD" > "$dir/auth"
    ll_start_lunlab "$bin" "$API_LOG" --iqn "$IQN" --handler-path "$handlers" \
        --auth-file "$dir/auth" --api 127.0.0.1:0 "$@" || return 1
    PORTAL=127.0.0.1:$LL_PORT
    # until it is logged or the target exits (no 10 s limit of our own)
    API=
    while kill -0 "$LL_PID" 2>/dev/null; do
        API=$(grep -o 'api: https://127\.0\.0\.1:[0-9]*' "$API_LOG" | head -n 1 | sed 's|api: https://||')
        [[ -n $API ]] && break
        sleep 0.1
    done
    if [[ -z $API ]]; then
        echo "FAIL: the target logged no API address; log $API_LOG:"
        tail -n 20 "$API_LOG"
        return 1
    fi
    export API API_USER API_PASSWORD PORTAL IQN
}

api_stop() {
    ll_stop_verified "$API_LOG"
}

# api_scratch NAME: a scratch directory in $work (kept when the test fails), status=0, and an
# EXIT trap that stops the target, shows its log's tail on failure and exits with $status;
# the shell-level API tests share this instead of each writing it out
api_scratch() {
    work=$(mktemp -d "/tmp/lunlab-api-$1.XXXXXX")
    status=0
    trap api_finish EXIT
}
api_finish() {
    [[ -n ${LL_PID:-} ]] && { api_stop || status=1; }
    if (( status != 0 )) && [[ -s $work/target.log ]]; then
        echo "---- target log tail ($work/target.log) ----"
        tail -n 40 "$work/target.log"
    fi
    (( status == 0 )) && rm -rf "$work"
    exit "$status"
}

# The frame of the API benchmarks (bench/api-*-cost.sh), which measure the target's CPU per
# request with a Python client:
# api_bench_start BUILD NAME [lunlab-target args]: a scratch $work, the load printed, BUILD's
#   lunlab-target started with the API (quiet; with API_BENCH_STATE=1 on a fresh --state-dir in
#   $work/state), an EXIT trap that stops it and removes $work
# api_bench_run SCRIPT.py: the client run with the target's PID and the API's address and
#   user in its environment, the load printed again, the target stopped (its log judged as the
#   tests judge it); exits with the worse of the two
api_bench_start() {
    local build=$1 name=$2 state=()
    shift 2
    work=$(mktemp -d "/tmp/lunlab-$name.XXXXXX")
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(git rev-parse --short HEAD 2>/dev/null)"
    if [[ ${API_BENCH_STATE:-0} == 1 ]]; then
        mkdir -p "$work/state"
        state=(--state-dir "$work/state")
    fi
    api_start "$build/target/lunlab-target" "$build/handlers" "$work" --quiet "${state[@]}" "$@" || exit 1
    trap '[[ -n ${LL_PID:-} ]] && ll_stop_lunlab; rm -rf "$work"' EXIT
}
api_bench_run() {
    local rc
    LUNLAB_PID=$LL_PID LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD \
        /usr/bin/python3 "$1"
    rc=$?
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    api_stop || rc=1
    LL_PID=
    exit "$rc"
}
