#!/bin/bash
# The multipath lane: a real Linux initiator (Debian 12's kernel under qemu TCG, with
# open-iscsi, multipath-tools, sg3-utils and fio from Debian in its initramfs) against a
# lunlab-target on this host with two portals in two portal groups, each advertised as the
# address the guest reaches it by (qemu user networking: 10.0.2.2), one 64 MiB LUN of the
# fa420-ac profile (ALUA: LUN 0 prefers group 1) and the management API.
#
#   1. discovery through 10.0.2.2 returns the advertised portals; the guest logs in to both;
#      dm-multipath groups the paths by ALUA priority (50 active/optimized, 10 non-optimized)
#   2. fio writes and verifies 4 MiB pass after pass while the lane, through the API, sets
#      portal 1 down (its session drops, logins refused) and up, puts group 1 in standby,
#      then back to active/optimized through a 3 s transition: no pass may fail, and after
#      each step the paths must show the states lunlab reported (kernel access_state,
#      multipathd's view)
#   3. a fault rule returns MEDIUM ERROR on LBA 4100-4123: a fio read of the 4 MiB must fail
#      on exactly the four 4 KiB blocks that hold those LBAs, and no path may fail for it
#   4. odx: a second lunlab-target with two 16 MiB LUNs of one x2 array (ODX: tokens are the
#      array's): Debian's ddpt 0.97 --odx copies part of LUN 0 and all of it to LUN 1 through
#      the kernel initiator's sg devices, the data is read back and compared, and ddptctl
#      reads each WUT's RRTI (tests/multipath/odx.sh runs in the guest).  ddpt 0.97 writes its
#      range descriptors one byte early (odx.sh says where), so the stage asks for LBA/256 and
#      count/256, which that shift turns into the ranges meant, and checks that a plainly asked
#      range is refused with LBA OUT OF RANGE.
#
# usage: lane.sh BUILD_DIR [stage...]   stages: prepare target boot scenario odx stop
#        (default: all of them)
# Run it under `flock /tmp/lunlab-qemu.lock` (qemu and ports).  Exit: 0 all checks passed.
# Knobs (env): WORK (/tmp/lunlab-multipath) SHELLPORT (15123) BOOT_TIMEOUT (400)
set -euo pipefail

BUILD=$(cd "${1:?usage: lane.sh BUILD_DIR [stage...]}" && pwd); shift
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/lunlab-multipath}
SHELLPORT=${SHELLPORT:-15123}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-400}
IQN=iqn.2026-11.org.lunlab:multipath
GUEST_IQN=iqn.1993-08.org.debian:01:lunlab-multipath
API_USER=admin API_SECRET=lunlab-multipath-lane
KDIR=$WORK/kernel ROOT=$WORK/rootfs
# shellcheck source=../../ci/lib/target-ctl.sh
source "$HERE/../../ci/lib/target-ctl.sh"

log() { printf '[multipath %s] %s\n' "$(date +%T)" "$*" >&2; }
kver() { ls "$KDIR/lib/modules"; }
failed=0
check() { # check LABEL CONDITION-STATUS
    if [[ $2 == 0 ]]; then echo "ok: $1"; else echo "FAIL: $1"; failed=$((failed + 1)); fi
}

# Debian's kernel image, unpacked, not installed (the real-stack lane's copy when it has one)
fetch_kernel() {
    [[ -d $KDIR/lib/modules ]] && return 0
    if [[ -d /tmp/lunlab-realstack/kernel/lib/modules ]]; then
        cp -a /tmp/lunlab-realstack/kernel "$KDIR"
        return 0
    fi
    local pkg
    pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    [[ -n $pkg ]] || { log "cannot resolve linux-image-amd64 (apt-get update?)"; return 1; }
    mkdir -p "$WORK/deb" "$KDIR"
    (cd "$WORK/deb" && chmod 777 . && apt-get download -qq "$pkg")
    dpkg-deb -x "$WORK"/deb/linux-image-*.deb "$KDIR"
    depmod -b "$KDIR" "$(kver)"
}

