#!/bin/bash
# run-client.sh TARGET_BIN HANDLER_DIR NAME LUN_SPEC CLIENT [ARG...]
# Starts lunlab-target on a free 127.0.0.1 port with one LUN (LUN_SPEC: a --lun value) and the
# target name iqn.2026-11.org.lunlab:NAME, runs `CLIENT 127.0.0.1:PORT IQN 0 [ARG...]` against
# it (at most 240 s) and stops the target, failing unless it exits 0 after SIGTERM.  For
# clients that bring their own checks (pr_flows, space_check).
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail

if (( $# < 5 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR NAME LUN_SPEC CLIENT [ARG...]" >&2
    exit 2
fi
bin=$1 handler_dir=$2 name=$3 lun=$4 client=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

if [[ -z $bin ]]; then
    echo "SKIP: lunlab-target is not part of this build"
    exit 77
fi
iqn=iqn.2026-11.org.lunlab:$name
workdir=$(mktemp -d "/tmp/lunlab-$name.XXXXXX")
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

ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$handler_dir" --lun "$lun" || { status=1; exit; }
echo "lunlab-target up on 127.0.0.1:$LL_PORT (log $log)"
timeout 240 "$client" "127.0.0.1:$LL_PORT" "$iqn" 0 "$@" || status=1
