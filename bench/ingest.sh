#!/bin/bash
# Write ingest through iSCSI: lunlab-target with the x2 profile unpaced (time_scale=0: the array's
# real work - fingerprint, dedup lookup, zlib accounting - without modeled waiting), lunlab with
# the unlimited profile, and Debian's tgtd (LUN file on /dev/shm), alternately, ROUNDS rounds.
# Each run writes the whole LUN once with unique data (build/tests/integration/lun_tool fill:
# 1 MiB WRITE(16) at QD1, every 8 bytes distinct) on a fresh target, so every block is new to the
# store.  Prints MB/s per run, the median, and lunlab/tgt ratios.  Not a test: a measurement.
# usage: bench/ingest.sh [BUILD_DIR]   env: ROUNDS (3), SIZE (1G)
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
rounds=${ROUNDS:-3}
size=${SIZE:-1G}
bin=$build/target/lunlab-target
tool=$build/tests/integration/lun_tool
[[ -x $bin && -x $tool ]] || { echo "build first: meson setup $build && ninja -C $build" >&2; exit 2; }
work=$(mktemp -d /tmp/lunlab-ingest.XXXXXX)
trap 'll_stop_tgt >/dev/null 2>&1 || true; rm -rf "$work" /dev/shm/lunlab-ingest-$$.img' EXIT
bytes=$(numfmt --from=iec "$size")
iqn=iqn.2026-11.org.lunlab:ingest

# run_one NAME -> prints MB/s
run_one() {
	local name=$1 url t0 t1
	case $name in
	x2-unpaced | unlimited)
		local model=x2 extra=",time_scale=0"
		[[ $name == unlimited ]] && { model=unlimited; extra=""; }
		ll_start_lunlab "$bin" "$work/lunlab.log" --quiet --iqn "$iqn" --handler-path "$build/handlers" \
			--lun "size=$size,model=$model$extra" >/dev/null
		url="iscsi://127.0.0.1:$LL_PORT/$iqn/0" ;;
	tgt)
		truncate -s "$size" /dev/shm/lunlab-ingest-$$.img
		ll_start_tgt /dev/shm/lunlab-ingest-$$.img "$iqn" "$work/tgt.log" >/dev/null
		url="iscsi://127.0.0.1:$TGT_PORT/$iqn/1" ;;
	esac
	t0=$(date +%s.%N)
	"$tool" fill "$url" >/dev/null
	t1=$(date +%s.%N)
	case $name in
	tgt) ll_stop_tgt >/dev/null 2>&1; rm -f /dev/shm/lunlab-ingest-$$.img ;;
	*) ll_stop_lunlab "$LL_PID" ;;
	esac
	awk -v b="$bytes" -v a="$t0" -v z="$t1" 'BEGIN { printf "%.1f", b / (z - a) / 1e6 }'
}

echo "write ingest: $size per run, 1 MiB WRITE(16) QD1, unique data, $rounds rounds, $(nproc) cores, $(date -u +%FT%TZ)"
declare -A runs=()
for ((r = 1; r <= rounds; r++)); do
	line="round $r:"
	for name in x2-unpaced unlimited tgt; do
		v=$(run_one "$name")
		runs[$name]+="$v "
		line+="  $name $v MB/s"
	done
	echo "$line"
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mx=$(median "${runs[x2-unpaced]}"); mu=$(median "${runs[unlimited]}"); mt=$(median "${runs[tgt]}")
printf 'median MB/s (1e6 B/s): x2 unpaced %s, unlimited %s, tgt %s\n' "$mx" "$mu" "$mt"
awk -v x="$mx" -v u="$mu" -v t="$mt" 'BEGIN { printf "ratios: x2/tgt %.2fx, unlimited/tgt %.2fx, x2/unlimited %.2fx\n", x/t, u/t, x/u }'
