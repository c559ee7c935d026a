#!/usr/bin/python3
"""The management API on --state-dir (docs/persistence.md "The management API"), in phases
that persist_api.sh runs against one state directory, restarting lunlab-target in between:

  (each phase also checks that the event log and the alerts of the phase before are kept:
  ids, timestamps, raise-times; make fails SSD 3 and storage controller X1-SC2: they stay
  failed across the restart, their alerts outstanding, until restart releases SSD 3 and
  crash X1-SC2)
  make     volume pv1 (written: seed 7), initiator group h1 with initiator A, pv1 at LUN 5,
           a snapshot set ss1 of pv1 (pv1.snap, mapped at LUN 6), then pv1 rewritten (seed 8);
           a volume 'gone' created and deleted; CHAP on, A's credentials given through the API
  restart  (after a clean stop) every object is back with its index and name, 'gone' is not;
           A logs in only with its CHAP secret; A sees LUNs 0 5 6, LUN 5 reads seed 8, LUN 6
           (the snapshot) seed 7; pv1 is refreshed from pv1.snap (no backup: it reads seed 7
           again); then volume pv2 is created, and the target is killed with SIGKILL
  crash    pv2 is there (a change is kept before the API answers it), pv1 holds the refreshed
           data (seed 7); then pv2 is deleted
           (persist_api.sh then puts back the target.db of before the delete: a crash
           between the array's delete and the model's save)
  stale    pv2 is not there (dropped: its array no longer has it), pv1 and its snapshot are
  kinds-create, kinds-change, kinds-delete, kinds-check  (each after a SIGKILL of the phase
           before) every kind of change the API stores, a round each: the model the phase
           before saw (every type, full=1, MODEL_FILE) is compared field for field with what
           the restarted target serves, then the round's changes are made and the model saved
           again.  Creates: volumes with settings and tags, a group with initiators, maps, a
           consistency group, a snapshot set; changes: renames, a resize, settings, tag-list,
           CHAP, an initiator moved, a volume added to and removed from a group, a refresh
           with a backup, the cluster's CHAP mode; deletes: a map, a volume in a group and a
           set, a snapshot set, a group, an initiator group with its initiators; tags made,
           assigned, renamed, taken off and deleted (their objects lose them).  The target
           runs with LUNLAB_XMS_STORE_CHECK=1 (persist_api.sh): every save compares the stored
           records with the whole model, so a change the model did not mark is a 500 here.
  burst, burst-check  4 clients POST volumes (and map every third) as fast as they can; burst
           kills the target with SIGKILL (LUNLAB_PID) once 30 are answered, mid-burst; after
           the restart (and --check-state, persist_api.sh) every volume and map answered 201
           is there, and nothing else of the burst but what was being made when it died.
Environment as xms_api.py."""
import json
import os
import subprocess
import sys
import time

import requests

import replay_lib
from replay_lib import API, AUTH, ok, req
PORTAL = os.environ["LUNLAB_PORTAL"]
IQN = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]
A = "iqn.2026-11.org.example:persist-a"


def created(label, r):
    ok(label + ": 201", r.status_code == 201, (r.status_code, r.text))
    return replay_lib.created(r)


CHAP_USER, CHAP_SECRET = "persist_a", "persistsecret1"
chap = False     # A logs in with CHAP (from the end of make on)


def scsi(*args, secret=None):
    env = dict(os.environ)
    env.pop("LIBISCSI_CHAP_PASSWORD", None)
    if chap:
        env["LIBISCSI_CHAP_PASSWORD"] = secret or CHAP_SECRET
    p = subprocess.run([API_SCSI, "-i", A] + list(args), capture_output=True, text=True, timeout=120, env=env)
    return p.returncode, p.stdout.strip()


def url(lun, user=True):
    return "iscsi://%s%s/%s/%d" % (CHAP_USER + "@" if chap and user else "", PORTAL, IQN, lun)


def names(kind):
    r = req("GET", kind)
    return sorted(x["name"] for x in r.json()[kind]) if r.status_code == 200 else None


