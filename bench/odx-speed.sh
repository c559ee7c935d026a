#!/bin/bash
# bench/odx-speed.sh: WRITE USING TOKEN against EXTENDED COPY of the same range, alternately in
# one run (not a test: a measurement; issue 24 "Speed", docs/benchmark.md "ODX against XCOPY").
#
# One lunlab-target, two LUs of SIZE (10g) on one x2 array (tokens and EXTENDED COPY work
# within an array), 4 KiB blocks, unpaced (time_scale=0: the array's real work, no modeled
# waiting).  The first run writes a SIZE template (synthetic content) on LU 0; then each round,
# in turn (odd rounds XCOPY first, even rounds ODX first), clones it onto LU 1 with
#   xcopy  lunlab-bench clone --mode xcopy --chunk XCOPY_CHUNK (16m: the largest segment the profile takes, VPD 0x8F 8001h; one 0x02
#          segment each) --outstanding XCOPY_QD (4)
#   odx    lunlab-bench clone --mode odx --chunk ODX_CHUNK (SIZE: one token for the whole
#          range): POPULATE TOKEN, RRTI, one WRITE USING TOKEN of the range
# and prints logical bytes/s of each (bytes cloned / wall time), of the WRITE USING TOKEN alone
# (bytes / its time), their ratio and the WUT time.  Goals: WUT >= XCOPY in logical bytes/s
# and WUT <= 2 s.
# Then memory per live token: the array's metadata_bytes (capacity page: maps, block records,
# index and live tokens) and the target's RSS after a clone --mode odx --chunk TOKEN_CHUNK
# (64m) whose tokens die with their write (DEL_TKN) against one whose tokens stay alive
# (--keep-tokens, until their inactivity timeout): the difference over the number of tokens.
# A run whose ODX or XCOPY fell back to READ + WRITE is reported as such, never as a figure.
# usage: bench/odx-speed.sh [BUILD_DIR]   env: SIZE (10g), ROUNDS (3), XCOPY_CHUNK (16m),
#        XCOPY_QD (4), ODX_CHUNK (SIZE), TOKEN_CHUNK (64m), MODEL (x2).  Needs SIZE of free
#        memory for the template (synthetic data, reduced as the array reduces it).
#        SIZE=1g is a quick check that the script works; the goals are for 10g on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/lib/target-ctl.sh
build=${1:-build}
size=${SIZE:-10g}
rounds=${ROUNDS:-3}
xchunk=${XCOPY_CHUNK:-16m}
xqd=${XCOPY_QD:-4}
ochunk=${ODX_CHUNK:-$size}
tchunk=${TOKEN_CHUNK:-64m}
model=${MODEL:-x2}
for x in "$build/target/lunlab-target" "$build/client/lunlab-bench"; do
	[[ -x $x ]] || { echo "odx-speed.sh: $x missing; build first (meson setup $build && ninja -C $build)" >&2; exit 2; }
done
for x in jq python3 ss; do
	command -v "$x" >/dev/null || { echo "odx-speed.sh: $x missing; run ci/install-deps.sh" >&2; exit 2; }
done
bench=$build/client/lunlab-bench
work=$(mktemp -d /tmp/lunlab-odx-speed.XXXXXX)
cleanup() {
	[[ -n ${LL_PID:-} ]] && { ll_stop_lunlab "$LL_PID" || true; }
	rm -rf "$work"
}
trap cleanup EXIT
iqn=iqn.2026-12.org.lunlab:odx-speed
lun="size=$size,block=4096,model=$model,time_scale=0,array=odx"
ll_start_lunlab "$build/target/lunlab-target" "$work/target.log" --quiet --iqn "$iqn" \
	--handler-path "$build/handlers" --lun "$lun" --lun "$lun" >/dev/null
url=iscsi://127.0.0.1:$LL_PORT/$iqn
echo "== lunlab-target pid $LL_PID: 2 LUs $lun; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" info "$url/0" | sed -n '/VPD 0x8F/,/COMPARE AND WRITE/p' | grep -v 'COMPARE AND WRITE' || true

