#!/bin/bash
# What CRC32C header + data digests cost lunlab-target: 4 MiB READ(16) and 1 MiB WRITE(16), one
# command at a time, with HeaderDigest=DataDigest=CRC32C and with None, alternately, ROUNDS rounds
# (build/tests/robust/digest-bench, a raw initiator: libiscsi 1.19 cannot do DataDigest).  Each
# run starts a fresh target with one unlimited LUN.  BASELINE=/path/to/other/lunlab-target adds
# that target to every round (e.g. a build before a change), with its own handler directory
# BASELINE_HANDLERS.  Prints every run, the medians and the on/off ratios.  Not a test.
# usage: bench/digests.sh [BUILD_DIR]   env: ROUNDS (3), SECONDS_EACH (5), BASELINE, BASELINE_HANDLERS
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
rounds=${ROUNDS:-3}
secs=${SECONDS_EACH:-5}
tool=$build/tests/robust/digest-bench
[[ -x $tool && -x $build/target/lunlab-target ]] || { echo "build first: ninja -C $build" >&2; exit 2; }
iqn=iqn.2026-11.org.lunlab:digests
log=$(mktemp /tmp/lunlab-digests.XXXXXX)
trap 'rm -f "$log"' EXIT
names=(new)
declare -A bins=([new]=$build/target/lunlab-target) hdirs=([new]=$build/handlers)
if [[ -n ${BASELINE:-} ]]; then
	names=(baseline new)
	bins[baseline]=$BASELINE
	hdirs[baseline]=${BASELINE_HANDLERS:?BASELINE_HANDLERS: the baseline build\'s handlers directory}
fi

run_one() { # NAME DIGEST -> "read write"
	ll_start_lunlab "${bins[$1]}" "$log" --quiet --iqn "$iqn" --handler-path "${hdirs[$1]}" \
		--lun size=128M,model=unlimited >/dev/null
	local out
	out=$("$tool" "$LL_PORT" "$iqn" "$2" "$secs")
	ll_stop_lunlab "$LL_PID"
	awk '{ print $3, $6 }' <<<"$out"
}

echo "digests: 4 MiB READ(16) QD1 and 1 MiB WRITE(16) QD1, ${secs} s each, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
declare -A runs=()
for ((r = 1; r <= rounds; r++)); do
	line="round $r:"
	for n in "${names[@]}"; do
		for d in None CRC32C; do
			read -r rd wr < <(run_one "$n" "$d")
			runs[$n-$d-rd]+="$rd "
			runs[$n-$d-wr]+="$wr "
			line+="  $n/$d read $rd write $wr"
		done
	done
	echo "$line"
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median MB/s (1e6 B/s), CRC32C/None:"
for n in "${names[@]}"; do
	for k in rd wr; do
		off=$(median "${runs[$n-None-$k]}") on=$(median "${runs[$n-CRC32C-$k]}")
		awk -v n="$n" -v k="$k" -v a="$off" -v b="$on" 'BEGIN { printf "  %-8s %-5s None %8.1f  CRC32C %8.1f  on/off %.3f\n", n, (k == "rd" ? "read" : "write"), a, b, b / a }'
	done
done