INVENTORY_FILE = os.path.join(os.environ.get("LUNLAB_WORK", "/tmp"), "inventory-ids.json")
LOG_FILE = os.path.join(os.environ.get("LUNLAB_WORK", "/tmp"), "events-alerts.json")
PERF_FILE = os.path.join(os.environ.get("LUNLAB_WORK", "/tmp"), "perf-history.json")


def pv1_rows():
    """pv1's raw rows of the performance history (xms_perf_history.h), every one kept"""
    r = req("GET", "performance", params={"entity": "Volume", "obj-list": "pv1", "granularity": "raw",
                                          "from-time": "2020-01-01 00:00:00"})
    ok("the performance query: 200", r.status_code == 200, r.text[:200])
    j = r.json()
    w = j["members"].index("lunlab__wr_bytes")
    return [(row[0], row[w]) for row in j["counters"]]


def reading():
    """a reading of the history now (a query reads the counters at most once a second: a
    second after the last one it does; not a timing check)"""
    time.sleep(1.1)
    pv1_rows()


def event_log():
    r = req("GET", "events")
    return r.json()["events"] if r.status_code == 200 else []


def alert_list():
    r = req("GET", "alerts", params={"full": 1})
    return r.json()["alerts"] if r.status_code == 200 else []


def hardware(state, component="ssd", name=3):
    return requests.put("https://%s/api/lunlab/hardware" % API, auth=AUTH, verify=False, timeout=60,
                        json={"component": component, "name": name, "state": state})


def hw_state():
    """what the API says is failed: /api/lunlab/hardware's list, the state of SSD 3 and of
    X1-SC2 in the inventory, and the state of each hardware alert by component name"""
    r = requests.get("https://%s/api/lunlab/hardware" % API, auth=AUTH, verify=False, timeout=60)
    failed = sorted((f["component"], f["number"]) for f in r.json()["failed"]) if r.status_code == 200 else None
    ssds = sorted(req("GET", "ssds", params={"full": 1}).json()["ssds"], key=lambda o: o["index"])
    scs = {o["name"]: o for o in req("GET", "storage-controllers", params={"full": 1}).json()["storage-controllers"]}
    alerts = sorted((a["assoc-obj-name"], a["alert-type"], a["alert-state"]) for a in alert_list()
                    if a["alert-type"] in ("ssd_failed", "storage_controller_failed"))
    return (failed, ssds[2]["enabled-state"], scs["X1-SC2"]["node-health-state"], ssds[2]["name"], alerts)


def log_kept(label, before):
    """every event of before is listed again, field for field (its id and
    timestamp too), and one alert per alert before with its index and
    raise-time"""
    now = {e["id"]: e for e in event_log()}
    lost = [e for e in before["events"] if now.get(e["id"]) != e]
    ok("%s: the %d events of before are listed with the same id, timestamp and text" % (label, len(before["events"])),
       before["events"] and not lost, lost[:2])
    alerts = {a["index"]: a for a in alert_list()}
    for a in before["alerts"]:
        b = alerts.get(a["index"], {})
        ok("%s: alert %s kept its index, name, guid and raise-time" % (label, a["name"]),
           all(b.get(k) == a[k] for k in ("name", "guid", "alert-type", "assoc-obj-name", "raise-time")), b)
    return now


def inventory_ids():
    """the identities of the brick's hardware (xms_inventory.h): derived
    from the cluster's name, the same after a restart"""
    out = {}
    for kind in ("bricks", "storage-controllers", "ssds", "bbus", "local-disks", "xenvs", "dae-controllers",
                 "dae-psus"):
        out[kind] = [[o["index"], o["name"], o["guid"], o.get("serial-number", o.get("local-disk-uid"))]
                     for o in req("GET", kind, params={"full": 1}).json()[kind]]
    return out


