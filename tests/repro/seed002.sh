#!/bin/bash
# tests/repro/seed002.sh BUILD_DIR [--ci|--full] - reproduce seed 002 ("XenServer's LUN
# scalability", the XenServer 6.5 curve on a Pure Storage FA-420) against a private
# lunlab-target, in real time (time_scale 1), and check the published figures
# (../shared/facts/seed-figures.md; docs/reproduce.md), for reads and for writes (the write-up:
# "shape is similar ... for writes"):
#   N VMs, each one session on its own region, 4 MiB sequential reads (then writes of unique
#   data, lunlab-bench scale --write --data unique), QD1:
#   1 VM 600 MB/s (+-5 %), 820 MB/s (+-3 %) from 4 VMs to 100, fairness max/min <= 1.02 at 100.
# The same runs with the "unlimited" profile (no model, no pacing) measure what this machine
# can move through loopback: the headroom (checked for reads, shown for writes).  Whether a fa420 figure is the model's is scale's
# own verdict (its JSON "machine_limited": the model's mean latency x time scale against what
# the client saw, docs/bench.md "Machine-limited runs"); a limited row says MACHINE-LIMITED with
# the time scale to rerun at instead of printing a figure as the array's.
#
# Windows.  At 100 VMs each VM gets 8.2 MB/s, about 2 commands of 4 MiB per second; a VM's rate
# is taken from its completions inside the window ((n-1) x 4 MiB / (last - first), docs/bench.md),
# so the window must hold many completions per VM for max/min to measure the array's fairness
# rather than +-1 I/O of quantisation: 12 s (CI, ~24 per VM) or 30 s (--full, ~60 per VM),
# after a warm-up that lets all 100 sessions reach steady state.
#
# Writes go to a 1 GiB LU: each VM overwrites its own 1/N of it again and again, so the array
# holds at most 1 GiB of unique data however long the run (reads use a 400 GiB LU, unwritten).
# The write runs start on a fresh LU, as a new user's would: the 1-VM run writes the LU for the
# first time (1 GiB at 600 MB/s: its warm-up and the first ~0.8 s of its window), the later
# counts overwrite it.  A fresh store's first writes take fresh memory from the system; the
# store's filler thread (handlers/array/payload_mem.c) populates it ahead of the writers
# (docs/accounting.md "First writes").  What that costs this machine shows in the 1-VM row's
# measured share like any other host time (a share above the row's tolerance is a SKIP, below).
# REPRO_PRECONDITION=1 writes the whole LU once before the write runs (4 VMs, 3 s: SNIA's
# preconditioning, so every row is measured in steady state, as before issue 25).
#
# Noise.  A 2-core CI machine shared with other jobs sometimes stalls the bench or the target
# for a moment in a 3-12 s window; the single VM's figure also carries this machine's real
# host path (fa420.yaml assumes 0.25 ms of it per command).  A fa420 figure that misses is
# therefore measured once more in a fresh target with the same window; the row shows both
# values and the second decides (a systematic error misses twice).  A row for which this
# machine cannot judge (MACHINE-LIMITED, see above) prints SKIP: it is neither passed nor failed.
# Which rows can be judged, both ways: a QD1 closed loop below saturation moves exactly
# 1 - share of what the model alone would (each command takes the model's latency plus this
# machine's share), so a row is judged only when scale's verdict is not limited AND the
# measured share is within that row's own tolerance (scale's verdict alone allows 5%, more
# than the 3% of the 820 MB/s rows: a 4% share was a MISS there, not the array's figure); a
# saturated array's queue absorbs the share (scale reports 0).  The re-measure is judged by
# the same rule: a second window the machine limited is a SKIP, not the row's verdict.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
repro_need_build "${1:-}"
MODE=${2:---ci}

# "N:warmup:duration" per VM count
case $MODE in
--ci)   RUNS=${REPRO_RUNS:-"1:1:3 4:1:3 20:2:4 100:3:12"} ;;
--full) RUNS=${REPRO_RUNS:-"1:2:10 2:2:10 3:2:10 4:2:10 8:2:10 20:3:15 50:3:20 100:5:30"} ;;
*) die "mode must be --ci or --full" ;;
esac

# op_args OP: lunlab-bench scale arguments and LU size for OP (read or write)
op_args() { if [ "$1" = write ]; then echo "--write --data unique"; fi; }
op_lun() { if [ "$1" = write ]; then echo 1G; else echo 400G; fi; }

# precondition PROFILE OP: with REPRO_PRECONDITION=1, before writes, the whole LU written once
# (see above)
precondition() {
	[ "$2" = write ] && [ "${REPRO_PRECONDITION:-0}" = 1 ] || return 0
	echo "== $1: preconditioning, the whole LU written once (4 VMs, 3 s)" >&2
	# shellcheck disable=SC2046
	repro_bench "$REPRO_TMP/$1-$2-precondition.json" scale "$REPRO_URL" --vms 4 --bs 4m --qd 1 \
		--duration 3 --warmup 0 $(op_args "$2")
}

