#!/bin/bash
# The real stack: handler_lunlab.so loaded by Debian 12's tcmu-runner 1.5.4
# under Linux LIO, in Debian's own kernel booted with qemu (TCG: no KVM, no
# configfs on the host needed).  The guest exports, on one iSCSI target:
#   LUN 0, 1  user:lunlab   dev_config=lunlab/model=x2;array=lane  (one array,
#             two LUNs, each with LIO's own unit serial -> its own NAA)
#   LUN 2     user:qcow     Debian's qcow handler on a raw image (peer)
#   LUN 3     fileio        the kernel's own backstore (peer)
# and qemu forwards the portal to 127.0.0.1:$PORT.  Nothing on the host is
# touched but files under $WORK and the qemu process this script starts.
# handler_lunlab.so reaches the guest as a user gets it: the lunlab-tcmu-handler
# .deb, installed in the guest by Debian's dpkg -i into tcmu-runner's own
# handler directory, where the runner (started with no --handler-path) loads it;
# the check stage asserts from the runner's /proc/PID/maps that it did.
#
# usage: lane.sh BUILD_DIR [stage...]   stages: prepare boot check stop (default: all)
# env: LUNLAB_DEBDIR  a directory holding lunlab-tcmu-handler_*.deb (ci/test.sh
#                     passes the .debs it built); without it, prepare builds them
#                     (packaging/build-deb.sh, ~1 min) into $WORK/debs
set -euo pipefail

BUILD=$(cd "${1:?usage: lane.sh BUILD_DIR [stage...]}" && pwd); shift
WORK=${WORK:-/tmp/lunlab-realstack}
PORT=${PORT:-13260}
SHELLPORT=${SHELLPORT:-12323}
IQN=iqn.2026-11.org.lunlab:realstack
LUN_MB=${LUN_MB:-96}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-240}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$WORK/rootfs
KDIR=$WORK/kernel
RUNNER_HANDLERS=/usr/lib/x86_64-linux-gnu/tcmu-runner
DEBDIR=${LUNLAB_DEBDIR:-}

log() { printf '[realstack %s] %s\n' "$(date +%T)" "$*" >&2; }
kver() { ls "$KDIR/lib/modules"; }

# Debian's kernel image, unpacked (not installed: installing it would pull
# initramfs-tools and touch the host's /boot).
fetch_kernel() {
	[ -d "$KDIR/lib/modules" ] && return 0
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -n "$pkg" ] || { log "cannot resolve linux-image-amd64 (apt-get update?)"; return 1; }
	mkdir -p "$WORK/deb" "$KDIR"
	(cd "$WORK/deb" && apt-get download -qq "$pkg")
	dpkg-deb -x "$WORK"/deb/linux-image-*.deb "$KDIR"
	depmod -b "$KDIR" "$(kver)"
}

# copy every shared library the ELF files need to the same paths in the guest
install_libs() {
	local f lib
	for f in "$@"; do
		ldd "$f" | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}' | while read -r lib; do
			[ -e "$ROOT$lib" ] || { mkdir -p "$ROOT$(dirname "$lib")"; cp -L "$lib" "$ROOT$lib"; }
		done
	done
}

# copy ELF files and every shared library they need to the same paths in the guest
install_elf() {
	local f
	for f in "$@"; do
		mkdir -p "$ROOT$(dirname "$f")"
		cp -L "$f" "$ROOT$f"
	done
	install_libs "$@"
}

# the lunlab-tcmu-handler .deb: from $LUNLAB_DEBDIR, else built here (timed)
handler_deb() {
	local d=$DEBDIR t0=$SECONDS
	if [ -z "$d" ]; then
		d=$WORK/debs
		rm -rf "$d"
		log "building the .debs (packaging/build-deb.sh; LUNLAB_DEBDIR=DIR reuses built ones)"
		"$HERE/../../packaging/build-deb.sh" "$d" >/dev/null
		log "the .debs built in $((SECONDS - t0)) s"
	fi
	set -- "$d"/lunlab-tcmu-handler_*.deb
	[ -f "$1" ] || { log "no lunlab-tcmu-handler_*.deb in $d"; return 1; }
	echo "$1"
}