def make():
    with open(INVENTORY_FILE, "w") as f:
        json.dump(inventory_ids(), f)
    created("volume pv1", req("POST", "volumes", json={"vol-name": "pv1", "vol-size": "64m"}))
    created("initiator group h1", req("POST", "initiator-groups", json={"ig-name": "h1"}))
    created("initiator a", req("POST", "initiators", json={"initiator-name": "a", "ig-id": "h1", "port-address": A}))
    created("pv1 at LUN 5", req("POST", "lun-maps", json={"vol-id": "pv1", "ig-id": "h1", "lun": 5}))
    reading()   # pv1's first, before it is written
    ok("LUN 5 written (seed 7)", scsi("write", url(5), "0", "256", "7")[0] == 0)
    created("snapshot set ss1 of pv1", req("POST", "snapshots", json={"volume-list": ["pv1"],
                                                                     "snapshot-set-name": "ss1",
                                                                     "snap-suffix": "snap"}))
    created("pv1.snap at LUN 6", req("POST", "lun-maps", json={"vol-id": "pv1.snap", "ig-id": "h1", "lun": 6}))
    ok("LUN 5 rewritten (seed 8)", scsi("write", url(5), "0", "256", "8")[0] == 0)
    created("volume gone", req("POST", "volumes", json={"vol-name": "gone", "vol-size": "16m"}))
    r = req("DELETE", "volumes", params={"name": "gone"})
    ok("volume gone deleted: 200", r.status_code == 200, (r.status_code, r.text))
    ok("before the restart: LUN 6 reads seed 7", scsi("verify", url(6), "0", "256", "7")[0] == 0)
    r = req("PUT", "initiators", params={"name": "a"}, json={"initiator-authentication-user-name": CHAP_USER,
                                                             "initiator-authentication-password": CHAP_SECRET})
    ok("A's CHAP credentials: 200", r.status_code == 200, (r.status_code, r.text))
    r = req("PUT", "clusters/1", json={"chap-authentication-mode": "initiator"})
    ok("chap-authentication-mode initiator: 200", r.status_code == 200, (r.status_code, r.text))
    r = hardware("failed")
    ok("SSD 3 failed (/api/lunlab/hardware): 200", r.status_code == 200, (r.status_code, r.text))
    r = hardware("failed", "storage-controller", "X1-SC2")
    ok("X1-SC2 failed: 200", r.status_code == 200, (r.status_code, r.text))
    alerts = alert_list()
    ok("outstanding ssd_failed and storage_controller_failed alerts",
       sorted((a["alert-type"], a["alert-state"]) for a in alerts) ==
       [("ssd_failed", "outstanding"), ("storage_controller_failed", "outstanding")], alerts)
    hw = hw_state()
    ok("SSD 3 and X1-SC2 failed in the inventory", hw[:3] == ([("ssd", 3), ("storage-controller", 2)], "disabled",
                                                             "failed"), hw)
    events = event_log()
    ok("the event log opens with the start (LL0001) and holds the creations",
       events and events[-1]["event_code"] == "LL0001" and
       any(e["description"].endswith("created volumes 'pv1'") for e in events), events[-3:])
    with open(LOG_FILE, "w") as f:
        json.dump({"events": events, "alerts": alerts}, f)
    reading()
    rows = pv1_rows()
    written = sum(w for _, w in rows)
    ok("performance history: pv1's rows add up to its two writes of 128 KiB", written == 2 * 131072, rows)
    with open(PERF_FILE, "w") as f:
        json.dump({"written": written}, f)


def perf_kept(started):
    """the performance history of before the restart is back (--state-dir keeps it, thinned
    to a reading per 10 s: the rows telescope, so they still add up to what pv1 did), and
    pv1's counters go on from it: a row after the restart counts what this start did"""
    with open(PERF_FILE) as f:
        before = json.load(f)
    rows = pv1_rows()
    old = [w for t, w in rows if t < started]
    ok("after a clean restart: pv1's rows of before add up to its %d bytes written" % before["written"],
       old and sum(old) == before["written"], rows)
    ok("the row across the restart counts nothing (no write since)", sum(w for t, w in rows if t >= started) == 0,
       rows)
    ok("LUN 5 written again (seed 8, the same data)", scsi("write", url(5), "0", "256", "8")[0] == 0)
    reading()
    rows = pv1_rows()
    ok("after the restart: pv1's new rows add up to that write (128 KiB), not less",
       sum(w for t, w in rows if t >= started) == 131072, rows)


