#!/bin/bash
# pr_run.sh TARGET_BIN HANDLER_DIR PR_FLOWS
# pr_flows (the fence_scsi and Windows cluster reservation flows, several sessions with their
# own initiator names) against a lunlab-target with one 64 MiB LUN, started and stopped by
# run-client.sh (which fails unless the target exits 0 after SIGTERM).
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
if (( $# != 3 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR PR_FLOWS" >&2
    exit 2
fi
exec "$(dirname "$0")/run-client.sh" "$1" "$2" prtest size=64M "$3"