# ELF files and their shared-library closure, at the same paths in the guest
install_elf() {
    local f r lib
    for f in "$@"; do
        r=$(readlink -f "$f")
        mkdir -p "$ROOT$(dirname "$f")"
        cp -L "$r" "$ROOT$f"
        ldd "$r" 2>/dev/null | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}' | while read -r lib; do
            [[ -e $ROOT$lib ]] || { mkdir -p "$ROOT$(dirname "$lib")"; cp -L "$lib" "$ROOT$lib"; }
        done
    done
}

prepare() {
    local kv m
    for m in iscsiadm iscsid multipathd fio sg_inq ddpt ddptctl qemu-system-x86_64 busybox; do
        command -v "$m" >/dev/null || { log "missing $m: LUNLAB_REALSTACK=1 bash ci/install-deps.sh"; return 1; }
    done
    fetch_kernel
    kv=$(kver)
    rm -rf "$ROOT"
    mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/iscsi,etc/udev,proc,sys,dev,run,tmp,lane} \
        "$ROOT"/lib/{systemd,modules/"$kv"}
    cp /bin/busybox "$ROOT/bin/busybox"
    for m in virtio_pci virtio_net crc32c_generic iscsi_tcp sd_mod sg dm_mod dm_multipath \
             dm_round_robin scsi_dh_alua; do
        modprobe -d "$KDIR" -S "$kv" --show-depends "$m" || true # built-ins print nothing
    done | awk '$1 == "insmod" {print $2}' | sort -u | while read -r f; do
        mkdir -p "$ROOT$(dirname "${f#"$KDIR"}")"
        cp "$f" "$ROOT${f#"$KDIR"}"
    done
    cp "$KDIR/lib/modules/$kv"/modules.{order,builtin,builtin.modinfo} "$ROOT/lib/modules/$kv/"
    depmod -b "$ROOT" "$kv"
    # glibc dlopen()s libgcc_s for pthread_cancel (multipathd); ldd does not show it
    install_elf /usr/sbin/iscsiadm /usr/sbin/iscsid /usr/sbin/multipath /usr/sbin/multipathd \
        /usr/sbin/dmsetup /usr/bin/fio /usr/bin/sg_inq /usr/bin/sg_rtpg /usr/bin/udevadm \
        /lib/udev/scsi_id /usr/sbin/kpartx /lib/x86_64-linux-gnu/libgcc_s.so.1 \
        /usr/bin/ddpt /usr/bin/ddptctl /lib/multipath/*.so
    ln -sf /usr/bin/udevadm "$ROOT/lib/systemd/systemd-udevd"
    cp -a /lib/udev/rules.d "$ROOT/lib/udev/"
    cp /etc/iscsi/iscsid.conf "$ROOT/etc/iscsi/"
    # a path that breaks fails its I/O over after 5 s instead of queueing it for 120 s
    sed -i -e 's/^node.startup = .*/node.startup = manual/' \
        -e 's/^node.session.timeo.replacement_timeout = .*/node.session.timeo.replacement_timeout = 5/' \
        -e 's/^node.conn\[0\].timeo.noop_out_interval = .*/node.conn[0].timeo.noop_out_interval = 2/' \
        -e 's/^node.conn\[0\].timeo.noop_out_timeout = .*/node.conn[0].timeo.noop_out_timeout = 5/' \
        "$ROOT/etc/iscsi/iscsid.conf"
    cat > "$ROOT/etc/multipath.conf" <<'CONF'
defaults {
    user_friendly_names yes
    find_multipaths no
    polling_interval 2
}
blacklist {
    devnode "^(ram|loop|fd|md|dm-|sr|scd|st|vd)[0-9]*"
}
devices {
    device {
        vendor "LUNLAB"
        product ".*"
        path_grouping_policy group_by_prio
        prio alua
        hardware_handler "1 alua"
        path_checker tur
        path_selector "round-robin 0"
        failback immediate
        no_path_retry 15
    }
}
CONF
    echo 'root:x:0:0:root:/root:/bin/sh' > "$ROOT/etc/passwd"
    echo 'root:x:0:' > "$ROOT/etc/group"
    install -m 755 "$HERE/guest-init.sh" "$ROOT/init"
    install -m 755 "$HERE/fio-loop.sh" "$HERE/paths.sh" "$HERE/odx.sh" "$ROOT/lane/"
    (cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1 > "$WORK/initrd.gz")
    log "initramfs $(du -h "$WORK/initrd.gz" | cut -f1) for kernel $kv"
}