def chap_kept():
    global chap
    chap = True
    ok("A without CHAP is refused (the mode came back)", scsi("login", url(0, user=False))[0] == 3)
    ok("A with a wrong secret is refused", scsi("login", url(0), secret="wrongsecret12")[0] == 3)
    ok("A with its secret logs in (its credentials came back)", scsi("login", url(0))[0] == 0)


def power_on(label, lun, owed):
    """a new I_T nexus's first two TEST UNIT READY to lun: a volume reopened from the state
    directory owes 06/29/01 once, like a --lun LU (docs/persistence.md "Power on"); one made
    while the target runs owes nothing"""
    want = "CHECK 6/29/01\nGOOD" if owed else "GOOD\nGOOD"
    got = scsi("tur", url(lun))
    ok(label, got == (0, want), got)


def restart():
    started = int(time.time() * 1000)
    with open(LOG_FILE) as f:
        log = json.load(f)
    now = log_kept("after a clean restart", log)
    newer = sorted((i, e["event_code"]) for i, e in now.items() if i > max(e["id"] for e in log["events"]))
    ok("after them: the restart (LL0002) only (no alert cleared by it: LL0003)",
       [c for _, c in newer] == ["LL0002"], newer)
    # hardware faults are kept (xms_hw_store.h): SSD 3 and X1-SC2 are still failed, in
    # /api/lunlab/hardware and the inventory, and their alerts still outstanding (log_kept
    # checked they are the same alerts: index, raise-time)
    failed, ssd3, sc2, ssd3_name, alerts = hw_state()
    ok("after the restart: SSD 3 and X1-SC2 still failed (/api/lunlab/hardware)",
       failed == [("ssd", 3), ("storage-controller", 2)], failed)
    ok("after the restart: the inventory shows SSD 3 disabled and X1-SC2 failed", (ssd3, sc2) == ("disabled", "failed"),
       (ssd3, sc2))
    ok("after the restart: both alerts outstanding, one each",
       alerts == sorted([(ssd3_name, "ssd_failed", "outstanding"), ("X1-SC2", "storage_controller_failed",
                                                                      "outstanding")]), alerts)
    r = hardware("healthy")
    ok("SSD 3 released: 200", r.status_code == 200, (r.status_code, r.text))
    failed, ssd3, sc2, _, alerts = hw_state()
    ok("released: SSD 3 enabled again, X1-SC2 still failed", (failed, ssd3, sc2) ==
       ([("storage-controller", 2)], "enabled", "failed"), (failed, ssd3, sc2))
    ok("released: SSD 3's alert cleared, X1-SC2's outstanding", alerts ==
       sorted([(ssd3_name, "ssd_failed", "cleared"), ("X1-SC2", "storage_controller_failed", "outstanding")]), alerts)
    with open(INVENTORY_FILE) as f:
        before = json.load(f)
    ok("the inventory's names, guids, serials and indexes are the same after the restart",
       inventory_ids() == before and len(before["ssds"]) > 0, before.get("ssds", [])[:2])
    chap_kept()
    power_on("LUN 5 (pv1, reopened) owes a new nexus its power on (06/29/01), once", 5, True)
    power_on("LUN 6 (the snapshot, reopened) too", 6, True)
    ok("volumes pv1, pv1.snap (not gone)", names("volumes") == ["pv1", "pv1.snap"], names("volumes"))
    ok("snapshot set ss1", names("snapshot-sets") == ["ss1"], names("snapshot-sets"))
    ok("initiator group h1, initiator a", names("initiator-groups") == ["h1"] and names("initiators") == ["a"])
    r = req("GET", "lun-maps", params={"full": 1})
    maps = sorted((m["vol-name"], m["lun"]) for m in r.json().get("lun-maps", [])) if r.status_code == 200 else None
    ok("lun maps pv1:5, pv1.snap:6", maps == [("pv1", 5), ("pv1.snap", 6)], maps)
    c = req("GET", "volumes", params={"name": "pv1"}).json().get("content", {})
    ok("pv1 kept its index 1 and size", c.get("index") == 1 and c.get("vol-size") == str(64 * 1024), c)
    ok("A sees LUNs 0 5 6", scsi("luns", url(0)) == (0, "0 5 6"), scsi("luns", url(0)))
    ok("LUN 5 (pv1) reads what was written last (seed 8)", scsi("verify", url(5), "0", "256", "8")[0] == 0)
    ok("LUN 6 (the snapshot) reads what pv1 held when it was taken (seed 7)",
       scsi("verify", url(6), "0", "256", "7")[0] == 0)
    perf_kept(started)
    r = req("POST", "snapshots", json={"from-volume-id": "pv1.snap", "to-volume-id": "pv1", "no-backup": True})
    ok("pv1 refreshed from pv1.snap: 201", r.status_code == 201, (r.status_code, r.text))
    ok("LUN 5 (pv1) now reads the snapshot's data (seed 7)", scsi("verify", url(5), "0", "256", "7")[0] == 0)
    created("volume pv2", req("POST", "volumes", json={"vol-name": "pv2", "vol-size": "32m"}))
    m = created("pv2 at LUN 7", req("POST", "lun-maps", json={"vol-id": "pv2", "ig-id": "h1", "lun": 7}))
    power_on("LUN 7 (pv2, made while the target runs) owes no power on", 7, False)
    r = req("DELETE", "lun-maps/%s" % m)
    ok("pv2's map deleted: 200", r.status_code == 200, (r.status_code, r.text))
    with open(LOG_FILE, "w") as f:
        json.dump({"events": event_log(), "alerts": alert_list()}, f)


