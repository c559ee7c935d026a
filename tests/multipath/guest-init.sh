#!/bin/busybox sh
# /init of the multipath lane's guest (tests/multipath/lane.sh): Debian's kernel with
# open-iscsi, multipath-tools, fio and udev from Debian.  Brings up the network (qemu user
# networking: the host is 10.0.2.2), iscsid and multipathd, then serves a root shell on
# port 2323 for the lane's commands and prints LANE-READY on the console.
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /run/lock/iscsi /dev/mapper /run/multipathd
for m in virtio_pci virtio_net crc32c_generic iscsi_tcp sd_mod sg dm_mod dm_multipath \
         dm_round_robin scsi_dh_alua; do
    modprobe "$m" 2>/dev/null
done
/lib/systemd/systemd-udevd --daemon
udevadm trigger --action=add
udevadm settle -t 30
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
iqn=$(sed -n 's/.*lane\.iqn=\([^ ]*\).*/\1/p' /proc/cmdline)
echo "InitiatorName=$iqn" > /etc/iscsi/initiatorname.iscsi
iscsid -f -d 1 > /run/iscsid.log 2>&1 &
multipathd -d -s > /run/multipathd.log 2>&1 &
nc -ll -p 2323 -e /bin/sh &
echo "LANE-READY $(uname -r)"
while true; do sleep 3600; done
