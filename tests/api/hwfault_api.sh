#!/bin/bash
# hwfault_api.sh TARGET_BIN HANDLER_DIR: the hardware form of --fault
# (target/api/xms_hw_fault_spec.h, docs/faults.md "Hardware faults"): a target started with
# `--fault hw=ssd:3 --fault hw=storage-controller:X1-SC2` shows both failed from its first
# answer (/api/lunlab/hardware, the ssds and storage-controllers lists, outstanding alerts);
# a bad one stops the start with exit 2 and one line naming the bad key.
# With --state-dir a failed SSD stays failed (its alert outstanding) across a restart without
# the --fault, until PUT /api/lunlab/hardware restores it; a restart after that finds it
# healthy (target/api/xms_hw_store.h).
# Exit 0 pass, 1 fail.
set -uo pipefail
bin=$1 handlers=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

api_scratch hwfault

# refused: "lunlab-target: --fault SPEC: REASON" on one line, exit 2
refused() {
    local want=$1 out rc
    shift
    out=$("$bin" --iqn iqn.2026-11.org.lunlab:hw --handler-path "$handlers" --listen 127.0.0.1:0 "$@" 2>&1)
    rc=$?
    if (( rc == 2 )) && [[ $(wc -l <<<"$out") == 1 && $out == *"$want"* ]]; then
        echo "ok: refused ($*): $out"
    else
        echo "FAIL: $*: exit $rc, want 2 and one line with '$want': $out"; status=1
    fi
}
refused "--fault hw=disk:1: hw: want ssd:N or storage-controller:N" --api 127.0.0.1:0 --fault hw=disk:1
refused "--fault hw=ssd:0: hw: want a number from 1 or a name" --api 127.0.0.1:0 --fault hw=ssd:0
refused "--fault hw=ssd:2,lun=0: lun: not a key of a hardware fault" --api 127.0.0.1:0 --fault hw=ssd:2,lun=0
refused "--fault hw=ssd:3: needs --api" --fault hw=ssd:3
(umask 077 && printf 'api admin secret12345\n' > "$work/auth0")
refused "--fault hw=ssd:99: hw: no ssd \"99\" in cluster xbrick1" --quiet --auth-file "$work/auth0" \
    --api 127.0.0.1:0 --fault hw=ssd:99
refused "--fault hw=sc:1,cluster=nope: cluster: no cluster nope" --quiet --auth-file "$work/auth0" \
    --api 127.0.0.1:0 --fault hw=sc:1,cluster=nope

api_start "$bin" "$handlers" "$work" --fault hw=ssd:3 --fault hw=storage-controller:X1-SC2 || { status=1; exit; }
LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD timeout 120 /usr/bin/python3 - <<'PY' || status=1
import os, sys
import requests, urllib3
urllib3.disable_warnings()
api, auth = os.environ["LUNLAB_API"], (os.environ["LUNLAB_API_USER"], os.environ["LUNLAB_API_PASSWORD"])
get = lambda p, **kw: requests.get("https://%s%s" % (api, p), auth=auth, verify=False, timeout=30, **kw).json()
bad = 0
def ok(label, cond, detail=""):
    global bad
    print(("ok: %s" if cond else "FAIL: %s " + str(detail)) % label)
    bad += not cond
failed = sorted((f["component"], f["number"]) for f in get("/api/lunlab/hardware")["failed"])
ok("/api/lunlab/hardware: SSD 3 and storage controller 2 failed from the start",
   failed == [("ssd", 3), ("storage-controller", 2)], failed)
ssds = get("/api/json/v3/types/ssds", params={"full": 1})["ssds"]
states = [s["enabled-state"] for s in sorted(ssds, key=lambda s: s["index"])]
ok("the ssds list: the third disabled, the others enabled",
   states[2] == "disabled" and states.count("disabled") == 1, states)