def crash():
    with open(LOG_FILE) as f:
        log = json.load(f)
    log_kept("after SIGKILL", log)
    ok("the log of before the SIGKILL ends with pv2's map deleted",
       log["events"][0]["event_code"] == "LL0103" and "removed lun-maps" in log["events"][0]["description"], log["events"][0])
    # SSD 3's release is kept (its record deleted), X1-SC2 is still failed until it is released
    failed, ssd3, sc2, ssd3_name, alerts = hw_state()
    ok("after SIGKILL: SSD 3 healthy (its release kept), X1-SC2 failed, its alert outstanding",
       (failed, ssd3, sc2, alerts) == ([("storage-controller", 2)], "enabled", "failed",
                                       sorted([(ssd3_name, "ssd_failed", "cleared"),
                                               ("X1-SC2", "storage_controller_failed", "outstanding")])),
       (failed, ssd3, sc2, alerts))
    r = hardware("healthy", "storage-controller", "X1-SC2")
    ok("X1-SC2 released: 200", r.status_code == 200, (r.status_code, r.text))
    failed, ssd3, sc2, _, alerts = hw_state()
    ok("released: nothing failed, X1-SC2 healthy, every hardware alert cleared",
       (failed, sc2, [a[2] for a in alerts]) == ([], "healthy", ["cleared", "cleared"]), (failed, sc2, alerts))
    chap_kept()
    ok("after SIGKILL: pv2 is there too", names("volumes") == ["pv1", "pv1.snap", "pv2"], names("volumes"))
    power_on("after SIGKILL: LUN 5 owes a new nexus its power on again", 5, True)
    ok("LUN 6 still reads seed 7", scsi("verify", url(6), "0", "256", "7")[0] == 0)
    ok("the refresh made before the SIGKILL was kept: LUN 5 reads seed 7",
       scsi("verify", url(5), "0", "256", "7")[0] == 0)
    r = req("DELETE", "volumes", params={"name": "pv2"})
    ok("pv2 deleted: 200", r.status_code == 200, (r.status_code, r.text))


def stale():
    chap_kept()
    failed = hw_state()[0]
    ok("the state of before X1-SC2's release: X1-SC2 failed", failed == [("storage-controller", 2)], failed)
    ok("a model older than its array: pv2 (deleted in the array) is dropped, not made again empty",
       names("volumes") == ["pv1", "pv1.snap"], names("volumes"))
    ok("LUN 5 still reads the refreshed data (seed 7)", scsi("verify", url(5), "0", "256", "7")[0] == 0)


