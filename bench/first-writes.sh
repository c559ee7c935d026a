#!/bin/bash
# bench/first-writes.sh: writes into never-written space against overwrites of the same range,
# one iperf3 stream over loopback and the machine's own price of fresh memory, alternately in one
# run (not a test: a measurement; issue 25 item 1, docs/accounting.md "First writes").
#
# Each round, in turn (odd rounds lunlab first, even rounds the references first):
#   first  a fresh lunlab-target, one LU of SIZE (64G), profile unlimited; lunlab-bench scale
#          --vms 1 --bs 4m --qd 1 --write --data unique for DURATION s: every write lands in
#          never-written space (the LU is far larger than what the run writes)
#   over   the same target and LU at once, DURATION/2 s in three runs of DURATION/6 s, each
#          from LBA 0 again: every write replaces blocks the first run stored (a sixth of its
#          time each, so an overwrite up to 6x faster than the first writes cannot run past the
#          range they wrote, as a single run of DURATION/2 did on a busy machine; a round where
#          one did is marked 'overran')
#   iperf3 one TCP stream over 127.0.0.1 for DURATION s (iperf3 -s -1 / iperf3 -c -J)
#   memory one thread storing 4 MiB blocks into never-touched memory for DURATION s, no target
#          (bench/fresh_memory.py): what any program that stores new bytes gets here; its price
#          per 256 MiB shows where the memory the host still backs ends (on this project's VMs
#          after about 2.5-6.25 GiB, then 8-15x dearer: docs/accounting.md "The host's price of
#          fresh memory")
# With BASE_BUILD=DIR (another build of lunlab, e.g. before a change) the first/over pair also
# runs on it each round, so a change is measured against its base in the same run.
# Prints every run, the machine's state (cores, load, CPU busy during each run: other work on
# the machine shows there), counts that its other work moves far less than a rate (the target's
# CPU per MiB stored; the payload filler's CPU per MiB, i.e. the kernel's price of the fresh pages; the
# target's minor faults per MiB: 256 when every 4 KiB page stored is a new one), the medians,
# the per-round ratios (first writes against each reference) and the goals:
#   first writes >= 85% of the same LU's overwrite speed, >= 50% of one iperf3 loopback stream.
# HUGEPAGES=N (root): reserve N 2 MiB pages in the kernel's hugetlb pool (vm.nr_hugepages) for the
# run and put the old value back at the end; the target maps payload segments from the pool while
# it has room (docs/lunlab-target.md "Huge pages").  Each lunlab run says which pages it used.
# HUGEPAGES_WARM=1 touches every page of that pool once before the rounds (a pool reserved at boot
# after its first use); without it the rounds also pay the host's first backing of each page.
# A BASE_BUILD of the same build with LUNLAB_HUGEPAGES=off in its environment compares the two.
# PREALLOC_MIB=N starts BUILD's targets (not BASE_BUILD's, even where both are one directory) with
# --prealloc-mib N: that much payload memory populated before the target listens (make it more
# than a first-write run writes; past the host's cheap memory a start can take tens of seconds:
# LL_START_TIMEOUT=S, 60 by default, is how long the bench waits for it).
# usage: bench/first-writes.sh [BUILD_DIR]   env: ROUNDS (5), DURATION s (5), SIZE (64G),
#        BASE_BUILD, HUGEPAGES, PREALLOC_MIB.  ~ROUNDS x 3.5 x DURATION s (+ 1.5 x DURATION per round with BASE_BUILD).
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
base=${BASE_BUILD:-}
rounds=${ROUNDS:-5}
dur=${DURATION:-5}
size=${SIZE:-64G}
prealloc=${PREALLOC_MIB:-}
for b in "$build" ${base:+"$base"}; do
	for x in "$b/target/lunlab-target" "$build/client/lunlab-bench"; do
		[[ -x $x ]] || { echo "first-writes.sh: $x missing; build first (meson setup $b && ninja -C $b)" >&2; exit 2; }
	done
done
for x in iperf3 jq python3 ss; do
	command -v "$x" >/dev/null || { echo "first-writes.sh: $x missing; run ci/install-deps.sh" >&2; exit 2; }
