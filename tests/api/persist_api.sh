#!/bin/bash
# persist_api.sh TARGET_BIN HANDLER_DIR API_SCSI: the management API with --state-dir
# (docs/persistence.md "The management API"): persist_api.py's phases against one state
# directory — make, a clean stop and start (restart), SIGKILL and start (crash), then the
# model of before a DELETE with the arrays of after it (stale); then a round of creates, one
# of changes and one of deletes, each followed by SIGKILL and compared after the restart.
# Exit 0 pass, 1 fail.
set -uo pipefail
bin=$1 handlers=$2 api_scsi=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

api_scratch persist
# every save of the model compares the stored records with the whole model (xms_store.h): a
# change the model did not mark fails the request that made it
export LUNLAB_XMS_STORE_CHECK=1
# and every array commit checks that no volume record changed without its mark (array_state.c):
# named volumes made, resized, snapshotted, refreshed and deleted, killed among them
export LUNLAB_ARRAY_STATE_CHECK=1

phase() {
    local name=$1
    # api_start reads the API's address from the log: each start gets its own
    [[ -f $work/target.log ]] && mv "$work/target.log" "$work/target.log.before-$name"
    api_start "$bin" "$handlers" "$work" --state-dir "$work/state" --lun size=16M,model=unlimited || { status=1; exit; }
    LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD LUNLAB_PORTAL=$PORTAL \
        LUNLAB_IQN=$IQN API_SCSI=$api_scsi LUNLAB_WORK=$work LUNLAB_PID=$LL_PID timeout 300 /usr/bin/python3 "$here/persist_api.py" "$name" || status=1
}

phase make
api_stop || status=1
phase restart
kill -KILL "$LL_PID"
wait "$LL_PID" 2>/dev/null
LL_PID=
# the target is dead: target.db and its log copied now are a consistent state
mkdir -p "$work/before-delete" && cp -p "$work/state"/target.db* "$work/before-delete/"
phase crash
api_stop || status=1
# a crash between a DELETE's array commit and the model's save, played back: the model from
# before the DELETE, the arrays from after it
rm -f "$work/state"/target.db*
cp -p "$work/before-delete"/target.db* "$work/state/"
phase stale
grep -q "volume pv2: array xbrick1 no longer has it" "$work/target.log" &&
    echo "ok: the target says it dropped pv2" || { echo "FAIL: no line about dropping pv2"; status=1; }
api_stop || status=1
# the state the API left is consistent offline too (target.db with its model, every array)
if out=$("$bin" --check-state "$work/state" --handler-path "$handlers" 2>&1) &&
   grep -q "the API's model: 1 cluster(s), 2 volume(s), 2 LUN map(s), 1 initiator(s)" <<<"$out" &&
   # the array's named volumes are the model's volumes (its total adds the LUs' own)
   grep -q "array xbrick1: [0-9]* volume(s) (2 named, " <<<"$out"; then
    echo "ok: --check-state: $(tr '\n' ' ' <<<"$out")"
else
    echo "FAIL: --check-state: $out"; status=1
fi
# every kind of change, a round each, SIGKILL after each round (persist_api.py kinds-*)
for round in kinds-create kinds-change kinds-delete; do
    phase "$round"
    kill -KILL "$LL_PID"
    wait "$LL_PID" 2>/dev/null
    LL_PID=
done
phase kinds-check
api_stop || status=1
# SIGKILL in the middle of a burst of POSTs (persist_api.py burst kills it itself), then the
# state offline (--check-state) and every answered change after the restart
phase burst
wait "$LL_PID" 2>/dev/null
LL_PID=
if out=$("$bin" --check-state "$work/state" --handler-path "$handlers" 2>&1); then
    echo "ok: --check-state after the burst's SIGKILL: $(grep -o "the API's model: [^;]*" <<<"$out" | head -n 1)"
else
    echo "FAIL: --check-state after the burst's SIGKILL: $out"; status=1
fi
phase burst-check
api_stop || status=1
