#!/bin/bash
# bench/speed.sh: lunlab-target against Debian's tgtd, alternately in one run, with libiscsi's
# iscsi-perf, plus the loopback limit (iperf3, one TCP stream) measured in the same run.
#
#   4 MiB sequential read QD1   iscsi-perf -t D -m 1  -b 8192 -l URL
#   4 MiB sequential read QD8   iscsi-perf -t D -m 8  -b 8192 -l URL
#   4 KiB random read QD32      iscsi-perf -t D -m 32 -b 8 -r -l URL
#
# Order per round: each workload on both targets back to back (lunlab first in odd rounds, tgt
# first in even ones, so neither always runs right after the other's load), then loopback; the
# median of the rounds is reported, since absolute figures on shared machines drift 10-30% and
# only same-run ratios are meaningful.  The ratio of each round's adjacent pair is printed too.
# Both LUNs (2 GiB; tgt's backing file on /dev/shm) are first filled with unique data through
# iSCSI: reads of never-written space would otherwise measure a shortcut (holes, thin zeros).
# lunlab runs with model=unlimited (no modeled array cost): this measures the target itself.
#
# Goals (issue 2): 4 MiB QD1 >= 4x tgt and >= 50% of loopback; 4 KiB QD32 >= 3x tgt.
# Environment: ROUNDS (3), DURATION seconds per run (10), LUN_SIZE (2G), BUILD (build).
# Needs root (tgtd).  Not part of CI: a full run takes ~ROUNDS*(6*DURATION+DURATION+10) s.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source ci/lib/target-ctl.sh

rounds=${ROUNDS:-3}
dur=${DURATION:-10}
lun_size=${LUN_SIZE:-2G}
build=${BUILD:-build}
bin=$build/target/lunlab-target
tool=$build/tests/integration/lun_tool
for x in "$bin" "$tool"; do
    [[ -x $x ]] || { echo "speed.sh: $x missing; build first (meson setup $build && ninja -C $build)" >&2; exit 1; }
done
for x in iscsi-perf tgtd tgtadm iperf3 python3; do
    command -v "$x" >/dev/null || { echo "speed.sh: $x missing; run ci/install-deps.sh" >&2; exit 1; }
done

work=$(mktemp -d /tmp/lunlab-speed.XXXXXX)
results=$work/results.tsv        # round  system  workload  iops  mib_s  cpu_cores
iperf_pid=
cleanup() {
    [[ -n ${LL_PID:-} ]] && { ll_stop_lunlab "$LL_PID" || true; }
    ll_stop_tgt
    [[ -n $iperf_pid ]] && kill "$iperf_pid" 2>/dev/null && wait "$iperf_pid" 2>/dev/null
    rm -f "${tgt_img:-}"
    rm -rf "$work"
}
trap cleanup EXIT

# CPU time (user+system, in clock ticks) of a process, to report each target's cores used
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# perf SYSTEM PID URL WORKLOAD -- iscsi-perf args: one run, appended to $results
perf() {
    local system=$1 pid=$2 url=$3 workload=$4 round=$5 bytes=$6
    shift 6
    local c0 c1 t0 t1 out iops
    c0=$(cpu_ticks "$pid"); t0=$(date +%s.%N)
    out=$(timeout $((dur + 30)) iscsi-perf -t "$dur" "$@" "$url" 2>&1 | tr '\r' '\n') || true
    t1=$(date +%s.%N); c1=$(cpu_ticks "$pid")
    iops=$(grep -E '^iops average' <<<"$out" | tail -n 1 | awk '{print $3}')
    if [[ -z $iops ]]; then
        echo "iscsi-perf against $system ($workload) printed no result:" >&2
        tail -n 5 <<<"$out" >&2
        iops=0
    fi
    python3 - "$round" "$system" "$workload" "$iops" "$bytes" "$c0" "$c1" "$t0" "$t1" \
        "$(getconf CLK_TCK)" >>"$results" <<'PY'
import sys
r, s, w, iops, nbytes, c0, c1, t0, t1, hz = sys.argv[1:]
mib = float(iops) * int(nbytes) / 2**20
cores = (int(c1) - int(c0)) / int(hz) / (float(t1) - float(t0))
print(f"{r}\t{s}\t{w}\t{iops}\t{mib:.1f}\t{cores:.2f}")
PY
    tail -n 1 "$results" | awk -F'\t' '{printf "  %-7s %-14s %8d IOPS %9.1f MiB/s  target CPU %.2f cores\n", $2, $3, $4, $5, $6}'
}

loopback() {
    local round=$1 port out
    port=$(ll_free_port)
    iperf3 -s -1 -B 127.0.0.1 -p "$port" >/dev/null 2>&1 &
    iperf_pid=$!
    sleep 0.5
    out=$(iperf3 -c 127.0.0.1 -p "$port" -P 1 -t "$dur" -J 2>/dev/null) || true
    wait "$iperf_pid" 2>/dev/null || true
    iperf_pid=
    python3 -c '
import json, sys
r = sys.argv[1]
try:
    bps = json.loads(sys.stdin.read())["end"]["sum_received"]["bits_per_second"]
except Exception:
    bps = 0
print(f"{r}\tloopback\tiperf3-1-stream\t0\t{bps / 8 / 2**20:.1f}\t0")' "$round" <<<"$out" >>"$results"
    tail -n 1 "$results" | awk -F'\t' '{printf "  %-7s %-14s %23.1f MiB/s\n", $2, $3, $5}'
}