MODEL_FILE = os.path.join(os.environ.get("LUNLAB_WORK", "/tmp"), "model.json")
# every type the stored model holds, as clients read them
MODEL_TYPES = ("clusters", "volumes", "snapshots", "snapshot-sets", "consistency-groups", "initiator-groups",
               "initiators", "lun-maps", "tags")
# what a restart may change without the model changing: the xms's GUID (new with every start)
# and the figures of I/O and space (the array's accounting runs behind the requests; no I/O is
# made in these rounds, so they hold still, but they are not the model's to keep); every other
# field is derived from the stored model and must come back the same
VOLATILE = ("xms-id", "iops", "-bw", "latency", "space", "ratio", "utilization")


def stored_fields(o):
    """o without its volatile fields (VOLATILE: substrings of their names)"""
    if isinstance(o, dict):
        return {k: stored_fields(v) for k, v in o.items() if not any(w in k for w in VOLATILE)}
    if isinstance(o, list):
        return [stored_fields(v) for v in o]
    return o


def model_now():
    out = {}
    for kind in MODEL_TYPES:
        r = req("GET", kind, params={"full": 1})
        ok("GET %s?full=1: 200" % kind, r.status_code == 200, (r.status_code, r.text[:200]))
        out[kind] = sorted((stored_fields(o) for o in r.json().get(kind, [])), key=lambda o: o.get("index", 0))
    return out


def model_kept(label):
    """the model saved by the phase before (killed with SIGKILL after it) is served again"""
    with open(MODEL_FILE) as f:
        before = json.load(f)
    now = model_now()
    for kind in MODEL_TYPES:
        b = {o["index"]: o for o in before[kind]}
        n = {o["index"]: o for o in now[kind]}
        diff = [(i, {k: (b[i].get(k), n.get(i, {}).get(k)) for k in set(b[i]) | set(n.get(i, {}))
                     if b[i].get(k) != n.get(i, {}).get(k)}) for i in b if b[i] != n.get(i)]
        diff += [(i, "new") for i in n if i not in b]
        ok("%s: %s as before (%d objects, every stored field)" % (label, kind, len(b)), not diff, diff[:3])


def model_save():
    with open(MODEL_FILE, "w") as f:
        json.dump(model_now(), f)


def change(label, method, path, want, **kw):
    r = req(method, path, **kw)
    ok("%s: %d" % (label, want), r.status_code == want, (r.status_code, r.text[:300]))
    return r


def kinds_create():
    for entity, name in (("Volume", "/Volume/gold"), ("Volume", "/Volume/silver"), ("Volume", "/Volume/kx"),
                         ("ConsistencyGroup", "/ConsistencyGroup/kcx"), ("InitiatorGroup", "ky")):
        change("tag %s (%s)" % (name, entity), "POST", "tags", 201, json={"entity": entity, "tag-name": name})
    change("volume k1 with settings and tags", "POST", "volumes", 201,
           json={"vol-name": "k1", "vol-size": "8m", "small-io-alerts": "disabled", "vol-access": "read_access",
                 "tag-list": ["/Volume/gold"]})
    change("volume k2 (4 KiB blocks)", "POST", "volumes", 201,
           json={"vol-name": "k2", "vol-size": "16m", "lb-size": 4096})
    change("volume k3", "POST", "volumes", 201, json={"vol-name": "k3", "vol-size": "8m"})
    change("initiator group kg with an operating system", "POST", "initiator-groups", 201,
           json={"ig-name": "kg", "operating-system": "linux"})
    change("initiator group kg2", "POST", "initiator-groups", 201, json={"ig-name": "kg2"})
    for i in (1, 2):
        change("initiator ki%d in kg" % i, "POST", "initiators", 201,
               json={"initiator-name": "ki%d" % i, "ig-id": "kg", "port-address": "iqn.2026-12.org.example:ki%d" % i})
    change("k1 mapped to kg", "POST", "lun-maps", 201, json={"vol-id": "k1", "ig-id": "kg", "lun": 3})
    change("k2 mapped to kg", "POST", "lun-maps", 201, json={"vol-id": "k2", "ig-id": "kg"})
    change("consistency group kc of k1, k3", "POST", "consistency-groups", 201,
           json={"consistency-group-name": "kc", "vol-list": ["k1", "k3"], "tag-list": ["/ConsistencyGroup/kcx"]})
    change("snapshot set ks of kc", "POST", "snapshots", 201,
           json={"consistency-group-id": "kc", "snapshot-set-name": "ks", "snap-suffix": "ks"})
    change("snapshot set kt of k3", "POST", "snapshots", 201,
           json={"volume-list": ["k3"], "snapshot-set-name": "kt", "snap-suffix": "kt"})
    change("k3 tagged kx", "PUT", "tags", 200, params={"name": "/Volume/kx"},
           json={"entity": "Volume", "entity-details": "k3"})
    change("kg tagged ky", "PUT", "tags", 200, params={"name": "/InitiatorGroup/ky"},
           json={"entity": "InitiatorGroup", "entity-details": "kg"})
    model_save()


