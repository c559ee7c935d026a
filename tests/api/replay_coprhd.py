#!/usr/bin/python3
"""CoprHD's XtremIO v2 client, replayed: the requests of
controllersvc/.../xtremio/restapi/XtremIOV2Client.java and the paths of
XtremIOConstants.java in CoprHD/coprhd-controller (request bodies from
model/request/*: e.g. XtremIOLunMapCreate {"vol-id": NAME, "lun": "5" (a
string), "ig-id": NAME, "cluster-id"}).

Its shapes: v2 paths; "?name=N&cluster-name=C" lookups, "TYPE/INDEX" hrefs
with "?cluster-name=C" appended; POST bodies naming objects by name and
the cluster as "cluster-id"; the xms list under "xmss" (how it tells v2);
tags: getTagNames (GET tags, each entry's name compared with "/Volume/P"),
createTag (POST tags {"entity", "tag-name": "/Volume/P"}; again: refused,
which it logs as "already available"), tagObject (PUT tags?name=T
{"entity", "entity-details": NAME, "cluster-id"}; its failures are
swallowed, so the test reads the tag back), createInitiatorGroup with
"tag-list": ["/InitiatorGroup/" + folder], getTagDetails (GET
tags?name=T&cluster-name=C, num-of-direct-objs parsed with parseInt: a
number Gson turns into a String) and deleteTag (DELETE tags?name=T&cluster-name=C,
once the volumes are gone: cleanupVolumeFoldersIfNeeded); a lun map again answered
with a message holding "vol_already_mapped", which it tolerates.  Its
snapshot refresh and restore (from-/to-volume-id, no-backup) are left out:
api-refresh replays them (xms_refresh.c).
"""
import time

from replay_lib import BASE, USER, PASSWORD, ok, fields, finish, session

S = session()
S.auth = (USER, PASSWORD)
V2 = BASE + "/api/json/v2/types"
C = "xbrick1"
NC = "&cluster-name=" + C


def get(path):
    r = S.get(V2 + path if path.startswith("/") else path)
    ok("GET %s: 200" % path.replace(BASE, ""), r.status_code == 200, (r.status_code, r.text[:200]))
    return r.json() if r.status_code == 200 else {}


def post(path, body, label):
    r = S.post(V2 + path, json=body)
    ok("%s: 201 with links" % label, r.status_code == 201 and r.json()["links"][0]["href"], r.text)
    return r


