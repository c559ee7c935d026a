#!/usr/bin/python3
"""goxtremio (thecodeteam/goxtremio, the library REX-Ray's XtremIO driver
uses), replayed: its request builder api/v3/xms.go (commit
4a3e9dee4d1f2dc391ef8dbb85792bbb07c8bb3c) and its types api/v3/api.go
(commit eb9a87e23098fd366b00e9caa9d89b4bb7af87eb).

Its shape: the endpoint (https://HOST/api/json) + "/" + "/types/TYPE" (so
"//types"), "/ID" for an object, ?name=... only when not empty; HTTP Basic
on every request; the body is json.Marshal of the request struct, of nil
("null") for GET and DELETE.  POST volumes {"vol-name", "vol-size": KiB as
a JSON integer}; POST lun-maps {"vol-id": INDEX, "ig-id": INDEX} (ints);
POST snapshots {"snap-list": [{"ancestor-vol-id", "snap-vol-name"}],
"folder-id": ""}; DELETE TYPE/ID or ?name=.  It decodes with Go's
encoding/json, which fails a whole answer on one field of the wrong type, so
every field of its Volume, Snapshot, LunMap, Initiator, InitiatorGroup,
ISCSIPortal, Event, VolumeFolder and IGFolder structs that lunlab sends is
asserted with its Go type (the folders' performance strings are not sent:
Go leaves them "").
"""
import json

from replay_lib import BASE, USER, PASSWORD, ok, fields, finish, session

s = session()
s.auth = (USER, PASSWORD)
EP = BASE + "/api/json"


def query(method, path, id_="", params=None, body=None):
    url = "%s/%s" % (EP, path)
    if id_:
        url = "%s/%s" % (url, id_)
    params = {k: v for k, v in (params or {}).items() if v}
    return s.request(method, url, params=params, data=json.dumps(body))


def index_of(r):
    return int(r.json()["links"][0]["href"].rsplit("/", 1)[1]) if r.status_code == 201 else None


S, I, LIST, STRS = "str", "int", "list", "strint"
VOLUME = {"small-io-alerts": S, "unaligned-io-alerts": S, "vaai-tp-alerts": S, "dest-snap-list": LIST,
          "vol-id": LIST, "num-of-lun-mappings": I, "num-of-dest-snaps": I, "lb-size": I,
          "logical-space-in-use": STRS, "index": I, "naa-name": S, "creation-time": S, "ancestor-vol-id": LIST,
          "xms-id": LIST, "lun-mapping-list": LIST, "vol-size": STRS, "sys-id": LIST, "name": S,
          "iops": STRS, "rd-iops": STRS, "wr-iops": STRS, "bw": STRS, "rd-bw": STRS, "wr-bw": STRS,
          "avg-latency": STRS, "rd-latency": STRS, "wr-latency": STRS, "acc-num-of-rd": STRS,
          "acc-num-of-wr": STRS, "acc-size-of-rd": STRS, "acc-size-of-wr": STRS}
LUNMAP = {"tg-name": S, "ig-index": I, "xms-id": LIST, "mapping-index": I, "tg-index": I, "lun": I, "ig-name": S,
          "vol-index": I, "vol-name": S, "mapping-id": LIST}
INITIATOR = {"chap-discovery-initiator-password": S, "chap-discovery-initiator-user-name": S,
             "chap-authentication-initiator-password": S, "chap-authentication-initiator-user-name": S,
             "index": I, "port-address": S, "ig-id": LIST, "xms-id": LIST, "name": S, "initiator-id": LIST,
             "port-type": S}
IG = {"num-of-initiators": I, "index": I, "ig-id": LIST, "num-of-vols": I, "xms-id": LIST, "name": S}
FOLDER = {"parent-folder-id": LIST, "index": I, "num-of-direct-objs": I, "num-of-subfolders": I, "xms-id": LIST,
          "subfolder-list": LIST, "folder-id": LIST, "direct-list": LIST, "name": S, "caption": S,
          "obj-severity": S}
VOLFOLDER = dict(FOLDER, **{"num-of-vols": I, "vol-size": STRS})
PORTAL = {"index": I, "port-address": S, "xms-id": LIST, "name": S, "vlan": I, "tar-id": LIST, "ip-port": I,
          "ip-addr": S, "guid": S}


