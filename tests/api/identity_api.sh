#!/bin/bash
# identity_api.sh TARGET_BIN HANDLER_DIR: identity=xtremio (docs/identity.md).  A --lun LU and
# an API volume of a cluster with the key say vendor "XtremIO", product "XtremApp" in
# standard INQUIRY and VPD 83h's T10 vendor id designator; a LU without it says LUNLAB.  When
# multipath-tools is installed, its built-in hwtable (`multipath -t`) has an entry with exactly
# that vendor and product (the match a Linux host makes).
# Exit 0 pass, 1 fail.
set -uo pipefail
bin=$1 handlers=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

api_scratch identity
check() {
    local label=$1 got=$2 want=$3
    if [[ $got == "$want" ]]; then echo "ok: $label: $got"; else echo "FAIL: $label: '$got', want '$want'"; status=1; fi
}

api_start "$bin" "$handlers" "$work" --lun size=16M,identity=xtremio --lun size=16M \
    --cluster name=xio,identity=xtremio || { status=1; exit; }
ini=iqn.2026-11.org.example:identity-a
inq() { # LUN [iscsi-inq args]: "VENDOR|PRODUCT" as iscsi-inq prints them
    local lun=$1
    shift
    iscsi-inq -i "$ini" "$@" "iscsi://$PORTAL/$IQN/$lun" 2>&1 | sed -n 's/^Vendor:\(.*\)$/\1/p; s/^Product:\(.*\)$/\1/p' |
        paste -sd'|'
}
check "LUN 0 (identity=xtremio): standard INQUIRY vendor|product" "$(inq 0)" "XtremIO |XtremApp        "
check "LUN 1 (default): standard INQUIRY vendor|product" "$(inq 1)" "LUNLAB  |XtremIO-X2 emu  "
# VPD 83h: the T10 vendor id designator is vendor (8 bytes) + unit serial
# (iscsi-inq takes the page code in decimal: 131 is 83h)
vpd83() { iscsi-inq -i "$ini" -e 1 -c 131 "iscsi://$PORTAL/$IQN/$1" 2>&1 | sed -n 's/^Designator:\[\(.\{8\}\).*/\1/p' | head -n 1; }
check "LUN 0's VPD 83h: the T10 vendor id designator's vendor" "$(vpd83 0)" "XtremIO "
check "LUN 1's VPD 83h: the T10 vendor id designator's vendor" "$(vpd83 1)" "LUNLAB  "

# an API volume of cluster xio (made with identity=xtremio), mapped to the initiator
A="curl -sk -u $API_USER:$API_PASSWORD -H Content-Type:application/json https://$API/api/json/v2/types"
$A/volumes -X POST -d '{"vol-name": "v1", "vol-size": "16m", "cluster-id": "xio"}' >/dev/null
$A/initiator-groups -X POST -d '{"ig-name": "h", "cluster-id": "xio"}' >/dev/null
$A/initiators -X POST -d "{\"initiator-name\": \"a\", \"ig-id\": \"h\", \"port-address\": \"$ini\", \"cluster-id\": \"xio\"}" >/dev/null
$A/lun-maps -X POST -d '{"vol-id": "v1", "ig-id": "h", "lun": 7, "cluster-id": "xio"}' >/dev/null
check "API volume v1 of cluster xio (LUN 7): vendor|product" "$(inq 7)" "XtremIO |XtremApp        "

if command -v multipath >/dev/null; then
    entry=$(multipath -t 2>/dev/null | grep -A1 'vendor "XtremIO"' | tr -s ' \t\n' ' ')
    check "multipath -t: the hwtable entry for XtremIO" "$entry" ' vendor "XtremIO" product "XtremApp" '
else
    echo "note: multipath-tools not installed: the hwtable entry is not checked here (docs/identity.md cites it)"
fi
