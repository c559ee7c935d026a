#!/usr/bin/python3
"""docbert's xtremio-ansible modules, replayed: the flows of
library/xtremio_volume.py, xtremio_ig.py, xtremio_initiator.py,
xtremio_map.py, xtremio_snapshot.py and xtremio_cg.py (commit
b68d27a3e28abfc324e74aef0fd3cd0ba41e23fd), through the requests of the
xtremio-python library they import (xtremio/xtremio.py, commit
2df4deb2bb0a9fd7f25dc167b33ab0e77e856af6: Basic, a JSON body on every
request, "null" when none, v2 paths, "?name=" lookups, POST to "TYPE?").

Each module reads the object first and acts on what it finds; the second
run of the same task must change nothing.  The library raises on any
non-2xx answer with its "message", and the modules turn that into a
failure: a lookup of an object that does not exist answers 400
obj_not_found on an XMS and here alike (so a task creating a new object
fails in the real module; the replay asserts that answer and goes on the
way the module means to).  The library's _cluster() reads an attribute
only set_cluster() sets, which the modules never call: taken here as "no
cluster".  Snapshot refresh (refresh: true) is left out here: the
api-refresh test sends its bodies.
"""
import json
import uuid

from replay_lib import BASE, USER, PASSWORD, ok, fields, finish, session

V2 = "/api/json/v2/types/"
s = session()


def call(method, uri, body=None):
    r = s.request(method, BASE + uri, auth=(USER, PASSWORD), data=json.dumps(body))
    try:
        return r, r.json()
    except ValueError:
        return r, None


def lookup(otype, name):
    """the library's _get by name: the content, or None after the 400 it raises on"""
    r, resp = call("GET", V2 + otype + "?name=" + name)
    if r.status_code == 200:
        return resp["content"]
    ok("%s %s absent: 400 obj_not_found" % (otype, name),
       r.status_code == 400 and resp == {"message": "obj_not_found", "error_code": 400}, r.text)
    return None