# clone MODE CHUNK OUT.json [extra lunlab-bench options]: one clone of the template onto LU 1
template=()
clone() {
	local mode=$1 chunk=$2 out=$3
	shift 3
	"$bench" clone "$url/0" --dest "$url/1" --template-size "$size" --template-content synthetic \
		--vms 1 --parallel 1 --outstanding "$xqd" --chunk "$chunk" --mode "$mode" "${template[@]}" "$@" \
		--json -q > "$out"
	template=(--no-template)
}
# offloaded OUT.json MODE: 1 when every byte went by MODE, else print why not
offloaded() {
	local ok
	ok=$(jq -r --arg m "$2" '.runs[0][$m]' "$1")
	[[ $ok == true ]] && return 0
	echo "  $2 fell back to READ + WRITE: $(jq -r '.runs[0].fallback_reason' "$1")"
	return 1
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$LL_PID/status"; }
# the array's own figure: metadata_bytes of the capacity page (maps, block records, index and
# live tokens' holds, docs/accounting.md "Memory")
meta() { "$bench" info "$url/0" --json | jq -r '.array.metadata_bytes'; }

results=$work/rounds.tsv   # round mode wall_s bytes wut_s wut_max_s
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="xcopy odx"; else order="odx xcopy"; fi
	for m in $order; do
		chunk=$xchunk
		[[ $m == odx ]] && chunk=$ochunk
		clone "$m" "$chunk" "$work/$m.$r.json"
		offloaded "$work/$m.$r.json" "$m" || { echo "round $r: $m was not offloaded: no figures" >&2; exit 1; }
		jq -r --arg r "$r" --arg m "$m" '.runs[0] | [$r, $m, .wall_s, .bytes_cloned,
			(.odx_commands.write_using_token_s // 0), (.odx_commands.write_using_token_max_s // 0)] | @tsv' \
			"$work/$m.$r.json" >> "$results"
	done
done

echo "== $rounds rounds, $size cloned per run (XCOPY chunk $xchunk x $xqd outstanding, ODX chunk $ochunk)"
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().split('\n') if l]
by = {}
for r, m, wall, b, wut, wmax in rows:
    by.setdefault(int(r), {})[m] = (float(wall), int(b), float(wut), float(wmax))
print(f"{'round':>5} {'XCOPY GB/s':>11} {'ODX GB/s':>9} {'WUT GB/s':>9} {'WUT ms':>9} {'WUT/XCOPY':>9}")
x_rates, o_rates, w_rates, w_secs, ratios = [], [], [], [], []
for r in sorted(by):
    xw, xb, _, _ = by[r]['xcopy']
    ow, ob, ws, wmax = by[r]['odx']
    xr, orate = xb / xw, ob / ow
    wr = ob / ws if ws > 0 else float('inf')
    x_rates.append(xr); o_rates.append(orate); w_rates.append(wr); w_secs.append(wmax); ratios.append(wr / xr)
    print(f"{r:>5} {xr / 1e9:>11.2f} {orate / 1e9:>9.2f} {wr / 1e9:>9.2f} {wmax * 1e3:>9.3f} {wr / xr:>9.2f}")
med = statistics.median
print(f"median {med(x_rates) / 1e9:>10.2f} {med(o_rates) / 1e9:>9.2f} {med(w_rates) / 1e9:>9.2f} "
      f"{med(w_secs) * 1e3:>9.3f} {med(ratios):>9.2f}")
print("(logical bytes/s: bytes cloned / wall time of the whole clone (XCOPY, ODX = PT + RRTI + WUT) "
      "or of the WRITE USING TOKEN alone; WUT ms = the slowest WRITE USING TOKEN of the run)")
print(f"goal WUT >= XCOPY logical bytes/s: {'met' if med(ratios) >= 1 else 'MISSED'} (median ratio {med(ratios):.2f}, "
      f"rounds {min(ratios):.2f}-{max(ratios):.2f})")
print(f"goal WUT <= 2 s: {'met' if max(w_secs) <= 2 else 'MISSED'} (slowest {max(w_secs) * 1e3:.3f} ms)")
PY

# memory per live token: the same ODX clone in TOKEN_CHUNK pieces, tokens deleted by their
# write, then kept alive; each after a run that leaves LU 1 mapped the same way
echo "== memory per live token ($tchunk tokens over $size)"
rss0=$(rss_kib) m0=$(meta)
clone odx "$tchunk" "$work/del.json"
offloaded "$work/del.json" odx || exit 1
rss1=$(rss_kib) m1=$(meta)
clone odx "$tchunk" "$work/keep.json" --keep-tokens
offloaded "$work/keep.json" odx || exit 1
rss2=$(rss_kib) m2=$(meta)
n=$(jq -r '.runs[0].odx_commands.tokens' "$work/keep.json")
python3 - "$rss0" "$rss1" "$rss2" "$m0" "$m1" "$m2" "$n" "$tchunk" <<'PY'
import sys
r0, r1, r2, m0, m1, m2, n = (int(v) for v in sys.argv[1:8])
chunk = sys.argv[8]
def per(a, b, c, unit):
    return ((c - b) - (b - a)) * unit / n if n else 0
print(f"array metadata_bytes {m0} -> {m1} (DEL_TKN: tokens die with their write) -> {m2} ({n} live tokens)")
print(f"target RSS {r0} -> {r1} -> {r2} KiB")
print(f"memory per live token of {chunk}: {per(m0, m1, m2, 1):.0f} bytes by the array's figure, "
      f"~{per(r0, r1, r2, 1024) / 1024:.1f} KiB by RSS (page-granular; malloc may keep freed memory)")
PY
