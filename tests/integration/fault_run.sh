#!/bin/bash
# fault_run.sh TARGET_BIN HANDLER_DIR CHECK_DIR MODE
# Starts lunlab-target on two free 127.0.0.1 ports (the second in portal group 2) and runs one
# check program of CHECK_DIR against it, then stops it, failing unless it exits 0 after SIGTERM.
#   faults  three 64 MiB LUNs, one --fault rule per action (the list below), portal 2
#           advertised as 10.0.2.2:3260; fault_check (libiscsi): the exact status and sense of
#           every action, held commands aborted by ABORT TASK and LUN RESET, a partial EXTENDED
#           COPY seen through RECEIVE COPY RESULTS, SendTargets with the advertised address;
#           then the target's log must name the corruptions and drops
#   alua    six LUNs of fa420-ac (ALUA) and unlimited (none), three of them put in standby,
#           unavailable and transitioning on portal group 2 by --alua; alua_check
#   api     --api on a third free port with an 'api' user in a 0600 auth file, LUNs 0 and 1
#           unlimited, LUN 2 fa420-ac; api_check changes rules, portals and ALUA states at run
#           time through /api/lunlab/ and watches each change with libiscsi
# FAULT_CHECK_WRAP (env) runs the check program under a wrapper (e.g. "valgrind -q").
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build).
set -uo pipefail

if (( $# != 4 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR CHECK_DIR faults|alua|api" >&2
    exit 2
fi
bin=$1 handler_dir=$2 checks=$3 mode=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

ll_test_scratch faults "$bin"
iqn=iqn.2026-11.org.lunlab:faults

if [[ $mode == alua ]]; then
    ac=model=fa420-ac,time_scale=0
    ll_start_lunlab "$bin" "$log" --listen "127.0.0.1:@PORT2@,tpg=2" --iqn "$iqn" \
        --handler-path "$handler_dir" \
        --lun "size=64M,$ac" --lun "size=64M,$ac,tpgs=both" --lun size=64M,model=unlimited \
        --lun "size=64M,$ac" --lun "size=64M,$ac" --lun "size=64M,$ac" \
        --alua lun=3,tpg=2,state=standby --alua lun=4,tpg=2,state=unavailable \
        --alua lun=5,tpg=2,state=transitioning || { status=1; exit; }
    port2=$LL_PORT2
    echo "lunlab-target up on 127.0.0.1:$LL_PORT and 127.0.0.1:$port2 (log $log)"
    timeout 180 ${FAULT_CHECK_WRAP:-} "$checks/alua_check" "127.0.0.1:$LL_PORT" "127.0.0.1:$port2" "$iqn" || status=1
    grep -q "ALUA: SET TARGET PORT GROUPS on LUN 1 from iqn.2026-11.org.lunlab:alua-check" "$log" ||
        { echo "FAIL: log: no line names the SET TARGET PORT GROUPS"; status=1; }
    exit
fi
if [[ $mode == api ]]; then
    (umask 077 && printf 'api admin lunlab-api-secret\n' > "$work/auth")
    ll_start_lunlab "$bin" "$log" --listen "127.0.0.1:@PORT2@,tpg=2" --iqn "$iqn" \
        --handler-path "$handler_dir" --api "127.0.0.1:@PORT3@" --auth-file "$work/auth" \
        --lun size=64M,model=unlimited --lun size=64M,model=unlimited \
        --lun size=64M,model=fa420-ac,time_scale=0 || { status=1; exit; }
    port2=$LL_PORT2 api_port=$LL_PORT3
    echo "lunlab-target up on 127.0.0.1:$LL_PORT and 127.0.0.1:$port2, API on $api_port (log $log)"
    timeout 180 ${FAULT_CHECK_WRAP:-} "$checks/api_check" "127.0.0.1:$LL_PORT" "127.0.0.1:$port2" "$iqn" \
        "$api_port" admin:lunlab-api-secret || status=1
    for want in "API: admin added fault rule 1: lun=0,op=read,lba=100-199,sense=03/11/00" \
                "API: admin removed fault rule 1" "portal 1 (127.0.0.1:$port2) down" \
                "API: admin set ALUA group 2 of 1 LU(s) to standby"; do
        grep -qF "$want" "$log" && echo "ok: log: $want" || { echo "FAIL: log lacks: $want"; status=1; }
    done
    exit
fi
adv2=10.0.2.2:3260
rules=(
    lun=0,op=read,lba=1000-1999,sense=03/11/00
    lun=0,op=write,lba=3000-3099,status=busy
    lun=0,op=write,lba=3100-3199,status=task-set-full
    lun=0,op=write,lba=3200-3299,status=reservation-conflict
    lun=2,op=tur,count=2,sense=not-ready
    lun=2,op=0x25,every=3,status=busy
    lun=0,op=read,lba=4000-4099,count=1,delay=1500
    lun=0,op=read,lba=5000-5099,hold
    lun=0,op=read,lba=6000-6099,drop
    lun=0,op=write,lba=7000-7099,drop=after
    lun=0,op=read,lba=7100-7199,drop=after
    lun=0,op=read,lba=8000-8099,count=1,corrupt
    lun=0,op=write,lba=9000-9099,count=1,corrupt
    lun=1,op=xcopy,xcopy-fail-after=2
    lun=2,op=xcopy,xcopy-fail-after=0,sense=0b/0d/01
    lun=0,op=unmap,lba=10000-10099,sense=medium-error
    lun=2,op=0x1a,initiator=iqn.2026-11.org.lunlab:fault-other,sense=04/44/00
    "lun=2,op=0x5a,portal=$adv2,sense=0b/44/00"
)
args=()
for r in "${rules[@]}"; do args+=(--fault "$r"); done
ll_start_lunlab "$bin" "$log" --listen "127.0.0.1:@PORT2@,tpg=2,advertise=$adv2" --iqn "$iqn" \
    --handler-path "$handler_dir" \
    --lun size=64M,model=unlimited --lun size=64M,model=unlimited,array=x \
    --lun size=64M,model=unlimited,array=x "${args[@]}" || { status=1; exit; }
port2=$LL_PORT2
echo "lunlab-target up on 127.0.0.1:$LL_PORT and 127.0.0.1:$port2 (log $log)"
timeout 180 ${FAULT_CHECK_WRAP:-} "$checks/fault_check" static "127.0.0.1:$LL_PORT" "127.0.0.1:$port2" "$adv2" "$iqn" || status=1

# the log says what the faults did: corruption always, the first hit of every rule
ll_expect_log "the corrupted READ is named" "fault rule 12: silent corruption: READ LUN 0 LBA 8000\+8 .* 8 block\(s\) from LBA 8000 inverted \(stored data unchanged\)"
ll_expect_log "the corrupted WRITE is named" "fault rule 13: silent corruption: WRITE LUN 0 LBA 8996\+8 .* 4 block\(s\) from LBA 9000 inverted \(stored that way\)"
ll_expect_log "drop=before closes the connection" "\(a fault rule dropped the connection\)"
ll_expect_log "drop=after closes it after the data" "\(a fault rule dropped the connection after the data\)"
ll_expect_log "first hits are logged" "fault rule 8 \(first hit\): LUN 0 opcode 0x28 .* -> held until aborted"
ll_expect_log "the handler says it broke the copy off" "EXTENDED COPY broken off before segment 2 of 4 by a fault rule"
