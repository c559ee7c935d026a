#!/usr/bin/python3
"""The X-Brick inventory, hardware faults, alerts and the SCSI side's
events against a running target with two clusters (x1a: model=x1, x2a:
model=x2 with 4 MiB of capacity and no soft threshold):

- bricks, storage-controllers, xenvs, local-disks, bbus, dae-controllers,
  dae-psus and ssds per cluster, counts from the profile (25 SSDs for x1,
  18 for x2), every field the Prometheus exporter, Telegraf and
  XtremIO.Utils read with the type they parse, exact SSD sizes, identities
  unique, targets naming their brick and controller;
- PUT /api/lunlab/hardware fails an SSD and a storage controller: the
  inventory shows them failed, alerts are raised and cleared, events say
  so, the failed controller's portal refuses logins until it is restored;
  bad bodies answered 400/404 naming the field;
- SCSI-side happenings as events and alerts: a fault rule's first hit, a
  portal down and up, 06/38/07 sent (by a rule) and space exhausted by
  real writes (alerts cleared once the volume is deleted).
"""
import os
import subprocess
import time

from replay_lib import BASE, USER, PASSWORD, ok, finish, fields, session

PORTAL = os.environ["LUNLAB_PORTAL"]
IQN = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]
H = BASE + "/api/lunlab/hardware"
S = session()
S.auth = (USER, PASSWORD)
V3 = BASE + "/api/json/v3/types/"
INI = "iqn.2026-12.org.lunlab:inventory"


def lst(kind, cluster=None):
    p = {"full": 1}
    if cluster:
        p["cluster-name"] = cluster
    r = S.get(V3 + kind, params=p)
    return r.json().get(kind, []) if r.status_code == 200 else None


def one(kind, name, cluster):
    return S.get(V3 + kind, params={"name": name, "cluster-name": cluster}).json()["content"]


