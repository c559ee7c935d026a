#!/usr/bin/python3
"""docbert's xtremio-python library, replayed: the requests its XtremIO
class sends, from docbert/xtremio-python xtremio/xtremio.py (commit
b821c6e2c51b83f37dec884c66d9290fa20932b4), and the fields it reads.

What it does that an XMS takes and lunlab refused before: every request
carries a body, json.dumps(None) = "null" when it has none (GET, DELETE);
POST goes to ".../TYPE?" (an empty query); get_volume_mapping sends
"cluster-name=" empty; vol-size is whatever the caller gives (a number of
KiB, or "1g"); PUT initiator-groups {"operating-system": ...};
PUT snapshot-sets {"new-name": ...}.  It reads: list keys, links[0].href
of a POST, content, lun-maps[0].index, volumes' name/sys-name/vol-size/guid
(with full=1&prop=).  Its snapshot refresh (from-volume-id/to-volume-id) is
not served by lunlab: docs/api.md says so, and it is left out here.
"""
import json

from replay_lib import BASE, USER, PASSWORD, ok, fields, finish, session

V2 = "/api/json/v2/types/"
s = session()


def call(method, uri, body=None):
    """the library's _request: Basic, data=json.dumps(body) always"""
    r = s.request(method, BASE + uri, auth=(USER, PASSWORD), data=json.dumps(body))
    try:
        resp = r.json()
    except ValueError:
        resp = None
    return r, resp


def created(label, otype, body):
    r, resp = call("POST", V2 + otype + "?", body)
    ok(label + ": 201 with links[0].href", r.status_code == 201 and isinstance(resp["links"][0]["href"], str),
       (r.status_code, r.text))
    return int(resp["links"][0]["href"].rsplit("/", 1)[1]) if r.status_code == 201 else None


def main():
    r, _ = call("GET", "/api/json/v2/types")
    ok("__init__: GET v2/types with a null body: 200", r.status_code == 200, (r.status_code, r.text))
    created("create_ig", "initiator-groups", {"ig-name": "pyhost"})
    created("create_initiator with operating-system", "initiators",
            {"initiator-name": "pyhost-i1", "ig-id": "pyhost", "port-address": "iqn.2026-12.org.example:pyhost",
             "operating-system": "linux"})
    vid = created("create_volume, vol-size a number of KiB", "volumes", {"vol-name": "pyvol", "vol-size": 1048576})
    created("create_volume, vol-size with a unit", "volumes", {"vol-name": "pyvol2", "vol-size": "2g"})
    r, resp = call("GET", V2 + "volumes?full=1&prop=name&prop=sys-name&prop=vol-size&prop=guid")
    vols = {v["name"]: v for v in resp["volumes"]} if r.status_code == 200 else {}
    ok("get_volumes: both listed", "pyvol" in vols and "pyvol2" in vols, r.text)
    for v in vols.values():
        fields("get_volumes " + v.get("name", "?"), v, {"name": "str", "sys-name": "str", "vol-size": "strint",
                                                         "guid": "str"})
    ok("the numeric vol-size was KiB", vols.get("pyvol", {}).get("vol-size") == "1048576", vols.get("pyvol"))
    ok("the sized one 2 GiB", vols.get("pyvol2", {}).get("vol-size") == "2097152", vols.get("pyvol2"))
    _, resp = call("GET", V2 + "volumes/%d?" % vid)
    ok("get_volume by index ('/N?')", resp and resp["content"]["name"] == "pyvol", resp)
    created("create_volume_mapping", "lun-maps", {"vol-id": "pyvol", "ig-id": "pyhost"})
    r, lm = call("GET", V2 + "lun-maps?full=1&filter=vol-name:eq:pyvol&filter=ig-name:eq:pyhost&cluster-name=")
    ok("get_volume_mapping with cluster-name= empty", r.status_code == 200 and len(lm["lun-maps"]) == 1, r.text)
    if r.status_code == 200 and lm["lun-maps"]:
        fields("lun-maps[0]", lm["lun-maps"][0], {"index": "int"})
        r, _ = call("DELETE", V2 + "lun-maps/%d?" % lm["lun-maps"][0]["index"])
        ok("remove_volume_mapping: DELETE with a null body", r.status_code == 200, r.text)
    r, _ = call("PUT", V2 + "initiator-groups?name=pyhost", {"operating-system": "esx"})
    ok("modify_ig operating-system", r.status_code == 200, r.text)
    _, resp = call("GET", V2 + "initiator-groups?name=pyhost")
    ok("get_ig: operating-system kept", resp and resp["content"].get("operating-system") == "esx", resp)
    _, resp = call("GET", V2 + "initiators?name=pyhost-i1")
    ok("get_initiator: operating-system kept", resp and resp["content"].get("operating-system") == "linux", resp)
    r, _ = call("PUT", V2 + "volumes?name=pyvol", {"vol-size": 2097152})
    ok("modify_volume size as a number", r.status_code == 200, r.text)
    _, resp = call("GET", V2 + "volumes?name=pyvol")
    ok("grown to 2 GiB", resp and resp["content"]["vol-size"] == "2097152", resp)
    created("create_cg", "consistency-groups", {"consistency-group-name": "pycg", "vol-list": []})
    created("modify_cg add", "consistency-group-volumes", {"cg-id": "pycg", "vol-id": "pyvol"})
    r, _ = call("DELETE", V2 + "consistency-group-volumes?name=pycg", {"vol-id": "pyvol"})
    ok("modify_cg remove", r.status_code == 200, r.text)
    created("create_snapshot", "snapshots", {"volume-list": ["pyvol"], "snapshot-set-name": "pyss",
                                             "snap-suffix": "s1"})
    _, resp = call("GET", V2 + "snapshots?name=pyvol.s1")
    ok("get_snapshot", resp and resp["content"]["name"] == "pyvol.s1", resp)
    r, _ = call("PUT", V2 + "snapshot-sets?name=pyss", {"new-name": "pyss2"})
    ok("modify_snapshot_set new-name", r.status_code == 200, r.text)
    _, resp = call("GET", V2 + "snapshot-sets?name=pyss2")
    ok("get_snapshot_set by its new name", resp is not None and resp["content"]["name"] == "pyss2", resp)
    r, resp = call("GET", V2 + "volumes?name=nosuch")
    ok("a missing object: 400 obj_not_found (the library returns None)",
       r.status_code == 400 and resp == {"message": "obj_not_found", "error_code": 400}, r.text)
    r, _ = call("DELETE", V2 + "snapshot-sets?name=pyss2")
    ok("remove_snapshot_set", r.status_code == 200, r.text)
    for name in ("pyvol", "pyvol2"):
        r, _ = call("DELETE", V2 + "volumes?name=" + name)
        ok("remove_volume %s: DELETE with a null body" % name, r.status_code == 200, r.text)
    r, resp = call("GET", V2 + "clusters?")
    ok("get_clusters", r.status_code == 200 and len(resp["clusters"]) >= 1, r.text)
    finish("xtremio-python")


main()