def kinds_change():
    model_kept("after SIGKILL following the creates")
    change("k1 renamed k1r", "PUT", "volumes", 200, params={"name": "k1"}, json={"vol-name": "k1r"})
    change("k2 grown to 32m, tagged", "PUT", "volumes", 200, params={"name": "k2"},
           json={"vol-size": "32m", "tag-list": ["/Volume/silver"], "management-locked": "enabled"})
    change("kg renamed kgr, another operating system", "PUT", "initiator-groups", 200, params={"name": "kg"},
           json={"new-name": "kgr", "operating-system": "windows"})
    change("ki1's CHAP credentials", "PUT", "initiators", 200, params={"name": "ki1"},
           json={"initiator-authentication-user-name": "ki1user",
                 "initiator-authentication-password": "ki1secret1234"})
    change("ki2 moved to kg2, renamed", "PUT", "initiators", 200, params={"name": "ki2"},
           json={"ig-id": "kg2", "new-name": "ki2r"})
    change("kc renamed kcr", "PUT", "consistency-groups", 200, params={"name": "kc"}, json={"new-name": "kcr"})
    change("k2 added to kcr", "POST", "consistency-group-volumes", 201, json={"vol-id": "k2", "cg-id": "kcr"})
    change("k3 removed from kcr", "DELETE", "consistency-group-volumes", 200, params={"vol-id": "k3", "cg-id": "kcr"})
    change("ks renamed ksr", "PUT", "snapshot-sets", 200, params={"name": "ks"}, json={"new-name": "ksr"})
    change("k3 refreshed from its snapshot, with a backup", "POST", "snapshots", 201,
           json={"from-volume-id": "k3.kt", "to-volume-id": "k3", "backup-snap-suffix": "kbak"})
    change("the cluster's discovery CHAP mode", "PUT", "clusters/1", 200, json={"chap-discovery-mode": "disabled"})
    change("tag kx renamed kxr, recoloured", "PUT", "tags", 200, params={"name": "/Volume/kx"},
           json={"caption": "kxr", "color": "#00FF00"})
    change("k2 tagged kxr", "PUT", "tags", 200, params={"name": "/Volume/kxr"},
           json={"entity": "Volume", "entity-details": "k2"})
    change("k3's tag kxr taken off", "DELETE", "tags", 200, params={"name": "/Volume/kxr"},
           json={"entity": "Volume", "entity-details": "k3"})
    model_save()


def kinds_delete():
    model_kept("after SIGKILL following the changes")
    r = req("GET", "lun-maps", params={"full": 1})
    m = [x["index"] for x in r.json()["lun-maps"] if x["vol-name"] == "k2"]
    change("k2's map deleted", "DELETE", "lun-maps/%d" % m[0], 200)
    change("k1r's map deleted", "DELETE", "lun-maps/%d" % [x["index"] for x in r.json()["lun-maps"]
                                                            if x["vol-name"] == "k1r"][0], 200)
    change("k1r (in kcr and in ks's source list) deleted", "DELETE", "volumes", 200, params={"name": "k1r"})
    change("snapshot set kt deleted with its snapshot", "DELETE", "snapshot-sets", 200, params={"name": "kt"})
    change("consistency group kcr deleted (its volumes stay)", "DELETE", "consistency-groups", 200,
           params={"name": "kcr"})
    change("initiator ki2r deleted", "DELETE", "initiators", 200, params={"name": "ki2r"})
    change("initiator group kgr deleted with ki1", "DELETE", "initiator-groups", 200, params={"name": "kgr"})
    change("tag kxr deleted (k2 loses it)", "DELETE", "tags", 200, params={"name": "/Volume/kxr"})
    model_save()


