#!/usr/bin/python3
"""Performance of initiators, initiator groups and targets (target/api/xms_perf.h,
target/iscsi/path_stats.h) against a fresh target: after a known I/O, an
initiator group's acc-num-of-rd/-wr and acc-size-of-rd/-wr are exactly what
its initiators sent (another initiator's I/O not counted), a target's are
what came through its portal, the rate fields are there with XMS's types
(decimal strings), /metrics serves the same counters per initiator and per
portal, and the performance query answers entity=InitiatorGroup,
entity=Target and entity=Initiator (an initiator's rows add up to exactly
what it sent, in every form XtremIO.Utils' Get-XIOPerformanceCounter sends).  Environment as xms_api.py (a fresh target, one --lun LU at
LUN 0 for every initiator).
"""
import os
import re
import subprocess
import time

from replay_lib import BASE, AUTH, ok, req, created, expect_err, fields, finish, session

PORTAL = os.environ["LUNLAB_PORTAL"]
IQN = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]
A = "iqn.2026-12.org.example:perf-a"
B = "iqn.2026-12.org.example:perf-b"
RATES = {k: "strint" for k in ("rd-iops", "wr-iops", "iops", "rd-bw", "wr-bw", "bw", "rd-latency",
                               "wr-latency", "avg-latency", "acc-num-of-rd", "acc-num-of-wr",
                               "acc-size-of-rd", "acc-size-of-wr")}