# scale_runs PROFILE OP OUT.json: one lunlab-bench scale per VM count (each its own window),
# merged into one document {"runs": [...]}
scale_runs() {
	local prof=$1 op=$2 out=$3 r n w d parts=()
	repro_start_target "size=$(op_lun "$op"),model=$prof"
	precondition "$prof" "$op" || { repro_stop_target; return 1; }
	for r in $RUNS; do
		IFS=: read -r n w d <<<"$r"
		echo "== $prof: $n VM(s), 4 MiB ${op}s QD1, warm-up $w s, window $d s" >&2
		# shellcheck disable=SC2046
		repro_bench "$REPRO_TMP/$prof-$op-$n.json" scale "$REPRO_URL" --vms "$n" --bs 4m --qd 1 \
			--duration "$d" --warmup "$w" $(op_args "$op") || { repro_stop_target; return 1; }
		parts+=("$REPRO_TMP/$prof-$op-$n.json")
	done
	repro_stop_target
	jq -s '{command: "scale", bs: .[0].bs, qd: .[0].qd, runs: [.[].runs[]]}' "${parts[@]}" >"$out"
}

run_field() { jq -r --argjson n "$2" ".runs[] | select(.vms == \$n) | .$3" "$1"; }

# within VALUE PUBLISHED TOL: |VALUE/PUBLISHED - 1| <= TOL
within() { awk -v m="$1" -v p="$2" -v t="$3" 'BEGIN { d = m / p - 1; exit !(m != "" && d <= t && -d <= t) }'; }

# remeasure OP N: N VMs once more on a fresh fa420 target with that count's window, into
# $REPRO_TMP/again-OP-N.json (absent when the run failed or that count was not run)
remeasure() {
	local op=$1 n=$2 r w="" d="" out=$REPRO_TMP/again-$1-$2.json
	rm -f "$out"
	for r in $RUNS; do
		[ "${r%%:*}" = "$n" ] && IFS=: read -r _ w d <<<"$r"
	done
	[ -n "$d" ] || return 0 # that count was not run (REPRO_RUNS)
	repro_start_target "size=$(op_lun "$op"),model=fa420"
	precondition fa420 "$op" || { repro_stop_target; return 0; }
	echo "== fa420: $n VM(s) ${op}s re-measured (the first window missed), warm-up $w s, window $d s" >&2
	# shellcheck disable=SC2046
	repro_bench "$out" scale "$REPRO_URL" --vms "$n" --bs 4m --qd 1 \
		--duration "$d" --warmup "$w" $(op_args "$op") || rm -f "$out"
	repro_stop_target
}

# check_twice OP LABEL PUBLISHED FIRST N FIELD KIND TOL SHARE_TOL: repro_check, with one
# re-measure on a miss; the re-measure is judged only if this machine did not limit it
# (cannot_judge ... SHARE_TOL), else the row is a SKIP
check_twice() {
	local op=$1 label=$2 pub=$3 got=$4 n=$5 field=$6 kind=$7 tol=$8 share_tol=$9 again
	local ok=0
	if [ "$kind" = max ]; then
		awk -v m="$got" -v p="$pub" 'BEGIN { exit !(m != "" && m <= p + 1e-12) }' && ok=1
	else
		within "$got" "$pub" "$tol" && ok=1
	fi
	if [ $ok = 1 ]; then
		repro_check "$label" "$pub" "$got" "$kind" "$tol"
		return
	fi
	remeasure "$op" "$n"
	if [ -s "$REPRO_TMP/again-$op-$n.json" ] && cannot_judge "$REPRO_TMP/again-$op-$n.json" "$n" "$share_tol"; then
		printf '%-40s | MACHINE-LIMITED in the re-measure (machine share %s, verdict %s) | SKIP\n' \
			"$label (1st $(printf '%.4g' "${got:-0}"))" \
			"$(run_field "$REPRO_TMP/again-$op-$n.json" "$n" modeled.machine_share)" \
			"$(run_field "$REPRO_TMP/again-$op-$n.json" "$n" machine_limited)"
		return
	fi
	again=$([ -s "$REPRO_TMP/again-$op-$n.json" ] && run_field "$REPRO_TMP/again-$op-$n.json" "$n" "$field")
	repro_check "$label (1st $(printf '%.4g' "${got:-0}"))" "$pub" "$again" "$kind" "$tol"
}

# limited FA N: scale's verdict on that run ("true" when this machine set the pace)
limited() { [ "$(run_field "$1" "$2" machine_limited)" = true ]; }
# cannot_judge FA N SHARE_TOL: scale's verdict is limited, or this machine's exact share of each
# command is above SHARE_TOL (the share alone could move the row outside its tolerance)
cannot_judge() {
	limited "$1" "$2" && return 0
	[ "$(run_field "$1" "$2" modeled.machine_share_exact)" = true ] &&
		awk -v s="$(run_field "$1" "$2" modeled.machine_share)" -v t="$3" 'BEGIN { exit !(s > t) }'
}

