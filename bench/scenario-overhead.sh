#!/bin/bash
# bench/scenario-overhead.sh: what the scenario runner adds to its workloads' CPU (issue 23,
# "How it is shown": 100 timeline events and 4 workloads add under 2 % to the workloads' CPU,
# measured against the same workloads run directly).  Not a test: a measurement, on a quiet
# machine (docs/scenarios.md "The runner's cost").
#
# Each round, alternately (odd rounds direct first, even rounds scenario first):
#   direct    a lunlab-target with the scenario's 4 LUs (the runner's own --lun specs), and 4
#             lunlab-bench scale workloads at once, each a fixed number of 64 KiB commands
#             (two read, two write unique data), each under /usr/bin/time: their user+system
#             CPU summed (getrusage of each, as the kernel counts it)
#   scenario  lunlab-bench scenario on a generated file: the same 4 workloads (commands:, the
#             same count) and 100 timeline events (a fault rule that matches nothing added and
#             removed 50 times through the API, every 40 ms); from its --json report
#             runner_cpu_s (the runner's getrusage(RUSAGE_SELF): parse, start, poll, API calls,
#             judging) and workloads_cpu_s (the 4 workloads' CPU from wait4)
# A fixed number of commands (not a time window) makes the two sides the same work, so their
# CPU can be compared.  The targets' own CPU is left out on both sides (it is the array's).
# Prints every round and the medians of:
#   runner share  runner_cpu_s / the direct workloads' CPU      (goal: < 2 %)
#   added         (runner_cpu_s + workloads_cpu_s) / direct - 1 (the same goal; it also holds
#                 the workloads' own run-to-run scatter, which a busy machine makes larger)
# usage: bench/scenario-overhead.sh [BUILD_DIR]
#   env: ROUNDS (3), COMMANDS per workload (40000: about 1 s of CPU each on the 2-core
#   development machine, as the 8 s scale runs of tests/scenarios/cost-100-events.yaml)
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
rounds=${ROUNDS:-3}
commands=${COMMANDS:-40000}
bench=$build/client/lunlab-bench
target=$build/target/lunlab-target
[[ -x $bench && -x $target ]] || { echo "no $bench or $target: build first" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/scn-overhead.XXXXXX")
pid=
cleanup() {
    [[ -n $pid ]] && ll_stop_lunlab "$pid" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

# the scenario: 4 LUs of array a, 4 workloads, 100 events
yaml=$work/overhead.yaml
{
    echo "name: overhead"
    echo "timeout: 600s"
    echo "arrays:"
    echo "  a:"
    echo "    luns: {d0: {size: 64M}, d1: {size: 64M}, d2: {size: 64M}, d3: {size: 64M}}"
    echo "workloads:"
    for i in 0 1 2 3; do
        w=""
        (( i >= 2 )) && w=", write: true, data: unique"
        echo "  s$i: {kind: scale, lun: d$i, vms: 1, bs: 64k, qd: 1, commands: $commands$w}"
    done
    echo "timeline:"
    for (( i = 0; i < 50; i++ )); do
        printf '  - {at: %d.%03ds, fault: "lun=3,op=tur,count=1,status=busy", name: f%d}\n' $(( i * 80 / 1000 )) $(( i * 80 % 1000 )) "$i"
        printf '  - {at: %d.%03ds, fault_off: f%d}\n' $(( (i * 80 + 40) / 1000 )) $(( (i * 80 + 40) % 1000 )) "$i"
    done
    echo "expect:"
    for i in 0 1 2 3; do echo "  - {workload: s$i, finished: true}"; done
} >"$yaml"
events=$(grep -c '^  - {at:' "$yaml")
(( events == 100 )) || { echo "generated $events events, want 100" >&2; exit 2; }

# the same LUs as the runner gives lunlab-target (client/scn_array.c build_args)
lunspec="size=67108864,block=512,array=a,time_scale=0,model=x2"

direct() { # sets d: the 4 workloads' CPU seconds summed (not in a subshell: the trap stops $pid)
    local log=$work/direct-target.log i wl=()
    ll_start_lunlab "$target" "$log" --iqn iqn.2026-11.org.lunlab:overhead \
        --lun "$lunspec" --lun "$lunspec" --lun "$lunspec" --lun "$lunspec" --quiet >&2
    pid=$LL_PID
    local url=iscsi://127.0.0.1:$LL_PORT/iqn.2026-11.org.lunlab:overhead
    for i in 0 1 2 3; do
        local w=()
        (( i >= 2 )) && w=(--write --data unique)
        /usr/bin/time -f '%U %S' -o "$work/direct-$i.time" \
            "$bench" scale "$url/$i" --vms 1 --bs 65536 --qd 1 --count "$commands" "${w[@]}" --json --quiet \
            >"$work/direct-$i.json" 2>"$work/direct-$i.err" &
        wl+=($!)
    done
    for i in "${wl[@]}"; do wait "$i" || true; done
    for i in 0 1 2 3; do
        [[ -s $work/direct-$i.json ]] || { echo "direct workload $i failed: $(cat "$work/direct-$i.err")" >&2; exit 1; }
    done
    ll_stop_lunlab "$pid" >/dev/null
    pid=
    d=$(cat "$work"/direct-[0-3].time | awk '{s += $1 + $2} END{print s}')
}

scenario() { # sets rc wc: runner_cpu_s workloads_cpu_s
    "$bench" scenario "$yaml" --quiet --json "$work/scn.json" >"$work/scn.log" 2>&1 ||
        { echo "the scenario failed:" >&2; cat "$work/scn.log" >&2; exit 1; }
    read -r rc wc < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["runner_cpu_s"], r["workloads_cpu_s"])' "$work/scn.json")
}

echo "cores $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds, $commands commands of 64 KiB per workload, 4 workloads, $events events"
printf '%-6s %12s %12s %12s %13s %9s\n' round direct_cpu runner_cpu scn_wl_cpu runner_share added
shares=() addeds=()
for (( r = 1; r <= rounds; r++ )); do
    if (( r % 2 )); then
        direct; scenario
    else
        scenario; direct
    fi
    share=$(awk -v r="$rc" -v d="$d" 'BEGIN{printf "%.2f", 100 * r / d}')
    added=$(awk -v r="$rc" -v w="$wc" -v d="$d" 'BEGIN{printf "%.2f", 100 * ((r + w) / d - 1)}')
    shares+=("$share") addeds+=("$added")
    printf '%-6s %11.3fs %11.3fs %11.3fs %12s%% %8s%%\n' "$r" "$d" "$rc" "$wc" "$share" "$added"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
ms=$(median "${shares[@]}") ma=$(median "${addeds[@]}")
echo "median: runner share $ms % (goal < 2 %), added $ma % (goal < 2 %; includes the workloads' own scatter)"
awk -v s="$ms" 'BEGIN{exit !(s < 2)}' && echo "runner share: goal met" || echo "runner share: goal NOT met"