done
bench=$build/client/lunlab-bench
work=$(mktemp -d /tmp/lunlab-first-writes.XXXXXX)
results=$work/results.tsv   # round system run mb_s ios target_cores machine_busy note
iperf_pid=
nr_huge=/proc/sys/vm/nr_hugepages
old_huge=
cleanup() {
	[[ -n ${LL_PID:-} ]] && { ll_stop_lunlab "$LL_PID" || true; }
	[[ -n $iperf_pid ]] && { kill "$iperf_pid" 2>/dev/null; wait "$iperf_pid" 2>/dev/null || true; }
	[[ -z $old_huge ]] || echo "$old_huge" >"$nr_huge" || echo "first-writes.sh: could not set vm.nr_hugepages back to $old_huge" >&2
	rm -rf "$work"
}
trap cleanup EXIT
if [[ -n ${HUGEPAGES:-} ]]; then
	[[ $HUGEPAGES =~ ^[0-9]+$ ]] || { echo "first-writes.sh: HUGEPAGES must be a number of 2 MiB pages" >&2; exit 2; }
	[[ -w $nr_huge ]] || { echo "first-writes.sh: HUGEPAGES needs root (to write $nr_huge)" >&2; exit 2; }
	old_huge=$(cat "$nr_huge")
	echo "$HUGEPAGES" >"$nr_huge"
	# the kernel may find fewer free 2 MiB blocks than asked for
	echo "hugetlb pool: $(cat "$nr_huge") pages of 2 MiB reserved for the run (asked $HUGEPAGES, was $old_huge)"
	if [[ ${HUGEPAGES_WARM:-0} == 1 ]]; then
		# every page of the pool touched once, as a pool reserved at boot is after its first use:
		# the host backs a guest's page when it is first written (the slow first pass,
		# docs/accounting.md "Huge pages from the hugetlb pool"); the pages stay the pool's
		python3 - "$(cat "$nr_huge")" <<'PY'
import mmap, sys, time
pages = int(sys.argv[1]); huge = 2 << 20; MAP_HUGETLB = 0x40000
t = time.monotonic()
m = mmap.mmap(-1, pages * huge, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB)
for i in range(pages):
    m[i * huge] = 1
m.close()
print(f"hugetlb pool: {pages} pages touched once in {time.monotonic() - t:.1f} s (HUGEPAGES_WARM=1)")
PY
	fi