# report OP FA.json UN.json: the published checks for one operation
report() {
	local op=$1 fa=$2 un=$3 r n got label tol
	repro_header "fa420, 4 MiB ${op}s QD1"
	# every verdict below rests on scale's machine check; a run without it (no model figures
	# in its JSON) would let a figure this machine set pass as the array's
	repro_check "fa420 $op runs with the model's figures" "$(jq '.runs | length' "$fa")" \
		"$(jq '[.runs[] | select(.modeled.mean_latency_ms > 0)] | length' "$fa")" min 0
	for r in $RUNS; do
		n=${r%%:*}
		got=$(run_field "$fa" "$n" total_mbps)
		label="$n VM$([ "$n" = 1 ] || echo s) $op MB/s"
		if [ -z "$got" ]; then
			repro_check "$label" 820 "" rel 0.03
			continue
		fi
		tol=0.03
		[ "$n" = 1 ] && tol=0.05
		if cannot_judge "$fa" "$n" "$tol"; then
			printf '%-40s | MACHINE-LIMITED: %.0f MB/s, this machine added %.0f%% to each command, array busy %.0f%% (host %.2f ms vs modeled %.2f ms); rerun at time_scale=%.0f | SKIP\n' \
				"$label" "$got" "$(run_field "$fa" "$n" modeled.machine_share | awk '{print $1 * 100}')" \
				"$(run_field "$fa" "$n" modeled.array_utilization | awk '{print $1 * 100}')" \
				"$(run_field "$fa" "$n" modeled.host_mean_latency_ms)" "$(run_field "$fa" "$n" modeled.mean_latency_ms)" \
				"$(run_field "$fa" "$n" modeled.suggested_time_scale)"
			continue
		fi
		if [ "$n" = 1 ]; then
			check_twice "$op" "$label" 600 "$got" "$n" total_mbps rel 0.05 0.05
		elif [ "$n" -ge 4 ]; then
			check_twice "$op" "$label" 820 "$got" "$n" total_mbps rel 0.03 0.03
		else
			# 2-3 VMs: the published curve only says "820 reached with 3-4 VMs"; shown, not judged
			printf '%-40s | %12s | %12.4g | %9s | %s\n' "$label" "(rising)" "$got" "" "-"
		fi
	done
	if limited "$fa" 100; then
		printf '%-40s | MACHINE-LIMITED (see the 100 VM row) | SKIP\n' "100 VMs $op fairness max/min"
	else
		# fairness: scale's own verdict (1, a share never over 100%) decides the re-measure
		check_twice "$op" "100 VMs $op fairness max/min" 1.02 "$(run_field "$fa" 100 fairness)" 100 fairness max 0 1
	fi
	jq -r '.runs[] | "  \(.vms) VM(s): per VM min \(.min_mbps * 10 | floor / 10) / avg \(.avg_mbps * 10 | floor / 10) / max \(.max_mbps * 10 | floor / 10) MB/s, \(.ios) I/Os in \(.seconds) s, host \(.modeled.host_mean_latency_ms // 0 | . * 100 | floor / 100) / modeled \(.modeled.mean_latency_ms // 0 | . * 100 | floor / 100) ms per command, lunlab-bench CPU \(.client_cpu_pct | floor)%"' "$fa"

	repro_header "headroom: unlimited profile, ${op}s"
	for r in $RUNS; do
		n=${r%%:*}
		label="$n VM$([ "$n" = 1 ] || echo s) $op MB/s (>= 1.1 x LUN max)"
		if [ "$op" = write ]; then
			# shown, not judged: unique 4 MiB writes at QD1 are bound by this machine's
			# store work (fingerprint + copy of every block); whether a fa420 row is the
			# array's is scale's own verdict above
			printf '%-40s | %12s | %12.4g | %9s | %s\n' "$label" "(shown)" "$(run_field "$un" "$n" total_mbps)" "" "-"
			continue
		fi
		# what this machine moves at all is not the array's figure: below 1.1 x the LUN's max
		# the row is a SKIP, not a MISS (the fa420 rows' own verdicts above say whether this
		# machine limited them); a machine's speed decides what can be judged, never the verdict
		got=$(run_field "$un" "$n" total_mbps)
		if [ -n "$got" ] && awk -v m="$got" 'BEGIN { exit !(m < 902) }'; then
			printf '%-40s | MACHINE-LIMITED: this machine moved %.0f MB/s through an unlimited LU | SKIP\n' "$label" "$got"
			continue
		fi
		repro_check "$label" 902 "$got" min 0
	done
}

echo "seed 002 ($MODE): XenServer 6.5 LUN scalability, profile fa420 (real time) and unlimited, reads and writes"
T0=$(date +%s)
for OP in read write; do
	FA=$REPRO_TMP/fa420-$OP.json UN=$REPRO_TMP/unlimited-$OP.json
	scale_runs unlimited "$OP" "$UN" || REPRO_FAILS=$((REPRO_FAILS + 1))
	scale_runs fa420 "$OP" "$FA" || REPRO_FAILS=$((REPRO_FAILS + 1))
	[ -n "${REPRO_KEEP:-}" ] && cp "$FA" "$REPRO_KEEP/seed002-fa420-$OP.json" && cp "$UN" "$REPRO_KEEP/seed002-unlimited-$OP.json"
	report "$OP" "$FA" "$UN"
done
echo "  ($(($(date +%s) - T0)) s)"
repro_finish