def scsi(ini, *args):
    p = subprocess.run([API_SCSI, "-i", ini] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode


def url(lun):
    return "iscsi://%s/%s/%d" % (PORTAL, IQN, lun)


def acc(o):
    return tuple(o.get(k) for k in ("acc-num-of-rd", "acc-size-of-rd", "acc-num-of-wr", "acc-size-of-wr"))


def metric(text, family, label, value, kind):
    m = re.search(r'^%s\{%s="%s",kind="%s"\} (\S+)$' % (family, label, re.escape(value), kind), text, re.M)
    return float(m.group(1)) if m else None


def main():
    created(req("POST", "volumes", json={"vol-name": "pv", "vol-size": "16m"}))
    created(req("POST", "initiator-groups", json={"ig-name": "g1"}))
    created(req("POST", "initiators", json={"initiator-name": "a", "ig-id": "g1", "port-address": A}))
    created(req("POST", "lun-maps", json={"vol-id": "pv", "ig-id": "g1", "lun": 1}))
    created(req("POST", "initiator-groups", json={"ig-name": "g2"}))
    created(req("POST", "initiators", json={"initiator-name": "b", "ig-id": "g2", "port-address": B}))
    i = req("GET", "initiators", params={"name": "a"}).json()["content"]
    ok("before any I/O: initiator a's counters are 0", acc(i) == ("0", "0", "0", "0"), acc(i))
    fields("initiator a", i, RATES)
    g = req("GET", "initiator-groups", params={"name": "g1"}).json()["content"]
    ok("before any I/O: g1's counters are 0", acc(g) == ("0", "0", "0", "0"), acc(g))
    fields("initiator group g1", g, RATES)
    # a reading of the initiators' history before the I/O (the query reads the counters at
    # most once a second: a second after the initiators were made, a reading is taken or one
    # was taken since; not a timing check)
    time.sleep(1.1)
    pq = lambda v=3, form="queries", **p: session().get(
        BASE + "/api/json/v%d/%s/performance" % (v, form), auth=AUTH, params=p)
    r = pq(entity="Initiator", **{"obj-list": "a"}).json()
    ok("entity=Initiator before any I/O: a's rows count nothing",
       r.get("entity") == "Initiator" and all(sum(row[-4:]) == 0 for row in r["counters"]), r)

    # the known I/O: A writes 16 blocks (one WRITE(16), 8 KiB) at LUN 1 and reads them back
    # (one READ(16)); B, in no group, writes 32 blocks (16 KiB) at LUN 0
    ok("A writes LUN 1", scsi(A, "write", url(1), "0", "16", "5") == 0)
    ok("A reads LUN 1 back", scsi(A, "verify", url(1), "0", "16", "5") == 0)
    ok("B writes LUN 0", scsi(B, "write", url(0), "0", "32", "6") == 0)

    g = req("GET", "initiator-groups", params={"name": "g1"}).json()["content"]
    ok("g1: 1 read of 8 KiB, 1 write of 8 KiB (A's; B's not)", acc(g) == ("1", "8", "1", "8"), acc(g))
    ia = req("GET", "initiators", params={"name": "a"}).json()["content"]
    ok("initiator a: 1 read of 8 KiB, 1 write of 8 KiB", acc(ia) == ("1", "8", "1", "8"), acc(ia))
    full = {x["name"]: x for x in req("GET", "initiators", v=3, params={"full": 1}).json()["initiators"]}
    ok("initiator b (listed, v3): B's LUN 0 write, 1 of 16 KiB, no reads",
       acc(full.get("b", {})) == ("0", "0", "1", "16"), full.get("b"))
    fields("initiator b", full.get("b", {}), RATES)
    t = req("GET", "targets", params={"full": 1}).json()["targets"]
    ok("one target (one portal)", len(t) == 1, t)
    ok("its counters: 1 read of 8 KiB, 2 writes of 24 KiB (A's and B's)", acc(t[0]) == ("1", "8", "2", "24"),
       acc(t[0]))
    fields("target " + t[0]["name"], t[0], RATES)

    m = session().get(BASE + "/metrics", auth=AUTH).text
    ok("/metrics: A's writes and reads (the same counters)",
       metric(m, "lunlab_initiator_commands_total", "initiator", A, "write") == 1 and
       metric(m, "lunlab_initiator_commands_total", "initiator", A, "read") == 1 and
       metric(m, "lunlab_initiator_wire_bytes_total", "initiator", A, "write") == 8192,
       [l for l in m.splitlines() if A in l][:6])
    # the initiators' figures are these counters, not a second count: equal, field by field
    for name, iqn in (("a", A), ("b", B)):
        o = req("GET", "initiators", params={"name": name}).json()["content"]
        want = tuple(str(int(v)) for v in (
            metric(m, "lunlab_initiator_commands_total", "initiator", iqn, "read") or 0,
            (metric(m, "lunlab_initiator_wire_bytes_total", "initiator", iqn, "read") or 0) // 1024,
            metric(m, "lunlab_initiator_commands_total", "initiator", iqn, "write") or 0,
            (metric(m, "lunlab_initiator_wire_bytes_total", "initiator", iqn, "write") or 0) // 1024))
        ok("initiator %s = /metrics' lunlab_initiator_* for %s" % (name, iqn), acc(o) == want, (acc(o), want))
    ok("/metrics: the portal's writes, 24 KiB",
       metric(m, "lunlab_portal_commands_total", "portal", PORTAL, "write") == 2 and
       metric(m, "lunlab_portal_wire_bytes_total", "portal", PORTAL, "write") == 24576,
       [l for l in m.splitlines() if "lunlab_portal_" in l and "write" in l])

    # the query: a reading now and one a second later make a row per object
    q = lambda **p: session().get(BASE + "/api/json/v3/queries/performance", auth=AUTH, params=p)
    q(entity="InitiatorGroup")
    time.sleep(1.1)   # the query reads the counters at most once a second (not a timing check)
    r = q(entity="InitiatorGroup", **{"obj-list": "g1"}).json()
    ok("entity=InitiatorGroup: rows of g1", r.get("entity") == "InitiatorGroup" and r["counters"] and
       all(row[2] == "g1" for row in r["counters"]), r)
    r = q(entity="Target").json()
    ok("entity=Target: rows of X1-SC1-iscsi1", r.get("entity") == "Target" and r["counters"] and
       all(row[2] == t[0]["name"] and row[1] == t[0]["guid"] for row in r["counters"]), r)
    # initiators: every row of a, b's not; the lunlab__ counts of a's rows add up to exactly
    # what A sent (1 READ and 1 WRITE of 8 KiB), b's to B's one WRITE of 16 KiB
    def sums(r, name):
        m = r["members"]
        ix = [m.index(k) for k in ("lunlab__rd_ios", "lunlab__wr_ios", "lunlab__rd_bytes", "lunlab__wr_bytes")]
        return tuple(sum(row[i] for row in r["counters"] if row[2] == name) for i in ix)
    ia = req("GET", "initiators", params={"name": "a"}).json()["content"]
    r = pq(entity="Initiator", **{"obj-list": "a"}).json()
    ok("entity=Initiator obj-list=a: a's rows only, its guid and index",
       r.get("entity") == "Initiator" and r["counters"] and
       all(row[1:4] == [ia["guid"], "a", ia["index"]] for row in r["counters"]), r)
    ok("a's rows add up to 1 read and 1 write of 8192 bytes", sums(r, "a") == (1, 1, 8192, 8192), sums(r, "a"))
    m = r["members"]
    ok("a's rows: a value per member, the avg__ rates numbers",
       all(len(row) == len(m) for row in r["counters"]) and
       all(isinstance(row[m.index(k)], int) for row in r["counters"] for k in m if k.startswith("avg__")), r)
    r = pq(entity="Initiator").json()
    ok("entity=Initiator (every initiator): a's and b's rows", sums(r, "a") == (1, 1, 8192, 8192) and
       sums(r, "b") == (0, 1, 0, 16384), (sums(r, "a"), sums(r, "b")))
    # XtremIO.Utils' Get-XIOPerformanceCounter -EntityType Initiator -EntityName b -Start -End
    # -Granularity one_minute: v2, types/performance, limit first, dates as it formats them
    frm = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() - 3600))
    to = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + 60))
    r = pq(v=2, form="types", limit=50, entity="Initiator", granularity="one_minute",
           **{"from-time": frm, "to-time": to, "obj-list": "b"}).json()
    ok("v2 types/performance, one_minute, from-time/to-time: b's rows add up to its write",
       r.get("granularity") == "one_minute" and sums(r, "b") == (0, 1, 0, 16384) and sums(r, "a") == (0, 0, 0, 0),
       r)
    r = pq(entity="initiator", **{"to-time": "2020-01-01 00:00:00"}).json()
    ok("a time range before any reading: no rows (entity compared without case)",
       r.get("entity") == "Initiator" and r["counters"] == [], r)
    r = pq(entity="Initiator", limit=1).json()
    ok("limit=1: one row", len(r["counters"]) == 1, r)
    expect_err("entity=SSD: 400 naming the ones kept", q(entity="SSD"), 400,
               "Command Syntax Error: entity: want Cluster, Volume, InitiatorGroup, Target or Initiator (lunlab "
               "keeps no history of others)")
    expect_err("entity=Initiator, granularity=weekly: 400 naming granularity",
               q(entity="Initiator", granularity="weekly"), 400,
               "Command Syntax Error: granularity: want raw, auto, one_minute, ten_minutes, one_hour or one_day")
    finish("perf")


if __name__ == "__main__":
    main()