# dep_closure "DEPENDS FIELD": the installed packages it names, and theirs, transitively
# (of alternatives "a | b", the first installed one)
dep_closure() {
	local todo=$1 seen=" " p alt a
	while [ -n "$todo" ]; do
		# shellcheck disable=SC2046 # one dependency (with its alternatives) per word
		set -- $(echo "$todo" | tr ',' '\n' | sed 's/([^)]*)//g; s/:any//g' |
			awk -F'|' '{for (i = 1; i <= NF; i++) { gsub(/[[:space:]]/, "", $i); printf "%s%s", (i > 1 ? "|" : ""), $i }; print ""}')
		todo=
		for alt in "$@"; do
			p=
			for a in $(echo "$alt" | tr '|' ' '); do
				dpkg-query -W -f='${Status}' "$a" 2>/dev/null | grep -q 'ok installed' && { p=$a; break; }
			done
			[ -n "$p" ] || continue
			case $seen in *" $p "*) continue ;; esac
			seen="$seen$p "
			todo="$todo,$(dpkg-query -W -f='${Depends},${Pre-Depends}' "$p")"
		done
		todo=$(echo "$todo" | sed 's/^,*//; s/,*$//; s/,,*/,/g')
	done
	echo $seen
}

# Debian's dpkg in the guest, with a status database that records the packages the
# handler's .deb depends on: the guest's files are copies of this machine's (install_libs),
# so this machine's records of them stand for them, and dpkg -i checks the dependencies
# instead of being forced past them.
install_dpkg() {
	local deb=$1 deps p f
	# GNU tar: dpkg-deb runs it (busybox tar lacks its options)
	install_elf /usr/bin/dpkg /usr/bin/dpkg-deb /usr/bin/dpkg-query /usr/bin/dpkg-split /sbin/ldconfig /bin/tar
	mkdir -p "$ROOT"/var/lib/dpkg/{info,updates,triggers} "$ROOT/var/log" "$ROOT/debs"
	: > "$ROOT/var/lib/dpkg/available"
	# the handler's dependencies and theirs, as installed here (dpkg checks the records it has)
	deps=$(dep_closure "$(dpkg-deb -f "$deb" Depends)")
	# shellcheck disable=SC2086 # one package name per word
	dpkg-query -s $deps > "$ROOT/var/lib/dpkg/status"
	# each one's file list: those of its files the guest holds
	for p in $deps; do
		dpkg-query -L "$p" | while read -r f; do if [ -e "$ROOT$f" ]; then echo "$f"; fi; done \
			> "$ROOT/var/lib/dpkg/info/$(dpkg-query -W -f='${binary:Package}' "$p").list"
	done
	cp "$deb" "$ROOT/debs/"
}

prepare() {
	fetch_kernel
	local kv m f
	kv=$(kver)
	rm -rf "$ROOT"
	mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/tcmu,proc,sys,dev,run,tmp,lib/modules/"$kv"}
	mknod -m 600 "$ROOT/dev/console" c 5 1
	cp /bin/busybox "$ROOT/bin/busybox"
	for m in virtio_pci virtio_net crc32c_generic configfs target_core_mod uio \
		target_core_user iscsi_target_mod target_core_file; do
		modprobe -d "$KDIR" -S "$kv" --show-depends "$m"
	done | awk '$1 == "insmod" {print $2}' | sort -u | while read -r f; do
		mkdir -p "$ROOT$(dirname "${f#"$KDIR"}")"
		cp "$f" "$ROOT${f#"$KDIR"}"
	done
	cp "$KDIR/lib/modules/$kv"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$kv/"
	depmod -b "$ROOT" "$kv"
	# glibc dlopen()s libgcc_s for pthread_cancel; ldd does not show it.  Debian's qcow
	# handler sits in the runner's handler directory, where dpkg -i puts ours beside it.
	install_elf /usr/bin/tcmu-runner "$RUNNER_HANDLERS/handler_qcow.so" /lib/x86_64-linux-gnu/libgcc_s.so.1
	deb=$(handler_deb)
	rm -rf "$WORK/debx"
	dpkg-deb -x "$deb" "$WORK/debx"
	install_libs "$WORK/debx$RUNNER_HANDLERS/handler_lunlab.so"
	install_dpkg "$deb"
	log "handler from $(basename "$deb"), installed by dpkg -i in the guest"
	cp /etc/tcmu/tcmu.conf "$ROOT/etc/tcmu/"
	install -m 755 "$HERE/guest-init.sh" "$ROOT/init"
	(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1 > "$WORK/initrd.gz")
	log "initramfs $(du -h "$WORK/initrd.gz" | cut -f1) for kernel $kv"
}