def main():
    # getXtremIOXMSVersion; v2 told by the "xmss" key
    xmss = get("/xms").get("xmss", [])
    ok("xms list under xmss", len(xmss) == 1, xmss)
    fields("xms", get(xmss[0]["href"])["content"], {"version": "str", "restapi-protocol-version": "str"})
    r = S.get(V2 + "/xms?prop=restapi-protocol-version")
    ok("XTREMIO_XMS_FILTER_STR: ?prop=restapi-protocol-version", r.status_code == 200, r.text)
    # getXtremIOSystemInfo, getClusterDetails by serial
    cl = get("/clusters")["clusters"]
    info = get(cl[0]["href"])["content"]
    fields("cluster", info, {"name": "str", "sys-psnt-serial-number": "str", "sys-sw-version": "str",
                             "ud-ssd-space": "strint", "ud-ssd-space-in-use": "strint", "sys-id": "list"})
    r = get("/clusters?filter=sys-psnt-serial-number:eq:" + info["sys-psnt-serial-number"])
    ok("getClusterDetails: the cluster found by its serial", [c["name"] for c in r["clusters"]] == [C], r)
    # getXtremIOPortInfo
    for t in get("/targets?cluster-name=" + C)["targets"]:
        fields("target", get(t["href"] + "?cluster-name=" + C)["content"], {"name": "str", "port-address": "str",
                                                                             "port-type": "str"})
    # createTagsForVolumeAndSnaps: getTagNames, then createTag for the ones missing
    names = [t["name"] for t in get("/tags")["tags"]]
    ok("getTagNames: none yet", names == [], names)
    for entity, name in (("Volume", "/Volume/coprhd"), ("SnapshotSet", "/SnapshotSet/coprhd"),
                         ("InitiatorGroup", "/InitiatorGroup/coprhd")):
        post("/tags", {"entity": entity, "tag-name": name}, "createTag " + name)
    names = [t["name"] for t in get("/tags")["tags"]]
    ok("getTagNames: the volume tag is found now", "/Volume/coprhd" in names, names)
    r = S.post(V2 + "/tags", json={"entity": "Volume", "tag-name": "/Volume/coprhd"})
    ok("createTag again: refused (logged as already available)", r.status_code == 400, r.text)
    # createInitiatorGroup with its folder tag, createInitiator, getInitiator
    post("/initiator-groups", {"ig-name": "cop-ig", "cluster-id": C, "tag-list": ["/InitiatorGroup/coprhd"]},
         "createInitiatorGroup")
    post("/initiators", {"initiator-name": "cop-i", "ig-id": "cop-ig", "port-address": "iqn.2026-12.org.lunlab:cop",
                         "cluster-id": C, "operating-system": "linux"}, "createInitiator")
    i = get("/initiators?name=cop-i" + NC)["content"]
    fields("initiator", i, {"name": "str", "port-address": "str", "ig-id": "list", "index": "int"})
    ig = get("/initiator-groups?name=cop-ig" + NC)["content"]
    fields("initiator group", ig, {"name": "str", "index": "int", "ig-id": "list"})
    ok("the group carries its folder tag", [t[1] for t in ig.get("tag-list", [])] == ["/InitiatorGroup/coprhd"], ig)
    # createVolume, getVolumeDetails, expandVolume
    post("/volumes", {"vol-name": "cop-v", "vol-size": "1024m", "cluster-id": C}, "createVolume")
    v = get("/volumes?name=cop-v" + NC)["content"]
    fields("volume", v, {"vol-id": "list", "naa-name": "str", "vol-size": "strint", "lun-mapping-list": "list",
                         "name": "str", "index": "int", "sys-id": "list"})
    ok("getVolInfo().get(1), get(2): name and index", v["vol-id"][1] == "cop-v" and v["vol-id"][2] == v["index"])
    r = S.put(V2 + "/volumes?name=cop-v", json={"vol-size": "2048m", "cluster-id": C})
    ok("expandVolume: 200", r.status_code == 200, r.text)
    ok("expanded", get("/volumes?name=cop-v" + NC)["content"]["vol-size"] == str(2 * 1048576))
    # tagObject: the new volume into its project's tag
    r = S.put(V2 + "/tags?name=%2FVolume%2Fcoprhd", json={"entity": "Volume", "entity-details": "cop-v",
                                                           "cluster-id": C})
    ok("tagObject: 200", r.status_code == 200, r.text)
    ok("cop-v's tag-list names /Volume/coprhd",
       [t[1] for t in get("/volumes?name=cop-v" + NC)["content"]["tag-list"]] == ["/Volume/coprhd"])
    tag = get("/tags?name=%2FVolume%2Fcoprhd" + NC)["content"]
    ok("getTagDetails: num-of-direct-objs parses as 1", int(str(tag["num-of-direct-objs"])) == 1, tag)
    # createLunMap (lun as a string), again: vol_already_mapped tolerated
    post("/lun-maps", {"vol-id": "cop-v", "lun": "5", "ig-id": "cop-ig", "cluster-id": C}, "createLunMap")
    r = S.post(V2 + "/lun-maps", json={"vol-id": "cop-v", "lun": "6", "ig-id": "cop-ig", "cluster-id": C})
    ok("createLunMap again: a message holding vol_already_mapped", r.status_code == 400 and
       "vol_already_mapped" in r.json()["message"], r.text)
    # the bulk volume query it uses for exports (XTREMIO_VOLUME_IG_FILTER_FULL_STR; the filter
    # term it appends is built elsewhere: here the volume's id by name)
    r = get("/volumes?full=1&cluster-name=%s&prop=vol-id&prop=lun-mapping-list&prop=naa-name&filter=vol-id:eq:cop-v"
            % C)
    ok("full=1 with prop and filter: vol-id, lun-mapping-list, naa-name only",
       len(r["volumes"]) == 1 and {"vol-id", "lun-mapping-list", "naa-name"} <= set(r["volumes"][0])
       and r["volumes"][0]["lun-mapping-list"][0][2] == 5, r)
    # createVolumeSnapshot (a set named as CoprHD names it), readonly
    r = post("/snapshots", {"cluster-id": C, "volume-list": ["cop-v"], "snapshot-set-name": "cop-ss",
                            "snapshot-type": "readonly"}, "createVolumeSnapshot")
    sn = get(r.json()["links"][0]["href"] + "?cluster-name=" + C)["content"]
    ok("the snapshot is read-only, of cop-v", sn["ancestor-vol-id"][1] == "cop-v" and sn["snapshot-type"] == "readonly",
       sn)
    # (deleted before the group's snapshot: without a snap-suffix both would be named
    # cop-v.snapshot.SECOND, which collides within one second)
    r = S.delete(V2 + "/snapshot-sets?name=cop-ss" + NC)
    ok("deleteSnapshotSet: 200", r.status_code == 200, r.text)
    # consistency groups
    post("/consistency-groups", {"consistency-group-name": "cop-cg", "cluster-id": C}, "createConsistencyGroup")
    post("/consistency-group-volumes", {"cg-id": "cop-cg", "vol-id": "cop-v", "cluster-id": C},
         "addVolumeToConsistencyGroup")
    cg = get("/consistency-groups?name=cop-cg" + NC)["content"]
    ok("getConsistencyGroupDetails: one volume", cg["num-of-vols"] == 1, cg)
    post("/snapshots", {"cluster-id": C, "consistency-group-id": "cop-cg", "snapshot-set-name": "cop-cgss",
                        "snapshot-type": "regular"}, "createConsistencyGroupSnapshot")
    r = S.delete(V2 + "/consistency-group-volumes?name=cop-cg", json={"cg-id": "cop-cg", "vol-id": "cop-v",
                                                                       "cluster-id": C})
    ok("removeVolumeFromConsistencyGroup: DELETE with a body: 200", r.status_code == 200, r.text)
    for path, label in (("/snapshot-sets?name=cop-cgss", "deleteSnapshotSet (cg)"),
                        ("/consistency-groups?name=cop-cg", "removeConsistencyGroup"),
                        ("/lun-maps?name=%d_%d_1" % (v["index"], ig["index"]), "deleteLunMap"),
                        ("/volumes?name=cop-v", "deleteVolume"), ("/initiators?name=cop-i", "deleteInitiator"),
                        ("/initiator-groups?name=cop-ig", "deleteInitiatorGroup")):
        r = S.delete(V2 + path + NC)
        ok("%s: 200" % label, r.status_code == 200, r.text)
    r = S.get(V2 + "/volumes?name=cop-v" + NC)
    ok("gone: 400 obj_not_found (OBJECT_NOT_FOUND)", r.status_code == 400 and r.json()["message"] == "obj_not_found")
    # cleanupVolumeFoldersIfNeeded: the tag is empty now (its volume deleted), so deleteTag
    tag = get("/tags?name=%2FVolume%2Fcoprhd" + NC)["content"]
    ok("getTagDetails after the delete: num-of-direct-objs 0", int(str(tag["num-of-direct-objs"])) == 0, tag)
    r = S.delete(V2 + "/tags?name=%2FVolume%2Fcoprhd" + NC)
    ok("deleteTag: 200", r.status_code == 200, r.text)
    names = [t["name"] for t in get("/tags")["tags"]]
    ok("the tag is gone, the others stay", "/Volume/coprhd" not in names and "/SnapshotSet/coprhd" in names, names)
    xenv_cpu()
    finish("coprhd")


