#!/bin/sh
# odx.sh PORTAL IQN: the multipath lane's ODX stage inside the guest (tests/multipath/lane.sh):
# a real client, Debian's ddpt 0.97 and ddptctl, copies between LUN 0 and LUN 1 of IQN through
# the kernel initiator's SCSI generic devices by POPULATE TOKEN / RRTI / WRITE USING TOKEN.
# Prints "name=value" facts and the tools' output; lane.sh judges them.
#   partial  ddpt --odx of 4096 blocks from LBA 1024 of LUN 0 to LBA 12288 of LUN 1 (fresh:
#            zeros): the range equals the source's, LUN 1 stays zero around it
#   tokens   ddpt's network-copy halves: read to tokens (POPULATE TOKEN of 1024 blocks at LBA
#            20480 of LUN 0 + RRTI, the 512-byte token saved to a file), write from tokens
#            (WRITE USING TOKEN of it on LUN 1 at LBA 24576: another LU), then ddptctl reads
#            that WUT's RRTI (--receive): the transfer count, and the data
#   full     ddpt --odx of the whole LUN 0 to LUN 1: both devices read back equal
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

# partial: blocks 1024..5119 -> 12288..16383 (units 1..4 -> 12..15).  ddpt 0.97 takes ODX
# ranges as LBA,NUM lists (a bare skip=N with count= is refused: "count= value not equal to
# the sum of gather nums", seen in the lane's first run)
ddpt --odx if="$sga" bs=512 skip=1024,4096 of="$sgb" seek=12288,4096 2>&1
echo "partial_rc=$?"
[ "$(sha "$sdb" 12 4)" = "$(sha "$sda" 1 4)" ] && echo "partial_equal=1" || echo "partial_equal=0"
[ "$(sha "$sdb" 0 12)" = "$(zsha 12)" ] && [ "$(sha "$sdb" 16 16)" = "$(zsha 16)" ] \
    && echo "partial_rest_zero=1" || echo "partial_rest_zero=0"

# tokens: PT (+ RRTI fetching the token) on LUN 0, WUT on LUN 1, RRTI of the WUT.  ddpt
# rather than ddptctl --pt/--wut: in the lane's first run ddptctl 0.97 sent ranges the LU
# refused with LBA OUT OF RANGE (-v shows what ddpt sends)
rm -f /tmp/odx.rt
ddpt -v if="$sga" bs=512 skip=20480,1024 rtf=/tmp/odx.rt list_id=300 2>&1
echo "pt_rc=$? token_bytes=$(wc -c < /tmp/odx.rt 2>/dev/null)"
ddpt -v rtf=/tmp/odx.rt bs=512 of="$sgb" seek=24576,1024 list_id=301 2>&1
echo "wut_rc=$?"
ddptctl --receive --list_id=301 "$sgb" 2>&1
echo "rrti_rc=$?"
[ "$(sha "$sdb" 24 1)" = "$(sha "$sda" 20 1)" ] && echo "token_equal=1" || echo "token_equal=0"

# full: the whole LU (count= given: without it ddpt 0.97 sent a garbage count in the first run)
ddpt --odx if="$sga" bs=512 count=32768 of="$sgb" 2>&1
echo "full_rc=$?"
[ "$(sha "$sdb" 0 32)" = "$(sha "$sda" 0 32)" ] && echo "full_equal=1" || echo "full_equal=0"
iscsiadm -m node -T "$iqn" -p "$portal" -u >/dev/null 2>&1
echo "odx-done"