def kinds_check():
    model_kept("after SIGKILL following the deletes")
    ok("what the rounds left: volumes", names("volumes") == sorted(
        ["pv1", "pv1.snap", "k2", "k3", "k1.ks", "k3.ks", "k3.kbak"]), names("volumes"))
    ok("initiator groups", names("initiator-groups") == ["h1", "kg2"], names("initiator-groups"))


BURST_FILE = os.path.join(os.environ.get("LUNLAB_WORK", "/tmp"), "burst.json")


def burst():
    import signal
    import threading
    acked, lock, stop = {"volumes": [], "maps": []}, threading.Lock(), threading.Event()
    started = []

    def client(c):
        for i in range(200):
            if stop.is_set():
                return
            name = "b%d-%d" % (c, i)
            with lock:
                started.append(name)
            try:
                r = req("POST", "volumes", json={"vol-name": name, "vol-size": "1m"}, timeout=30)
                if r.status_code != 201:
                    return
                with lock:
                    acked["volumes"].append(name)
                if i % 3 == 0:
                    r = req("POST", "lun-maps", json={"vol-id": name, "ig-id": "h1"}, timeout=30)
                    if r.status_code != 201:
                        return
                    with lock:
                        acked["maps"].append(name)
            except requests.RequestException:
                return  # the target died under this request: its outcome is unknown
            with lock:
                if len(acked["volumes"]) >= 30 and not stop.is_set():
                    stop.set()
                    os.kill(int(os.environ["LUNLAB_PID"]), signal.SIGKILL)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok("the burst was killed after 30 volumes were answered", stop.is_set() and len(acked["volumes"]) >= 30,
       len(acked["volumes"]))
    with open(BURST_FILE, "w") as f:
        json.dump({"acked": acked, "started": started}, f)


def burst_check():
    with open(BURST_FILE) as f:
        b = json.load(f)
    vols = set(names("volumes"))
    lost = [n for n in b["acked"]["volumes"] if n not in vols]
    ok("after SIGKILL mid-burst: every volume answered 201 is there (%d)" % len(b["acked"]["volumes"]), not lost, lost)
    extra = [n for n in vols if n.startswith("b") and "-" in n and n not in b["started"]]
    ok("and no volume of the burst that no client asked for", not extra, extra)
    r = req("GET", "lun-maps", params={"full": 1})
    mapped = {m["vol-name"] for m in r.json().get("lun-maps", [])}
    lost = [n for n in b["acked"]["maps"] if n not in mapped]
    ok("every map answered 201 is there (%d)" % len(b["acked"]["maps"]), not lost, lost)


def names_indexed(when):
    """the model's name index built on load agrees with a scan (GET /api/lunlab/model-check),
    and every kept object is found by ?name="""
    r = replay_lib.lunlab_req("GET", "model-check")
    ok("%s: the name index agrees with the objects" % when, r.status_code == 200, (r.status_code, r.text))
    for kind in ("volumes", "snapshot-sets", "initiator-groups", "initiators", "lun-maps"):
        for name in names(kind) or []:
            c = req("GET", kind, params={"name": name}).json().get("content", {})
            ok("%s: %s ?name=%s" % (when, kind, name), c.get("name") == name, c)


# the burst's phase ends with the target killed: nothing to ask after it
if sys.argv[1] not in ("make", "burst"):
    names_indexed("after the start")
{"make": make, "restart": restart, "crash": crash, "stale": stale, "kinds-create": kinds_create,
 "kinds-change": kinds_change, "kinds-delete": kinds_delete, "kinds-check": kinds_check, "burst": burst,
 "burst-check": burst_check}[sys.argv[1]]()
if sys.argv[1] != "burst":
    names_indexed("after the phase's changes")
replay_lib.finish(sys.argv[1])
