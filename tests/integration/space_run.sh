#!/bin/bash
# space_run.sh TARGET_BIN HANDLER_DIR SPACE_CHECK
# Starts lunlab-target on a free 127.0.0.1 port with one 256 MiB LUN of an array whose
# physical capacity is 64 MiB and soft threshold 50% (array_capacity=64M,soft_threshold=50),
# runs space_check against it (fill with unique data: the soft-threshold unit attention once,
# then 07/27/07, UNMAP, writes resume, all acknowledged data verified) and stops the target,
# failing unless it exits 0 after SIGTERM.
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail

if (( $# != 3 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR SPACE_CHECK" >&2
    exit 2
fi
bin=$1 handler_dir=$2 space_check=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

if [[ -z $bin ]]; then
    echo "SKIP: lunlab-target is not part of this build"
    exit 77
fi
iqn=iqn.2026-11.org.lunlab:space
workdir=$(mktemp -d /tmp/lunlab-space.XXXXXX)
log=$workdir/target.log
status=0

finish() {
    ll_stop_verified "$log" || status=1
    if (( status != 0 )); then
        echo "---- last lines of the target log ($log) ----"
        tail -n 40 "$log"
    else
        rm -rf "$workdir"
    fi
    exit "$status"
}
trap finish EXIT
trap 'status=1; exit' INT TERM

# x2 (16 KiB blocks), unpaced: the check is about space, not modeled time
ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$handler_dir" \
    --lun size=256M,model=x2,time_scale=0,array=space,array_capacity=64M,soft_threshold=50 ||
    { status=1; exit; }
echo "lunlab-target up on 127.0.0.1:$LL_PORT (log $log)"
timeout 240 "$space_check" "127.0.0.1:$LL_PORT" "$iqn" 0 64 50 || status=1