boot() {
	local t0=$SECONDS
	stop
	rm -f "$WORK/console.log"
	qemu-system-x86_64 -nodefaults -machine q35 -accel tcg -cpu max -smp 2 -m 1024 \
		-kernel "$KDIR/boot/vmlinuz-$(kver)" -initrd "$WORK/initrd.gz" \
		-append "console=ttyS0 panic=-1 loglevel=4 lane.iqn=$IQN lane.mb=$LUN_MB" \
		-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$PORT-:3260,hostfwd=tcp:127.0.0.1:$SHELLPORT-:2323" \
		-device virtio-net-pci,netdev=n0,romfile= \
		-serial "file:$WORK/console.log" -display none -monitor none -no-reboot \
		-pidfile "$WORK/qemu.pid" -daemonize
	until grep -q LANE-READY "$WORK/console.log" 2>/dev/null; do
		if grep -q -E 'LANE-FAILED|Kernel panic' "$WORK/console.log" 2>/dev/null ||
			((SECONDS - t0 > BOOT_TIMEOUT)); then
			cat "$WORK/console.log" >&2
			log "guest did not come up"
			return 1
		fi
		sleep 0.5
	done
	until iscsi-readcapacity16 "iscsi://127.0.0.1:$PORT/$IQN/0" >/dev/null 2>&1; do
		((SECONDS - t0 > BOOT_TIMEOUT)) && { log "LUN 0 never answered"; return 1; }
		sleep 0.5
	done
	log "guest up, LUN 0 answers after $((SECONDS - t0)) s"
}

guest() { printf '%s\nexit\n' "$*" | timeout 60 busybox nc 127.0.0.1 "$SHELLPORT"; }

check() {
	mkdir -p "$WORK/checks"
	# where the running tcmu-runner loaded its handlers from, and dpkg's word on that file
	# (Debian's dpkg by path: busybox's sh runs its own dpkg applet for a bare "dpkg")
	guest 'p=$(pidof tcmu-runner); echo "maps:"; awk "/handler_/ {print \$6}" /proc/$p/maps | sort -u
		echo "owner:"; /usr/bin/dpkg-query -S handler_lunlab.so; echo "verify:"; /usr/bin/dpkg -V lunlab-tcmu-handler && echo clean
		echo "dpkg -i:"; cat /run/dpkg-i.log' > "$WORK/checks/handler-origin.txt" 2>&1 || true
	BUILD=$BUILD URL="iscsi://127.0.0.1:$PORT/$IQN" ORIGIN="$WORK/checks/handler-origin.txt" \
		RUNNER_HANDLERS=$RUNNER_HANDLERS bash "$HERE/checks.sh"
}

stop() {
	[ -f "$WORK/qemu.pid" ] || return 0
	local pid
	pid=$(cat "$WORK/qemu.pid")
	if kill -0 "$pid" 2>/dev/null; then
		guest 'cat /run/tcmu/tcmu-runner.log' > "$WORK/tcmu-runner.log" 2>/dev/null || true
		kill "$pid"
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -f "$WORK/qemu.pid"
}

mkdir -p "$WORK"
[ $# -gt 0 ] || set -- prepare boot check stop
case " $* " in *" stop "*) trap stop EXIT; trap "exit 143" TERM INT ;; esac
rc=0
for stage in "$@"; do
	case $stage in
	prepare | boot | stop) "$stage" ;;
	check) check || rc=$? ;;
	*) log "unknown stage $stage"; exit 2 ;;
	esac
done
exit $rc
