#!/usr/bin/python3
"""Performance of initiators, initiator groups and targets (target/api/xms_perf.h,
target/iscsi/path_stats.h) against a fresh target: after a known I/O, an
initiator group's acc-num-of-rd/-wr and acc-size-of-rd/-wr are exactly what
its initiators sent (another initiator's I/O not counted), a target's are
what came through its portal, the rate fields are there with XMS's types
(decimal strings), /metrics serves the same counters per initiator and per
portal, and the performance query answers entity=InitiatorGroup,
entity=Target and entity=Initiator (an initiator's rows add up to exactly
what it sent, in every form XtremIO.Utils' Get-XIOPerformanceCounter sends), and its
aggregation-type= (min/avg/max against the raw rows), prop=, cluster-name= / cluster-id=
(two clusters: xbrick1 x2, px1 x1), entity=XEnv (the target's CPU, measured) and entity=SSD
(the cluster's I/O over its 18 SSDs).  Environment as xms_api.py (a fresh target, one --lun
LU at LUN 0 for every initiator).
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
    # a group's rows are its initiators' summed at each reading (the sampler sums the groups
    # in one pass over the initiators): g1's add up to a's I/O, g2's to b's
    r = pq(entity="InitiatorGroup").json()
    ok("entity=InitiatorGroup: g1's rows add up to a's I/O, g2's to b's",
       sums(r, "g1") == (1, 1, 8192, 8192) and sums(r, "g2") == (0, 1, 0, 16384), (sums(r, "g1"), sums(r, "g2")))
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
    expect_err("entity=DataProtectionGroup: 400 naming the ones kept", q(entity="DataProtectionGroup"), 400,
               "Command Syntax Error: entity: want Cluster, Volume, InitiatorGroup, Target, Initiator, XEnv or SSD "
               "(lunlab keeps no history of others)")
    aggregations(pq, ia)
    props_and_clusters(pq)
    xenvs_and_ssds(pq)
    expect_err("entity=Initiator, granularity=weekly: 400 naming granularity",
               q(entity="Initiator", granularity="weekly"), 400,
               "Command Syntax Error: granularity: want raw, auto, one_minute, ten_minutes, one_hour or one_day")
    finish("perf")


SINCE = "2020-01-01 00:00:00"
IO = ("iops", "rd_iops", "wr_iops", "bw", "rd_bw", "wr_bw", "avg_latency", "rd_latency", "wr_latency")


def until(r):
    """to-time= at the last row's second: a reading the next query takes (a
    second or more later) stays out, so two queries see the same readings"""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(max(x[0] for x in r["counters"]) // 1000))


def aggregations(pq, ia):
    """aggregation-type= (XtremIO.Utils: one parameter per type): TYPE__counter members in the
    order asked; a raw row is one interval (min = avg = max); an hour's row has the min and max
    of its intervals, which are the raw rows of that hour"""
    time.sleep(1.1)   # one more reading (a query reads at most once a second; not a timing check)
    raw = pq(entity="Initiator", granularity="raw", **{"obj-list": "a", "from-time": SINCE}).json()
    to = until(raw)
    raw = pq(entity="Initiator", granularity="raw", **{"obj-list": "a", "from-time": SINCE, "to-time": to,
                                                     "aggregation-type": ["avg", "max", "min"]}).json()
    m = raw["members"]
    want = ["timestamp", "guid", "name", "index"] + ["%s__%s" % (a, c) for a in ("avg", "max", "min") for c in IO] + \
        ["lunlab__rd_ios", "lunlab__wr_ios", "lunlab__rd_bytes", "lunlab__wr_bytes"]
    ok("aggregation-type=avg,max,min: the members in that order", m == want, m)
    ok("raw: each row one interval, its min, avg and max equal",
       raw["counters"] and all(r[m.index("min__" + c)] == r[m.index("avg__" + c)] == r[m.index("max__" + c)]
                               for r in raw["counters"] for c in IO), raw["counters"][-3:])
    ok("raw rows still add up to a's I/O", sum(r[m.index("lunlab__wr_bytes")] for r in raw["counters"]) == 8192)
    hour = pq(v=2, form="types", entity="Initiator", granularity="one_hour",
              **{"obj-list": "a", "from-time": SINCE, "to-time": to,
                 "aggregation-type": ["max", "MIN", "max"]}).json()
    hm = hour["members"]
    ok("aggregation-type=max,MIN,max: max__ then min__ members, no avg__ (a type given twice counts once)",
       [x for x in hm if "__" in x and not x.startswith("lunlab")] ==
       ["max__" + c for c in IO] + ["min__" + c for c in IO], hm)
    ok("the hours' rows hold the raw rows' intervals, more than one in all",
       sum(len([x for x in raw["counters"] if x[0] // 3600000 == r[0] // 3600000]) for r in hour["counters"]) ==
       len(raw["counters"]) >= 2, (hour["counters"], raw["counters"]))
    for r in hour["counters"]:
        inside = [x for x in raw["counters"] if x[0] // 3600000 == r[0] // 3600000]
        for c in IO:
            vals = [x[m.index("avg__" + c)] for x in inside]
            ok("hour %d %s: max and min of its intervals (%s)" % (r[0] // 3600000, c, vals),
               r[hm.index("max__" + c)] == max(vals) and r[hm.index("min__" + c)] == min(vals),
               (r, vals))
    expect_err("aggregation-type=sum: 400 naming it", pq(entity="Initiator", **{"aggregation-type": "sum"}), 400,
               "Command Syntax Error: aggregation-type: want avg, min or max")


def props_and_clusters(pq):
    """prop= keeps the members named (one a parameter; the four naming a row stay first, as
    MTSXtremIO reads members[0] as the time); cluster-name= / cluster-id= keep one cluster's
    objects (targets are every cluster's)"""
    r = pq(entity="Initiator", prop=["lunlab__wr_bytes", "avg__wr_iops", "no_such_member"],
           **{"obj-list": "a"}).json()
    ok("prop=: the four, then the named members in the answer's order",
       r["members"] == ["timestamp", "guid", "name", "index", "avg__wr_iops", "lunlab__wr_bytes"], r["members"])
    ok("prop=: rows of 6 values adding up to a's 8192 bytes written",
       all(len(x) == 6 for x in r["counters"]) and sum(x[5] for x in r["counters"]) == 8192, r["counters"][-3:])
    created(req("POST", "volumes", json={"vol-name": "pv2", "vol-size": "16m", "cluster-id": "px1"}))
    # two readings of pv2 (a query reads the counters at most once a second; not a timing check)
    time.sleep(1.1)
    pq(entity="Volume")
    time.sleep(1.1)
    names = lambda **p: {x[2] for x in pq(entity="Volume", **p).json()["counters"]}
    ok("cluster-name=xbrick1: pv's rows, not pv2's", names(**{"cluster-name": "xbrick1"}) == {"pv"})
    ok("cluster-name=px1: pv2's rows only", names(**{"cluster-name": "px1"}) == {"pv2"})
    ok("cluster-id=2 (MTSXtremIO's form, an index): pv2's", names(**{"cluster-id": "2"}) == {"pv2"})
    ok("no cluster named: both", names() == {"pv", "pv2"})
    ok("cluster-name= empty: as absent", names(**{"cluster-name": ""}) == {"pv", "pv2"})
    t = pq(entity="Target", **{"cluster-name": "px1"}).json()["counters"]
    ok("entity=Target&cluster-name=px1: the target (every cluster's)", len({x[2] for x in t}) == 1, t)
    expect_err("cluster-name=nope: 400 obj_not_found", pq(entity="Volume", **{"cluster-name": "nope"}), 400,
               "obj_not_found")


def proc_cpu_s(pid):
    with open("/proc/%s/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def xenvs_and_ssds(pq):
    """entity=XEnv (CoprHD's XtremIOMetricsCollector: v2 types/performance?cluster-name=C
    &entity=XEnv&time-frame=last_hour&granularity=ten_minutes, members found by name, the
    controller the name less its last '-' part): the target's CPU time, measured, shared by
    the 4 XEnvs of a brick; entity=SSD: the cluster's I/O over its SSDs"""
    pid = os.environ["LUNLAB_TARGET_PID"]
    r = pq(v=2, form="types", entity="XEnv", granularity="ten_minutes",
           **{"cluster-name": "xbrick1", "time-frame": "last_hour"}).json()
    m = r["members"]
    ok("XEnv: name and avg__cpu_usage members", "name" in m and "avg__cpu_usage" in m, m)
    scs = {x["name"] for x in req("GET", "storage-controllers", params={"cluster-name": "xbrick1"}).json()
           ["storage-controllers"]}
    xn = {x[m.index("name")] for x in r["counters"]}
    ok("XEnv rows: the 4 XEnvs of xbrick1, each on a listed controller",
       xn == {"X1-SC1-E1", "X1-SC1-E2", "X1-SC2-E1", "X1-SC2-E2"} and {n.rsplit("-", 1)[0] for n in xn} <= scs,
       (xn, scs))
    ok("XEnv: avg__cpu_usage numbers", all(isinstance(x[m.index("avg__cpu_usage")], (int, float))
                                          for x in r["counters"]), r["counters"][:2])
    raw = pq(entity="XEnv", granularity="raw", **{"cluster-name": "xbrick1", "from-time": SINCE}).json()
    m = raw["members"]
    total = sum(x[m.index("lunlab__cpu_us")] for x in raw["counters"]) / 1e6
    cpu = proc_cpu_s(pid)
    # every request so far (TLS handshakes included) used the target's CPU between the readings;
    # the 4 shares add up to at most what /proc says it used in all (its ticks round down: +2)
    ok("XEnvs' CPU: measured, above 0 and within the process's own (%.3f s of %.2f s)" % (total, cpu),
       0 < total <= cpu + 2 / os.sysconf("SC_CLK_TCK"), (total, cpu))
    by = {}
    for x in raw["counters"]:
        by.setdefault(x[2], []).append(x)
    good = True
    for rows in by.values():
        for a, b in zip(rows, rows[1:]):
            v = b[m.index("lunlab__cpu_us")] / 10.0 / (b[0] - a[0])
            good = good and b[m.index("avg__cpu_usage")] == int(v * 10 + 0.5) / 10
    ok("avg__cpu_usage = the row's CPU µs over its interval, in percent to a tenth", good and by)
    # SSDs: xbrick1 (x2) has 18; each one's counters are the cluster's over the 18 (rounded down),
    # so its rows add up to the cluster's rows / 18
    ssd = pq(entity="SSD", **{"cluster-name": "xbrick1", "from-time": SINCE}).json()
    to = until(ssd)
    ssd = pq(entity="SSD", **{"cluster-name": "xbrick1", "from-time": SINCE, "to-time": to}).json()
    cl = pq(entity="Cluster", **{"obj-list": "xbrick1", "from-time": SINCE, "to-time": to}).json()
    sm = ssd["members"]
    names = {x[2] for x in ssd["counters"]}
    inv = {x["name"] for x in req("GET", "ssds", params={"cluster-name": "xbrick1"}).json()["ssds"]}
    ok("SSD rows: xbrick1's 18 SSDs, named as the inventory", names == inv and len(inv) == 18, (names, inv))
    for k in ("lunlab__rd_bytes", "lunlab__wr_bytes"):
        whole = sum(x[sm.index(k)] for x in cl["counters"])
        each = {n: sum(x[sm.index(k)] for x in ssd["counters"] if x[2] == n) for n in names}
        ok("%s: each SSD's rows add up to the cluster's %d / 18" % (k, whole),
           whole == 8192 and set(each.values()) == {whole // 18}, each)


if __name__ == "__main__":
    main()
