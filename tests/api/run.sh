#!/bin/bash
# run.sh TARGET_BIN HANDLER_DIR API_SCSI LUNLAB_BENCH CHECK
# One check of the HTTPS management API against a lunlab-target this script starts (and
# stops, judging the shutdown) with --api on 127.0.0.1 and one --lun LU (LUN 0, every
# initiator's) besides the API's volumes:
#   cinder  Debian 12's python3-cinder XtremIOISCSIDriver, every call checked on the SCSI
#           side, with CHAP off and then on (cinder_driver.py)
#   cinder2 the same driver as two backends, one per cluster (cinder_two_backends.py)
#   cinder3 the driver's other flows: manage/unmanage, update_group, a group from a group,
#           force detach, xtremio_clean_unused_ig, the system_is_busy retry (cinder_flows.py)
#   xms     every resource, query and XMS error message, masking, unit attentions,
#           read-only snapshots, discovery CHAP (xms_api.py)
#   bench   lunlab-bench clone --mode snapshot --verify and info --api (bench_api.sh)
#   throttle  failed API and CHAP logins counted, logged, another address not slowed
#           (throttle_api.py)
#   clusters  two clusters as scopes of names, IQNs, lists and lookups (clusters_api.py)
#   sessions  v3 login/logout, the session cookie on every version (sessions_api.py)
#   refresh  snapshot refresh and restore (from-*-id / to-*-id), the data and the
#           06/28/00 on the SCSI side (refresh_api.py)
#   arrays  an array's capacity and soft threshold changed at run time (arrays_api.py)
#   limits  --cluster max_volumes= and max_snapshots_per_volume= refusals (limits_api.py)
#   perf    initiator groups' and targets' performance after a known I/O (perf_api.py)
#   names   lookups and uniqueness per cluster through the name index, across renames,
#           moves, snapshots, refreshes and deletes, checked against a scan (names_api.py)
#   replay-CLIENT  a public XMS client's requests replayed, its fields type-checked
#           (replay_CLIENT.py; the source and commit each is derived from are named there)
# Exit 0 pass, 1 fail, 77 skipped (python3-cinder missing for cinder).
set -uo pipefail
bin=$1 handlers=$2 api_scsi=$3 bench=$4 check=$5
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

if [[ $check == cinder* ]] &&
   ! /usr/bin/python3 -c 'from cinder import objects; objects.register_all(); import cinder.volume.drivers.dell_emc.xtremio' 2>/dev/null; then
    echo "SKIP: Debian's python3-cinder is not installed (ci/install-deps.sh installs it)"
    exit 77
fi
work=$(mktemp -d "/tmp/lunlab-api-$check.XXXXXX")
status=0
finish() {
    api_stop || status=1
    if (( status != 0 )) && [[ -s $work/target.log ]]; then
        echo "---- target log tail ($work/target.log) ----"
        tail -n 40 "$work/target.log"
    fi
    (( status == 0 )) && rm -rf "$work"
    exit "$status"
}
trap finish EXIT
extra=()
[[ $check == bench ]] && extra=(--cluster "name=xb1,model=x2,time_scale=0")
[[ $check == clusters || $check == cinder2 || $check == names ]] && extra=(--cluster "name=x1a,model=x1" --cluster "name=x2a,model=x2")
# REX-Ray's driver starts only when a SCSI device says vendor XtremIO (docs/identity.md)
[[ $check == replay-rexray ]] && extra=(--cluster "name=xbrick1,identity=xtremio")
[[ $check == limits ]] && extra=(--cluster "name=xbrick1" --cluster "name=lim,max_volumes=7,max_snapshots_per_volume=2")
# two clusters: the performance query's cluster-name= / cluster-id= (perf_api.py)
[[ $check == perf ]] && extra=(--cluster "name=xbrick1,model=x2" --cluster "name=px1,model=x1")
[[ $check == inventory ]] && extra=(--cluster "name=x1a,model=x1" --cluster "name=x2a,model=x2,array_capacity=4M,soft_threshold=0")
api_start "$bin" "$handlers" "$work" --lun size=64M,model=unlimited "${extra[@]}" || { status=1; exit; }
echo "target: iSCSI $PORTAL, API https://$API"
export LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD LUNLAB_PORTAL=$PORTAL \
    LUNLAB_IQN=$IQN API_SCSI=$api_scsi LUNLAB_BENCH=$bench LUNLAB_TARGET_LOG=$API_LOG \
    LUNLAB_TARGET_PID=$LL_PID LUNLAB_AUTH_FILE=$work/auth
case $check in
    cinder) timeout 600 /usr/bin/python3 "$here/cinder_driver.py" || status=1 ;;
    cinder2) PYTHONPATH=$here timeout 600 /usr/bin/python3 "$here/cinder_two_backends.py" || status=1 ;;
    cinder3) PYTHONPATH=$here timeout 600 /usr/bin/python3 "$here/cinder_flows.py" || status=1 ;;
    xms) timeout 600 /usr/bin/python3 "$here/xms_api.py" || status=1 ;;
    arrays) timeout 300 /usr/bin/python3 "$here/arrays_api.py" || status=1 ;;
    refresh) timeout 300 /usr/bin/python3 "$here/refresh_api.py" || status=1 ;;
    bench) timeout 600 bash "$here/bench_api.sh" || status=1 ;;
    throttle) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/throttle_api.py" || status=1 ;;
    clusters) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/clusters_api.py" || status=1 ;;
    sessions) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/sessions_api.py" || status=1 ;;
    apifaults) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/api_faults_api.py" || status=1 ;;
    inventory) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/inventory_api.py" || status=1 ;;
    perf) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/perf_api.py" || status=1 ;;
    limits) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/limits_api.py" || status=1 ;;
    names) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/names_api.py" || status=1 ;;
    replay-*) PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/replay_${check#replay-}.py" || status=1 ;;
    *) echo "unknown check '$check'"; status=2 ;;
esac