api() { # api METHOD PATH [BODY]
    curl -sk -m 20 -u "$API_USER:$API_SECRET" -X "$1" ${3:+-d "$3"} "https://127.0.0.1:$API_PORT$2"
}

target() {
    local p1 p2
    p1=$(ll_free_port) && p2=$(ll_free_port) && API_PORT=$(ll_free_port) || return 1
    (umask 077 && printf 'api %s %s\n' "$API_USER" "$API_SECRET" > "$WORK/auth")
    "$BUILD/target/lunlab-target" --iqn "$IQN" --handler-path "$BUILD/handlers" \
        --listen "127.0.0.1:$p1,advertise=10.0.2.2:$p1" --listen "127.0.0.1:$p2,tpg=2,advertise=10.0.2.2:$p2" \
        --api "127.0.0.1:$API_PORT" --auth-file "$WORK/auth" \
        --lun size=64M,model=fa420-ac,time_scale=0 > "$WORK/target.log" 2>&1 &
    echo $! > "$WORK/target.pid"
    echo "$p1 $p2 $API_PORT" > "$WORK/ports"
    ll_wait_iscsi "$p1" "$(cat "$WORK/target.pid")" 60 || { log "lunlab-target did not start"; cat "$WORK/target.log" >&2; return 1; }
    log "lunlab-target pid $(cat "$WORK/target.pid") on 127.0.0.1:$p1 (group 1) and :$p2 (group 2), API :$API_PORT"
}

boot() {
    local t0=$SECONDS
    rm -f "$WORK/console.log"
    qemu-system-x86_64 -nodefaults -machine q35 -accel tcg -cpu max -smp 2 -m 1024 \
        -kernel "$KDIR/boot/vmlinuz-$(kver)" -initrd "$WORK/initrd.gz" \
        -append "console=ttyS0 panic=-1 loglevel=4 lane.iqn=$GUEST_IQN" \
        -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$SHELLPORT-:2323" \
        -device virtio-net-pci,netdev=n0,romfile= \
        -serial "file:$WORK/console.log" -display none -monitor none -no-reboot \
        -pidfile "$WORK/qemu.pid" -daemonize
    until grep -q LANE-READY "$WORK/console.log" 2>/dev/null; do
        if grep -q 'Kernel panic' "$WORK/console.log" 2>/dev/null || ((SECONDS - t0 > BOOT_TIMEOUT)); then
            tail -40 "$WORK/console.log" >&2
            log "guest did not come up"
            return 1
        fi
        sleep 1
    done
    log "guest up after $((SECONDS - t0)) s"
}

# guest [TIMEOUT] 'CMD': run CMD in the guest's shell, print its output
guest() {
    local t=60
    [[ $1 =~ ^[0-9]+$ ]] && { t=$1; shift; }
    printf '%s\nexit\n' "$1" | timeout "$t" busybox nc 127.0.0.1 "$SHELLPORT"
}

# wait_paths SECONDS PATTERN...: until paths.sh matches every extended regex (one per line)
wait_paths() {
    local t=$1 end=$((SECONDS + $1)) out p ok
    shift
    while :; do
        out=$(guest 30 /lane/paths.sh)
        ok=1
        for p in "$@"; do grep -Eq -- "$p" <<<"$out" || ok=0; done
        ((ok)) && { printf '%s\n' "$out" > "$WORK/paths.last"; return 0; }
        ((SECONDS > end)) && { printf '%s\n' "$out" > "$WORK/paths.last"; return 1; }
        sleep 2
    done
}

