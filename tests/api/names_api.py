#!/usr/bin/python3
"""Names through the model's name index (target/api/xms_names.c, docs/api.md "Clusters"): a
target with two clusters, x1a and x2a (run.sh).  Every kind the index holds (volumes,
snapshots, snapshot sets, consistency groups, initiator groups, initiators and their IQNs,
lun-maps) is made with the same name in both clusters and found per cluster by ?name=; renames
by PUT free the old name and take the new one within the object's cluster only; deletes free
the name; an initiator moved to a group of the other cluster is found there and must be unique
there; a snapshot and a refresh that renames its set are found by their new names.  After
each kind of change GET /api/lunlab/model-check compares the index with a scan of every object.
A full listing of initiator groups (summed in one pass) shows what each group's own lookup
shows."""
from replay_lib import BASE, USER, PASSWORD, ok, finish, session, lunlab_req

s = session()
s.auth = (USER, PASSWORD)
V2 = BASE + "/api/json/v2/types/"
NOT_FOUND = {"message": "obj_not_found", "error_code": 400}
CLUSTERS = ("x1a", "x2a")


def get(path, **params):
    return s.get(V2 + path, params=params)


def post(path, body, **params):
    return s.post(V2 + path, json=body, params=params)


def put(path, body, **params):
    return s.put(V2 + path, json=body, params=params)


def delete(path, **params):
    return s.delete(V2 + path, params=params)


def made(label, r):
    return ok(label, r.status_code == 201, (r.status_code, r.text))


def err(label, r, message):
    return ok(label, r.json() == {"message": message, "error_code": 400}, (r.status_code, r.text))


def indexed(after):
    r = lunlab_req("GET", "model-check")
    ok("after %s: the name index agrees with a scan" % after, r.status_code == 200, (r.status_code, r.text))


def one(kind, name, cl):
    """the object ?name=NAME&cluster-name=CL answers (None: obj_not_found)"""
    r = get(kind, name=name, **{"cluster-name": cl})
    return r.json().get("content") if r.status_code == 200 else None


def found_in(kind, name, cl):
    c = one(kind, name, cl)
    return c is not None and c.get("name") == name and c.get("sys-name") == cl


def make_both():
    for cl in CLUSTERS:
        made("volume v in " + cl, post("volumes", {"vol-name": "v", "vol-size": "1m", "cluster-id": cl}))
        made("group g in " + cl, post("initiator-groups", {"ig-name": "g", "cluster-id": cl}))
        made("initiator i in " + cl, post("initiators", {"initiator-name": "i", "ig-id": "g", "cluster-id": cl,
                                                          "port-address": "iqn.2026-12.org.example:i"}))
        made("consistency group c in " + cl, post("consistency-groups", {"consistency-group-name": "c",
                                                                         "vol-list": ["v"], "cluster-id": cl}))
        made("map of v to g in " + cl, post("lun-maps", {"vol-id": "v", "ig-id": "g", "cluster-id": cl}))
        made("snapshot set s of v in " + cl, post("snapshots", {"volume-list": ["v"], "snap-suffix": "snap",
                                                                "snapshot-set-name": "s", "cluster-id": cl}))
    indexed("creates")
    for cl in CLUSTERS:
        for kind, name in (("volumes", "v"), ("snapshots", "v.snap"), ("volumes", "v.snap"),
                           ("snapshot-sets", "s"), ("consistency-groups", "c"), ("initiator-groups", "g"),
                           ("initiators", "i")):
            ok("%s ?name=%s&cluster-name=%s is %s's" % (kind, name, cl, cl), found_in(kind, name, cl),
               one(kind, name, cl))
    # a map's name is VOL_IG_TG of its cluster's indexes
    for cl in CLUSTERS:
        v, g = one("volumes", "v", cl), one("initiator-groups", "g", cl)
        name = "%d_%d_1" % (v["index"], g["index"])
        m = one("lun-maps", name, cl)
        ok("lun-map %s found in %s" % (name, cl), m is not None and m["vol-name"] == "v" and m["sys-name"] == cl, m)
        other = [c for c in CLUSTERS if c != cl][0]
        ok("lun-map %s not in %s" % (name, other), one("lun-maps", name, other) is None)
    # without a cluster: the first made (x1a's), as before the index
    r = get("volumes", name="v")
    ok("?name=v without a cluster: x1a's", r.json().get("content", {}).get("sys-name") == "x1a", r.text)
    r = get("initiators", name="i")
    ok("initiators ?name=i without a cluster: x1a's", r.json().get("content", {}).get("sys-name") == "x1a", r.text)


