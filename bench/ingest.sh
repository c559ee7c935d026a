#!/bin/bash
# bench/ingest.sh: writes through iSCSI, lunlab-target against Debian's tgtd, alternately in one
# run (not a test: a measurement).  Every workload of the write goals (issue 14), with
# lunlab-bench scale (one session; --write --data says what each write carries, docs/bench.md):
#
#   1MiB-seq-QD1-unique   --bs 1m --qd 1  --write --data unique    (every block new to the array)
#   1MiB-seq-QD8-unique   --bs 1m --qd 8  --write --data unique
#   4KiB-rand-QD32-unique --bs 4k --qd 32 --random --write --data unique
#   1MiB-seq-QD8-repeat   --bs 1m --qd 8  --write --data repeat    (the same 1 MiB everywhere)
#   1MiB-seq-QD8-zero     --bs 1m --qd 8  --write --data zero
#
# on three targets: lunlab-target with profile unlimited (no modeled cost), lunlab-target with x2
# unpaced (time_scale=0: the array's real work without modeled waiting; same store parameters),
# and tgtd (LUN file on /dev/shm).  Each run gets a fresh target with an empty LUN of SIZE, which
# the writes wrap around (so unique ingest also frees what it overwrites).  Order per round:
# each workload on the three targets back to back, lunlab first in odd rounds and tgt first in
# even ones.  Prints every run, then the median of the rounds, the same-run ratios and the goals:
#   unique 1 MiB QD1 >= 1.0x tgt, QD8 >= 1.5x tgt; unique 4 KiB random QD32 >= 2x tgt;
#   x2 unpaced >= 90% of unlimited in each of those; repeat and zero >= 2x tgt.
# usage: bench/ingest.sh [BUILD_DIR]   env: ROUNDS (3), DURATION s per run (5), WARMUP s (1),
#        SIZE (1G).  Needs root (tgtd).  ~ROUNDS x 15 x (DURATION + WARMUP + 3) s.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
rounds=${ROUNDS:-3}
dur=${DURATION:-5}
warm=${WARMUP:-1}
size=${SIZE:-1G}
bin=$build/target/lunlab-target
bench=$build/client/lunlab-bench
for x in "$bin" "$bench"; do
	[[ -x $x ]] || { echo "ingest.sh: $x missing; build first (meson setup $build && ninja -C $build)" >&2; exit 2; }
done
for x in tgtd tgtadm jq python3; do
	command -v "$x" >/dev/null || { echo "ingest.sh: $x missing; run ci/install-deps.sh" >&2; exit 2; }
done
work=$(mktemp -d /tmp/lunlab-ingest.XXXXXX)
img=/dev/shm/lunlab-ingest-$$.img
results=$work/results.tsv   # round system workload mb_s iops cores
trap '[[ -n ${LL_PID:-} ]] && { ll_stop_lunlab "$LL_PID" || true; }; ll_stop_tgt >/dev/null 2>&1 || true; rm -rf "$work" "$img"' EXIT
iqn=iqn.2026-11.org.lunlab:ingest

declare -A args=(
	[1MiB-seq-QD1-unique]="--bs 1m --qd 1 --write --data unique"
	[1MiB-seq-QD8-unique]="--bs 1m --qd 8 --write --data unique"
	[4KiB-rand-QD32-unique]="--bs 4k --qd 32 --random --write --data unique"
	[1MiB-seq-QD8-repeat]="--bs 1m --qd 8 --write --data repeat"
	[1MiB-seq-QD8-zero]="--bs 1m --qd 8 --write --data zero"
)
workloads="1MiB-seq-QD1-unique 1MiB-seq-QD8-unique 4KiB-rand-QD32-unique 1MiB-seq-QD8-repeat 1MiB-seq-QD8-zero"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# run_one ROUND SYSTEM WORKLOAD: a fresh target, one lunlab-bench scale run, appended to $results
run_one() {
	local r=$1 sys=$2 w=$3 url pid c0 c1 t0 t1 out
	case $sys in
	lunlab | x2-unpaced)
		local lun="size=$size,model=unlimited"
		[[ $sys == x2-unpaced ]] && lun="size=$size,model=x2,time_scale=0"
		ll_start_lunlab "$bin" "$work/lunlab.log" --quiet --iqn "$iqn" --handler-path "$build/handlers" \
			--lun "$lun" >/dev/null
		url="iscsi://127.0.0.1:$LL_PORT/$iqn/0" pid=$LL_PID ;;
	tgt)
		rm -f "$img"; truncate -s "$size" "$img"
		ll_start_tgt "$img" "$iqn" "$work/tgt.log" >/dev/null
		url="iscsi://127.0.0.1:$TGT_PORT/$iqn/1" pid=$TGT_PID ;;
	esac
	c0=$(cpu_ticks "$pid"); t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	out=$(timeout $((dur + warm + 120)) "$bench" scale "$url" --vms 1 --duration "$dur" --warmup "$warm" \
		${args[$w]} --json --quiet 2>"$work/bench.err") || { cat "$work/bench.err" >&2; out='{}'; }
	t1=$(date +%s.%N); c1=$(cpu_ticks "$pid")
	case $sys in
	tgt) ll_stop_tgt >/dev/null 2>&1 ;;
	*) ll_stop_lunlab "$LL_PID"; LL_PID= ;;
	esac
	jq -r --arg r "$r" --arg s "$sys" --arg w "$w" --arg c0 "$c0" --arg c1 "$c1" --arg t0 "$t0" --arg t1 "$t1" \
		--arg hz "$(getconf CLK_TCK)" '
		(.runs[0].total_mbps // 0) as $m | (.bs // 1) as $bs |
		[$r, $s, $w, ($m * 100 | round / 100), ($m * 1e6 / $bs | round),
		 ((($c1 | tonumber) - ($c0 | tonumber)) / ($hz | tonumber) / (($t1 | tonumber) - ($t0 | tonumber)) * 100 | round / 100)]
		| @tsv' <<<"$out" >>"$results"
	tail -n 1 "$results" | awk -F'\t' '{ printf "  %-10s %-22s %9.1f MB/s %9d IOPS  target CPU %.2f cores\n", $2, $3, $4, $5, $6 }'
}

