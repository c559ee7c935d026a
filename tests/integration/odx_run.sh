#!/bin/bash
# odx_run.sh TARGET_BIN HANDLER_DIR ODX_CHECK
# ODX over iSCSI (docs/xcopy.md): lunlab-target on a free 127.0.0.1 port with --trace and the
# LUNs odx_check.c describes (64 MiB each, x2 unpaced, the "odx" array twice, another array, an
# unlimited LU, and one with the rule lun=4,odx-fail-after=8); then the log must show the
# commands by name with their list ids.  Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target).
set -uo pipefail

if (( $# != 3 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR ODX_CHECK" >&2
    exit 2
fi
bin=$1 handler_dir=$2 check=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

ll_test_scratch odx "$bin"
iqn=iqn.2026-11.org.lunlab:odx

x2=size=64M,model=x2,time_scale=0
ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$handler_dir" --trace \
    --lun "$x2,array=odx" --lun "$x2,array=odx" --lun "$x2,array=other" --lun size=64M,model=unlimited \
    --lun "$x2,array=odx" --fault lun=4,odx-fail-after=8 || { status=1; exit; }
echo "lunlab-target up on 127.0.0.1:$LL_PORT (log $log)"
timeout 120 "$check" "127.0.0.1:$LL_PORT" "$iqn" || status=1

ll_expect_log "--trace names POPULATE TOKEN and its list" "POPULATE TOKEN list=1 .*-> GOOD"
ll_expect_log "--trace names WRITE USING TOKEN and its list" "WRITE USING TOKEN list=2 .*-> GOOD"
ll_expect_log "--trace shows the expired token's sense" "WRITE USING TOKEN list=7 .*TOKEN EXPIRED \(05/23/07\)"
ll_expect_log "--trace names RRTI" "RECEIVE ROD TOKEN INFORMATION list=1 "