def uniqueness():
    for kind, body, message in (
            ("volumes", {"vol-name": "v", "vol-size": "1m"}, "vol_obj_name_not_unique"),
            ("initiator-groups", {"ig-name": "g"}, "obj_name_not_unique"),
            ("consistency-groups", {"consistency-group-name": "c"}, "obj_name_not_unique")):
        for cl in CLUSTERS:
            err("%s: the name again in %s" % (kind, cl), post(kind, dict(body, **{"cluster-id": cl})), message)
    r = post("initiators", {"initiator-name": "j", "ig-id": "g", "cluster-id": "x2a",
                            "port-address": "IQN.2026-12.ORG.EXAMPLE:I"})
    err("an IQN again in x2a (another case)", r, "initiator_already_exists")
    r = post("snapshots", {"volume-list": ["v"], "snap-suffix": "snap", "cluster-id": "x1a"})
    err("a snapshot name again in x1a", r, "vol_obj_name_not_unique")


def renames():
    r = put("volumes", {"vol-name": "v2"}, name="v", **{"cluster-name": "x1a"})
    ok("PUT: x1a's v renamed v2", r.status_code == 200, r.text)
    indexed("a volume rename")
    ok("x1a: v is gone, v2 found", one("volumes", "v", "x1a") is None and found_in("volumes", "v2", "x1a"))
    ok("x2a: v still found, no v2", found_in("volumes", "v", "x2a") and one("volumes", "v2", "x2a") is None)
    made("x1a: the freed name v again", post("volumes", {"vol-name": "v", "vol-size": "1m", "cluster-id": "x1a"}))
    err("x1a: renaming v to v2 (taken)", put("volumes", {"vol-name": "v2"}, name="v", **{"cluster-name": "x1a"}),
        "vol_obj_name_not_unique")
    ok("x2a: renaming v to v2 (taken in x1a only)",
       put("volumes", {"vol-name": "v2"}, name="v", **{"cluster-name": "x2a"}).status_code == 200)
    ok("x2a: renamed back to v", put("volumes", {"vol-name": "v"}, name="v2", **{"cluster-name": "x2a"}).status_code
       == 200 and found_in("volumes", "v", "x2a") and one("volumes", "v2", "x2a") is None)
    for kind, field in (("initiator-groups", "new-name"), ("consistency-groups", "new-name"),
                        ("snapshot-sets", "new-name"), ("initiators", "new-name")):
        old = {"initiator-groups": "g", "consistency-groups": "c", "snapshot-sets": "s", "initiators": "i"}[kind]
        r = put(kind, {field: old + "-r"}, name=old, **{"cluster-name": "x2a"})
        ok("PUT: x2a's %s %s renamed %s-r" % (kind, old, old), r.status_code == 200, r.text)
        ok("%s: x2a finds %s-r, not %s; x1a still %s" % (kind, old, old, old),
           found_in(kind, old + "-r", "x2a") and one(kind, old, "x2a") is None and found_in(kind, old, "x1a"))
    indexed("renames of every kind")
    made("x2a: the freed group name g again", post("initiator-groups", {"ig-name": "g", "cluster-id": "x2a"}))


def moves():
    """an initiator moved to a group of the other cluster is that cluster's"""
    made("x1a: group h", post("initiator-groups", {"ig-name": "h", "cluster-id": "x1a"}))
    made("x1a: initiator k", post("initiators", {"initiator-name": "k", "ig-id": "h", "cluster-id": "x1a",
                                                  "port-address": "iqn.2026-12.org.example:k"}))
    x2g = one("initiator-groups", "g", "x2a")["index"]
    made("x2a: initiator k too (names are per cluster)",
         post("initiators", {"initiator-name": "k", "ig-id": "g", "cluster-id": "x2a",
                             "port-address": "iqn.2026-12.org.example:k2"}))
    r = put("initiators", {"ig-id": x2g}, name="k", **{"cluster-name": "x1a"})
    err("moving x1a's k into x2a, where k is taken", r, "obj_name_not_unique")
    r = put("initiators", {"ig-id": x2g, "new-name": "k-moved"}, name="k", **{"cluster-name": "x1a"})
    ok("x1a's k moved into x2a's group g as k-moved", r.status_code == 200, r.text)
    indexed("a move between clusters")
    ok("k-moved is x2a's, x1a has no k", found_in("initiators", "k-moved", "x2a") and
       one("initiators", "k", "x1a") is None and one("initiators", "k-moved", "x1a") is None)
    r = post("initiators", {"initiator-name": "k3", "ig-id": "g", "cluster-id": "x2a",
                            "port-address": "iqn.2026-12.org.example:K"})
    err("its IQN moved with it: taken in x2a", r, "initiator_already_exists")
    made("and free in x1a", post("initiators", {"initiator-name": "k3", "ig-id": "h", "cluster-id": "x1a",
                                                 "port-address": "iqn.2026-12.org.example:k"}))


