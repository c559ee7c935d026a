#!/bin/bash
# bench/clone-scale.sh: clones at scale (issue 25 item 2; docs/accounting.md "Shared maps").
# Not a test: it prints figures.
#
#   scale   VMS clones (default 10,000) of a TEMPLATE by EXTENDED COPY at 4 MiB
#           (`lunlab-bench clone --vms VMS --chunk 4m --mode xcopy`) on an x2 LU with
#           time_scale=virtual, then one random 4 KiB write into each clone
#           (bench/clone/clone_probe write) and a read-back of SAMPLE clones (the write, and
#           64 KiB elsewhere that must equal the template); prints the wall time of each step
#           and the target's peak RSS (VmHWM).  With --state-dir: the state's size on disk, then
#           the target is stopped (SIGTERM) and started again: the time from its start to the
#           first good READ, and the sample read back once more.
#   deep    4 KiB random reads and writes (queue depth 1, OPS each) on a plain LU, on a clone
#           of a DEEP_TEMPLATE and on a clone of a clone ... DEEP deep, in ROUNDS rounds whose
#           order alternates; prints each round's microseconds per command and the ratios
#           clone / plain and deep / plain (the target's own work: time_scale=virtual).
#
# usage: bench/clone-scale.sh [BUILD_DIR] [scale] [deep] [--vms N] [--template SIZE | --literal]
#                             [--state-dir DIR] [--sample K]
# env: DEEP (10), DEEP_TEMPLATE (256m), OPS (2000), ROUNDS (8).
# TEMPLATE defaults to 11.9 GiB on the 4 MiB grid (12,775,849,984 bytes: 3,046 map chunks,
# every clone shares the template's chunks); --literal takes seed 000's own 12,777,488,384
# bytes, 1.5625 MiB off that grid: clone k starts k x 100 blocks into a chunk, so its chunks
# are shared with the first clone at the same offset (64 offsets; docs/accounting.md).
# The issue's whole measurement, on a quiet machine, in one command:
#   bench/clone-scale.sh build scale --literal --vms 10000 --state-dir /var/tmp/cs
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ci/lib/target-ctl.sh
source ci/lib/target-ctl.sh
build=build
[[ $# -gt 0 && -d $1 ]] && { build=$1; shift; }
vms=10000 template=12775849984 statedir= sample=200 what=()
while (( $# )); do
    case $1 in
    --vms) vms=$2; shift 2 ;;
    --template) template=$(numfmt --from=iec "${2^^}"); shift 2 ;;
    --literal) template=12777488384; shift ;;
    --state-dir) statedir=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    scale|deep) what+=("$1"); shift ;;
    *) echo "clone-scale.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
