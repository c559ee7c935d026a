#!/bin/busybox sh
# /init of the real-stack guest: LIO iSCSI target with tcmu-runner backstores.
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp
mkdir -p /etc/target
say() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }
die() { say "LANE-FAILED: $*"; sleep 1; poweroff -f; }
iqn=iqn.2026-11.org.lunlab:realstack mb=96
for kv in $(cat /proc/cmdline); do
	case $kv in lane.iqn=*) iqn=${kv#*=} ;; lane.mb=*) mb=${kv#*=} ;; esac
done
for m in virtio_pci virtio_net crc32c_generic configfs target_core_mod uio target_core_user \
	iscsi_target_mod target_core_file; do
	modprobe $m || say "modprobe $m failed"
done
grep -q configfs /proc/mounts || mount -t configfs configfs /sys/kernel/config
T=/sys/kernel/config/target
[ -d $T/core ] || die "no LIO core in configfs"
ip link set lo up; ip link set eth0 up || die "no eth0"
ip addr add 10.0.2.15/24 dev eth0; ip route add default via 10.0.2.2
nc -ll -p 2323 -e /bin/sh &   # control shell, reachable only through qemu's 127.0.0.1 forward

# the handler as a user installs it: Debian's dpkg, into the runner's own handler directory
# /usr/bin/dpkg by path: busybox's sh would run its own dpkg applet for a bare "dpkg"
/usr/bin/dpkg -i /debs/lunlab-tcmu-handler_*.deb >/run/dpkg-i.log 2>&1 || { cat /run/dpkg-i.log; die "dpkg -i lunlab-tcmu-handler"; }
mkdir -p /run/tcmu
# no --handler-path: the runner loads every handler_*.so of its compiled-in directory
tcmu-runner -l /run/tcmu >/run/tcmu/stdout 2>&1 &

# enable: tcmu-runner may still be registering its netlink family: retry
enable() {
	n=0
	until echo 1 > "$1/enable" 2>/dev/null; do
		n=$((n + 1)); [ $n -gt 150 ] && die "enable $1"; sleep 0.1
	done
}
user_lun() { # name dev_config serial
	d=$T/core/user_0/$1
	mkdir -p $d
	echo -n "dev_config=$2" > $d/control || die "dev_config $1"
	echo -n "dev_size=$((mb * 1048576))" > $d/control || die "dev_size $1"
	# 8 MiB per command (TCMU's default is 128 sectors = 64 KiB, which libiscsi's tests exceed)
	echo -n "hw_max_sectors=16384" > $d/control || die "hw_max_sectors $1"
	echo -n "$3" > $d/wwn/vpd_unit_serial
	enable $d
}
user_lun lunlab0 "lunlab/model=x2;array=lane" lane-lunlab-0
user_lun lunlab1 "lunlab/model=x2;array=lane" lane-lunlab-1
truncate -s "${mb}M" /tmp/qcow.raw
user_lun qcow0 "qcow//tmp/qcow.raw" lane-qcow-0
truncate -s "${mb}M" /tmp/fileio.img
f=$T/core/fileio_0/fileio0
mkdir -p $f
echo -n "fd_dev_name=/tmp/fileio.img,fd_dev_size=$((mb * 1048576))" > $f/control
echo -n "lane-fileio-0" > $f/wwn/vpd_unit_serial
echo 1 > $f/enable || die "fileio enable"

P=$T/iscsi/$iqn/tpgt_1
mkdir -p $P || die "target $iqn"
i=0
for d in $T/core/user_0/lunlab0 $T/core/user_0/lunlab1 $T/core/user_0/qcow0 $f; do
	mkdir -p $P/lun/lun_$i && ln -s $d $P/lun/lun_$i/storage || die "lun $i"
	i=$((i + 1))
done
mkdir $P/np/0.0.0.0:3260 || die "portal"
echo 0 > $P/attrib/authentication
echo 1 > $P/attrib/generate_node_acls
echo 1 > $P/attrib/cache_dynamic_acls
echo 0 > $P/attrib/demo_mode_write_protect
echo 1 > $P/enable || die "tpg enable"
say "LANE-READY"
while :; do sleep 3600; done