def snapshots_and_refresh():
    made("x2a: a snapshot set t of v", post("snapshots", {"volume-list": ["v"], "snap-suffix": "t",
                                                         "snapshot-set-name": "t", "cluster-id": "x2a"}))
    indexed("a snapshot")
    ok("x2a: v.t and t found", found_in("snapshots", "v.t", "x2a") and found_in("snapshot-sets", "t", "x2a"))
    t = one("snapshot-sets", "t", "x2a")["index"]
    r = post("snapshots", {"from-volume-id": "v", "to-snapshot-set-id": t, "snapshot-set-name": "t-new",
                           "backup-snap-suffix": "bak", "cluster-id": "x2a"})
    ok("x2a: set t refreshed from v, renamed t-new, with a backup", r.status_code == 201, r.text)
    indexed("a refresh")
    ok("x2a: t-new found, t gone; the backup v.t.bak found",
       found_in("snapshot-sets", "t-new", "x2a") and one("snapshot-sets", "t", "x2a") is None and
       found_in("volumes", "v.t.bak", "x2a"))


def deletes():
    r = delete("snapshot-sets", name="s", **{"cluster-name": "x1a"})
    ok("DELETE x1a's snapshot set s (and its snapshot v.snap)", r.status_code == 200, r.text)
    indexed("a snapshot set's delete")
    ok("x1a: s and v.snap gone; x2a's v.snap kept", one("snapshot-sets", "s", "x1a") is None and
       one("volumes", "v.snap", "x1a") is None and found_in("volumes", "v.snap", "x2a"))
    made("x1a: the name v.snap free again", post("volumes", {"vol-name": "v.snap", "vol-size": "1m",
                                                             "cluster-id": "x1a"}))
    ok("DELETE x1a's volume v.snap", delete("volumes", name="v.snap", **{"cluster-name": "x1a"}).status_code == 200)
    ok("DELETE x1a's consistency group c", delete("consistency-groups", name="c", **{"cluster-name": "x1a"})
       .status_code == 200)
    ok("DELETE x1a's initiator k3", delete("initiators", name="k3", **{"cluster-name": "x1a"}).status_code == 200)
    indexed("deletes")
    ok("x1a: c and k3 gone, x2a's c-r kept", one("consistency-groups", "c", "x1a") is None and
       one("initiators", "k3", "x1a") is None and found_in("consistency-groups", "c-r", "x2a"))
    made("x1a: the IQN of k3 free again", post("initiators", {"initiator-name": "k4", "ig-id": "h", "cluster-id": "x1a",
                                                              "port-address": "iqn.2026-12.org.example:k"}))


def group_listing():
    """the full listing (one pass over initiators and maps) shows what each group's own lookup shows"""
    r = get("initiator-groups", full=1, prop=["name", "sys-name", "num-of-initiators", "num-of-vols"])
    listed = {(g["sys-name"], g["name"]): (g["num-of-initiators"], g["num-of-vols"])
              for g in r.json()["initiator-groups"]}
    alone = {}
    for cl, name in listed:
        c = one("initiator-groups", name, cl)
        alone[(cl, name)] = (c["num-of-initiators"], c["num-of-vols"])
    ok("the listing's counts are each group's own", listed == alone and len(listed) >= 4, (listed, alone))
    ok("x1a's g: 1 initiator (i), 1 map; x1a's h: k4 only; x2a's g: k, k-moved",
       listed.get(("x1a", "g")) == (1, 1) and listed.get(("x1a", "h")) == (1, 0) and
       listed.get(("x2a", "g")) == (2, 0), listed)


def main():
    make_both()
    uniqueness()
    renames()
    moves()
    snapshots_and_refresh()
    deletes()
    group_listing()
    finish("names")


main()
