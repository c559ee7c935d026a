#!/usr/bin/python3
"""Clusters as scopes (docs/api.md "Clusters"): a target with two clusters,
x1a (model x1) and x2a (model x2), started by run.sh.  Each cluster reports
its profile before its first volume; volume, group and initiator names and
initiator IQNs are unique per cluster, not per target; cluster-name= (query)
and cluster-id (body, a name or an index) scope lists, ?name= lookups,
references in bodies, PUT and DELETE; an unknown cluster is obj_not_found.
"""
import os
import subprocess
import time

from replay_lib import BASE, USER, PASSWORD, ok, finish, session

s = session()
s.auth = (USER, PASSWORD)
V2 = BASE + "/api/json/v2/types/"
NOT_FOUND = {"message": "obj_not_found", "error_code": 400}


def get(path, **params):
    return s.get(V2 + path, params=params)


def post(path, body, **params):
    return s.post(V2 + path, json=body, params=params)


def main():
    r = get("clusters", full=1)
    prof = {c["name"]: (c["lunlab-profile"], c["num-of-ssds"]) for c in r.json()["clusters"]}
    ok("each cluster's profile and SSDs before its first volume", prof == {"x1a": ("x1", 25), "x2a": ("x2", 18)},
       prof)
    idx = {c["name"]: c["index"] for c in r.json()["clusters"]}
    ok("one volume name in two clusters",
       post("volumes", {"vol-name": "v", "vol-size": "1m", "cluster-id": "x1a"}).status_code == 201 and
       post("volumes", {"vol-name": "v", "vol-size": "2m", "cluster-id": idx["x2a"]}).status_code == 201)
    r = post("volumes", {"vol-name": "v", "vol-size": "1m"}, **{"cluster-name": "x1a"})
    ok("the same name again in x1a: vol_obj_name_not_unique",
       r.json() == {"message": "vol_obj_name_not_unique", "error_code": 400}, r.text)
    for cl, size in (("x1a", "1024"), ("x2a", "2048")):
        r = get("volumes", name="v", **{"cluster-name": cl})
        c = r.json().get("content", {})
        ok("?name=v&cluster-name=%s is %s's" % (cl, cl), c.get("sys-name") == cl and c.get("vol-size") == size, r.text)
        r = get("volumes", full=1, prop="name", **{"cluster-name": cl})
        ok("the list of %s holds only its volume" % cl, r.json()["volumes"] == [{"name": "v"}], r.text)
    r = get("volumes", full=1, prop="name")
    ok("without cluster-name: both", [v["name"] for v in r.json()["volumes"]] == ["v", "v"], r.text)
    r = get("volumes", name="v", **{"cluster-name": "nosuch"})
    ok("an unknown cluster: obj_not_found", r.json() == NOT_FOUND, r.text)
    # groups, initiators: names and IQNs per cluster
    iqn = "iqn.2026-12.org.example:both"
    for cl in ("x1a", "x2a"):
        ok("a group h in " + cl, post("initiator-groups", {"ig-name": "h", "cluster-id": cl}).status_code == 201)
        r = post("initiators", {"initiator-name": "h-i", "ig-id": "h", "port-address": iqn, "cluster-id": cl})
        ok("one IQN in " + cl, r.status_code == 201, r.text)
    r = post("initiators", {"initiator-name": "h-j", "ig-id": "h", "port-address": iqn.upper(), "cluster-id": "x1a"})
    ok("the IQN again in x1a: initiator_already_exists",
       r.json() == {"message": "initiator_already_exists", "error_code": 400}, r.text)
    # a map names the volume and group of its cluster
    r = post("lun-maps", {"vol-id": "v", "ig-id": "h", "cluster-id": "x2a"})
    ok("a lun-map in x2a", r.status_code == 201, r.text)
    r = get("lun-maps", full=1, **{"cluster-name": "x2a"})
    maps = r.json()["lun-maps"]
    ok("it maps x2a's v to x2a's h", len(maps) == 1 and maps[0]["vol-name"] == "v" and
       maps[0]["sys-name"] == "x2a", r.text)
    ok("x1a has no map", get("lun-maps", full=1, **{"cluster-name": "x1a"}).json()["lun-maps"] == [])
    r = get("volumes", name="v", **{"cluster-name": "x1a"})
    ok("x1a's v is not mapped", r.json()["content"]["num-of-lun-mappings"] == 0, r.text)
    # renames are checked within the object's cluster
    ok("w in x1a", post("volumes", {"vol-name": "w", "vol-size": "1m", "cluster-id": "x1a"}).status_code == 201)
    r = s.put(V2 + "volumes", params={"name": "w", "cluster-name": "x1a"}, json={"vol-name": "v"})
    ok("renaming x1a's w to v (taken in x1a): refused",
       r.json() == {"message": "vol_obj_name_not_unique", "error_code": 400}, r.text)
    ok("x2a's w does not exist", get("volumes", name="w", **{"cluster-name": "x2a"}).json() == NOT_FOUND)
    r = s.put(V2 + "volumes", params={"name": "v", "cluster-name": "x2a"}, json={"vol-name": "w"})
    ok("renaming x2a's v to w (taken only in x1a)", r.status_code == 200, r.text)
    # DELETE by name removes the one of the named cluster
    s.delete(V2 + "lun-maps", params={"name": maps[0]["name"], "cluster-name": "x2a"})
    r = s.delete(V2 + "volumes", params={"name": "w", "cluster-name": "x2a"})
    ok("DELETE ?name=w&cluster-name=x2a", r.status_code == 200, r.text)
    r = get("volumes", full=1, prop=["name", "sys-name"])
    ok("x1a's v and w remain", sorted((v["sys-name"], v["name"]) for v in r.json()["volumes"]) ==
       [("x1a", "v"), ("x1a", "w")], r.text)
    # the one target and its portals serve every cluster
    for cl in ("x1a", "x2a"):
        r = get("iscsi-portals", full=1, **{"cluster-name": cl})
        ps = r.json()["iscsi-portals"]
        ok("%s lists the target's portals as its own" % cl, len(ps) >= 1 and all(p["sys-name"] == cl for p in ps),
           r.text)
    identity()
    finish("clusters")


