#!/usr/bin/python3
"""lunlab-target's XMS API against a running target: every resource, the
query parameters, XMS's error messages (exact bodies), and what each change
does on the SCSI side, seen by libiscsi initiators (tests/api/api_scsi):
LUN masking per initiator, REPORTED LUNS DATA HAS CHANGED, read-only
snapshots, deletes, discovery CHAP.  Environment as cinder_driver.py.
"""
import os
import re
import subprocess
import sys

import requests

from replay_lib import API, AUTH, ok, req, expect_err, created, finish
PORTAL = os.environ["LUNLAB_PORTAL"]
IQN = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]
A = "iqn.2026-11.org.example:host-a"
B = "iqn.2026-11.org.example:host-b"


def scsi(initiator, *args, env=None):
    p = subprocess.run([API_SCSI, "-i", initiator] + list(args), capture_output=True, text=True, timeout=120,
                       env=env)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def url(lun):
    return "iscsi://%s/%s/%d" % (PORTAL, IQN, lun)


def luns(initiator):
    rc, out, _ = scsi(initiator, "luns", url(0))
    return [int(x) for x in out.split()] if rc == 0 else None


# the rates change whenever a reading is at least a second after the last (xms_perf.h): masked
RATE = re.compile(r'"(rd-iops|wr-iops|iops|rd-bw|wr-bw|bw|rd-latency|wr-latency|avg-latency)": "[0-9]+"')


def same_as_general_path():
    """GET volumes|snapshots (entries, or full=1, with prop= or not) is written as text (target/api/json_text.h);
    the general path (filter=, one object) still builds json-c objects.  Here, with snapshots, LUN maps, a
    consistency group, a read-only set and a tag list with '/' and '"' in it, both send the
    same bytes."""
    r = req("POST", "tags", json={"entity": "Volume", "tag-name": "/Volume/a b/q\"t"})
    ok("a tag with odd characters", r.status_code == 201, r.text)
    ok("v1 tagged with it and /Volume/a b", req("PUT", "volumes", params={"name": "v1"}, json={
        "tag-list": ["/Volume/a b/q\"t", "/Volume/a b"], "vol-access": "read_access"}).status_code == 200)
    for t in ("volumes", "snapshots"):
        for v in (2, 3):
            for full in ({"full": 1}, {}):
                fast = req("GET", t, v=v, params=full)
                general = req("GET", t, v=v, params=dict(full, filter="index:ge:1"))
                ok("%s v%d %s: the same bytes as through filter=" % (t, v, "full=1" if full else "entries"),
                   fast.status_code == 200 and RATE.sub("R", fast.text) == RATE.sub("R", general.text) and
                   len(fast.json()[t]) >= 2, (fast.text[:600], general.text[:600]))
            # full=1&prop=: the members left out as the text is written (json_text.h jt_keep) =
            # the general path's projection of whole objects; a poll's figures, nested lists,
            # the members whose work is spared when left out, one no object has, none at all
            for props in (["name", "rd-iops", "wr-iops", "rd-bw", "wr-bw", "avg-latency"],
                          ["lun-mapping-list", "tag-list", "naa-name", "creation-time", "index", "vol-access",
                           "logical-space-in-use", "unique-physical-space", "sys-name", "no-such-prop"],
                          ["dest-snap-list", "related-consistency-groups"], ["no-such-prop"], ["vol-size"]):
                fast = req("GET", t, v=v, params={"full": 1, "prop": props})
                general = req("GET", t, v=v, params={"full": 1, "prop": props, "filter": "index:ge:1"})
                ok("%s v%d full=1&prop=%s: the same bytes as through filter=" % (t, v, ",".join(props)),
                   fast.status_code == 200 and RATE.sub("R", fast.text) == RATE.sub("R", general.text) and
                   len(fast.json()[t]) >= 2 and all(set(o) <= set(props) for o in fast.json()[t]),
                   (fast.text[:600], general.text[:600]))
    c = req("GET", "volumes", params={"name": "v1"}).json()["content"]
    ok("the tag list and vol-access as set", [t[1] for t in c["tag-list"]] == ["/Volume/a b/q\"t", "/Volume/a b"] and
       c["vol-access"] == "read_access" and list(c).count("vol-access") == 1, c)
    one = [x for x in req("GET", "volumes", params={"full": 1}).json()["volumes"] if x["name"] == "v1"]
    ok("v1 in the list = v1 by name", len(one) == 1 and RATE.sub("R", str(one[0])) == RATE.sub("R", str(c)),
       (one, c))
    ok("the tag list cleared again", req("PUT", "volumes", params={"name": "v1"}, json={
        "tag-list": [], "vol-access": "write_access"}).status_code == 200)