scs = {s["name"]: s["node-health-state"] for s in get("/api/json/v3/types/storage-controllers", params={"full": 1})["storage-controllers"]}
ok("X1-SC2 failed, X1-SC1 not", scs.get("X1-SC2") == "failed" and scs.get("X1-SC1") != "failed", scs)
alerts = sorted((a["alert-type"], a["alert-state"]) for a in get("/api/json/v3/types/alerts", params={"full": 1})["alerts"])
ok("outstanding alerts for both (and X1-SC2's target down)",
   ("ssd_failed", "outstanding") in alerts and ("storage_controller_failed", "outstanding") in alerts, alerts)
sys.exit(1 if bad else 0)
PY
grep -q "hardware fault: hw=ssd:3" "$work/target.log" && echo "ok: the log names the hardware fault" ||
    { echo "FAIL: no 'hardware fault:' line"; status=1; }

# --state-dir: the fault outlives the --fault that made it, until it is released
api_stop || status=1
mkdir -p "$work/state"
mv "$work/target.log" "$work/target.log.nostate"
api_start "$bin" "$handlers" "$work" --state-dir "$work/state" --fault hw=ssd:3 || { status=1; exit; }
api_stop || status=1
kept() { # kept PHASE: the checks of one start on the state directory
    mv "$work/target.log" "$work/target.log.before-$1"
    api_start "$bin" "$handlers" "$work" --state-dir "$work/state" || { status=1; exit; }
    LUNLAB_API=$API LUNLAB_API_USER=$API_USER LUNLAB_API_PASSWORD=$API_PASSWORD timeout 120 \
        /usr/bin/python3 - "$1" <<'PY' || status=1
import os, sys
import requests, urllib3
urllib3.disable_warnings()
api, auth = os.environ["LUNLAB_API"], (os.environ["LUNLAB_API_USER"], os.environ["LUNLAB_API_PASSWORD"])
url = lambda p: "https://%s%s" % (api, p)
get = lambda p, **kw: requests.get(url(p), auth=auth, verify=False, timeout=30, **kw).json()
bad = 0
def ok(label, cond, detail=""):
    global bad
    print(("ok: %s" if cond else "FAIL: %s " + str(detail)) % label)
    bad += not cond
def state():
    failed = sorted((f["component"], f["number"]) for f in get("/api/lunlab/hardware")["failed"])
    ssds = sorted(get("/api/json/v3/types/ssds", params={"full": 1})["ssds"], key=lambda s: s["index"])
    alerts = [(a["assoc-obj-name"], a["alert-state"]) for a in
              get("/api/json/v3/types/alerts", params={"full": 1})["alerts"] if a["alert-type"] == "ssd_failed"]
    return failed, ssds[2]["enabled-state"], ssds[2]["name"], alerts
failed, enabled, name, alerts = state()
if sys.argv[1] == "restart":
    ok("restarted without the --fault: SSD 3 still failed", failed == [("ssd", 3)], failed)
    ok("the ssds list shows it disabled", enabled == "disabled", enabled)
    ok("its alert (the one --fault raised) still outstanding, no second one", alerts == [(name, "outstanding")], alerts)
    r = requests.put(url("/api/lunlab/hardware"), auth=auth, verify=False, timeout=30,
                     json={"component": "ssd", "name": 3, "state": "healthy"})
    ok("released: 200", r.status_code == 200, (r.status_code, r.text))
    failed, enabled, name, alerts = state()
    ok("released: nothing failed, SSD 3 enabled, its alert cleared",
       (failed, enabled, alerts) == ([], "enabled", [(name, "cleared")]), (failed, enabled, alerts))
else:
    ok("a restart after the release: SSD 3 healthy, its alert cleared",
       (failed, enabled, alerts) == ([], "enabled", [(name, "cleared")]), (failed, enabled, alerts))
sys.exit(1 if bad else 0)
PY
    api_stop || status=1
}
kept restart
kept released