def scsi(*args):
    p = subprocess.run([API_SCSI, "-i", INI] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def events_since(first_id):
    return [e for e in S.get(V3 + "events").json()["events"] if e["id"] > first_id]


def last_event_id():
    ev = S.get(V3 + "events", params={"limit": 1}).json()["events"]
    return ev[0]["id"] if ev else 0


def alerts(kind, name, state=None):
    return [a for a in lst("alerts") if a["alert-type"] == kind and a["assoc-obj-name"] == name
            and (state is None or a["alert-state"] == state)]


def inventory():
    counts = {"bricks": 1, "storage-controllers": 2, "xenvs": 4, "local-disks": 4, "bbus": 2,
              "dae-controllers": 2, "dae-psus": 2}
    for kind, n in counts.items():
        for cl in ("x1a", "x2a"):
            got = lst(kind, cl)
            ok("%s of %s: %d" % (kind, cl, n), got is not None and len(got) == n, got)
        allk = lst(kind)
        ok("%s: indexes unique across clusters" % kind,
           len({o["index"] for o in allk}) == len(allk) == 2 * n, [o["index"] for o in allk])
        ok("%s: guids unique" % kind, len({o["guid"] for o in allk}) == len(allk))
    ssd1, ssd2 = lst("ssds", "x1a"), lst("ssds", "x2a")
    ok("x1's brick has 25 SSDs, x2's 18 (the profiles' capacity.ssds)", len(ssd1) == 25 and len(ssd2) == 18,
       (len(ssd1), len(ssd2)))
    b = one("bricks", "X1", "x1a")
    # prometheus exporter bricks(): name, sys-name, guid, num-of-ssds
    fields("brick", b, {"name": "str", "sys-name": "str", "guid": "str", "num-of-ssds": "int",
                        "brick-id": "list", "node-list": "list", "ssd-slot-array": "list", "index": "int"})
    ok("brick num-of-ssds 25, its slots name the SSDs at [3]",
       b["num-of-ssds"] == 25 and [s[3][1] for s in b["ssd-slot-array"]] == [s["name"] for s in ssd1], b)
    ok("the cluster's num-of-ssds agrees",
       S.get(V3 + "clusters", params={"name": "x2a"}).json()["content"]["num-of-ssds"] == 18)
    s = ssd1[0]
    # Telegraf's SSD struct and the exporter's ssds(): types as they parse them
    fields("ssd", s, {"model-name": "str", "fw-version": "str", "ssd-uid": "str", "guid": "str", "sys-name": "str",
                      "serial-number": "str", "ssd-size": "strint", "ssd-space-in-use": "strint",
                      "wr-iops": "strint", "rd-iops": "strint", "wr-bw": "strint", "rd-bw": "strint",
                      "num-bad-sectors": "int", "percent-endurance-remaining": "int", "useful-ssd-space": "strint",
                      "enabled-state": "str", "slot-num": "int", "ssd-id": "list", "brick-id": "list",
                      "ssd-size-in-kb": "int", "diagnostic-health-state": "str", "obj-severity": "str"})
    # x1: 7.5 TB usable is 3/4 of 25 x 400 GB raw
    ok("x1 SSD size: 400 GB raw in KiB", s["ssd-size"] == str(7500000000000 // 3 * 4 // 25 // 1024), s["ssd-size"])
    ok("x1 useful SSD space: usable / 25", s["useful-ssd-space"] == str(7500000000000 // 25 // 1024))
    ok("a new SSD has all its endurance", s["percent-endurance-remaining"] == 100)
    ok("SSD names are WWNs, unique", all(x["name"].startswith("wwn-0x") for x in ssd1 + ssd2)
       and len({x["name"] for x in ssd1 + ssd2}) == 43)
    ok("SSD serials unique", len({x["serial-number"] for x in ssd1 + ssd2}) == 43)
    bbu = lst("bbus", "x1a")[0]
    # Telegraf's BBU struct, the exporter's bbus()
    fields("bbu", bbu, {"serial-number": "str", "guid": "str", "power-feed": "str", "name": "str",
                        "model-name": "str", "power": "int", "avg-daily-temp": "int", "enabled-state": "str",
                        "ups-need-battery-replacement": "strbool", "is-low-battery-no-input": "strbool",
                        "sys-name": "str", "ups-id": "list", "brick-id": "list", "ups-battery-charge-in-percent": "int"})
    sc = one("storage-controllers", "X1-SC2", "x1a")
    fields("storage controller", sc, {"name": "str", "node-id": "list", "brick-id": "list", "serial-number": "str",
                                      "enabled-state": "str", "node-health-state": "str", "sw-version": "str",
                                      "sc-start-timestamp": "int", "local-disk-list": "list", "index-in-brick": "int",
                                      "backend-storage-controller-state": "str", "sys-id": "list"})
    ok("X1-SC2 is healthy and enabled", sc["node-health-state"] == "healthy" and sc["enabled-state"] == "enabled")
    xe = lst("xenvs", "x1a")[0]
    fields("xenv", xe, {"name": "str", "sys-name": "str", "xenv-id": "list", "node-id": "list", "cpu-usage": "num",
                        "xenv-state": "str", "num-of-mdls": "int"})
    ld = lst("local-disks", "x1a")[0]
    fields("local disk", ld, {"name": "str", "local-disk-id": "list", "node-id": "list", "local-disk-uid": "str",
                              "slot-num": "int", "model-name": "str", "enabled-state": "str"})
    parts = ld["local-disk-uid"].split("_")
    ok("local-disk-uid splits as XtremIO.Utils reads it (WWN at [1], serial at [3])",
       len(parts) == 4 and parts[1].strip("][").startswith("5000c5") and parts[3].strip("][") == ld["serial-number"],
       ld["local-disk-uid"])
    for kind in ("dae-controllers", "dae-psus"):
        o = lst(kind, "x2a")[0]
        fields(kind, o, {"name": "str", "sys-name": "str", "guid": "str", "jbod-id": "list", "enabled-state": "str",
                         "serial-number": "str"})
    t = lst("targets", "x1a")[0]
    ok("a target names its brick and controller", t["brick-id"][1] == "X1" and t["node-id"][1] == "X1-SC1"
       and t["name"] == "X1-SC1-iscsi1", t)
    # the exporter's list collectors read links[0].href and each entry's name/sys-name/href
    r = S.get(V3 + "dae-psus").json()
    ok("v3 lists: links and sys-name on entries", r["links"][0]["href"].endswith("/dae-psus/")
       and all({"href", "name", "sys-name"} <= set(x) for x in r["dae-psus"]), r)
    ad = S.get(V3 + "alert-definitions").json()
    ok("alert-definitions listed with name and href", len(ad["alert-definitions"]) == 5
       and all("href" in a and "name" in a for a in ad["alert-definitions"]), ad)
    return ssd1


def hardware_faults(ssd1):
    bad = [({"component": "disk", "name": "1", "state": "failed"}, 400, "component: want"),
           ({"component": "ssd", "name": "1", "state": "broken"}, 400, "state: want"),
           ({"component": "ssd", "state": "failed"}, 400, "name: want"),
           ({"component": "ssd", "name": "1", "state": "failed", "colour": "red"}, 400, "colour: unknown field"),
           ({"component": "ssd", "name": "26", "state": "failed", "cluster": "x1a"}, 404, "obj_not_found"),
           ({"component": "ssd", "name": "1", "state": "failed", "cluster": "nope"}, 404, "obj_not_found"),
           ({"component": "storage-controller", "name": "X1-SC3", "state": "failed"}, 404, "obj_not_found")]
    for body, status, msg in bad:
        r = S.put(H, json=body)
        ok("hardware PUT %s: %d %s" % (body, status, msg), r.status_code == status and msg in r.json()["message"]
           and r.json()["error_code"] == status, r.text)
    r = S.put(H, data=b"{nope")
    ok("hardware PUT not JSON: 400", r.status_code == 400, r.text)
    ok("nothing failed by the refused requests", S.get(H).json() == {"failed": []})
    before = last_event_id()
    victim = ssd1[2]
    r = S.put(H, json={"component": "ssd", "name": victim["name"], "state": "failed", "cluster": "x1a"})
    ok("fail SSD 3 of x1a by its name", r.status_code == 200 and r.json()["failed"] == [
        {"cluster": "x1a", "component": "ssd", "name": victim["name"], "number": 3}], r.text)
    s = S.get(V3 + "ssds/%d" % victim["index"]).json()["content"]
    ok("the SSD shows failed", s["enabled-state"] == "disabled" and s["diagnostic-health-state"] == "failed"
       and s["ssd-failure-reason"] == "lunlab_fault" and s["ssd-space-in-use"] == "0", s)
    ok("the other SSDs stay healthy", all(x["diagnostic-health-state"] == "healthy"
                                          for x in lst("ssds", "x1a") if x["index"] != victim["index"]))
    ok("the brick's slot says failed", one("bricks", "X1", "x1a")["ssd-slot-array"][2][1] == "failed")
    a = alerts("ssd_failed", victim["name"], "outstanding")
    ok("an ssd_failed alert, outstanding", len(a) == 1 and a[0]["severity"] == "major" and a[0]["class-name"] == "SSD"
       and a[0]["assoc-obj-index"] == victim["index"] and a[0]["sys-name"] == "x1a", a)
    if a:
        fields("alert", a[0], {"alert-code": "str", "alert-type": "str", "assoc-obj-id": "list",
                               "assoc-obj-index": "int", "assoc-obj-name": "str", "class-name": "str",
                               "description": "str", "guid": "str", "index": "int", "name": "str",
                               "raise-time": "int", "severity": "str", "alert-state": "str", "sys-id": "list"})
    ev = events_since(before)
    ok("an SSD event", any(e["entity"] == "SSD" and e["entity_details"] == victim["name"] and e["severity"] == "major"
                           for e in ev), ev)
    r = S.put(H, json={"component": "ssd", "name": 3, "state": "healthy", "cluster": "x1a"})
    ok("restore it by its number", r.status_code == 200 and r.json() == {"failed": []}, r.text)
    ok("its alert is cleared", len(alerts("ssd_failed", victim["name"], "cleared")) == 1
       and not alerts("ssd_failed", victim["name"], "outstanding"))
    ok("healthy again", S.get(V3 + "ssds/%d" % victim["index"]).json()["content"]["enabled-state"] == "enabled")

    # a storage controller: its targets' portal goes down
    url = "iscsi://%s/%s/0" % (PORTAL, IQN)
    ok("a login before", scsi("login", url)[0] == 0)
    r = S.put(H, json={"component": "storage-controller", "name": "X1-SC1", "state": "failed", "cluster": "x1a"})
    ok("fail X1-SC1", r.status_code == 200, r.text)
    sc = one("storage-controllers", "X1-SC1", "x1a")
    ok("X1-SC1 failed", sc["node-health-state"] == "failed" and sc["enabled-state"] == "disabled", sc)
    ok("its XEnvs are down", all(x["xenv-state"] == "down" for x in lst("xenvs", "x1a") if x["name"].startswith("X1-SC1-")))
    ok("its target is down", lst("targets", "x1a")[0]["port-state"] == "down")
    ok("the portal refuses logins", scsi("login", url)[0] != 0)
    ok("storage_controller_failed outstanding, critical",
       [a["severity"] for a in alerts("storage_controller_failed", "X1-SC1", "outstanding")] == ["critical"])
    ok("target_port_down outstanding", len(alerts("target_port_down", "X1-SC1-iscsi1", "outstanding")) == 1)
    r = S.put(H, json={"component": "storage-controller", "name": "1", "state": "healthy", "cluster": "x1a"})
    ok("restore X1-SC1", r.status_code == 200, r.text)
    ok("the portal takes logins again", scsi("login", url)[0] == 0)
    ok("both alerts cleared", not alerts("storage_controller_failed", "X1-SC1", "outstanding")
       and not alerts("target_port_down", "X1-SC1-iscsi1", "outstanding")
       and alerts("target_port_down", "X1-SC1-iscsi1", "cleared"))


def scsi_side():
    before = last_event_id()
    # a portal down and up through the lunlab namespace
    ok("portal 1 down", S.put(BASE + "/api/lunlab/portals/1", json={"state": "down"}).status_code == 200)
    ok("portal 1 up", S.put(BASE + "/api/lunlab/portals/1", json={"state": "up"}).status_code == 200)
    ev = [e for e in events_since(before) if e["entity"] == "Target"]
    ok("portal down and up are events, oldest last", [(e["event_code"], e["severity"]) for e in ev]
       == [("LL0302", "information"), ("LL0301", "major")], ev)
    # a fault rule's first hit
    r = S.post(BASE + "/api/lunlab/faults", json={"spec": "lun=0,op=read,sense=03/11/00"})
    ok("a fault rule", r.status_code == 201, r.text)
    rid = r.json().get("id")
    scsi("verify", "iscsi://%s/%s/0" % (PORTAL, IQN), "0", "1", "0")
    scsi("verify", "iscsi://%s/%s/0" % (PORTAL, IQN), "0", "1", "0")
    S.delete(BASE + "/api/lunlab/faults/%s" % rid)
    ev = [e for e in events_since(before) if e["event_code"] == "LL0401"]
    ok("its first hit is one event", len(ev) == 1 and "fault rule %s fired" % rid in ev[0]["description"], ev)

    # space: a volume of x2a (4 MiB usable, soft threshold 50%) filled by writes
    r = S.post(V3 + "volumes", json={"vol-name": "fill", "vol-size": "64m", "cluster-id": "x2a"})
    ok("a volume in x2a", r.status_code == 201, r.text)
    S.post(V3 + "initiator-groups", json={"ig-name": "inv", "cluster-id": "x2a"})
    S.post(V3 + "initiators", json={"ig-id": "inv", "port-address": INI, "initiator-name": "inv1", "cluster-id": "x2a"})
    r = S.post(V3 + "lun-maps", json={"vol-id": "fill", "ig-id": "inv", "lun": 5, "cluster-id": "x2a"})
    ok("mapped at LUN 5", r.status_code == 201, r.text)
    url5 = "iscsi://%s/%s/5" % (PORTAL, IQN)
    # the soft threshold: x2a has none (a real crossing's unit attention
    # comes back on the write that crossed, and the write is not done, so
    # its timing is the array's): a fault rule answers 06/38/07 once
    r = S.post(BASE + "/api/lunlab/faults", json={"spec": "lun=5,op=tur,count=1,sense=soft-threshold"})
    ok("a soft-threshold rule", r.status_code == 201, r.text)
    scsi("tur", url5)
    S.delete(BASE + "/api/lunlab/faults/%s" % r.json().get("id"))
    ev = [e for e in events_since(before) if e["event_code"] == "LL0201"]
    ok("06/38/07 sent is an event naming the volume and cluster", len(ev) == 1
       and ev[0]["entity"] == "Volume" and ev[0]["entity_details"] == "fill" and "x2a" in ev[0]["description"], ev)
    ok("cluster_soft_threshold_reached raised on x2a, cleared at once (x2a has no threshold to be over)",
       [a["alert-state"] for a in alerts("cluster_soft_threshold_reached", "x2a")] == ["cleared"])
    # space, for real: 3.75 MiB that does not compress, then 1 MiB more than is left
    q = BASE + "/api/json/v3/queries/performance"
    S.get(q, params={"entity": "Volume"})                   # a reading before the writes
    rc, _, err = scsi("fill", url5, "0", "7680", "11")
    ok("3.75 MiB of incompressible blocks written", rc == 0, err)
    time.sleep(1.1)   # the query takes a reading at most once a second
    performance_query(q)
    rc, _, err = scsi("fill", url5, "8192", "2048", "12")
    ok("1 MiB more is refused with 07/27/07", rc != 0 and "7/27/07" in err, err)
    ev = [e for e in events_since(before) if e["event_code"] == "LL0202"]
    ok("out of space is a critical event naming the volume", len(ev) == 1 and ev[0]["severity"] == "critical"
       and ev[0]["entity_details"] == "fill", ev)
    ok("cluster_out_of_space outstanding (use above 90%)",
       len(alerts("cluster_out_of_space", "x2a", "outstanding")) == 1)
    S.delete(V3 + "lun-maps", params={"name": "%s_%s_1" % (S.get(V3 + "volumes", params={"name": "fill"}).json()[
        "content"]["index"], S.get(V3 + "initiator-groups", params={"name": "inv"}).json()["content"]["index"])})
    r = S.delete(V3 + "volumes", params={"name": "fill", "cluster-name": "x2a"})
    ok("the volume deleted", r.status_code == 200, r.text)
    ok("the out-of-space alert cleared once the space is free",
       not alerts("cluster_out_of_space", "x2a", "outstanding")
       and len(alerts("cluster_out_of_space", "x2a", "cleared")) == 1,
       (S.get(V3 + "clusters", params={"name": "x2a"}).json()["content"]["ud-ssd-space-in-use"], lst("alerts")))


def performance_query(q):
    """the performance query over the history (xms_perf_history.h): the
    writes just made are in the last row of the volume and of its cluster,
    with equal rates (the cluster holds only that volume); bad parameters
    named"""
    v = S.get(q, params={"entity": "Volume", "obj-list": "fill", "time-frame": "last_hour"}).json()
    m = v.get("members", [])
    ok("members name the row", m[:4] == ["timestamp", "guid", "name", "index"] and "avg__wr_bw" in m, m)
    rows = v.get("counters", [])
    ok("rows of fill only", rows and all(r[2] == "fill" for r in rows), rows)
    last = rows[-1] if rows else [0] * len(m)
    # (one WRITE of 3.75 MiB in about a second: its IOPS round down to 0)
    ok("the last row: written KiB/s and a write latency, no reads", last[m.index("avg__wr_bw")] > 0
       and last[m.index("avg__wr_latency")] > 0 and last[m.index("avg__rd_bw")] == 0, dict(zip(m, last)))
    c = S.get(q, params={"entity": "Cluster", "obj-list": "x2a"}).json()["counters"]
    ok("the cluster's row at that time has the same rates",
       any(r[0] == last[0] and r[4:] == last[4:] for r in c), (c[-2:], last))
    g = S.get(q, params={"entity": "Volume", "obj-list": "fill", "granularity": "one_day"}).json()
    # (two when the readings straddle midnight UTC)
    ok("one_day: one row per day bucket", 1 <= len(g["counters"]) <= 2 and g["granularity"] == "one_day", g)
    r = S.get(BASE + "/api/json/v3/types/performance/", params={"limit": 50, "entity": "Cluster",
                                                                "time-frame": "last_hour"})
    ok("XtremIO.Utils' form (types/performance/?limit=&entity=&time-frame=)", r.status_code == 200 and
       {x[2] for x in r.json()["counters"]} <= {"x1a", "x2a"}, r.text[:300])
    for params, want in (({"entity": "Brick"}, "entity: want"), ({"granularity": "fortnight"}, "granularity: want"),
                         ({"time-frame": "soon"}, "time-frame: want"), ({"from-time": "yesterday"}, "from-time: want"),
                         ({"to-time": "2026-13-01 00:00:00"}, "to-time: want"), ({"limit": "0"}, "limit: want")):
        r = S.get(q, params=params)
        ok("performance %s: 400 %s" % (params, want), r.status_code == 400 and want in r.json()["message"], r.text)


def main():
    ssd1 = inventory()
    hardware_faults(ssd1)
    scsi_side()
    finish("inventory")


if __name__ == "__main__":
    main()