def main():
    r = requests.get("https://%s/api/json/v2/types/volumes" % API, verify=False, timeout=60)
    expect_err("no credentials: 401", r, 401, "Unauthorized")
    ok("401 asks for Basic", r.headers.get("WWW-Authenticate") == 'Basic realm="XMS"', r.headers)

    # ---- volumes
    v1 = created(req("POST", "volumes", json={"vol-name": "v1", "vol-size": "1g"}))
    ok("POST volumes: 201 with a link", v1 is not None)
    expect_err("same name again", req("POST", "volumes", json={"vol-name": "v1", "vol-size": "1g"}), 400,
               "vol_obj_name_not_unique")
    expect_err("a size that is not one", req("POST", "volumes", json={"vol-name": "x", "vol-size": "1q"}), 400,
               "Command Syntax Error: vol-size: '1q': want a size like 10g (k, m, g, t, p; a number alone is KiB), "
               "at most 1p")
    expect_err("a size not of whole blocks", req("POST", "volumes", json={"vol-name": "x", "vol-size": "3k",
                                                                            "lb-size": 4096}), 400,
               "invalid_vol_size: vol-size is not a multiple of the 4096-byte block")
    expect_err("no name", req("POST", "volumes", json={"vol-size": "1g"}), 400,
               "Command Syntax Error: vol-name: want a name of 1..128 printable characters")
    expect_err("bad JSON", req("POST", "volumes", data="{\"vol-name\": "), 400,
               "Command Syntax Error: body: JSON ends early (at byte 12)")
    v2 = created(req("POST", "volumes", v=1, json={"vol-name": "v2", "vol-size": "64m", "lb-size": 4096}))
    ok("POST on the v1 path", v2 == v1 + 1)
    r = req("GET", "volumes")
    names = {x["name"]: x["href"] for x in r.json()["volumes"]}
    ok("GET volumes: names and hrefs", names.get("v1", "").endswith("/api/json/v2/types/volumes/%d" % v1), r.text)
    c = req("GET", "volumes", params={"name": "v2"}).json()["content"]
    ok("GET ?name=: lb-size, size in KiB, vol-id",
       c["lb-size"] == 4096 and c["vol-size"] == "65536" and c["vol-id"][1:] == ["v2", v2], c)
    ok("GET /INDEX = ?name=", req("GET", "volumes/%d" % v2).json()["content"] == c)
    r = req("GET", "volumes", params={"full": 1, "prop": ["name", "vol-size"], "filter": "lb-size:eq:4096"})
    ok("full=1 prop= filter=", r.json()["volumes"] == [{"name": "v2", "vol-size": "65536"}], r.text)
    r = req("GET", "volumes", params={"full": 1, "prop": "name", "filter": ["vol-size:gt:65536", "name:like:v"]})
    ok("two filters: both hold", r.json()["volumes"] == [{"name": "v1"}], r.text)
    r = req("GET", "volumes", params={"full": 1, "prop": "name", "filter": "name:eq:v1,name:eq:v2"})
    ok("alternatives in one filter", sorted(x["name"] for x in r.json()["volumes"]) == ["v1", "v2"], r.text)
    expect_err("unknown name", req("GET", "volumes", params={"name": "nope"}), 400, "obj_not_found")
    expect_err("unknown index", req("GET", "volumes/999"), 400, "obj_not_found")
    expect_err("name and index", req("GET", "volumes/1", params={"name": "v1"}), 400,
               "Command Syntax Error: give the object by name or by index, not both")

    # ---- mapping: IG, initiators, lun-maps, masking
    g1 = created(req("POST", "initiator-groups", json={"ig-name": "hosts-a"}))
    ia = created(req("POST", "initiators", json={"initiator-name": "a", "ig-id": "hosts-a", "port-address": A}))
    ok("IG and initiator made", g1 and ia)
    expect_err("an iSCSI name twice", req("POST", "initiators", json={"initiator-name": "a2", "ig-id": g1,
                                                                       "port-address": A.upper()}), 400,
               "initiator_already_exists")
    expect_err("a bad iSCSI name", req("POST", "initiators", json={"ig-id": g1, "port-address": "host-a"}), 400,
               "Command Syntax Error: port-address: an iSCSI name starts with iqn., eui. or naa.")
    # a session of A that watches LUN 0 while its inventory changes
    w = subprocess.Popen([API_SCSI, "-i", A, "watch", url(0)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    ready = w.stdout.readline().strip()
    m1 = created(req("POST", "lun-maps", json={"vol-id": "v1", "ig-id": "hosts-a"}))
    lm = req("GET", "lun-maps/%d" % m1).json()["content"]
    ok("lun-map: LUN 1 (LUN 0 is the --lun LU), named VOL_IG_TG",
       lm["lun"] == 1 and lm["name"] == "%d_%d_1" % (v1, g1) and lm["vol-name"] == "v1", lm)
    answers = []
    for _ in range(2):
        w.stdin.write("\n")
        w.stdin.flush()
        answers.append(w.stdout.readline().strip())
    w.stdin.close()
    w.wait(timeout=60)
    ok("a mapping raises REPORTED LUNS DATA HAS CHANGED once on A's session",
       ready == "ready" and answers == ["CHECK 6/3f/0e", "GOOD"], answers)
    ok("REPORT LUNS: A sees 0 and 1, B only 0", luns(A) == [0, 1] and luns(B) == [0], (luns(A), luns(B)))
    rc, out, _ = scsi(B, "capacity", url(1))
    ok("B cannot reach LUN 1", rc != 0)
    rc, out, _ = scsi(A, "capacity", url(1))
    ok("A reads v1's capacity at LUN 1", out == "1073741824 512", out)
    expect_err("the same map again", req("POST", "lun-maps", json={"vol-id": v1, "ig-id": g1}), 400,
               "vol_already_mapped")
    expect_err("a LUN taken", req("POST", "lun-maps", json={"vol-id": "v2", "ig-id": g1, "lun": 1}), 400,
               "lun_already_in_use")
    expect_err("LUN 0 belongs to the --lun LU", req("POST", "lun-maps", json={"vol-id": "v2", "ig-id": g1, "lun": 0}),
               400, "lun_already_in_use")
    m2 = created(req("POST", "lun-maps", json={"vol-id": "v2", "ig-id": g1, "lun": 7}))
    ok("a LUN given: 7", req("GET", "lun-maps/%d" % m2).json()["content"]["lun"] == 7 and luns(A) == [0, 1, 7])
    r = req("GET", "lun-maps", params={"full": 1, "filter": ["vol-name:eq:v2", "ig-name:eq:hosts-a"]})
    ok("find a map by vol-name and ig-name", [x["lun"] for x in r.json()["lun-maps"]] == [7], r.text)
    c = req("GET", "volumes", params={"name": "v1"}).json()["content"]
    ok("a volume lists its mappings", c["num-of-lun-mappings"] == 1 and c["lun-mapping-list"][0][0][1] == "hosts-a"
       and c["lun-mapping-list"][0][2] == 1, c["lun-mapping-list"])
    expect_err("a mapped volume is not deleted", req("DELETE", "volumes", params={"name": "v1"}), 400,
               "vol_is_mapped")
    expect_err("an IG with maps is not deleted", req("DELETE", "initiator-groups/%d" % g1), 400,
               "ig_has_lun_mappings")
    rc, out, err_ = scsi(A, "write", url(1), "0", "16", "5")
    ok("A writes v1", rc == 0, err_)

    # ---- grow, rename
    ok("PUT vol-size grows", req("PUT", "volumes/%d" % v1, json={"vol-size": "2g"}).status_code == 200)
    rc, out, _ = scsi(A, "capacity", url(1))
    ok("READ CAPACITY follows", out == "2147483648 512", out)
    expect_err("a volume does not shrink", req("PUT", "volumes/%d" % v1, json={"vol-size": "1g"}), 400,
               "vol_size_decrease_not_supported")
    expect_err("rename onto a taken name", req("PUT", "volumes/%d" % v2, json={"name": "v1"}), 400,
               "vol_obj_name_not_unique")
    ok("rename", req("PUT", "volumes/%d" % v2, json={"vol-name": "v2b"}).status_code == 200 and
       req("GET", "volumes", params={"name": "v2b"}).status_code == 200)

    # ---- snapshots
    r = req("POST", "snapshots", json={"volume-list": ["v1"], "snapshot-set-name": "s1", "snap-suffix": "ro",
                                       "snapshot-type": "readonly"})
    s1 = created(r)
    c = req("GET", "snapshots/%d" % s1).json()["content"]
    ok("a read-only snapshot: v1.ro, ancestor v1, in set s1",
       c["name"] == "v1.ro" and c["snapshot-type"] == "readonly" and c["ancestor-vol-id"][1] == "v1"
       and c["snapset-list"][0][1] == "s1", c)
    ok("/snapshots lists snapshots only", [x["name"] for x in req("GET", "snapshots").json()["snapshots"]] == ["v1.ro"])
    ms = created(req("POST", "lun-maps", json={"vol-id": "v1.ro", "ig-id": "hosts-a"}))
    lun_s = req("GET", "lun-maps/%d" % ms).json()["content"]["lun"]
    rc, out, err_ = scsi(A, "verify", url(lun_s), "0", "16", "5")
    ok("the snapshot holds v1's data", rc == 0, err_)
    rc, out, err_ = scsi(A, "write", url(lun_s), "0", "1", "6")
    ok("a read-only snapshot refuses writes (data protect)", rc == 1 and "sense 7/27/" in err_, err_)
    rc, _, _ = scsi(A, "write", url(1), "0", "16", "8")
    rc2, _, err_ = scsi(A, "verify", url(lun_s), "0", "16", "5")
    ok("v1 changes, the snapshot keeps its moment", rc == 0 and rc2 == 0, err_)
    expect_err("the set's name again", req("POST", "snapshots", json={"volume-list": ["v1"],
                                                                       "snapshot-set-name": "s1"}), 400,
               "obj_name_not_unique")
    expect_err("no source", req("POST", "snapshots", json={"snapshot-set-name": "x"}), 400,
               "Command Syntax Error: give exactly one of volume-list, consistency-group-id, snapshot-set-id, tag-list, "
               "snap-list")
    expect_err("an unknown source", req("POST", "snapshots", json={"volume-list": ["nope"]}), 400,
               "vol_obj_not_found")

    # ---- consistency groups
    cg = created(req("POST", "consistency-groups", json={"consistency-group-name": "cg1", "vol-list": ["v1"]}))
    ok("a consistency group", cg is not None)
    ok("a volume joins it", req("POST", "consistency-group-volumes", json={"vol-id": "v2b", "cg-id": "cg1"})
       .status_code == 201)
    c = req("GET", "consistency-groups", params={"name": "cg1"}).json()["content"]
    ok("it lists both", sorted(x[1] for x in c["vol-list"]) == ["v1", "v2b"], c)
    r = req("POST", "snapshots", json={"consistency-group-id": "cg1", "snapshot-set-name": "cgs"})
    ok("a snapshot of the group: two links", r.status_code == 201 and len(r.json()["links"]) == 2, r.text)
    st = req("GET", "snapshot-sets", params={"name": "cgs"}).json()["content"]
    ok("its set names the group and both snapshots", st["cg-name"] == "cg1" and st["num-of-vols"] == 2, st)
    same_as_general_path()
    ok("a volume leaves the group", req("DELETE", "consistency-group-volumes", params={"name": "cg1"},
                                         json={"vol-id": "v2b", "cg-id": "cg1"}).status_code == 200)
    c = req("GET", "consistency-groups", params={"name": "cg1"}).json()["content"]
    ok("one left", [x[1] for x in c["vol-list"]] == ["v1"], c)
    ok("DELETE snapshot-sets removes its snapshots", req("DELETE", "snapshot-sets", params={"name": "cgs"})
       .status_code == 200 and len(req("GET", "snapshots").json()["snapshots"]) == 1)

    # ---- unmapping and deleting
    ok("unmap the snapshot and v2b", req("DELETE", "lun-maps/%d" % ms).status_code == 200 and
       req("DELETE", "lun-maps", params={"name": "%d_%d_1" % (v2, g1)}).status_code == 200)
    ok("REPORT LUNS: A sees 0 and 1 again", luns(A) == [0, 1], luns(A))
    ok("delete the read-only set", req("DELETE", "snapshot-sets", params={"name": "s1"}).status_code == 200)
    ok("delete v2b", req("DELETE", "volumes", params={"name": "v2b"}).status_code == 200)
    expect_err("gone", req("GET", "volumes", params={"name": "v2b"}), 400, "obj_not_found")

    # ---- discovery CHAP
    ok("chap-discovery-mode initiator",
       req("PUT", "clusters/1", json={"chap-discovery-mode": "initiator"}).status_code == 200)
    ok("initiator A gets discovery credentials",
       req("PUT", "initiators/%d" % ia, json={"initiator-discovery-user-name": "disc_a",
                                              "initiator-discovery-password": "discsecret123"}).status_code == 200)
    env = dict(os.environ)
    env.pop("LIBISCSI_CHAP_PASSWORD", None)
    p = subprocess.run(["iscsi-ls", "-i", A, "iscsi://%s" % PORTAL], capture_output=True, text=True, env=env,
                       timeout=60)
    ok("discovery without CHAP is refused", IQN not in p.stdout, p.stdout + p.stderr)
    p = subprocess.run(["iscsi-ls", "-i", A, "iscsi://disc_a%%discsecret123@%s" % PORTAL], capture_output=True,
                       text=True, timeout=60)
    ok("discovery with the initiator's credentials lists the target", "Target:" + IQN in p.stdout,
       p.stdout + p.stderr)
    p = subprocess.run(["iscsi-ls", "-i", B, "iscsi://%s" % PORTAL], capture_output=True, text=True, timeout=60)
    ok("an initiator without API credentials is not asked", "Target:" + IQN in p.stdout, p.stdout + p.stderr)
    expect_err("a mode that is none", req("PUT", "clusters/1", json={"chap-authentication-mode": "always"}), 400,
               "Command Syntax Error: chap-authentication-mode: want disabled, initiator or mutual")
    expect_err("a short CHAP secret", req("PUT", "initiators/%d" % ia, json={
        "initiator-authentication-user-name": "u", "initiator-authentication-password": "short"}), 400,
        "Command Syntax Error: initiator-authentication-password: 5 characters, want 12..255")
    req("PUT", "clusters/1", json={"chap-discovery-mode": "disabled"})

    # ---- clusters, portals, targets
    c = req("GET", "clusters/1").json()["content"]
    ok("cluster capacity fields", all(k in c for k in ("ud-ssd-space", "ud-ssd-space-in-use", "vol-size",
                                                       "logical-space-in-use", "dedup-ratio", "compression-factor",
                                                       "data-reduction-ratio", "thin-provisioning-ratio",
                                                       "sys-sw-version", "chap-authentication-mode")), c)
    ok("vol-size = v1's 2 GiB (KiB)", c["vol-size"] == str(2 * 1024 * 1024), c["vol-size"])
    rc, out, _ = scsi(A, "logsense", url(1), "0x30")
    ls = {int(l.split()[0], 16): int(l.split()[1]) for l in out.splitlines()}
    ok("ud-ssd-space = LOG SENSE 30h capacity", int(c["ud-ssd-space"]) * 1024 == ls.get(0x30), (c, ls.get(0x30)))
    p = req("GET", "iscsi-portals", params={"full": 1}).json()["iscsi-portals"]
    host, port = PORTAL.rsplit(":", 1)
    ok("iscsi-portals: the --listen portal and the IQN",
       p[0]["ip-addr"] == host + "/32" and p[0]["ip-port"] == int(port) and p[0]["port-address"] == IQN, p)
    t = req("GET", "targets", v=1, params={"full": 1}).json()["targets"]
    ok("targets: iscsi, up", t[0]["port-type"] == "iscsi" and t[0]["port-state"] == "up", t)
    r = requests.get("https://%s/api/json/v2/types" % API, auth=AUTH, verify=False, timeout=60)
    ok("the type list", {"volumes", "snapshots", "lun-maps", "clusters"} <= {x["name"] for x in r.json()["children"]},
       r.text)
    finish("xms")


if __name__ == "__main__":
    sys.exit(main())
