#!/bin/bash
# cinder.sh TARGET_BIN HANDLER_DIR API_SCSI
# Debian 12's python3-cinder XtremIOISCSIDriver against lunlab-target's XMS API, every call
# checked on the SCSI side (tests/api/cinder_driver.py), with CHAP off and then on.  The
# target serves one --lun LU (LUN 0, every initiator's) besides the driver's volumes.
# Exit 0 pass, 1 fail, 77 skipped (no python3-cinder).
set -uo pipefail
bin=$1 handlers=$2 api_scsi=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

if ! /usr/bin/python3 -c 'from cinder import objects; objects.register_all(); import cinder.volume.drivers.dell_emc.xtremio' 2>/dev/null; then
    echo "SKIP: Debian's python3-cinder is not installed (ci/install-deps.sh installs it)"
    exit 77
fi
work=$(mktemp -d /tmp/lunlab-cinder.XXXXXX)
status=0
finish() {
    api_stop || status=1
    (( status == 0 )) && rm -rf "$work"
    (( status != 0 )) && [[ -s $work/target.log ]] && { echo "---- target log tail ----"; tail -n 40 "$work/target.log"; }
    exit "$status"
}
trap finish EXIT
api_start "$bin" "$handlers" "$work" --lun size=64M,model=unlimited || { status=1; exit; }
echo "target: iSCSI $PORTAL, API https://$API"
LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD LUNLAB_PORTAL=$PORTAL \
    LUNLAB_IQN=$IQN API_SCSI=$api_scsi timeout 600 /usr/bin/python3 "$here/cinder_driver.py" || status=1
