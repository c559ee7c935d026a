#!/bin/bash
# bench/persist.sh: the goals of --state-dir (docs/persistence.md "Goals"), measured with
# lunlab-target and bench/persist/persist_io (not a test: it prints figures).
#
#   ingest   durable ingest against in-memory ingest, in the same run, alternating per round:
#            INGEST bytes of unique data, 1 MiB WRITE(16) one at a time, SYNCHRONIZE CACHE every
#            64 MiB (the write cache on), to an x2 LU with time_scale=0 (the array's real work
#            without modeled waiting) in memory and on --state-dir; prints each round's pair,
#            the median and the ratio (goal: durable >= 70% of in memory)
#   restart  RESTART bytes of unique data on --state-dir, then the target is stopped (SIGTERM)
#            or killed (SIGKILL) and started again: the time from the start to its first good
#            READ, with the page cache warm and (as root) dropped (goal: within 5 s)
#   big      BIG bytes of unique data on --state-dir (more than the machine's memory), read back
#            and verified, the target's VmRSS / RssAnon / RssFile sampled twice a second
#            (goal: RSS <= 4 GiB throughout)
#   literal  tests/repro/seed000.sh --literal in memory and on --state-dir: wall time and the
#            state directory's disk use
#
# usage: bench/persist.sh [BUILD_DIR] [ingest|restart|big|literal ...]  (default: ingest restart)
# env: ROUNDS (3), INGEST (4G), RESTART (10G), BIG (48G), STATE_ROOT (/var/tmp: a real disk,
#      never tmpfs).  Every state directory it makes is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ci/lib/target-ctl.sh
source ci/lib/target-ctl.sh
build=${1:-build}
[[ $# -gt 0 ]] && shift
what=("$@")
(( ${#what[@]} )) || what=(ingest restart)
rounds=${ROUNDS:-3}
bin=$build/target/lunlab-target
pio=$build/bench/persist/persist_io
for x in "$bin" "$pio"; do
    [[ -x $x ]] || { echo "persist.sh: $x missing; build first (ninja -C $build)" >&2; exit 2; }
done
root=${STATE_ROOT:-/var/tmp}
work=$(mktemp -d "$root/lunlab-bench-persist.XXXXXX")
iqn=iqn.2026-11.org.lunlab:persist-bench
LL_PID=
sampler=
cleanup() {
    [[ -n $sampler ]] && kill "$sampler" 2>/dev/null
    [[ -n $LL_PID ]] && kill -KILL "$LL_PID" 2>/dev/null && wait "$LL_PID" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

url() { echo "iscsi://127.0.0.1:$LL_PORT/$iqn/0"; }
start() { ll_start_lunlab "$bin" "$work/target.log" --quiet --iqn "$iqn" --handler-path "$build/handlers" "$@" >/dev/null; }
stop() { kill -TERM "$LL_PID"; wait "$LL_PID" || true; LL_PID=; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
field() { sed -n "s|.*$1 \([0-9.]*\).*|\1|p"; }
human() { numfmt --to=iec --suffix=B "$1"; }
echo "persist bench: $(date -u '+%F %T UTC'), $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg), state under $root"

bench_ingest() {
    local size=${INGEST:-4G} r m d lunsz
    lunsz=$(( $(numfmt --from=iec "$size") + (1 << 30) ))
    echo
    echo "== durable ingest: $size unique, 1 MiB WRITE(16) at QD1, SYNCHRONIZE CACHE every 64 MiB, x2 time_scale=0"
    : >"$work/ingest"
    for (( r = 1; r <= rounds; r++ )); do
        for sys in $( (( r % 2 )) && echo "memory state" || echo "state memory" ); do
            if [[ $sys == state ]]; then
                rm -rf "$work/ingest-state"
                start --state-dir "$work/ingest-state" --lun "size=$lunsz,model=x2,time_scale=0"
            else
                start --lun "size=$lunsz,model=x2,time_scale=0"
            fi
            out=$("$pio" write "$(url)" "$size" --sync-every 64M --seed "$r")
            stop
            echo "$r $sys $(field MB/s <<<"$out")" >>"$work/ingest"
        done
        m=$(awk -v r="$r" '$1 == r && $2 == "memory" {print $3}' "$work/ingest")
        d=$(awk -v r="$r" '$1 == r && $2 == "state" {print $3}' "$work/ingest")
        printf 'round %d:  in memory %7.1f MB/s   --state-dir %7.1f MB/s   durable/memory %.2f\n' "$r" "$m" "$d" \
            "$(echo "$d / $m" | bc -l)"
    done
    m=$(awk '$2 == "memory" {print $3}' "$work/ingest" | median)
    d=$(awk '$2 == "state" {print $3}' "$work/ingest" | median)
    printf 'median: in memory %.1f MB/s, --state-dir %.1f MB/s (1e6 B/s): durable/memory %.2f  goal >= 0.70: %s\n' \
        "$m" "$d" "$(echo "$d / $m" | bc -l)" "$(echo "$d >= 0.7 * $m" | bc -l | sed 's/1/MET/;s/0/MISSED/')"
    rm -rf "$work/ingest-state"
}

# restart_once HOW CACHE: stop (TERM) or kill (KILL) the target, then time its restart
restart_once() {
    local how=$1 cache=$2 out
    if [[ $how == KILL ]]; then kill -KILL "$LL_PID"; wait "$LL_PID" 2>/dev/null || true; LL_PID=; else stop; fi
    if [[ $cache == cold ]]; then
        sync
        echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || { echo "  (not root: cannot drop the page cache; cold skipped)"; return; }
    fi
    LL_PORT=$(ll_free_port)
    "$pio" first-read "iscsi://127.0.0.1:$LL_PORT/$iqn/0" --timeout 120 >"$work/first" &
    local rpid=$!
    "$bin" --listen "127.0.0.1:$LL_PORT" --quiet --iqn "$iqn" --handler-path "$build/handlers" \
        --state-dir "$work/restart-state" --lun "size=$lunsz,model=x2,time_scale=0" >>"$work/target.log" 2>&1 &
    LL_PID=$!
    wait "$rpid" || true
    printf '  after %-7s (%s cache): first READ %s ms after the start\n' "$how" "$cache" "$(field ms <"$work/first")"
}

bench_restart() {
    local size=${RESTART:-10G} out t0
    lunsz=$(( $(numfmt --from=iec "$size") + (1 << 30) ))
    echo
    echo "== restart with $size of unique data on --state-dir"
    rm -rf "$work/restart-state"
    start --state-dir "$work/restart-state" --lun "size=$lunsz,model=x2,time_scale=0"
    out=$("$pio" write "$(url)" "$size" --sync-every 64M)
    echo "  written: $(field MB/s <<<"$out") MB/s; state $(du -sh "$work/restart-state" | cut -f1)"
    t0=$(date +%s.%N)
    restart_once TERM warm
    restart_once KILL warm
    restart_once TERM cold
    restart_once KILL cold
    out=$("$pio" verify "$(url)" 1G)
    echo "  the first GiB read back after the restarts: $out"
    stop
    rm -rf "$work/restart-state"
}

# sample PID every 0.5 s into $work/rss: VmRSS RssAnon RssFile (kB)
sample_rss() {
    while kill -0 "$1" 2>/dev/null; do
        awk '/^VmRSS|^RssAnon|^RssFile/ {printf "%s ", $2} END {print ""}' "/proc/$1/status" 2>/dev/null >>"$work/rss"
        sleep 0.5
    done
}

bench_big() {
    local size=${BIG:-48G} out lunsz
    lunsz=$(( $(numfmt --from=iec "$size") + (2 << 30) ))
    echo
    echo "== more than memory: $size of unique data on --state-dir ($(free -g | awk '/Mem:/ {print $2}') GiB of RAM)"
    rm -rf "$work/big-state" "$work/rss"
    start --state-dir "$work/big-state" --lun "size=$lunsz,model=x2,time_scale=0"
    sample_rss "$LL_PID" &
    sampler=$!
    out=$("$pio" write "$(url)" "$size" --sync-every 64M)
    echo "  write:  $out"
    echo "  state:  $(du -sh "$work/big-state" | cut -f1) on disk"
    out=$("$pio" verify "$(url)" "$size") || true
    echo "  verify: $out"
    stop
    kill "$sampler" 2>/dev/null; sampler=
    awk '{ if ($1 > r) r = $1; if ($2 > a) a = $2; if ($3 > f) f = $3 }
         END { printf "  target RSS, max over %d samples: VmRSS %.2f GiB (RssAnon %.2f GiB, RssFile %.2f GiB)  goal <= 4 GiB: %s\n",
               NR, r / 1048576, a / 1048576, f / 1048576, r <= 4194304 ? "MET" : "MISSED" }' "$work/rss"
    rm -rf "$work/big-state"
}

bench_literal() {
    local t0 sd
    echo
    echo "== seed 000 --literal: in memory and on --state-dir"
    t0=$SECONDS
    bash tests/repro/seed000.sh "$build" --literal >"$work/literal-mem" 2>&1 || true
    echo "  in memory:   $((SECONDS - t0)) s, $(grep -c '| ok$' "$work/literal-mem") figures ok, $(grep -cE '\| (MISS|FAIL|no)' "$work/literal-mem") missed"
    sd=$work/literal-state
    mkdir -p "$sd"
    t0=$SECONDS
    REPRO_STATE_DIR=$sd REPRO_STATE_CLEAN=1 bash tests/repro/seed000.sh "$build" --literal >"$work/literal-state.out" 2>&1 || true
    echo "  --state-dir: $((SECONDS - t0)) s, $(grep -c '| ok$' "$work/literal-state.out") figures ok, $(grep -cE '\| (MISS|FAIL|no)' "$work/literal-state.out") missed"
    # each target's state directory, measured when it stopped (then removed: the rows together
    # would not fit beside everything else on the disk)
    awk '{ n++; t += $1; if ($1 > m) m = $1 }
         END { printf "  state on disk: %d targets, largest %.2f GiB, together %.2f GiB\n", n, m / 2^30, t / 2^30 }' "$sd/usage"
    rm -rf "$sd"
}

for w in "${what[@]}"; do
    case $w in
    ingest) bench_ingest ;;
    restart) bench_restart ;;
    big) bench_big ;;
    literal) bench_literal ;;
    *) echo "persist.sh: unknown part '$w' (ingest restart big literal)" >&2; exit 2 ;;
    esac
done
