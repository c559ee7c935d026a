#!/bin/bash
# restart_api.sh NAME TARGET_BIN HANDLER_DIR: NAME_api.py in two phases against one --state-dir:
# `NAME_api.py make` (objects made, fields, refusals, changes), a clean stop and start, then
# `NAME_api.py restart` (what the first phase left is back as it was).  Runs api-tags (the
# `tags` resource, docs/api.md "Tags") and api-folders ("volume-folders, ig-folders").
# Every save is compared with the whole model: whoever changes a stored field marks it
# (xms_dirty.h).  Exit 0 pass, 1 fail.
set -uo pipefail
what=$1 bin=$2 handlers=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

export LUNLAB_XMS_STORE_CHECK=1
api_scratch "$what"

phase() {
    local name=$1
    # api_start reads the API's address from the log: each start gets its own
    [[ -f $work/target.log ]] && mv "$work/target.log" "$work/target.log.before-$name"
    api_start "$bin" "$handlers" "$work" --state-dir "$work/state" --lun size=16M,model=unlimited || { status=1; exit; }
    LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD \
        PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/${what}_api.py" "$name" || status=1
}

phase make
api_stop || status=1
phase restart
api_stop || status=1