scenario() {
    local p1 p2 out rc n mp
    read -r p1 p2 API_PORT < "$WORK/ports"
    local a1="10.0.2.2:$p1,1" a2="10.0.2.2:$p2,2"

    # 1. discovery, login, multipath
    out=$(guest 60 "iscsiadm -m discovery -t sendtargets -p 10.0.2.2:$p1")
    echo "$out"
    grep -qF "$a1 $IQN" <<<"$out" && grep -qF "$a2 $IQN" <<<"$out"; check "SendTargets through 10.0.2.2 returns the advertised portals $a1 and $a2" $?
    out=$(guest 120 "iscsiadm -m node -L all 2>&1; udevadm settle -t 30; sleep 2; multipath -r >/dev/null 2>&1; sleep 3; multipath -ll")
    echo "$out"
    grep -q "LUNLAB" <<<"$out" && [[ $(grep -c "status=" <<<"$out") == 2 ]]; check "one multipath device, two path groups" $?
    grep -Eq "prio=50 status=" <<<"$out" && grep -Eq "prio=10 status=" <<<"$out"; check "ALUA priorities: 50 (active/optimized) and 10 (non-optimized)" $?
    grep -q "hwhandler='1 alua'" <<<"$out"; check "the alua hardware handler drives the device" $?
    wait_paths 30 "^$a1 sd[a-z]+ active/optimized active/ready" "^$a2 sd[a-z]+ active/non-optimized active/ready"
    check "paths: group 1 active/optimized, group 2 active/non-optimized (kernel access_state, dm)" $?
    cat "$WORK/paths.last"
    mp=$(guest 'ls /dev/mapper | grep mpath | head -1')
    [[ -n $mp ]]; check "the multipath device /dev/mapper/$mp exists" $?
    [[ -n $mp ]] || return 1

    # 2. fio with verification while paths and states change
    guest "rm -f /tmp/stop; setsid /lane/fio-loop.sh /dev/mapper/$mp > /dev/null 2>&1 &" >/dev/null
    sleep 8
    out=$(api PUT /api/lunlab/portals/1 '{"state": "down"}')
    echo "$out"
    wait_paths 60 "^$a1 sd[a-z]+ .* failed/" "^$a2 sd[a-z]+ .* active/ready"
    check "portal 1 down: its path failed, group 2 carries the I/O" $?
    cat "$WORK/paths.last"
    sleep 6
    api PUT /api/lunlab/portals/1 '{"state": "up"}' >/dev/null
    wait_paths 90 "^$a1 sd[a-z]+ active/optimized active/ready" "^$a2 sd[a-z]+ active/non-optimized active/ready"
    check "portal 1 up: its path is back, active/optimized" $?
    cat "$WORK/paths.last"
    # the owner moves: group 1 standby and no longer preferred (multipath-tools' alua
    # prioritizer adds 80 for PREF on a path that is not active/optimized)
    api PUT /api/lunlab/alua '{"lun": 0, "tpg": 1, "state": "standby", "pref": false}' >/dev/null
    wait_paths 60 "^$a1 sd[a-z]+ standby .*/ghost" "^$a2 sd[a-z]+ active/non-optimized active/ready"
    check "group 1 standby: the kernel reads standby, the checker reports ghost, group 2 active" $?
    cat "$WORK/paths.last"
    out=$(guest 'multipath -ll')
    grep -Eq "prio=1 status=" <<<"$out" && grep -Eq "prio=10 status=" <<<"$out" && grep -q "active ghost running" <<<"$out"
    check "multipath -ll: the standby group at prio 1 (ghost), the non-optimized one at prio 10" $?
    echo "$out"
    sleep 4
    api PUT /api/lunlab/alua '{"lun": 0, "tpg": 1, "state": "ao", "pref": true, "transition-ms": 3000}' >/dev/null
    wait_paths 60 "^$a1 sd[a-z]+ active/optimized active/ready" "^$a2 sd[a-z]+ active/non-optimized active/ready"
    check "group 1 back to active/optimized after a 3 s transition" $?
    cat "$WORK/paths.last"
    # At least one whole pass after the last state change, however many fit before it (a count
    # of what fits in sleeps would depend on qemu's speed): the pass running now may have begun
    # before the change, so wait for the one after it to finish (docs/testing.md, rule 5).
    passes() { guest 'echo "passes=$(grep -c "^pass" /tmp/fio-loop.log)"' | sed -n 's/^passes=\([0-9]*\).*/\1/p' | tail -n 1; }
    n0=$(passes)
    n0=${n0:-0}
    for _ in $(seq 90); do
        n_now=$(passes)
        (( ${n_now:-0} >= n0 + 2 )) && break
        sleep 2
    done
    guest 'touch /tmp/stop' >/dev/null
    for _ in $(seq 90); do
        out=$(guest 'cat /tmp/fio-loop.log')
        grep -q '^done' <<<"$out" && break
        sleep 2
    done
    echo "$out"
    n=$(grep -c '^pass' <<<"$out" || true)
    grep -q '^done' <<<"$out" && ((n >= n0 + 2)) && ! grep -q 'rc=[1-9]' <<<"$out"
    check "fio: $n write+verify passes across the path and state changes (pass $((n0 + 2)) or later after the last one), every one rc=0" $?
    if grep -q 'rc=[1-9]' <<<"$out"; then
        guest "for f in /tmp/fio.*.out; do grep -H -E 'err=|error|verify' \$f; done" | head -40
    fi

    # 3. medium errors on an LBA range reach fio for that range only
    out=$(api POST /api/lunlab/faults '{"spec": "lun=0,op=read,lba=4100-4123,sense=medium-error"}')
    echo "$out"
    # a medium error reaches the block layer as BLK_STS_MEDIUM, fio as ENODATA (61, which
    # fio knows by number only); fio counts the errors of the whole 4 MiB fio wrote, a
    # block-by-block read of the 128 KiB around the range says which blocks they are.  One
    # read at a time: with several queued the block layer may merge neighbouring 4 KiB reads
    # into one request, and a medium error fails that request from the bad LBA to its end, so
    # fio's count would depend on how the guest happened to merge (a CI run saw 7, 5 commands)
    out=$(guest 300 "fio --name=rd --filename=/dev/mapper/$mp --direct=1 --ioengine=libaio --iodepth=1 --bs=4k --size=4m --rw=read --continue_on_error=read --ignore_error=EIO:61,EIO:61 2>&1 | grep -E 'err=|errors'")
    echo "$out"
    grep -Eq 'errors +: total=4, first_error=61' <<<"$out"
    check "fio reading the 4 MiB gets exactly 4 errors, ENODATA (medium error)" $?
    local bad
    bad=$(guest 120 "for b in \$(seq 496 527); do dd if=/dev/mapper/$mp of=/dev/null bs=4096 skip=\$b count=1 iflag=direct 2>/dev/null || echo \$b; done" | tr '\n' ' ')
    [[ $bad == "512 513 514 515 " ]]
    check "the failing 4 KiB blocks are exactly those holding LBA 4100-4123: $bad" $?
    wait_paths 20 "^$a1 sd[a-z]+ active/optimized active/ready" "^$a2 sd[a-z]+ active/non-optimized active/ready"
    check "no path failed for a medium error" $?
    out=$(api GET /api/lunlab/faults/1)
    grep -Eq '"hits": [1-9]' <<<"$out"; check "the rule counted its hits ($out)" $?
    guest 30 'iscsiadm -m node -U all >/dev/null 2>&1; multipath -F >/dev/null 2>&1; echo out' >/dev/null || true
    echo "multipath lane (paths): $failed check(s) failed"
    ((failed == 0))
}