fi
iqn=iqn.2026-11.org.lunlab:first-writes
half=$(python3 -c "print($dur / 2)")
piece=$(python3 -c "print($dur / 6)")

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# CPU ticks of the target's payload filler (lunlab-fill: the kernel's price of fresh pages) and
# the target's minor faults (a populated page counts one, as a faulted one does): counts, which
# the machine's other work moves far less than a rate
fill_ticks() {
	local t n=0
	for t in /proc/"$1"/task/*; do
		# (a thread that ended meanwhile counts 0)
		[[ $(cat "$t/comm" 2>/dev/null) == lunlab-fill ]] &&
			n=$((n + $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)))
	done
	echo "$n"
}
min_faults() { awk '{print $10}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# busy and total jiffies of the whole machine
machine() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# resident memory: VmRSS leaves out hugetlb pages, HugetlbPages counts them
rss_mib() { awk '/^(VmRSS|HugetlbPages):/{ kb += $2 } END { printf "%.0f", kb / 1024 }' "/proc/$1/status"; }

# record ROUND SYSTEM RUN MB_S IOS T0 T1 C0 C1 M0 M1 NOTE [F0 F1 P0 P1]
# (F: the filler's CPU ticks, P: the target's minor faults, before and after the run)
record() {
	python3 - "$@" >>"$results" <<'PY'
import os, sys
r, s, run, mbps, ios, t0, t1, c0, c1, m0, m1, note = sys.argv[1:13]
f0, f1, p0, p1 = (sys.argv[13:17] + ["0"] * 4)[:4]
hz = os.sysconf("SC_CLK_TCK")
wall = float(t1) - float(t0)
cores = (int(c1) - int(c0)) / hz / wall if wall > 0 else 0
b0, a0 = map(int, m0.split()); b1, a1 = map(int, m1.split())
busy = (b1 - b0) / (a1 - a0) if a1 > a0 else 0
mib = int(ios) * 4
fill = (int(f1) - int(f0)) * 1000 / hz / mib if mib else 0
faults = (int(p1) - int(p0)) / mib if mib else 0
cpu = (int(c1) - int(c0)) * 1000 / hz / mib if mib else 0  # the target's, per MiB stored
print("\t".join([r, s, run, f"{float(mbps):.1f}", ios, f"{cores:.2f}", f"{busy:.2f}", note or "-",
                 f"{fill:.3f}", f"{faults:.1f}", f"{cpu:.3f}"]))
PY
	tail -n 1 "$results" | awk -F'\t' '{ target = $2 != "iperf3" && $2 != "memory"
		printf "  %-6s %-6s %9.1f MB/s %5d I/Os  ", $2, $3, $4, $5
		printf target ? "target %.2f cores" : "%17s", target ? $6 : ""
		printf "  machine busy %3.0f%%", $7 * 100
		if (target) printf "  filler %.2f ms/MiB  %5.0f faults/MiB", $9, $10
		printf "  %s\n", $8 == "-" ? "" : $8 }'
}

# scale URL SECONDS: "MB/s I/Os" of one lunlab-bench scale run
scale() {
	local out
	out=$(timeout $((dur * 4 + 120)) "$bench" scale "$1" --vms 1 --bs 4m --qd 1 --duration "$2" --warmup 0 \
		--write --data unique --json --quiet 2>"$work/bench.err") || { cat "$work/bench.err" >&2; out='{}'; }
	jq -r '"\(.runs[0].total_mbps // 0) \(.runs[0].ios // 0)"' <<<"$out"
}

# lunlab ROUND SYSTEM BUILD: first writes on a fresh target, then overwrites of the same range
lunlab() {
	local r=$1 sys=$2 b=$3 url t0 t1 c0 c1 m0 m1 f0 f1 p0 p1 first over note rss kind
	: >"$work/lunlab.log"
	local pre=()
	# by role, not by path: BASE_BUILD may be BUILD itself (the same code with and without it)
	[[ -z $prealloc || $sys != lunlab ]] || pre=(--prealloc-mib "$prealloc")
	# (the start's time: what --prealloc-mib costs before the target listens)
	local s0 started
	s0=$(date +%s.%N)
	ll_start_lunlab "$b/target/lunlab-target" "$work/lunlab.log" --quiet --iqn "$iqn" \
		--handler-path "$b/handlers" --lun "size=$size,model=unlimited" "${pre[@]}" >/dev/null
	started=$(python3 -c "print(f'{$(date +%s.%N) - $s0:.1f}')")
	url="iscsi://127.0.0.1:$LL_PORT/$iqn/0"
	t0=$(date +%s.%N) c0=$(cpu_ticks "$LL_PID") m0=$(machine) f0=$(fill_ticks "$LL_PID") p0=$(min_faults "$LL_PID")
	read -r -a first < <(scale "$url" "$dur")
	t1=$(date +%s.%N) c1=$(cpu_ticks "$LL_PID") m1=$(machine) f1=$(fill_ticks "$LL_PID") p1=$(min_faults "$LL_PID")
	rss=$(rss_mib "$LL_PID")
	# which pages the payloads came from (the target logs it once per kind; nothing when the
	# machine has no hugetlb pool: 4 KiB pages)
	# (grep finds nothing then: under pipefail that must not end the script)
	kind=$({ grep -o 'memory from the hugetlb pool\|memory from 4 KiB pages' "$work/lunlab.log" || true; } |
		sed 's/memory from //' | sort -u | paste -sd+ -)
	record "$r" "$sys" first "${first[0]}" "${first[1]}" "$t0" "$t1" "$c0" "$c1" "$m0" "$m1" \
		"target RSS ${rss} MiB after $((first[1] * 4)) MiB written, payloads in ${kind:-4 KiB pages}, started in ${started} s" "$f0" "$f1" "$p0" "$p1"
	t0=$(date +%s.%N) c0=$(cpu_ticks "$LL_PID") m0=$(machine) f0=$(fill_ticks "$LL_PID") p0=$(min_faults "$LL_PID")
	# three pieces: MB/s their mean (equal durations), I/Os their sum; the largest piece's
	# I/Os say whether one ran past the first run's range
	local sum=0 ios=0 most=0 one
	for _ in 1 2 3; do
		read -r -a one < <(scale "$url" "$piece")
		sum=$(python3 -c "print($sum + ${one[0]})")
		ios=$((ios + one[1]))
		((one[1] <= most)) || most=${one[1]}
	done
	over=("$(python3 -c "print($sum / 3)")" "$ios")
	t1=$(date +%s.%N) c1=$(cpu_ticks "$LL_PID") m1=$(machine) f1=$(fill_ticks "$LL_PID") p1=$(min_faults "$LL_PID")
	note=
	((most <= first[1])) || note=overran
	record "$r" "$sys" over "${over[0]}" "${over[1]}" "$t0" "$t1" "$c0" "$c1" "$m0" "$m1" "$note" "$f0" "$f1" "$p0" "$p1"
	ll_stop_lunlab "$LL_PID"
	LL_PID=
}

# iperf ROUND: one stream over loopback
iperf() {
	local r=$1 port out t0 t1 m0 m1 tries=0
	port=$(ll_free_port)
	iperf3 -s -1 -B 127.0.0.1 -p "$port" >"$work/iperf-server.log" 2>&1 &
	iperf_pid=$!
	until ss -Hltn "sport = :$port" | grep -q .; do
		sleep 0.1
		((++tries < 100)) || { echo "first-writes.sh: iperf3 server did not listen" >&2; exit 1; }
	done
	t0=$(date +%s.%N) m0=$(machine)
	out=$(iperf3 -c 127.0.0.1 -p "$port" -t "$dur" -J)
	t1=$(date +%s.%N) m1=$(machine)
	wait "$iperf_pid" 2>/dev/null || true
	iperf_pid=
	record "$r" iperf3 stream "$(jq '.end.sum_received.bits_per_second / 8e6' <<<"$out")" 0 "$t0" "$t1" 0 0 \
		"$m0" "$m1" ""
}

# memory ROUND: the machine's own price of fresh memory, no target (bench/fresh_memory.py: one
# thread storing 4 MiB blocks into never-touched memory for DURATION s); its profile (ms per MiB
# of each 256 MiB) goes to memory.tsv for the summary
memory() {
	local r=$1 out t0 t1 m0 m1 row mbs cpu blocks
	t0=$(date +%s.%N) m0=$(machine)
	out=$(python3 bench/fresh_memory.py "$dur")
	t1=$(date +%s.%N) m1=$(machine)
	# round, MB/s, CPU ms per MiB, the price per 256 MiB; and the 4 MiB blocks stored
	row=$(jq -r --arg r "$r" '[$r, .mb_s, .cpu_ms_per_mib, (.per_step | map(tostring) | join(" ")),
		(.bytes / 4194304 | floor)] | @tsv' <<<"$out")
	cut -f1-4 <<<"$row" >>"$work/memory.tsv"
	IFS=$'\t' read -r _ mbs cpu _ blocks <<<"$row"
	record "$r" memory fresh "$mbs" "$blocks" "$t0" "$t1" 0 0 "$m0" "$m1" "$cpu ms of CPU per MiB"
}

echo "first writes: 4 MiB QD1 unique writes into a fresh ${size} unlimited LU (${dur} s) against overwrites of"
echo "the same range (${half} s), one iperf3 stream over loopback (${dur} s) and one thread storing 4 MiB"
echo "blocks into fresh memory without a target (${dur} s, bench/fresh_memory.py); $rounds rounds"
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
for ((r = 1; r <= rounds; r++)); do
	echo "round $r"
	if ((r % 2)); then
		lunlab "$r" lunlab "$build"
		[[ -z $base ]] || lunlab "$r" base "$base"
		iperf "$r"
		memory "$r"
	else
		memory "$r"
		iperf "$r"
		[[ -z $base ]] || lunlab "$r" base "$base"
		lunlab "$r" lunlab "$build"
	fi
done
echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo

python3 - "$results" "$work/memory.tsv" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
mem = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
rounds = sorted({int(r[0]) for r in rows})
def get(r, s, run):
    v = [float(x[3]) for x in rows if int(x[0]) == r and x[1] == s and x[2] == run]
    return v[0] if v else None
systems = [s for s in ("lunlab", "base") if any(x[1] == s for x in rows)]
busy = [float(x[6]) for x in rows]
print(f"median of {len(rounds)} rounds (MB/s = 10^6 bytes/s); machine busy during the runs: "
      f"median {statistics.median(busy):.0%}, max {max(busy):.0%}")
ip = [get(r, "iperf3", "stream") for r in rounds]
print(f"  iperf3 one loopback stream      {statistics.median(ip):9.1f} MB/s")
fm = [get(r, "memory", "fresh") for r in rounds]
print(f"  fresh memory, one thread        {statistics.median(fm):9.1f} MB/s   CPU "
      f"{statistics.median(float(m[2]) for m in mem):.2f} ms/MiB (per round: "
      + " ".join(f"{x:.0f}" for x in fm) + " MB/s)")
# where the machine's price changes: a step (256 MiB) costing over twice the first GiB's
# median ends the memory the host still backs
for m in mem:
    steps = [float(x) for x in m[3].split()] if len(m) > 3 and m[3] else []
    if not steps:
        continue
    warm = statistics.median(steps[:4])
    cut = next((i for i, x in enumerate(steps) if x > 2 * warm), None)
    past = f"then {statistics.median(steps[cut:]):.2f} ms/MiB" if cut is not None else "no dearer step"
    print(f"    round {m[0]}: {warm:.2f} ms/MiB for the first "
          f"{(cut if cut is not None else len(steps)) / 4:.2f} GiB, {past} ({len(steps) / 4:.2f} GiB stored)")
for s in systems:
    fw = [get(r, s, "first") for r in rounds]
    ow = [get(r, s, "over") for r in rounds]
    over_ratio = [f / o for f, o in zip(fw, ow) if f and o]
    ip_ratio = [f / i for f, i in zip(fw, ip) if f and i]
    overran = sum(1 for x in rows if x[1] == s and x[7] == "overran")
    m_over, m_ip = statistics.median(over_ratio), statistics.median(ip_ratio)
    def cpu(run):  # the target's CPU per MiB stored: what noise from other work on the machine moves least
        v = [float(x[10]) for x in rows if x[1] == s and x[2] == run and len(x) > 10]
        return statistics.median(v) if v else 0.0
    def med(run, col):  # the filler's CPU per MiB (col 8), the target's minor faults per MiB (col 9)
        v = [float(x[col]) for x in rows if x[1] == s and x[2] == run and len(x) > col]
        return statistics.median(v) if v else 0.0
    print(f"  {s:<7} first writes            {statistics.median(fw):9.1f} MB/s   target CPU {cpu('first'):.2f} ms/MiB"
          f"  (filler {med('first', 8):.2f} ms/MiB, {med('first', 9):.0f} faults/MiB)")
    print(f"  {s:<7} overwrites              {statistics.median(ow):9.1f} MB/s   target CPU {cpu('over'):.2f} ms/MiB"
          f"  (filler {med('over', 8):.2f} ms/MiB, {med('over', 9):.0f} faults/MiB)"
          + (f"  ({overran} round(s) overran the first run's range)" if overran else ""))
    print(f"  {s:<7} first / overwrite       {m_over:9.2f}   per round: " + " ".join(f"{x:.2f}" for x in over_ratio))
    print(f"  {s:<7} first / iperf3          {m_ip:9.2f}   per round: " + " ".join(f"{x:.2f}" for x in ip_ratio))
    fm_ratio = [f / m for f, m in zip(fw, fm) if f and m]
    print(f"  {s:<7} first / fresh memory    {statistics.median(fm_ratio):9.2f}   per round: "
          + " ".join(f"{x:.2f}" for x in fm_ratio))
    if s == "lunlab":
        g1, g2 = m_over >= 0.85, m_ip >= 0.50
        print(f"  goals: first writes >= 85% of overwrites: {'MET' if g1 else 'NOT MET'}; "
              f">= 50% of one iperf3 stream: {'MET' if g2 else 'NOT MET'}")
PY