def main():
    # the group and initiator REX-Ray would find made already (v2, Cinder's way)
    g = s.post(BASE + "/api/json/v2/types/initiator-groups", json={"ig-name": "gx-host"})
    gid = index_of(g)
    r = query("POST", "/types/initiators", body={"ig-id": gid, "initiator-name": "gx-i",
                                                 "port-address": "iqn.2026-12.org.example:gx"})
    ok("PostInitiators (ig-id an int)", r.status_code == 201, r.text)
    r = query("POST", "/types/volumes", body={"vol-name": "gxvol", "vol-size": 2097152})
    vid = index_of(r)
    ok("PostVolumes: vol-size an integer of KiB, path //types", vid is not None, r.text)
    r = query("GET", "/types/volumes")
    ok("GetVolumes: refs", any(v["name"] == "gxvol" for v in r.json()["volumes"]), r.text)
    r = query("GET", "/types/volumes", "", {"name": "gxvol"})
    vol = r.json()["content"]
    fields("Volume", vol, VOLUME)
    ok("2 GiB", vol.get("vol-size") == "2097152", vol.get("vol-size"))
    r = query("POST", "/types/lun-maps", body={"vol-id": vid, "ig-id": gid})
    mid = index_of(r)
    ok("PostLunMaps (vol-id, ig-id ints; lun omitted)", mid is not None, r.text)
    fields("LunMap", query("GET", "/types/lun-maps", str(mid)).json()["content"], LUNMAP)
    ini = query("GET", "/types/initiators").json()["initiators"][0]["href"].rsplit("/", 1)[1]
    fields("Initiator", query("GET", "/types/initiators", ini).json()["content"], INITIATOR)
    fields("InitiatorGroup", query("GET", "/types/initiator-groups", str(gid)).json()["content"], IG)
    p = query("GET", "/types/iscsi-portals").json()["iscsi-portals"][0]["href"].rsplit("/", 1)[1]
    fields("ISCSIPortal", query("GET", "/types/iscsi-portals", p).json()["content"], PORTAL)
    r = query("POST", "/types/snapshots", body={"snap-list": [{"ancestor-vol-id": "gxvol", "snap-vol-name": "gxsnap"}],
                                                "folder-id": ""})
    ok("PostSnapshots with snap-list", r.status_code == 201, r.text)
    snap = query("GET", "/types/snapshots", "", {"name": "gxsnap"}).json().get("content", {})
    fields("Snapshot", snap, dict(VOLUME, **{"lun-mapping-list": LIST}))
    ok("the snapshot's ancestor is gxvol", snap.get("ancestor-vol-id", [None, None])[1] == "gxvol", snap)
    r = query("POST", "/types/snapshots", body={"snap-list": [{"ancestor-vol-id": "nope", "snap-vol-name": "x"}],
                                                "folder-id": ""})
    ok("a missing source: 400 vol_obj_not_found (buildError reads message)",
       r.status_code == 400 and r.json() == {"message": "vol_obj_not_found", "error_code": 400}, r.text)
    for path, id_, params in (("/types/snapshots", "", {"name": "gxsnap"}), ("/types/lun-maps", str(mid), None),
                              ("/types/volumes", "", {"name": "gxvol"})):
        r = query("DELETE", path, id_, params)
        ok("DELETE %s%s with a null body" % (path, id_ and "/" + id_), r.status_code == 200, r.text)
    r = query("GET", "/types/events", "", {"severity": "information"})
    evs = r.json().get("events", [])
    ok("GetEvents(severity): the volume's creation among them",
       any(e.get("entity") == "Volume" and e.get("entity_details") == "gxvol" for e in evs), evs[:3])
    for e in evs:
        fields("Event", e, {"entity_details": S, "severity": S, "classification": S, "timestamp": S, "entity": S,
                            "event_code": S, "id": I, "description": S})
    # GetVolumeFolders / GetIGFolders: refs under "folders"; GetVolumeFolder(id, name) by
    # either; XMS 3's root folder "/" is always there
    for t, spec in (("volume-folders", VOLFOLDER), ("ig-folders", FOLDER)):
        r = query("GET", "/types/" + t)
        refs = r.json().get("folders", []) if r.status_code == 200 else []
        ok("Get%s: refs {href, name} under folders, / among them" % t, any(f.get("name") == "/" for f in refs)
           and all(set(f) >= {"href", "name"} for f in refs), (r.status_code, r.text[:300]))
        f = query("GET", "/types/" + t, "", {"name": "/"}).json().get("content", {})
        fields(t + " /", f, spec)
        byid = query("GET", "/types/" + t, str(f.get("index"))).json().get("content", {})
        ok("%s: by id the same folder" % t, byid.get("name") == "/" and byid.get("index") == f.get("index"), byid)
    finish("goxtremio")


main()
