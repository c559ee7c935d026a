#!/bin/sh
# paths.sh: one line per iSCSI path, "PORTAL sdX ACCESS_STATE DM/CHECKER": the portal the
# session went to, its disk, the ALUA state the kernel's scsi_dh_alua read from the target
# (REPORT TARGET PORT GROUPS), and dm-multipath's state and path checker's verdict.
iscsiadm -m session -P 3 2>/dev/null | awk '
    /Current Portal:/ { portal = $3 }
    /Attached scsi disk/ { print portal, $4 }' | while read -r portal disk; do
    state=$(cat /sys/block/$disk/device/access_state 2>/dev/null || echo none)
    dm=$(multipathd show paths format "%d %t %T" 2>/dev/null | awk -v d="$disk" '$1 == d { print $2 "/" $3 }')
    echo "$portal $disk $state ${dm:-none}"
done
