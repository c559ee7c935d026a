#!/bin/bash
# bench/cmd-cost.sh: what one command costs lunlab-target, in counts a busy machine cannot
# fake, for one or more builds: a fixed number of commands (lunlab-bench scale --count) against
# a fresh target with one filled unlimited LU, the target measured only while they run.
#
#   perf mode (default): perf stat's software counters on the target's process (every thread):
#     futex system calls, context switches, sendmsg/recvfrom calls and CPU ms, per command.
#     These are counts, not times (CPU ms aside), so the load of other work barely moves them.
#   callgrind mode (MODE=callgrind): the target under valgrind's callgrind, instrumentation
#     switched on only for the commands (callgrind_control -i on/off): instructions (Ir) per
#     command, exact and repeatable, and an output file per run for callgrind_annotate (which
#     functions grew between two builds).  Valgrind runs one thread at a time, so its wake-up
#     pattern is not the native one: use perf mode for futex and switch counts.
# Why both: this machine's virtual CPU has no PMU (perf stat -e instructions: <not supported>).
#
# usage: bench/cmd-cost.sh BUILD [BUILD...]
# env: WORKLOAD ("--bs 4k --qd 32 --random": lunlab-bench scale options; add --write for
#      writes), COUNT commands (perf 200000, callgrind 20000), RUNS per build (3, alternating
#      builds), SIZE (1G; callgrind 256M: the path per command does not depend on it),
#      MODE (perf | callgrind), OUT (a directory to keep callgrind.out.* in; default a temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
[[ $# -ge 1 ]] || { echo "usage: bench/cmd-cost.sh BUILD [BUILD...]" >&2; exit 2; }
mode=${MODE:-perf}
case $mode in
perf) count=${COUNT:-200000} size=${SIZE:-1G} ;;
callgrind) count=${COUNT:-20000} size=${SIZE:-256M} ;;
*) echo "cmd-cost.sh: MODE perf or callgrind" >&2; exit 2 ;;
esac
workload=${WORKLOAD:---bs 4k --qd 32 --random}
runs=${RUNS:-3}
for b in "$@"; do
	for x in "$b/target/lunlab-target" "$b/handlers/handler_lunlab.so"; do
		[[ -e $x ]] || { echo "cmd-cost.sh: $x missing; build first" >&2; exit 2; }
	done
done
bench=$1/client/lunlab-bench
tool=$1/tests/integration/lun_tool
for x in "$bench" "$tool"; do [[ -x $x ]] || { echo "cmd-cost.sh: $x missing" >&2; exit 2; }; done
work=$(mktemp -d /tmp/lunlab-cost.XXXXXX)
out=${OUT:-$work}
mkdir -p "$out"
trap '[[ -n ${LL_PID:-} ]] && { ll_stop_lunlab "$LL_PID" || true; }; rm -rf "$work"' EXIT
iqn=iqn.2026-12.org.lunlab:cost
warm=$((count / 10))

# the target binary, under valgrind in callgrind mode (a wrapper so that LL_PID is valgrind's)
wrapper() { # wrapper BUILD TAG -> path of an executable that starts that build's target
	local w=$work/target-$2
	if [[ $mode == callgrind ]]; then
		printf '#!/bin/sh\nexec valgrind -q --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file=%s %s "$@"\n' \
			"$out/callgrind.out.$2" "$1/target/lunlab-target" >"$w"
	else
		printf '#!/bin/sh\nexec %s "$@"\n' "$1/target/lunlab-target" >"$w"
	fi
	chmod +x "$w"
	echo "$w"
}

one() { # one BUILD TAG: prints "per-command figures" for one run
	local b=$1 tag=$2 url perf_pid
	LL_START_TIMEOUT=300 ll_start_lunlab "$(wrapper "$b" "$tag")" "$work/target.log" --quiet --iqn "$iqn" \
		--handler-path "$b/handlers" --lun "size=$size,model=unlimited" >/dev/null
	url="iscsi://127.0.0.1:$LL_PORT/$iqn/0"
	"$tool" fill "$url" >/dev/null
	# a warm-up of the same commands: first touches, lazily started threads
	# shellcheck disable=SC2086
	"$bench" scale "$url" --vms 1 --count "$warm" $workload --warmup 0 --json --quiet >/dev/null 2>>"$work/bench.err"
	if [[ $mode == callgrind ]]; then
		callgrind_control -i on "$LL_PID" >/dev/null 2>&1
	else
		perf stat -x '	' -o "$work/perf.txt" -p "$LL_PID" -e task-clock,context-switches \
			-e syscalls:sys_enter_futex,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvfrom \
			-e syscalls:sys_enter_epoll_wait 2>/dev/null &
		perf_pid=$!
		sleep 0.5 # perf attached to every thread
	fi
	# shellcheck disable=SC2086
	"$bench" scale "$url" --vms 1 --count "$count" $workload --warmup 0 --json --quiet >"$work/run.json" 2>>"$work/bench.err"
	if [[ $mode == callgrind ]]; then
		callgrind_control -i off "$LL_PID" >/dev/null 2>&1
		ll_stop_lunlab "$LL_PID" || true # the dump is written at exit
		LL_PID=
		# one file per thread: only the threads that run commands count (the I/O threads'
		# thread_main, the handler workers' worker_main or, before the pool, host_worker);
		# the array's background accounting (compressed sizes of what the fill wrote) and
		# other housekeeping threads would otherwise weigh as much as the commands
		local ir=0 t f
		for f in "$out/callgrind.out.$tag"-*; do
			grep -qE '^fn=\([0-9]+\) (thread_main|worker_main|host_worker)$' "$f" || continue
			t=$(awk '/^totals:/ {print $2}' "$f")
			ir=$((ir + ${t:-0}))
		done
		awk -v ir="$ir" -v n="$count" 'BEGIN {printf "instructions/cmd %.0f\n", ir / n}'
	else
		kill -INT "$perf_pid"
		wait "$perf_pid" || true
		ll_stop_lunlab "$LL_PID" || true
		LL_PID=
		awk -F'\t' -v n="$count" '
			/task-clock/ {cpu = $1}
			/context-switches/ {cs = $1}
			/sys_enter_futex/ {fx = $1}
			/sys_enter_sendmsg/ {sm = $1}
			/sys_enter_recvfrom/ {rf = $1}
			/sys_enter_epoll_wait/ {ew = $1}
			END {printf "cpu_us/cmd %.2f  futex/cmd %.3f  cswitch/cmd %.3f  sendmsg/cmd %.3f  recvfrom/cmd %.3f  epoll_wait/cmd %.3f\n",
				cpu * 1000 / n, fx / n, cs / n, sm / n, rf / n, ew / n}' "$work/perf.txt"
	fi
}

echo "cmd-cost: $mode, $count commands of '$workload' per run, LU $size, $runs runs per build, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; r++)); do
	i=0
	for b in "$@"; do
		i=$((i + 1))
		printf 'run %d build %d (%s): %s\n' "$r" "$i" "$b" "$(one "$b" "b$i-r$r")"
	done
done
[[ $mode == callgrind ]] && echo "callgrind outputs: $out (callgrind_annotate FILE; compare two by their function lists)"
exit 0
