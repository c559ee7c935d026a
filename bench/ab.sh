#!/bin/bash
# bench/ab.sh: two builds of lunlab-target, A (the reference, e.g. the previous commit) and B (the
# change), alternately in one run, on the reads of bench/speed.sh and the writes of
# bench/ingest.sh.  It answers "did this change cost speed?" (issue 20: within 3%), which
# speed.sh and ingest.sh cannot, since they compare lunlab with tgt.
#
#   4MiB-seq-read-QD1     iscsi-perf -t D -m 1  -b 8192 -l          (filled LU)
#   4KiB-rand-read-QD32   iscsi-perf -t D -m 32 -b 8 -r -l          (filled LU)
#   1MiB-seq-write-QD8    lunlab-bench scale --bs 1m --qd 8 --write --data unique
#   4KiB-rand-write-QD32  lunlab-bench scale --bs 4k --qd 32 --random --write --data unique
#
# The client is the same for both builds (Debian's iscsi-perf; lunlab-bench of build A), so only
# the target differs.  Each run gets a fresh target (profile unlimited: the target's own cost,
# no modeled array time).  Order per round: A then B in odd rounds, B then A in even ones; the
# median of the rounds is reported with B/A, and each round's adjacent pair B/A, since absolute
# figures on a shared 2-core machine drift by 10-30% and only same-run ratios mean anything.
# Not a test: a measurement; it prints a verdict for a tolerance but never fails on it.
#
# Then, unless INSTR=0, a second table that a busy machine cannot fake: the target's
# instructions per command of each workload for A and B (bench/cmd-cost.sh under callgrind: a
# fixed count of commands through lunlab-bench, the target's command threads only; repeat runs
# of the 4 KiB workloads agree within 0.1%, of the large ones, which go to the handler pool,
# within ~2%).  A 3% change in MB/s is within this machine's noise; one in instructions
# per command is not.  (perf stat -e instructions would be cheaper, but this machine's virtual
# CPU has no PMU.)  Needs valgrind; skipped with a note without it.
#
# usage: bench/ab.sh BUILD_A BUILD_B
# env: ROUNDS (5; 0: only the instructions table, which a busy machine may run), DURATION s per run (5), SIZE (1G), TOLERANCE percent (3),
#      ONLY (an extended regex: run only the workloads whose name matches, e.g. 'write'),
#      INSTR (1: the instructions table; 0: not)
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
[[ $# -eq 2 ]] || { echo "usage: bench/ab.sh BUILD_A BUILD_B" >&2; exit 2; }
build_a=$1 build_b=$2
rounds=${ROUNDS:-5}
dur=${DURATION:-5}
size=${SIZE:-1G}
tol=${TOLERANCE:-3}
for b in "$build_a" "$build_b"; do
	for x in "$b/target/lunlab-target" "$b/handlers/handler_lunlab.so"; do
		[[ -e $x ]] || { echo "ab.sh: $x missing; build first" >&2; exit 2; }
	done
done
bench=$build_a/client/lunlab-bench
tool=$build_a/tests/integration/lun_tool
for x in "$bench" "$tool"; do [[ -x $x ]] || { echo "ab.sh: $x missing" >&2; exit 2; }; done
for x in iscsi-perf jq python3; do
	command -v "$x" >/dev/null || { echo "ab.sh: $x missing; run ci/install-deps.sh" >&2; exit 2; }
done
work=$(mktemp -d /tmp/lunlab-ab.XXXXXX)
results=$work/results.tsv # round build workload mb_s
trap '[[ -n ${LL_PID:-} ]] && { ll_stop_lunlab "$LL_PID" || true; }; rm -rf "$work"' EXIT
iqn=iqn.2026-12.org.lunlab:ab

start() { # start BUILD: a fresh target with one unlimited LU; sets LL_PID, url
	ll_start_lunlab "$1/target/lunlab-target" "$work/target.log" --quiet --iqn "$iqn" \
		--handler-path "$1/handlers" --lun "size=$size,model=unlimited" >/dev/null
	url="iscsi://127.0.0.1:$LL_PORT/$iqn/0"
}
stop() { ll_stop_lunlab "$LL_PID" || true; LL_PID=; }

record() { # record ROUND NAME WORKLOAD MB_S
	printf '%s\t%s\t%s\t%s\n' "$@" >>"$results"
	printf '  %-2s %-22s %9.1f MB/s\n' "$2" "$3" "$4"
}

reads() { # reads ROUND NAME BUILD: fill once, then the two read workloads on the same target
	local r=$1 name=$2 b=$3 out iops
	[[ -z ${ONLY:-} ]] || [[ 4MiB-seq-read-QD1$'\n'4KiB-rand-read-QD32 =~ $ONLY ]] || return 0
	start "$b"
	"$tool" fill "$url" >/dev/null
	for spec in "4MiB-seq-read-QD1 4194304 -m 1 -b 8192" "4KiB-rand-read-QD32 4096 -m 32 -b 8 -r"; do
		set -- $spec
		local w=$1 bytes=$2
		shift 2
		[[ -z ${ONLY:-} || $w =~ $ONLY ]] || continue
		out=$(timeout $((dur + 60)) iscsi-perf -t "$dur" "$@" -l "$url" 2>&1 || true)
		# iscsi-perf redraws a progress line with \r: take the last "iops average N" anywhere
		iops=$(grep -oE 'iops average [0-9]+' <<<"$out" | tail -n 1 | awk '{print $3}' || true)
		record "$r" "$name" "$w" "$(awk -v i="${iops:-0}" -v b="$bytes" 'BEGIN{printf "%.1f", i*b/1e6}')"
	done
	stop
}

writes() { # writes ROUND NAME BUILD: a fresh target per workload
	local r=$1 name=$2 b=$3 out
	for spec in "1MiB-seq-write-QD8 --bs 1m --qd 8" "4KiB-rand-write-QD32 --bs 4k --qd 32 --random"; do
		set -- $spec
		local w=$1
		shift
		[[ -z ${ONLY:-} || $w =~ $ONLY ]] || continue
		start "$b"
		out=$(timeout $((dur + 120)) "$bench" scale "$url" --vms 1 --duration "$dur" --warmup 1 \
			"$@" --write --data unique --json --quiet 2>>"$work/bench.err") || out='{}'
		stop
		record "$r" "$name" "$w" "$(jq -r '.runs[0].total_mbps // 0' <<<"$out")"
	done
}

echo "A/B: A=$build_a ($(git -C "$build_a/.." rev-parse --short HEAD 2>/dev/null || echo ?))" \
	"B=$build_b; $rounds rounds x ${dur} s, LU $size, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="A B"; else order="B A"; fi
	echo "round $r ($order)"
	for n in $order; do
		if [[ $n == A ]]; then b=$build_a; else b=$build_b; fi
		reads "$r" "$n" "$b"
		writes "$r" "$n" "$b"
	done
done

echo
[[ -s $results ]] && python3 - "$results" "$rounds" "$tol" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
tol = float(sys.argv[3])
works = []
for r in rows:
    if r[2] not in works:
        works.append(r[2])
def vals(name, w):
    return {r[0]: float(r[3]) for r in rows if r[1] == name and r[2] == w}
print(f"median of {sys.argv[2]} rounds (MB/s = 10^6 bytes/s), B/A per workload, tolerance {tol:g}%")
print(f"{'workload':<24}{'A':>10}{'B':>10}{'B/A':>8}  each round's B/A")
for w in works:
    a, b = vals("A", w), vals("B", w)
    ma, mb = statistics.median(a.values()), statistics.median(b.values())
    ratio = mb / ma if ma else 0.0
    per = " ".join(f"{b[k] / a[k]:.3f}" for k in sorted(a) if k in b and a[k])
    verdict = "within" if ratio >= 1 - tol / 100 else "SLOWER than"
    print(f"{w:<24}{ma:>10.1f}{mb:>10.1f}{ratio:>8.3f}  {per}   ({verdict} {tol:g}%)")
PY

# instructions per command: the same four workloads through lunlab-bench with a fixed count
# (fewer for the large transfers: their cost is the copies, counted the same way)
if [[ ${INSTR:-1} != 0 ]]; then
	echo
	if ! command -v valgrind >/dev/null || ! command -v callgrind_control >/dev/null; then
		echo "instructions per command: skipped (no valgrind; apt-get install valgrind)"
		exit 0
	fi
	echo "instructions per command of the target (callgrind, one run each; repeat runs: 4 KiB within 0.1%, 1-4 MiB ~2%)"
	printf '%-24s%10s%10s%8s\n' workload A B B/A
	for spec in "4MiB-seq-read-QD1 20 --bs 4m --qd 1" "4KiB-rand-read-QD32 20000 --bs 4k --qd 32 --random" \
		"1MiB-seq-write-QD8 100 --bs 1m --qd 8 --write --data unique" \
		"4KiB-rand-write-QD32 10000 --bs 4k --qd 32 --random --write --data unique"; do
		# shellcheck disable=SC2086 # a spec is words
		set -- $spec
		w=$1 n=$2
		shift 2
		[[ -z ${ONLY:-} || $w =~ $ONLY ]] || continue
		cost=$(MODE=callgrind RUNS=1 COUNT=$n WORKLOAD="$*" bench/cmd-cost.sh "$build_a" "$build_b" 2>>"$work/cost.err" |
			awk '/instructions\/cmd/ {print $NF}' | tr '\n' ' ') || cost=
		read -r ia ib <<<"$cost"
		awk -v w="$w" -v a="${ia:-0}" -v b="${ib:-0}" \
			'BEGIN {printf "%-24s%10d%10d%8s\n", w, a, b, ((a > 0 && b > 0) ? sprintf("%.3f", b / a) : "n/a")}'
	done
fi