echo "write ingest: one session per run, ${dur} s (+${warm} s warm-up), LUN $size, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="lunlab x2-unpaced tgt"; else order="tgt x2-unpaced lunlab"; fi
	echo "round $r"
	for w in $workloads; do
		for s in $order; do
			run_one "$r" "$s" "$w"
		done
	done
done

echo
python3 - "$results" "$rounds" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(system, workload, col=3):
    v = [float(r[col]) for r in rows if r[1] == system and r[2] == workload]
    return statistics.median(v) if v else 0.0
# workload: (goal lunlab/tgt, goal x2 unpaced / unlimited)
goals = {"1MiB-seq-QD1-unique": (1.0, 0.9), "1MiB-seq-QD8-unique": (1.5, 0.9),
         "4KiB-rand-QD32-unique": (2.0, 0.9), "1MiB-seq-QD8-repeat": (2.0, None),
         "1MiB-seq-QD8-zero": (2.0, None)}
print(f"median of {sys.argv[2]} rounds (MB/s = 10^6 bytes/s; c = cores the target process used)")
hdr = (f"{'workload':<23}{'lunlab':>17}{'x2 unpaced':>17}{'tgt':>17}{'lunlab/tgt':>11}{'x2/unl.':>9}  goal")
print(hdr)
print("-" * (len(hdr) + 40))
verdicts = []
for w, (gt, gx) in goals.items():
    l, x, t = med("lunlab", w), med("x2-unpaced", w), med("tgt", w)
    lc, xc, tc = med("lunlab", w, 5), med("x2-unpaced", w, 5), med("tgt", w, 5)
    rt = l / t if t else float("inf")
    rx = x / l if l else 0.0
    goal = []
    ok = rt >= gt
    verdicts.append(ok)
    goal.append(f">= {gt:g}x tgt: {'MET' if ok else 'NOT MET'}")
    if gx:
        ok = rx >= gx
        verdicts.append(ok)
        goal.append(f"x2 >= {gx:.0%}: {'MET' if ok else 'NOT MET'}")
    if w.startswith("4KiB"):
        cell = lambda v, c: f"{v * 1e6 / 4096:>9,.0f} IOPS {c:.2f}c"
    else:
        cell = lambda v, c: f"{v:>9,.1f} MB/s {c:.2f}c"
    print(f"{w:<23}{cell(l, lc):>17}{cell(x, xc):>17}{cell(t, tc):>17}{rt:>10.2f}x{rx:>8.2f}x  {'; '.join(goal)}")
print("ratios of each round (lunlab/tgt, x2 unpaced/lunlab):")
for w in goals:
    per = []
    for r in sorted({x[0] for x in rows}, key=int):
        v = {s: [float(x[3]) for x in rows if x[0] == r and x[1] == s and x[2] == w] for s in ("lunlab", "x2-unpaced", "tgt")}
        if all(v.values()) and v["tgt"][0] and v["lunlab"][0]:
            per.append(f"{v['lunlab'][0] / v['tgt'][0]:.2f}x/{v['x2-unpaced'][0] / v['lunlab'][0]:.2f}x")
    print(f"  {w:<23}{' '.join(per)}")
print(f"goals met: {sum(verdicts)} of {len(verdicts)}")
PY
