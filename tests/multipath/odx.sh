#!/bin/sh
# odx.sh PORTAL IQN: the multipath lane's ODX stage inside the guest (tests/multipath/lane.sh):
# a real client, Debian's ddpt 0.97 and ddptctl, copies between LUN 0 and LUN 1 of IQN through
# the kernel initiator's SCSI generic devices by POPULATE TOKEN / RRTI / WRITE USING TOKEN.
# Prints "name=value" facts and the tools' output; lane.sh judges them.
#   plain    ddpt --odx of 4096 blocks from LBA 1024, asked plainly: refused with LBA OUT OF
#            RANGE (ddpt 0.97 shifts its range descriptors, see below)
#   partial  ddpt --odx of 4096 blocks from LBA 1024 of LUN 0 to LBA 12288 of LUN 1 (fresh:
#            zeros): the range equals the source's, LUN 1 stays zero around it; ddptctl
#            --receive reads that WUT's RRTI: its transfer count
#   full     ddpt --odx of the whole LUN 0 to LUN 1: both devices read back equal; RRTI again
# Blocks are 512 bytes; the LUNs 16 MiB (32768 blocks).  Reads go through the sd devices with
# O_DIRECT (no page cache holds what the copy manager changed behind the kernel's back), in
# 512 KiB units (1024 blocks) so the comparisons cost a few hundred commands, not thousands.
portal=$1 iqn=$2
iscsiadm -m discovery -t sendtargets -p "$portal" >/dev/null 2>&1
iscsiadm -m node -T "$iqn" -p "$portal" -l >/dev/null 2>&1
udevadm settle -t 30
sleep 1
host=$(iscsiadm -m session -P 3 2>/dev/null | awk -v t="$iqn" '$1 == "Target:" { cur = $2 } /Host Number:/ && cur == t { print $3; exit }')
dev() { # dev LUN sg|sd
    for s in /sys/class/scsi_generic/sg*; do
        [ "$(basename "$(readlink -f "$s/device")")" = "$host:0:0:$1" ] || continue
        if [ "$2" = sg ]; then basename "$s"; else ls "$s/device/block" 2>/dev/null | head -1; fi
    done
}
sga=/dev/$(dev 0 sg) sgb=/dev/$(dev 1 sg) sda=/dev/$(dev 0 sd) sdb=/dev/$(dev 1 sd)
echo "host=$host src=$sga,$sda dst=$sgb,$sdb"
# sha DEV START COUNT, in 512 KiB units
sha() { dd if="$1" bs=524288 skip="$2" count="$3" iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1; }
zsha() { dd if=/dev/zero bs=524288 count="$1" 2>/dev/null | sha256sum | cut -d' ' -f1; }

dd if=/dev/urandom of="$sda" bs=1048576 count=16 oflag=direct 2>/dev/null
echo "filled=$?"
ddptctl --info "$sga" 2>&1 | head -40

# ddpt 0.97 writes every range descriptor one byte early: its POPULATE TOKEN and WRITE USING
# TOKEN builders (ddpt_xcopy.c do_pop_tok/do_wut, scatter-gather branch) put the 8-byte LBA at
# parameter-list byte 15 (535) instead of 16 (536), then the descriptor length overwrites byte
# 15 (535).  A compliant copy manager therefore reads LBA = lba*256 + (num >> 24) and NUMBER =
# num*256.  Asked plainly (skip=1024,4096) ddpt gets LBA OUT OF RANGE from lunlab, rightly (the
# lane's first run).  So the lane asks for LBA/256 and count/256, which ddpt's shift turns into
# the ranges meant; lunlab's --trace of the target shows what arrived.  ddpt's own record counts
# are then nonsense (it compares what it asked for with the transfer count), so the lane judges
# by the data read back through the kernel and by RRTI read with ddptctl, not by ddpt's status.
plain=$(ddpt --odx if="$sga" bs=512 skip=1024,4096 of="$sgb" seek=12288,4096 list_id=300 2>&1)
echo "$plain" | grep -qiE 'LBA out of range|logical block address out of range' && echo "plain_refused=1" || echo "plain_refused=0"

# partial: blocks 1024..5119 -> 12288..16383 (units 1..4 -> 12..15): asked as 4,16 -> 48,16
ddpt --odx if="$sga" bs=512 skip=4,16 of="$sgb" seek=48,16 list_id=301 >/dev/null 2>&1
[ "$(sha "$sdb" 12 4)" = "$(sha "$sda" 1 4)" ] && echo "partial_equal=1" || echo "partial_equal=0"
[ "$(sha "$sdb" 0 12)" = "$(zsha 12)" ] && [ "$(sha "$sdb" 16 16)" = "$(zsha 16)" ] \
    && echo "partial_rest_zero=1" || echo "partial_rest_zero=0"
ddptctl --receive --list_id=301 "$sgb" 2>&1
echo "rrti_partial_rc=$?"

# full: the whole LU (32768 blocks), asked as 0,128
ddpt --odx if="$sga" bs=512 skip=0,128 of="$sgb" seek=0,128 list_id=302 >/dev/null 2>&1
[ "$(sha "$sdb" 0 32)" = "$(sha "$sda" 0 32)" ] && echo "full_equal=1" || echo "full_equal=0"
ddptctl --receive --list_id=302 "$sgb" 2>&1
echo "rrti_full_rc=$?"
iscsiadm -m node -T "$iqn" -p "$portal" -u >/dev/null 2>&1
echo "odx-done"