# ODX through a real client: its own target (two LUNs of one array, no ALUA, one portal) so
# the multipath checks above keep their one LUN; ~20 s of lane time
odx() {
    local port out pid odx_iqn=iqn.2026-12.org.lunlab:odx
    port=$(ll_free_port) || return 1
    "$BUILD/target/lunlab-target" --iqn "$odx_iqn" --handler-path "$BUILD/handlers" \
        --listen "127.0.0.1:$port,advertise=10.0.2.2:$port" \
        --lun size=16M,model=x2,time_scale=0,array=odx --lun size=16M,model=x2,time_scale=0,array=odx \
        > "$WORK/odx-target.log" 2>&1 &
    pid=$!
    echo "$pid" > "$WORK/odx-target.pid"
    ll_wait_iscsi "$port" "$pid" 60 || { log "the ODX target did not start"; cat "$WORK/odx-target.log" >&2; return 1; }
    log "ODX target pid $pid on 127.0.0.1:$port"
    out=$(guest 240 "/lane/odx.sh 10.0.2.2:$port $odx_iqn")
    echo "$out"
    grep -q '^odx-done' <<<"$out"; check "odx.sh ran to its end in the guest" $?
    grep -Eq '^host=[0-9]+ src=/dev/sg[0-9]+,/dev/sd[a-z]+ dst=/dev/sg[0-9]+,/dev/sd[a-z]+' <<<"$out"
    check "the guest sees LUN 0 and LUN 1 of the ODX target (sg and sd devices)" $?
    grep -q 'Block Device ROD Token Limits' <<<"$out"; check "ddptctl --info reads VPD 0x8F's Block Device ROD Token Limits" $?
    grep -q '^plain_refused=1' <<<"$out"
    check "ddpt 0.97's shifted range descriptors (asked plainly) get LBA OUT OF RANGE" $?
    grep -q '^partial_equal=1' <<<"$out"; check "ddpt --odx of 4096 blocks at LBA 1024 to LBA 12288: the range equals the source's" $?
    grep -q '^partial_rest_zero=1' <<<"$out"; check "the partial copy wrote nothing outside its range" $?
    grep -q '^rrti_partial_rc=0' <<<"$out" && grep -q 'transfer count of 4096 ' <<<"$out"
    check "ddptctl --receive: the partial WUT's RRTI reports a transfer count of 4096 blocks" $?
    grep -q '^full_equal=1' <<<"$out"; check "ddpt --odx of the whole LU: both LUs read back equal" $?
    grep -q '^rrti_full_rc=0' <<<"$out" && grep -q 'transfer count of 32768 ' <<<"$out"
    check "ddptctl --receive: the full WUT's RRTI reports a transfer count of 32768 blocks" $?
    kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    rm -f "$WORK/odx-target.pid"
    echo "multipath lane (odx): $failed check(s) failed, the stages before included"
    ((failed == 0))
}