(( ${#what[@]} )) || what=(scale deep)
bin=$build/target/lunlab-target bench=$build/client/lunlab-bench probe=$build/bench/clone/clone_probe
pio=$build/bench/persist/persist_io
for x in "$bin" "$bench" "$probe" "$pio"; do
    [[ -x $x ]] || { echo "clone-scale.sh: $x missing; build first (ninja -C $build)" >&2; exit 2; }
done
(( template % 4194304 == 0 )) || echo "note: the template is not a multiple of 4 MiB: clones share the chunks of the first clone at the same offset" >&2
work=$(mktemp -d /tmp/lunlab-clone-scale.XXXXXX)
iqn=iqn.2026-12.org.lunlab:clone-scale
LL_PID=
cleanup() {
    [[ -n $LL_PID ]] && kill -KILL "$LL_PID" 2>/dev/null && wait "$LL_PID" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

url() { echo "iscsi://127.0.0.1:$LL_PORT/$iqn/${1:-0}"; }
start() { ll_start_lunlab "$bin" "$work/target.log" --quiet --iqn "$iqn" --handler-path "$build/handlers" "$@" >/dev/null; }
stop() { kill -TERM "$LL_PID"; wait "$LL_PID" || true; LL_PID=; }
hwm() { awk '/^VmHWM/ { printf "%.2f GiB", $2 / 1048576 }' "/proc/$LL_PID/status"; }
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

echo "clone-scale: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

bench_scale() {
    local tb=$(( template / 512 )) lunsz=$(( template * (vms + 1) )) t0 sd=() out
    lunsz=$(( (lunsz + (1 << 30) - 1) / (1 << 30) * (1 << 30) ))
    if [[ -n $statedir ]]; then
        mkdir -p "$statedir"
        sd=(--state-dir "$statedir/state")
        rm -rf "$statedir/state"
    fi
    echo
    echo "== $vms clones of $template bytes at 4 MiB, time_scale=virtual${statedir:+, --state-dir $statedir/state}"
    start "${sd[@]}" --lun "size=$lunsz,model=x2,time_scale=virtual"
    t0=$(date +%s.%N)
    "$bench" clone "$(url)" --template-size "$template" --vms "$vms" --chunk 4m --mode xcopy --quiet --json \
        >"$work/clone.json"
    printf '  clone: %s s wall, %s XCOPY, peak RSS %s\n' "$(secs "$t0")" \
        "$(jq -r '.runs[0].commands // .commands // "?"' "$work/clone.json" 2>/dev/null || echo '?')" "$(hwm)"
    out=$("$probe" write "$(url)" --base "$tb" --stride "$tb" --count "$vms")
    printf '  one 4 KiB write into each clone: %s; peak RSS %s\n' "$out" "$(hwm)"
    out=$("$probe" verify "$(url)" --base "$tb" --stride "$tb" --count "$vms" --sample "$sample")
    printf '  read back: %s; peak RSS %s\n' "$out" "$(hwm)"
    if [[ -n $statedir ]]; then
        stop
        printf '  state on disk: %s bytes\n' "$(du -sb "$statedir/state" | cut -f1)"
        LL_PORT=$(ll_free_port)
        "$pio" first-read "$(url)" --timeout 600 >"$work/first" &
        local rpid=$!
        "$bin" --listen "127.0.0.1:$LL_PORT" --quiet --iqn "$iqn" --handler-path "$build/handlers" "${sd[@]}" \
            --lun "size=$lunsz,model=x2,time_scale=virtual" >>"$work/target.log" 2>&1 &
        LL_PID=$!
        wait "$rpid" || true
        printf '  restart: first READ %s ms after the start\n' "$(awk '{ print $2 }' "$work/first")"
        out=$("$probe" verify "$(url)" --base "$tb" --stride "$tb" --count "$vms" --sample "$sample")
        printf '  read back after the restart: %s; peak RSS %s\n' "$out" "$(hwm)"
    fi
    stop
}

bench_deep() {
    local deep=${DEEP:-10} tsz ops=${OPS:-2000} rounds=${ROUNDS:-8} tb r k kind order
    tsz=${DEEP_TEMPLATE:-256m}
    tsz=$(numfmt --from=iec "${tsz^^}")
    tb=$(( tsz / 512 ))
    echo
    echo "== 4 KiB QD1 random I/O: plain LU, clone, clone $deep deep ($tsz bytes each, $ops commands, $rounds rounds)"
    # LUN 0: template, clone 1 .. clone DEEP (each a copy of the one before); LUN 1: plain
    start --lun "size=$(( tsz * (deep + 2) )),model=x2,time_scale=virtual" \
        --lun "size=$tsz,model=x2,time_scale=virtual"
    "$bench" clone "$(url)" --template-size "$tsz" --vms 1 --chunk 4m --mode xcopy --quiet --json >/dev/null
    for (( k = 1; k < deep; k++ )); do
        "$probe" xcopy "$(url)" --src $(( k * tb )) --dst $(( (k + 1) * tb )) --lbas "$tb"
    done
    "$build/tests/integration/lun_tool" fill "$(url 1)" >/dev/null
    declare -A all=()
    for (( r = 1; r <= rounds; r++ )); do
        order="plain clone deep"
        (( r % 2 == 0 )) && order="deep clone plain"
        local line="  round $r:"
        for kind in read write; do
            for k in $order; do
                case $k in
                plain) u=$(url 1) lba=0 ;;
                clone) u=$(url) lba=$tb ;;
                deep) u=$(url) lba=$(( deep * tb )) ;;
                esac
                us=$("$probe" iops "$u" --lba "$lba" --lbas "$tb" --ops "$ops" "--$kind" --seed "$r" | awk '{ print $2 }')
                all[$kind.$k]+=" $us"
                line+=" $kind/$k ${us}us"
            done
        done
        echo "$line"
    done
    # the median and the best round of each: on a shared machine the best is the code's own cost
    stat() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1] }'; }
    for kind in read write; do
        read -r pm pb < <(stat <<<"${all[$kind.plain]}")
        read -r cm cb < <(stat <<<"${all[$kind.clone]}")
        read -r dm db < <(stat <<<"${all[$kind.deep]}")
        awk -v k="$kind" -v n="$deep" -v pm="$pm" -v pb="$pb" -v cm="$cm" -v cb="$cb" -v dm="$dm" -v db="$db" 'BEGIN {
            printf "  %s: median us plain %.1f, clone %.1f, %d deep %.1f: clone / plain %.3f, deep / plain %.3f\n", k, pm, cm, n, dm, cm / pm, dm / pm
            printf "  %s: best round us plain %.1f, clone %.1f, %d deep %.1f: clone / plain %.3f, deep / plain %.3f\n", k, pb, cb, n, db, cb / pb, db / pb }'
    done
    stop
}

for w in "${what[@]}"; do "bench_$w"; done
