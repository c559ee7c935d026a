#!/bin/bash
# tags_api.sh TARGET_BIN HANDLER_DIR: the `tags` resource (docs/api.md "Tags") in two phases
# against one --state-dir: tags_api.py make (create, nested, tag and untag every kind, lists,
# refusals, rename, removal), a clean stop and start, then tags_api.py restart (the tags, their
# colors and what they tag are back; indexes are not reused).
# Exit 0 pass, 1 fail.
set -uo pipefail
bin=$1 handlers=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

# every save compared with the whole model: whoever changes a stored field marks it (xms_dirty.h)
export LUNLAB_XMS_STORE_CHECK=1
api_scratch tags

phase() {
    local name=$1
    # api_start reads the API's address from the log: each start gets its own
    [[ -f $work/target.log ]] && mv "$work/target.log" "$work/target.log.before-$name"
    api_start "$bin" "$handlers" "$work" --state-dir "$work/state" --lun size=16M,model=unlimited || { status=1; exit; }
    LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD \
        PYTHONPATH=$here timeout 300 /usr/bin/python3 "$here/tags_api.py" "$name" || status=1
}

phase make
api_stop || status=1
phase restart
api_stop || status=1
