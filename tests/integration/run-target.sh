#!/bin/bash
# run-target.sh TARGET_BIN HANDLER_DIR IO_CHECK CHECK
# (IO_CHECK: the io_check binary; digest_check is expected beside it)
#
# One integration check against a lunlab-target that this script starts itself on 127.0.0.1 on
# a free port (retrying if the port is taken), with two LUNs:
#   LUN 0: size=2G (512-byte blocks)          LUN 1: size=1G,block=4096,array=b,serial=abc
#   LUN 2: size=4T (thin: must work on a small machine; LBAs past 2^32)
#   LUN 3: size=1G,model=x2 (paced in real time: its large WRITEs are stored as their data
#          arrives, docs/accounting.md "Concurrency")
# and stops again with SIGTERM, failing unless the target exits 0 (clean shutdown).
#
# CHECK is one of
#   patterns     io_check patterns on LUN 0 (READ/WRITE 10+16, 512 B .. 8 MiB, odd sizes)
#   patterns-4k  the same on LUN 1 (4096-byte blocks)
#   patterns-4t  the same on LUN 2 (4 TiB thin; includes a transfer across LBA 2^32)
#   patterns-paced the same on LUN 3 (a paced LU)
#   sessions     io_check sessions: 64 sessions logged in at once, each verifying its region
#   digests      io_check digests (libiscsi): HeaderDigest CRC32C / None / both preference
#                orders, data written and read back
#   digests-raw  digest_check good: a raw initiator offers each HeaderDigest x DataDigest
#                combination, requires the target to accept it, verifies every digest received
#                and the data (libiscsi cannot do DataDigest=CRC32C)
#   digest-errors digest_check errors: corrupted data digest -> Reject 0x02 or dropped
#                connection and no write; corrupted header digest -> PDU not acted on
#   tools        libiscsi-bin tools (iscsi-ls, iscsi-inq, iscsi-readcapacity16): their output
#                must show the LUNs, vendor, capacity, block size, serial and NAA designator
#   edtl         edtl_check on LUN 0 and LUN 1: every data-carrying command with an Expected
#                Data Transfer Length that does not match its CDB, data read back each time
#
# TARGET_BIN "" means lunlab-target is not part of this build: exit 77 (meson: skipped).
# TARGET_BIN "tgt" runs the same check against Debian's tgtd instead (to validate the checks
# themselves; needs root; one 2 GiB LUN 1 on /dev/shm).
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail

if (( $# != 4 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR IO_CHECK CHECK" >&2
    exit 2
fi
bin=$1 handler_dir=$2 io_check=$3 check=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

if [[ -z $bin ]]; then
    echo "SKIP: lunlab-target is not part of this build (target/meson.build defines no lunlab_target)"
    exit 77
fi

iqn=iqn.2026-11.org.lunlab:itest
workdir=$(mktemp -d "/tmp/lunlab-itest-$check.XXXXXX")
log="$workdir/target.log"
mode=lunlab
status=0
shm_img=

finish() {
    if [[ $mode == tgt ]]; then
        ll_stop_tgt
        [[ -n $shm_img ]] && rm -f "$shm_img"
    else
        ll_stop_verified "$log" || status=1
    fi
    if (( status != 0 )) && [[ -s $log ]]; then
        echo "---- last lines of the target log ($log) ----"
        tail -n 40 "$log"
    fi
    (( status == 0 )) && rm -rf "$workdir"
    exit "$status"
}
trap finish EXIT
trap 'status=1; exit' INT TERM

if [[ $bin == tgt ]]; then
    mode=tgt
    shm_img=$(mktemp /dev/shm/lunlab-itest.XXXXXX)
    truncate -s 2G "$shm_img"
    ll_start_tgt "$shm_img" "$iqn" "$log" || { status=1; exit; }
    # tgt answers None to CRC32C unless the target allows digests
    for key in HeaderDigest DataDigest; do
        tgtadm -C "$TGT_CP" --lld iscsi --mode target --op update --tid 1 --name "$key" --value CRC32C,None
    done
    port=$TGT_PORT
    lun512=1 lun4k= lunbig= lunpaced=
else
    [[ -x $bin ]] || { echo "FAIL: $bin is not an executable"; status=1; exit; }
    ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$handler_dir" \
        --lun size=2G,model=unlimited \
        --lun size=1G,block=4096,array=b,serial=abc,model=unlimited \
        --lun size=4T,model=unlimited \
        --lun size=1G,array=p,model=x2 || { status=1; exit; }
    port=$LL_PORT
    lun512=0 lun4k=1 lunbig=2 lunpaced=3
fi
echo "$mode target up on 127.0.0.1:$port (log $log)"
portal="iscsi://127.0.0.1:$port"
url512="$portal/$iqn/$lun512"

# expect LABEL TEXT PATTERN: TEXT must contain a line matching the extended regex PATTERN
expect() {
    if grep -Eq -- "$3" <<<"$2"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: no line matches /$3/ in:"
        sed 's/^/    /' <<<"$2"
        status=1
    fi
}

tools_check() {
    local out lun size bs
    out=$(timeout 30 iscsi-ls "$portal" 2>&1)
    expect "iscsi-ls lists the target" "$out" "^Target:$iqn Portal:127\.0\.0\.1:$port"
    # a fresh lunlab-target owes a new I_T nexus no power on (target/lu/power_on.h), so
    # iscsi-ls -s, whose TEST UNIT READY does not retry 06/29/01, works on it as on tgt
    out=$(timeout 30 iscsi-ls -s "$portal" 2>&1)
    expect "iscsi-ls -s shows LUN $lun512 as a disk" "$out" "^Lun:$lun512 +Type:DIRECT_ACCESS"
    if [[ -n $lunbig ]]; then
        out=$(timeout 30 iscsi-readcapacity16 "$portal/$iqn/$lunbig" 2>&1)
        expect "LUN $lunbig capacity 4 TiB" "$out" "^Total size:4398046511104\$"
        expect "LUN $lunbig last LBA" "$out" "^RETURNED LOGICAL BLOCK ADDRESS:8589934591\$"
    fi

    for lun in $lun512 $lun4k; do
        if [[ $lun == "$lun4k" ]]; then size=1073741824 bs=4096; else size=2147483648 bs=512; fi
        out=$(timeout 30 iscsi-readcapacity16 "$portal/$iqn/$lun" 2>&1)
        expect "LUN $lun block size $bs" "$out" "^LOGICAL BLOCK LENGTH IN BYTES:$bs\$"
        expect "LUN $lun capacity $size bytes" "$out" "^Total size:$size\$"
        expect "LUN $lun last LBA" "$out" "^RETURNED LOGICAL BLOCK ADDRESS:$(( size / bs - 1 ))\$"

        out=$(timeout 30 iscsi-inq "$portal/$iqn/$lun" 2>&1)
        expect "LUN $lun INQUIRY: direct-access device" "$out" "^Peripheral Device Type:DIRECT_ACCESS"
        if [[ $mode == lunlab ]]; then
            # handlers/scsi/spc_inquiry.c: VENDOR_ID "LUNLAB", space padded to 8 bytes
            expect "LUN $lun INQUIRY vendor ${LUNLAB_EXPECT_VENDOR:-LUNLAB}" "$out" \
                "^Vendor:${LUNLAB_EXPECT_VENDOR:-LUNLAB} *\$"
        else
            expect "LUN $lun INQUIRY vendor IET" "$out" "^Vendor:IET"
        fi
        out=$(timeout 30 iscsi-inq -e 1 -c 0 "$portal/$iqn/$lun" 2>&1)
        for page in 0x80 0x83 0xb0 0xb1 0xb2; do
            expect "LUN $lun supports VPD $page" "$out" "^Page:$page "
        done
        # iscsi-inq takes the page code in decimal: 131 = 0x83
        out=$(timeout 30 iscsi-inq -e 1 -c 131 "$portal/$iqn/$lun" 2>&1)
        expect "LUN $lun VPD 0x83 has a binary NAA designator" "$out" "^Designator Type:\(3\) NAA"
        expect "LUN $lun VPD 0x83 binary code set" "$out" "^Code Set:\(1\) BINARY"
    done
    if [[ -n $lun4k ]]; then
        out=$(timeout 30 iscsi-inq -e 1 -c 128 "$portal/$iqn/$lun4k" 2>&1)
        expect "LUN $lun4k unit serial number is 'abc'" "$out" "^Unit Serial Number:\[ *abc\]"
    fi
}

# every client below is bounded in time: a target that stops answering fails the check
# instead of hanging it until meson's timeout
case $check in
    patterns) timeout 240 "$io_check" patterns "$url512" || status=1 ;;
    patterns-4k)
        if [[ -z $lun4k ]]; then echo "SKIP: no 4096-byte LUN on tgt"; status=77
        else timeout 240 "$io_check" patterns "$portal/$iqn/$lun4k" || status=1; fi ;;
    patterns-paced)
        if [[ -z $lunpaced ]]; then echo "SKIP: no paced LU on tgt"; status=77
        else timeout 240 "$io_check" patterns "$portal/$iqn/$lunpaced" || status=1; fi ;;
    patterns-4t)
        if [[ -z $lunbig ]]; then echo "SKIP: no 4 TiB LUN on tgt"; status=77
        else timeout 240 "$io_check" patterns "$portal/$iqn/$lunbig" || status=1; fi ;;
    sessions) timeout 240 "$io_check" sessions "$url512" 64 || status=1 ;;
    digests) timeout 240 "$io_check" digests "$url512" || status=1 ;;
    digests-raw) timeout 240 "$(dirname "$io_check")/digest_check" "$url512" good || status=1 ;;
    digest-errors) timeout 240 "$(dirname "$io_check")/digest_check" "$url512" errors || status=1 ;;
    tools) tools_check ;;
    edtl)
        timeout 240 "$(dirname "$io_check")/edtl_check" "$url512" || status=1
        if [[ -n $lun4k ]]; then timeout 240 "$(dirname "$io_check")/edtl_check" "$portal/$iqn/$lun4k" || status=1; fi ;;
    *) echo "unknown check '$check'"; status=2 ;;
esac

# the target must still be alive after the check (a crash is a failure even if data matched)
if [[ $mode == lunlab ]] && ! kill -0 "$LL_PID" 2>/dev/null; then
    echo "FAIL: lunlab-target died during the check"
    wait "$LL_PID"; echo "exit status $?"
    LL_PID=
    status=1
fi
