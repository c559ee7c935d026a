#!/bin/bash
# pr_run.sh TARGET_BIN HANDLER_DIR PR_FLOWS
# Starts lunlab-target on a free 127.0.0.1 port with one 64 MiB LUN, runs pr_flows (the
# fence_scsi and Windows cluster reservation flows, several sessions with their own initiator
# names) against it, and stops it, failing unless the target exits 0 after SIGTERM.
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail

if (( $# != 3 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR PR_FLOWS" >&2
    exit 2
fi
bin=$1 handler_dir=$2 flows=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

if [[ -z $bin ]]; then
    echo "SKIP: lunlab-target is not part of this build"
    exit 77
fi
iqn=iqn.2026-11.org.lunlab:prtest
workdir=$(mktemp -d /tmp/lunlab-pr.XXXXXX)
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

ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$handler_dir" --lun size=64M || { status=1; exit; }
echo "lunlab-target up on 127.0.0.1:$LL_PORT (log $log)"
timeout 120 "$flows" "127.0.0.1:$LL_PORT" "$iqn" 0 || status=1
