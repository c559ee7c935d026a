#!/bin/bash
# run-robust.sh TARGET_BIN HANDLER_DIR ROBUST_CHECK GROUP
#
# One robustness group (drop | stall | garbage | limits | shutdown) against a lunlab-target this script
# starts on 127.0.0.1 (free port) with
#   LUN 0 size=2G  model=unlimited           (the healthy libiscsi session and most raw cases)
#   LUN 1 size=1G  model=x1,time_scale=20000 (holds a 4 KiB command for about a second)
#   LUN 2 size=1G  model=x1,time_scale=1000  (paced: the CmdSN-window flood)
#   --max-sessions 8, LUNLAB_LOGIN_TIMEOUT=5, LUNLAB_STALL_TIMEOUT=3
# then stops it with SIGTERM.  Fails when a case fails, when the target dies, when it does not
# exit 0 on SIGTERM, or when its log holds a sanitizer report (ASan/UBSan/LeakSanitizer: in the
# sanitizer build, ASAN_OPTIONS=detect_leaks=1 makes every leak at exit a failure).
#
# ROBUST_VALGRIND=1 runs the target under valgrind --leak-check=full instead (slow; by hand).
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail

if (( $# != 4 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR ROBUST_CHECK GROUP" >&2
    exit 2
fi
bin=$1 handler_dir=$2 check=$3 group=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

if [[ -z $bin ]]; then
    echo "SKIP: lunlab-target is not part of this build"
    exit 77
fi

iqn=iqn.2026-11.org.lunlab:robust
workdir=$(mktemp -d "/tmp/lunlab-robust-$group.XXXXXX")
log="$workdir/target.log"
status=0

finish() {
    ll_stop_verified "$log" || status=1
    if (( status != 0 )) && [[ -s $log ]]; then
        echo "---- last lines of the target log ($log) ----"
        tail -n 40 "$log"
    fi
    (( status == 0 )) && rm -rf "$workdir"
    exit "$status"
}
trap finish EXIT
trap 'status=1; exit' INT TERM

[[ -x $bin ]] || { echo "FAIL: $bin is not an executable"; status=1; exit; }
launcher=()
if [[ ${ROBUST_VALGRIND:-0} == 1 ]]; then
    launcher=(valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite
              --error-exitcode=99 --trace-children=no)
    export LL_START_TIMEOUT=180
fi
wrapper="$workdir/target.sh"
printf '#!/bin/bash\nexec %s "$@"\n' "$(printf '%q ' "${launcher[@]}" "$bin")" >"$wrapper"
chmod +x "$wrapper"

export LUNLAB_LOGIN_TIMEOUT=5 LUNLAB_STALL_TIMEOUT=3
ll_start_lunlab "$wrapper" "$log" --iqn "$iqn" --handler-path "$handler_dir" --max-sessions 8 \
    --lun size=2G,model=unlimited \
    --lun size=1G,model=x1,time_scale=20000 \
    --lun size=1G,model=x1,time_scale=1000 || { status=1; exit; }
echo "target up on 127.0.0.1:$LL_PORT (log $log)"
# ll_wait_iscsi's discovery probe must not count against the cases: give it time to log out
sleep 0.5

ROBUST_TARGET_PID=$LL_PID timeout 600 "$check" "$LL_PORT" "$iqn" "$group" || status=1

# group shutdown: the check sent SIGTERM itself; finish() collects the exit status
if [[ $group != shutdown ]] && ! kill -0 "$LL_PID" 2>/dev/null; then
    echo "FAIL: lunlab-target died during the group"
    wait "$LL_PID"; echo "exit status $?"
    LL_PID=
    status=1
fi