def xenv_cpu():
    """XtremIOMetricsCollector.collectXEnvCPUUtilization (controllersvc, CoprHD 3.6.2.6):
    getXtremIOObjectPerformance(cluster, "XEnv", "time-frame", "last_hour", "granularity",
    "ten_minutes") = GET XTREMIO_V2_PERFORMANCE_STR + "?cluster-name=C&entity=XEnv&..."; it finds
    "name" and "avg__cpu_usage" in members, reads counters as String[][] (Double.valueOf), and
    takes each XEnv's storage controller as its name less the last "-" part"""
    q = "/performance?cluster-name=%s&entity=XEnv&time-frame=last_hour&granularity=ten_minutes" % C
    get(q)   # a metering cycle; the next one a second later sees a row per XEnv (a query
    time.sleep(1.1)   # reads the counters at most once a second: not a timing check)
    r = get(q)
    m = r.get("members", [])
    ok("members hold name and avg__cpu_usage", "name" in m and "avg__cpu_usage" in m, m)
    rows = r.get("counters", [])
    ok("counters: rows of scalars (a String[][] to Gson), CPU a number Double.valueOf takes",
       all(isinstance(x, list) and all(isinstance(v, (str, int, float)) for v in x) for x in rows) and
       all(float(str(x[m.index("avg__cpu_usage")])) >= 0 for x in rows), rows[:2])
    scs = {s["name"] for s in get("/storage-controllers?cluster-name=" + C)["storage-controllers"]}
    xenvs = {x[m.index("name")] for x in rows}
    ok("each XEnv's controller (its name less the last '-' part) is a storage controller",
       xenvs and {n[:n.rindex("-")] for n in xenvs} == scs, (xenvs, scs))


main()