def identity():
    """the identity fields the exporters and REX-Ray read"""
    r = get("clusters", full=1)
    for c in r.json()["clusters"]:
        ok("%s hardware-platform" % c["name"], c["hardware-platform"] == {"x1a": "X1", "x2a": "X2"}[c["name"]], c)
        ok("%s num-of-ssds from its profile" % c["name"], c["num-of-ssds"] == {"x1a": 25, "x2a": 18}[c["name"]], c)
        ok("%s license-id from its serial" % c["name"], c["license-id"] == "LL-" + c["sys-psnt-serial-number"], c)
        free = c["free-ud-ssd-space-in-percent"]
        cap, used = int(c["ud-ssd-space"]), int(c["ud-ssd-space-in-use"])
        ok("%s free-ud-ssd-space-in-percent = floor((capacity - used) * 100 / capacity)" % c["name"],
           isinstance(free, int) and cap > 0 and free == (cap - used) * 100 // cap, (free, cap, used))
    # naa-name is what INQUIRY VPD 83h reports for the LU
    iqn = "iqn.2026-12.org.example:naa"
    post("initiator-groups", {"ig-name": "naa-h", "cluster-id": "x1a"})
    post("initiators", {"ig-id": "naa-h", "port-address": iqn, "cluster-id": "x1a"})
    r = post("lun-maps", {"vol-id": "v", "ig-id": "naa-h", "lun": 3, "cluster-id": "x1a"})
    ok("map x1a's v at LUN 3", r.status_code == 201, r.text)
    naa = get("volumes", name="v", **{"cluster-name": "x1a"}).json()["content"]["naa-name"]
    p = subprocess.run([os.environ["API_SCSI"], "-i", iqn, "naa", "iscsi://%s/%s/3" % (os.environ["LUNLAB_PORTAL"],
                                                                                         os.environ["LUNLAB_IQN"])],
                       capture_output=True, text=True, timeout=60)
    ok("naa-name (%s) is the LU's VPD 83h NAA designator" % naa,
       p.returncode == 0 and p.stdout.strip() == naa and len(naa) == 32 and naa[0] == "6", (p.stdout, p.stderr))
    performance(iqn)


def scsi(iqn, *args):
    url = "iscsi://%s/%s/3" % (os.environ["LUNLAB_PORTAL"], os.environ["LUNLAB_IQN"])
    return subprocess.run([os.environ["API_SCSI"], "-i", iqn, args[0], url] + list(args[1:]), capture_output=True,
                          text=True, timeout=60).returncode


PERF = ("acc-num-of-rd", "acc-num-of-wr", "acc-size-of-rd", "acc-size-of-wr", "rd-iops", "wr-iops", "iops",
        "rd-bw", "wr-bw", "bw", "rd-latency", "wr-latency", "avg-latency")


def performance(iqn):
    """XMS's performance figures are the /metrics counters of the volume's LU"""
    # 2 WRITE(16) of 8 blocks and 3 READ(16) of 4 blocks, 512-byte blocks, on x1a's v
    ok("I/O to x1a's v", scsi(iqn, "write", "0", "8", "5") == 0 and scsi(iqn, "write", "8", "8", "6") == 0 and
       all(scsi(iqn, "verify", "0", "4", "5") == 0 for _ in range(3)))
    vol = get("volumes", name="v", **{"cluster-name": "x1a"}).json()["content"]
    want = {"acc-num-of-wr": "2", "acc-num-of-rd": "3", "acc-size-of-wr": "8", "acc-size-of-rd": "6"}
    ok("the volume's cumulative counters", {k: vol.get(k) for k in want} == want, {k: vol.get(k) for k in want})
    ok("every figure a decimal string", all(isinstance(vol.get(k), str) and vol[k].isdigit() for k in PERF),
       {k: vol.get(k) for k in PERF})
    text = s.get(BASE + "/metrics").text
    prom = {}
    for line in text.splitlines():
        if line.startswith("lunlab_commands_total{") and 'volume="%s"' % vol["guid"] in line:
            kind = line.split('kind="')[1].split('"')[0]
            prom[kind] = int(line.split()[-1])
    ok("the same counts /metrics serves for its LU", prom.get("write") == 2 and prom.get("read") == 3, prom)
    cl = get("clusters", name="x1a").json()["content"]
    ok("x1a: the sum of its volumes", (cl["acc-num-of-wr"], cl["acc-num-of-rd"]) == ("2", "3"), cl)
    cl2 = get("clusters", name="x2a").json()["content"]
    ok("x2a: none of x1a's", (cl2["acc-num-of-wr"], cl2["acc-num-of-rd"]) == ("0", "0"), cl2)
    xms = get("xms/1").json()["content"]
    ok("xms: every volume", (xms["acc-num-of-wr"], xms["acc-num-of-rd"]) == ("2", "3"), xms)
    # a rate: 4 reads between two readings at least 1 s apart (XMS_PERF_MIN_INTERVAL_MS);
    # each sleep makes sure the next GET's reading is kept (not a bound on anything measured)
    time.sleep(1.2)
    get("volumes", name="v", **{"cluster-name": "x1a"})
    ok("4 more reads", all(scsi(iqn, "verify", "0", "4", "5") == 0 for _ in range(4)))
    time.sleep(1.2)
    vol = get("volumes", name="v", **{"cluster-name": "x1a"}).json()["content"]
    ok("rd-iops over the interval: at most 4 per second, no writes",
       int(vol["rd-iops"]) <= 4 and vol["wr-iops"] == "0" and vol["wr-latency"] == "0", vol)


main()
