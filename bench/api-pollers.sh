#!/bin/bash
# bench/api-pollers.sh BUILD: issue 21's "50 API clients polling performance and events while
# 100 VMs read and write: their I/O latency within 5% of the same run without the pollers".
# One lunlab-target (BUILD's) with the API and one --lun (model=unlimited: the target's own
# cost, no modeled array time that would hide it), VOLUMES (100) API volumes for the pollers
# to list.  Each round runs lunlab-bench scale --vms VMS (100) --qd 1 --random 4 KiB reads
# and then writes for DURATION (5) s, once with POLLERS (50) pollers (bench/api_pollers.py:
# cluster and volume performance and events, each every INTERVAL s) and once without,
# the order alternating per round (odd rounds without first).  The latency per I/O is
# Little's law over the measured window, VMs x QD x seconds / I/Os (exact for a closed loop
# at a fixed queue depth).  Prints each run (with the pollers: their request times, their
# own CPU and the target's API threads' CPU per request), each round's with/without ratio
# and the median ratio per mode.  Not a test: a measurement (docs/api.md "Benchmarks"); run
# it on a quiet machine for figures, small ROUNDS on a shared one.
#
# The modes (printed first):
#   INTERVAL=1     each poller's period in s: 1 (default) is aggressive; Telegraf's agent
#                  polls every 10 s unless told otherwise (influxdata/telegraf
#                  config/config.go, NewConfig: Interval 10 s); give DURATION >= INTERVAL
#   POLLER_SCHED=normal|idle  idle runs the Python pollers under `chrt -i 0` (SCHED_IDLE):
#                  they stand for monitoring clients on other machines, so they take only
#                  the CPU this one has spare (the target's API threads still answer them)
#   API_NICE=N     lunlab-target --api-nice N (unset: the target's default, 10; 0: the API's
#                  threads at the I/O threads' priority, as before the option)
set -uo pipefail
cd "$(dirname "$0")/.." || exit
build=${1:?usage: bench/api-pollers.sh BUILD}
rounds=${ROUNDS:-3} vms=${VMS:-100} dur=${DURATION:-5} nvol=${VOLUMES:-100}
export INTERVAL=${INTERVAL:-1}
sched=${POLLER_SCHED:-normal}
launch=()
case $sched in
    normal) ;;
    idle) launch=(chrt -i 0) ;;
    *) echo "POLLER_SCHED=$sched: want normal or idle"; exit 2 ;;
esac
nice_args=()
[[ -n ${API_NICE:-} ]] && nice_args=(--api-nice "$API_NICE")
mode_line="INTERVAL=$INTERVAL s, POLLER_SCHED=$sched, API_NICE=${API_NICE:-default (10)}"
echo "mode: $mode_line; $rounds rounds of $dur s, $vms VMs, ${POLLERS:-50} pollers, $nvol volumes"
# shellcheck source=tests/api/run-api-target.sh
source tests/api/run-api-target.sh
work=$(mktemp -d /tmp/lunlab-api-pollers.XXXXXX)
api_start "$build/target/lunlab-target" "$build/handlers" "$work" --lun size=1G,model=unlimited \
    "${nice_args[@]}" || exit 1
trap 'api_stop; rm -rf "$work"' EXIT
grep -o 'api: its threads run at nice.*' "$API_LOG" || echo "api: its threads run at the I/O threads' priority"
export LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD LUNLAB_PID=$LL_PID
for (( i = 0; i < nvol; i++ )); do
    curl -sk -u "$API_USER:$API_PASSWORD" -o /dev/null -w '%{http_code}\n' \
        -d "{\"vol-name\": \"poll-$i\", \"vol-size\": \"1g\"}" "https://$API/api/json/v2/types/volumes"
done | sort | uniq -c | sed 's/^/POST volumes: /'
url=iscsi://$PORTAL/$IQN/0
# one scale run; prints "MS IOS" (Little's-law latency in ms, I/Os in the window)
run() { # MODE(read|write)
    local extra=() out
    [[ $1 == write ]] && extra=(--write --data unique)
    out=$("$build/client/lunlab-bench" scale "$url" --vms "$vms" --bs 4k --qd 1 --random \
        --duration "$dur" --warmup 1 --initiator iqn.2026-12.org.example:vm "${extra[@]}" --json) || return 1
    jq -r --argjson vms "$vms" '.runs[0] | "\($vms * .seconds * 1000 / .ios) \(.ios)"' <<<"$out"
}
# MODE POLLED(0|1): one run, with the pollers around it when POLLED: "MS IOS|POLLERS' LINE"
one() {
    local r w
    if (( $2 )); then
        rm -f "$work/ready"
        coproc POLL { READY=$work/ready "${launch[@]}" /usr/bin/python3 bench/api_pollers.py 2>&1; }
        # connected (their TLS handshakes done), then a second of polls before the I/O starts
        for (( w = 0; w < 600; w++ )); do [[ -e $work/ready ]] && break; sleep 0.1; done
        sleep 1
        r=$(run "$1")
        # shellcheck disable=SC1083,SC2093  # closes the coprocess's stdin: it prints and ends
        exec {POLL[1]}>&-
        poll_line=$(cat <&"${POLL[0]}")
        wait "$POLL_PID"
    else
        r=$(run "$1")
        poll_line=""
    fi
    [[ -n $r ]] && echo "$r|$poll_line"
}
declare -A ratios
for (( r = 1; r <= rounds; r++ )); do
    for mode in read write; do
        order=(0 1)
        (( r % 2 == 0 )) && order=(1 0)
        declare -A lat=()
        for p in "${order[@]}"; do
            res=$(one "$mode" "$p")
            [[ -n $res ]] || { echo "scale failed"; exit 1; }
            poll_line=${res#*|} res=${res%%|*}
            lat[$p]=${res%% *}
            printf 'round %d %-5s %-15s %7.3f ms per I/O (%s I/Os) %s\n' "$r" "$mode" \
                "$( (( p )) && echo "with pollers" || echo "without")" "${lat[$p]}" "${res##* }" "$poll_line"
        done
        ratio=$(awk -v a="${lat[1]}" -v b="${lat[0]}" 'BEGIN { printf "%.3f", a / b }')
        echo "round $r $mode: with/without = $ratio"
        ratios[$mode]+="$ratio "
    done
done
for mode in read write; do
    echo "median with/without ($mode, $rounds rounds, $vms VMs, ${POLLERS:-50} pollers; $mode_line): $(tr ' ' '\n' <<<"${ratios[$mode]}" | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}') (goal within 1.05)"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