stop() {
    local pid
    if [[ -s $WORK/qemu.pid ]]; then
        pid=$(cat "$WORK/qemu.pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        rm -f "$WORK/qemu.pid"
    fi
    if [[ -s $WORK/target.pid ]]; then
        pid=$(cat "$WORK/target.pid")
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid"
            wait "$pid" 2>/dev/null || true
        fi
        rm -f "$WORK/target.pid"
    fi
    if [[ -s $WORK/odx-target.pid ]]; then
        pid=$(cat "$WORK/odx-target.pid")
        kill -TERM "$pid" 2>/dev/null || true
        rm -f "$WORK/odx-target.pid"
    fi
}

mkdir -p "$WORK"
[[ $# -gt 0 ]] || set -- prepare target boot scenario odx stop
case " $* " in *" stop "*) trap stop EXIT; trap "exit 143" TERM INT ;; esac
rc=0
for stage in "$@"; do
    case $stage in
        prepare | target | boot | stop) "$stage" ;;
        scenario) scenario || rc=1 ;;
        odx) odx || rc=1 ;;
        *) log "unknown stage $stage"; exit 2 ;;
    esac
done
# the one summary line ci/test.sh reads, after every stage that checks
case " $* " in *" scenario "* | *" odx "*) echo "multipath lane: $failed check(s) failed" ;; esac
log "exit $rc"
exit $rc