echo "lunlab speed benchmark: $rounds rounds x ${dur}s per run, LUN $lun_size, $(nproc) cores, $(date -u +%FT%TZ)"
iqn_l=iqn.2026-11.org.lunlab:bench
iqn_t=iqn.2026-11.org.lunlab:tgt-bench
ll_start_lunlab "$bin" "$work/lunlab.log" --iqn "$iqn_l" --handler-path "$build/handlers" \
    --lun "size=$lun_size,model=unlimited"
url_l="iscsi://127.0.0.1:$LL_PORT/$iqn_l/0"
tgt_img=$(mktemp /dev/shm/lunlab-bench-tgt.XXXXXX)
truncate -s "$lun_size" "$tgt_img"
ll_start_tgt "$tgt_img" "$iqn_t" "$work/tgt.log"
url_t="iscsi://127.0.0.1:$TGT_PORT/$iqn_t/1"
echo "lunlab-target pid $LL_PID on :$LL_PORT   tgtd pid $TGT_PID on :$TGT_PORT (LUN file $tgt_img)"

echo "prefilling both LUNs with unique data..."
t0=$SECONDS; "$tool" fill "$url_l" >/dev/null; echo "  lunlab filled in $((SECONDS - t0)) s"
t0=$SECONDS; "$tool" fill "$url_t" >/dev/null; echo "  tgt    filled in $((SECONDS - t0)) s"

# both targets, in this round's order, for one workload
both() {
    local r=$1 w=$2 bytes=$3 sys pid url
    shift 3
    for sys in $order; do
        if [[ $sys == lunlab ]]; then pid=$LL_PID url=$url_l; else pid=$TGT_PID url=$url_t; fi
        perf "$sys" "$pid" "$url" "$w" "$r" "$bytes" "$@"
    done
}

for (( r = 1; r <= rounds; r++ )); do
    if (( r % 2 )); then order="lunlab tgt"; else order="tgt lunlab"; fi
    echo "round $r"
    both "$r" 4MiB-seq-QD1 $((4 << 20)) -m 1 -b 8192 -l
    both "$r" 4MiB-seq-QD8 $((4 << 20)) -m 8 -b 8192 -l
    both "$r" 4KiB-rand-QD32 4096 -m 32 -b 8 -r -l
    loopback "$r"
done

echo
python3 - "$results" "$rounds" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(system, workload, col):
    v = [float(r[col]) for r in rows if r[1] == system and r[2] == workload]
    return statistics.median(v) if v else 0.0
loop = med("loopback", "iperf3-1-stream", 4)
print(f"median of {sys.argv[2]} rounds (MiB/s = 2^20 bytes/s; loopback = iperf3, one TCP stream, "
      f"{loop:.0f} MiB/s)")
hdr = f"{'workload':<16}{'lunlab':>22}{'tgt':>22}{'lunlab/tgt':>12}{'of loopback':>13}  goal"
print(hdr)
print("-" * (len(hdr) + 34))
goals = {"4MiB-seq-QD1": (4.0, 0.5), "4MiB-seq-QD8": (None, None), "4KiB-rand-QD32": (3.0, None)}
verdicts = []
for w, (gr, gl) in goals.items():
    li, lm, lc = med("lunlab", w, 3), med("lunlab", w, 4), med("lunlab", w, 5)
    ti, tm, tc = med("tgt", w, 3), med("tgt", w, 4), med("tgt", w, 5)
    ratio = (li / ti) if ti else float("inf")
    share = lm / loop if loop else 0.0
    goal = []
    if gr:
        ok = ratio >= gr
        goal.append(f">= {gr:g}x tgt: {'MET' if ok else 'NOT MET'}")
        verdicts.append(ok)
    if gl:
        ok = share >= gl
        goal.append(f">= {gl:.0%} loopback: {'MET' if ok else 'NOT MET'}")
        verdicts.append(ok)
    if w.startswith("4KiB"):
        lv, tv = f"{li:,.0f} IOPS", f"{ti:,.0f} IOPS"
    else:
        lv, tv = f"{lm:,.0f} MiB/s", f"{tm:,.0f} MiB/s"
    print(f"{w:<16}{lv:>15} {lc:4.2f}c{tv:>16} {tc:4.2f}c{ratio:>11.2f}x{share:>12.0%}  {'; '.join(goal) or '-'}")
print("(c = cores of CPU the target process used during the run)")
print("lunlab/tgt of each round's adjacent pair:")
for w in goals:
    per = []
    for r in sorted({x[0] for x in rows}, key=int):
        l = [float(x[3]) for x in rows if x[0] == r and x[1] == "lunlab" and x[2] == w]
        t = [float(x[3]) for x in rows if x[0] == r and x[1] == "tgt" and x[2] == w]
        if l and t and t[0]:
            per.append(f"{l[0] / t[0]:.2f}x")
    print(f"  {w:<16}{' '.join(per)}")
print(f"goals met: {sum(verdicts)} of {len(verdicts)}")
PY