def size_kb(text):
    """xtremio_volume.sizeToKB: the number times its unit in KiB, rounded up to 8 KiB"""
    units = {"b": 1.0 / 8, "k": 1, "m": 1024, "g": 1048576, "t": 1073741824}
    n, u = float(text[:-2]), text[-2].lower()
    return int(-(-(n * units[u]) // 8)) * 8


def volume_task(name, size, state):
    changed = False
    vol = lookup("volumes", name)
    volsize = int(vol["vol-size"]) if vol else -1      # int() of the decimal string
    if volsize < 0 and state == "present":
        r, _ = call("POST", V2 + "volumes?", {"vol-name": name, "vol-size": size_kb(size)})
        ok("xtremio_volume %s create: 201" % name, r.status_code == 201, r.text)
        changed = True
    elif volsize >= 0 and state == "absent":
        r, _ = call("DELETE", V2 + "volumes?name=" + name)
        ok("xtremio_volume %s delete: 200" % name, r.status_code == 200, r.text)
        changed = True
    elif volsize >= 0 and size and volsize < size_kb(size):
        r, _ = call("PUT", V2 + "volumes?name=" + name, {"vol-size": size_kb(size)})
        ok("xtremio_volume %s resize: 200" % name, r.status_code == 200, r.text)
        changed = True
    return changed


def main():
    r, _ = call("GET", "/api/json/v2/types")
    ok("XtremIO(): GET v2/types", r.status_code == 200)
    # xtremio_volume: create 10GB, again (no change), grow to 20GB, delete, delete again
    ok("volume present: changed", volume_task("ans-v", "10GB", "present"))
    ok("volume present again: unchanged", not volume_task("ans-v", "10GB", "present"))
    ok("the size is 10 GiB in KiB", lookup("volumes", "ans-v")["vol-size"] == str(10 * 1048576))
    ok("volume resized: changed", volume_task("ans-v", "20GB", "present"))
    ok("resized to 20 GiB", lookup("volumes", "ans-v")["vol-size"] == str(20 * 1048576))
    # xtremio_ig / xtremio_initiator
    if not lookup("initiator-groups", "ans-ig"):
        r, _ = call("POST", V2 + "initiator-groups?", {"ig-name": "ans-ig"})
        ok("xtremio_ig create: 201", r.status_code == 201, r.text)
    ok("xtremio_ig again: found", lookup("initiator-groups", "ans-ig") is not None)
    if not lookup("initiators", "ans-i"):
        r, _ = call("POST", V2 + "initiators?", {"initiator-name": "ans-i", "ig-id": "ans-ig",
                                                 "port-address": "iqn.2026-12.org.lunlab:ansible",
                                                 "operating-system": "linux"})
        ok("xtremio_initiator create: 201", r.status_code == 201, r.text)
    i = lookup("initiators", "ans-i")
    fields("initiator", i, {"port-address": "str", "operating-system": "str", "ig-id": "list"})
    # xtremio_map: get_volume_mapping sends "&cluster-name=" empty; map, again, unmap
    q = V2 + "lun-maps?full=1&filter=vol-name:eq:ans-v&filter=ig-name:eq:ans-ig&cluster-name="
    r, lm = call("GET", q)
    ok("xtremio_map lookup: none yet", r.status_code == 200 and lm["lun-maps"] == [], r.text)
    r, _ = call("POST", V2 + "lun-maps?", {"vol-id": "ans-v", "ig-id": "ans-ig"})
    ok("xtremio_map present: 201", r.status_code == 201, r.text)
    r, lm = call("GET", q)
    ok("xtremio_map again: found, with its index", r.status_code == 200 and len(lm["lun-maps"]) == 1
       and isinstance(lm["lun-maps"][0]["index"], int), r.text)
    # xtremio_snapshot sourcevol -> targetvol: a snapshot with a uuid suffix, renamed
    tmp = str(uuid.uuid4())
    if not lookup("volumes", "ans-snap"):
        r, _ = call("POST", V2 + "snapshots?", {"volume-list": ["ans-v"], "snap-suffix": tmp})
        ok("xtremio_snapshot create: 201", r.status_code == 201, r.text)
        r, _ = call("PUT", V2 + "volumes?name=ans-v." + tmp, {"vol-name": "ans-snap"})
        ok("xtremio_snapshot rename SOURCE.SUFFIX: 200", r.status_code == 200, r.text)
    snap = lookup("volumes", "ans-snap")
    ok("the snapshot is named as the task says, of ans-v", snap and snap["ancestor-vol-id"][1] == "ans-v", snap)
    # xtremio_cg with a volume list, and the snapshot module's cg -> snapshot set form
    if not lookup("consistency-groups", "ans-cg"):
        r, _ = call("POST", V2 + "consistency-groups?", {"consistency-group-name": "ans-cg", "vol-list": ["ans-v"]})
        ok("xtremio_cg create: 201", r.status_code == 201, r.text)
    if not lookup("snapshot-sets", "ans-ss"):
        r, _ = call("POST", V2 + "snapshots?", {"consistency-group-id": "ans-cg", "snapshot-set-name": "ans-ss",
                                                "snap-suffix": "nightly"})
        ok("xtremio_snapshot sourcecg -> targetss: 201", r.status_code == 201, r.text)
    ss = lookup("snapshot-sets", "ans-ss")
    ok("the set holds ans-v.nightly", ss and [v[1] for v in ss["vol-list"]] == ["ans-v.nightly"], ss)
    # teardown as the modules do it (state: absent)
    r, _ = call("DELETE", V2 + "snapshot-sets?name=ans-ss")
    ok("xtremio_snapshot targetss absent: 200", r.status_code == 200, r.text)
    r, _ = call("DELETE", V2 + "volumes?name=ans-snap")
    ok("xtremio_snapshot targetvol absent: 200", r.status_code == 200, r.text)
    r, lm = call("GET", q)
    r, _ = call("DELETE", V2 + "lun-maps/%d?" % lm["lun-maps"][0]["index"])
    ok("xtremio_map absent (DELETE lun-maps/N? with a null body): 200", r.status_code == 200, r.text)
    r, _ = call("DELETE", V2 + "consistency-groups?name=ans-cg")
    ok("cg removed", r.status_code == 200, r.text)
    ok("volume absent: changed", volume_task("ans-v", None, "absent"))
    ok("volume absent again: unchanged", not volume_task("ans-v", None, "absent"))
    finish("xtremio-ansible")


main()
