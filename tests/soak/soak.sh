#!/bin/bash
# soak.sh BUILD_DIR [--minutes N] [--sessions N] [--threads N]
#
# Soak test of lunlab-target (not in CI: it runs for minutes).  Starts lunlab-target on
# 127.0.0.1 (free port) with two LUNs on one array, model=unlimited (no pacing: the machine is
# the limit), runs BUILD_DIR/tests/robust/soak_client (N sessions, default 256, for N minutes,
# default 10: verified READ/WRITE/UNMAP/COMPARE AND WRITE/EXTENDED COPY same- and cross-LUN),
# samples the target's VmRSS every 10 s, stops the target with SIGTERM and prints a summary.
#
# Exit 0 only when: every session logged in, zero errors, zero data mismatches, every COMPARE
# AND WRITE outcome as expected, the target exits 0 on SIGTERM, and memory is flat after
# warm-up: warm-up is the first fifth of the run (at least 30 s); after it, RSS may not rise
# more than RSS_BOUND_MIB (default 32) above the highest RSS seen during warm-up, and the
# least-squares RSS slope over the post-warm-up samples must stay under SLOPE_BOUND_MIB_MIN
# (default 1 MiB/min).
set -uo pipefail

usage() { echo "usage: $0 BUILD_DIR [--minutes N] [--sessions N] [--threads N]" >&2; exit 2; }
(( $# >= 1 )) || usage
build=$(cd "$1" && pwd) || usage
shift
minutes=10 sessions=256 threads=16
while (( $# )); do
    case $1 in
        --minutes) minutes=${2:?}; shift 2 ;;
        --sessions) sessions=${2:?}; shift 2 ;;
        --threads) threads=${2:?}; shift 2 ;;
        *) usage ;;
    esac
done
rss_bound_mib=${RSS_BOUND_MIB:-32}
slope_bound=${SLOPE_BOUND_MIB_MIN:-1}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

bin=$build/target/lunlab-target
client=$build/tests/robust/soak_client
for f in "$bin" "$client"; do
    [[ -x $f ]] || { echo "soak: $f missing (build with ninja -C $build)" >&2; exit 2; }
done
iqn=iqn.2026-11.org.lunlab:soak
workdir=$(mktemp -d /tmp/lunlab-soak.XXXXXX)
log=$workdir/target.log rss=$workdir/rss.txt clog=$workdir/client.log
: >"$rss"

ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$build/handlers" --quiet \
    --lun size=4G,model=unlimited,array=soak \
    --lun size=4G,model=unlimited,array=soak || exit 1
pid=$LL_PID
echo "soak: target pid $pid on 127.0.0.1:$LL_PORT, $sessions sessions, $minutes min (work dir $workdir)"

"$client" "$LL_PORT" "$iqn" --seconds $(( minutes * 60 )) --sessions "$sessions" --threads "$threads" \
    >"$clog" 2>&1 &
cpid=$!
start=$SECONDS
while kill -0 "$cpid" 2>/dev/null; do
    if kr=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [[ -n $kr ]]; then
        echo "$(( SECONDS - start )) $kr" >>"$rss"
    else
        echo "soak: target (pid $pid) is gone; stopping the client"
        kill -TERM "$cpid" 2>/dev/null
        break
    fi
    grep '^soak-client: t=' "$clog" | tail -n 1
    for (( i = 0; i < 10 && $(kill -0 "$cpid" 2>/dev/null; echo $?) == 0; i++ )); do sleep 1; done
done
crc=0
wait "$cpid" || crc=$?
kr=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [[ -n $kr ]] && echo "$(( SECONDS - start )) $kr" >>"$rss"
trc=0
ll_stop_lunlab "$pid" || trc=$?

get() { sed -n "s/^soak-client: $1=//p" "$clog" | tail -n 1; }
fail=0
echo "==== lunlab soak summary ===="
echo "duration:        $(sed -n 's/^soak-client: sessions=[^ ]* seconds=//p' "$clog") s, client exit $crc, target exit $trc after SIGTERM"
echo "sessions:        $(sed -n 's/^soak-client: sessions=\([^ ]*\) .*/\1/p' "$clog")"
for k in write read unmap caw_match caw_miscompare xcopy_same_lun xcopy_cross_lun final_verify_reads; do
    printf 'commands %-18s %s\n' "$k:" "$(get "$k")"
done
for k in errors mismatches caw_unexpected; do
    printf '%-25s %s\n' "$k:" "$(get "$k")"
    [[ $(get "$k") == 0 ]] || fail=1
done
(( crc == 0 )) || { echo "FAIL: soak_client exit $crc (last lines below)"; tail -n 20 "$clog"; fail=1; }
(( trc == 0 )) || { echo "FAIL: lunlab-target exit $trc after SIGTERM"; tail -n 20 "$log"; fail=1; }

# RSS: first/last/max, warm-up = first fifth (>= 30 s), growth and slope after it
read -r first last max warm_max post_max slope n <<<"$(awk -v total=$(( minutes * 60 )) '
    { t[NR] = $1; r[NR] = $2 / 1024 }
    END {
        warm = total / 5; if (warm < 30) warm = 30
        first = r[1]; last = r[NR]; max = 0; wmax = 0; pmax = 0; n = 0; sx = sy = sxx = sxy = 0
        for (i = 1; i <= NR; i++) {
            if (r[i] > max) max = r[i]
            if (t[i] <= warm) { if (r[i] > wmax) wmax = r[i] }
            else { if (r[i] > pmax) pmax = r[i]; x = t[i] / 60; n++; sx += x; sy += r[i]; sxx += x * x; sxy += x * r[i] }
        }
        slope = (n > 1 && n * sxx - sx * sx > 0) ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0
        printf "%.1f %.1f %.1f %.1f %.1f %.3f %d\n", first, last, max, wmax, pmax, slope, n
    }' "$rss")"
echo "target RSS MiB:  first $first, last $last, max $max ($(wc -l <"$rss") samples every 10 s)"
echo "after warm-up:   max $post_max vs warm-up max $warm_max (bound +$rss_bound_mib MiB), slope $slope MiB/min over $n samples (bound $slope_bound)"
if awk -v p="$post_max" -v w="$warm_max" -v b="$rss_bound_mib" -v s="$slope" -v sb="$slope_bound" -v n="$n" \
    'BEGIN { exit !(n >= 2 && (p > w + b || s > sb)) }'; then
    echo "FAIL: target memory grows after warm-up"
    fail=1
fi
(( n >= 2 )) || echo "note: fewer than 2 samples after warm-up: memory not judged (run longer)"
if (( fail )); then
    echo "RESULT: FAIL (logs in $workdir)"
    exit 1
fi
echo "RESULT: PASS"
rm -rf "$workdir"
