#!/usr/bin/python3
"""The flows of Debian 12's python3-cinder XtremIOISCSIDriver that
cinder_driver.py does not run, against lunlab-target's XMS API, each effect
checked through the API and, where data or masking is involved, over iSCSI
by libiscsi (tests/api/api_scsi):

- manage_existing_get_size / manage_existing / unmanage (and the snapshot
  forms): a volume made outside Cinder, holding data, taken over by renaming
  and given back renamed "<name>-unmanged" (the driver's spelling), its data
  and index unchanged;
- update_group: volumes added to and removed from a group (the
  consistency-group-volumes POST and DELETE), seen in the group's vol-list and
  in what a group snapshot then holds;
- create_group_from_src from a source group (a snapshot set of the group,
  its snapshots renamed to the new volumes); the group-snapshot source is in
  cinder_driver.py;
- force detach: terminate_connection with connector None removes every map
  of the volume (read from its lun-mapping-list), for every host;
- xtremio_clean_unused_ig: the initiator group (and its initiator) deleted
  when its last map goes, kept while one remains, made again on the next
  connection;
- the busy retry: API fault rules (/api/lunlab/api-faults) answer
  system_is_busy; the driver tries again and succeeds, or gives up with
  nothing created.

Environment as cinder_driver.py.
"""
import sys
import time
import uuid

import requests

import cinder_driver as cd
from replay_lib import finish
from cinder import exception
from cinder.volume.drivers.dell_emc import xtremio

ok = cd.ok
API, USER, PASSWORD = cd.API, cd.USER, cd.PASSWORD


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc:
        return True
    except Exception as e:  # noqa: BLE001 - the wrong exception is a failed check
        print("raised %r" % e)
        return False
    return False


def lunlab(method, path, **kw):
    return requests.request(method, "https://%s/api/lunlab/%s" % (API, path), auth=(USER, PASSWORD),
                            verify=False, timeout=60, **kw)


def by_name(typ, name):
    r = cd.api("GET", typ, params={"name": name})
    return r.json()["content"] if r.status_code == 200 else None


def not_found(typ, name):
    r = cd.api("GET", typ, params={"name": name})
    return r.status_code == 400 and r.json().get("message") == "obj_not_found"


def lun_session(initiator, lun):
    return cd.Session(initiator, {"target_portal": cd.PORTAL, "target_iqn": cd.IQN, "target_lun": lun})


def conn(host):
    return {"initiator": "iqn.2026-12.org.example:%s" % host, "host": host, "ip": "127.0.0.1"}


def manage_flows(drv):
    print("---- manage_existing / unmanage")
    pre = "iqn.2026-12.org.example:pre-cinder"
    for method, typ, body in (("POST", "volumes", {"vol-name": "legacy-1", "vol-size": "2g"}),
                              ("POST", "initiator-groups", {"ig-name": "pre"}),
                              ("POST", "initiators", {"initiator-name": "pre-1", "port-address": pre,
                                                      "ig-id": "pre"}),
                              ("POST", "lun-maps", {"vol-id": "legacy-1", "ig-id": "pre"})):
        r = cd.api(method, typ, json=body)
        ok("outside Cinder: %s %s" % (method, typ), r.status_code == 201, r.text)
    legacy = by_name("volumes", "legacy-1")
    s_pre = lun_session(pre, legacy["lun-mapping-list"][0][2])
    ok("outside Cinder: data E written to legacy-1", s_pre.write(0, 64, 31))

    vol = cd.volume(5)
    ok("manage_existing_get_size: 2 (GiB, from vol-size in KiB)",
       drv.manage_existing_get_size(vol, {"source-name": "legacy-1"}) == 2)
    ok("manage_existing_get_size of a missing volume: ManageExistingInvalidReference",
       raises(exception.ManageExistingInvalidReference, drv.manage_existing_get_size, vol,
              {"source-name": "no-such-volume"}))
    ok("manage_existing_get_size without source-name: ManageExistingInvalidReference",
       raises(exception.ManageExistingInvalidReference, drv.manage_existing_get_size, vol, {"source-id": "1"}))
    ok("manage_existing of a missing volume: ManageExistingInvalidReference",
       raises(exception.ManageExistingInvalidReference, drv.manage_existing, vol, {"source-name": "nope"}))
    vol["size"] = 2
    drv.manage_existing(vol, {"source-name": "legacy-1"})
    managed = by_name("volumes", vol["id"])
    ok("manage_existing: the volume renamed to Cinder's id, the same object",
       managed is not None and managed["index"] == legacy["index"] and managed["naa-name"] == legacy["naa-name"]
       and not_found("volumes", "legacy-1"), managed)
    c = conn("manage-host")
    s = cd.connect(drv, vol, c)
    ok("manage_existing: the driver's connection reads the data written before (E), 2 GiB",
       s.verify(0, 64, 31) and s.capacity() == 2 * cd.GIB)

    # a snapshot made outside Cinder, managed as a snapshot of that volume
    r = cd.api("POST", "snapshots", json={"volume-list": [vol["id"]], "snapshot-set-name": "legacy-set",
                                          "snap-suffix": "legacy"})
    ok("outside Cinder: a snapshot of the managed volume", r.status_code == 201, r.text)
    snapname = cd.api("GET", "volumes/%s" % r.json()["links"][0]["href"].split("/")[-1]).json()["content"]["name"]
    ok("write data F over E after the snapshot", s.write(0, 64, 32))
    snap = cd.snapshot(vol)
    snap["volume_id"] = vol["id"]
    other = cd.volume(1)
    drv.create_volume(other)
    ok("manage_existing_snapshot of a volume that is not its snapshot: refused",
       raises(exception.ManageExistingInvalidReference, drv.manage_existing_snapshot, snap,
              {"source-name": other["id"]}))
    ok("manage_existing_snapshot_get_size: 2",
       drv.manage_existing_snapshot_get_size(snap, {"source-name": snapname}) == 2)
    drv.manage_existing_snapshot(snap, {"source-name": snapname})
    ok("manage_existing_snapshot: renamed to the snapshot's id", by_name("volumes", snap["id"]) is not None
       and not_found("volumes", snapname))
    fromsnap = cd.volume(2)
    drv.create_volume_from_snapshot(fromsnap, snap)
    sf = cd.connect(drv, fromsnap, c)
    ok("a volume from the managed snapshot holds the snapshot's moment (E)", sf.verify(0, 64, 31))

    drv.unmanage(vol)
    kept = by_name("volumes", vol["name"] + "-unmanged")
    ok("unmanage: renamed <name>-unmanged, the same object", kept is not None and kept["index"] == legacy["index"]
       and not_found("volumes", vol["id"]), kept)
    ok("unmanage: the LU stays, mapped, with its data (F)", s.verify(0, 64, 32) and s_pre.verify(0, 64, 32))
    ok("unmanage of a volume Cinder no longer finds: VolumeNotFound",
       raises(exception.VolumeNotFound, drv.unmanage, vol))
    drv.unmanage_snapshot(snap)
    ok("unmanage_snapshot: renamed <name>-unmanged", by_name("volumes", snap["name"] + "-unmanged") is not None
       and not_found("volumes", snap["id"]))
    drv.terminate_connection(fromsnap, c)
    drv.delete_volume(fromsnap)
    drv.delete_volume(other)


def group_flows(drv):
    print("---- update_group, create_group_from_src (source group)")
    c = conn("group-host")
    group = cd.Rec(id=str(uuid.uuid4()), status="available")
    drv.create_group(None, group)
    a, b = cd.volume(1), cd.volume(1)
    drv.create_volume(a)
    drv.create_volume(b)
    sa, sb = cd.connect(drv, a, c), cd.connect(drv, b, c)
    ok("write A to a, B to b", sa.write(0, 8, 41) and sb.write(0, 8, 42))

    def members(gid):
        g = by_name("consistency-groups", gid)
        return sorted(x[1] for x in g["vol-list"]) if g else None

    ok("a new group is empty", members(group["id"]) == [], members(group["id"]))
    drv.update_group(None, group, add_volumes=[a, b])
    ok("update_group add: the group holds a and b", members(group["id"]) == sorted([a["id"], b["id"]]),
       members(group["id"]))
    gs1 = cd.Rec(id=str(uuid.uuid4()), group_id=group["id"], consistencygroup_id=None)
    drv.create_group_snapshot(None, gs1, [cd.snapshot(a), cd.snapshot(b)])
    ss = by_name("snapshot-sets", drv._get_cgsnap_name(gs1))
    ok("a group snapshot then holds two volumes", ss is not None and ss["num-of-vols"] == 2, ss)
    drv.update_group(None, group, remove_volumes=[b])
    ok("update_group remove: the group holds a only", members(group["id"]) == [a["id"]], members(group["id"]))
    ok("the removed volume stays, with its data", by_name("volumes", b["id"]) is not None and sb.verify(0, 8, 42))
    gs2 = cd.Rec(id=str(uuid.uuid4()), group_id=group["id"], consistencygroup_id=None)
    drv.create_group_snapshot(None, gs2, [cd.snapshot(a)])
    ss = by_name("snapshot-sets", drv._get_cgsnap_name(gs2))
    ok("a group snapshot after the removal holds one volume, a's",
       ss is not None and ss["num-of-vols"] == 1 and
       by_name("volumes", ss["vol-list"][0][1])["ancestor-vol-id"][1] == a["id"], ss)
    # two group snapshots back to back (within a second, most runs): the driver sends no
    # snap-suffix, so both sets' snapshots get default names, which must not collide
    gq = [cd.Rec(id=str(uuid.uuid4()), group_id=group["id"], consistencygroup_id=None) for _ in range(2)]
    for gs in gq:
        drv.create_group_snapshot(None, gs, [cd.snapshot(a)])
    names = [by_name("volumes", by_name("snapshot-sets", drv._get_cgsnap_name(gs))["vol-list"][0][1])["name"]
             for gs in gq]
    ok("two group snapshots in a row: both made, distinct default names", names[0] != names[1], names)
    for gs in gq:
        drv.delete_group_snapshot(None, gs, [])
    drv.update_group(None, group, add_volumes=[b])
    ok("update_group add again: a and b", members(group["id"]) == sorted([a["id"], b["id"]]))
    ok("write C to a, D to b", sa.write(0, 8, 43) and sb.write(0, 8, 44))

    g3 = cd.Rec(id=str(uuid.uuid4()), status="available")
    n1, n2 = cd.volume(1, g3["id"]), cd.volume(1, g3["id"])
    drv.create_group_from_src(None, g3, [n1, n2], source_group=group, source_vols=[a, b])
    ok("create_group_from_src (source group): the new group holds the new volumes",
       members(g3["id"]) == sorted([n1["id"], n2["id"]]), members(g3["id"]))
    s1, s2 = cd.connect(drv, n1, c), cd.connect(drv, n2, c)
    ok("create_group_from_src (source group): each new volume holds its source's data now (C, D)",
       s1.verify(0, 8, 43) and s2.verify(0, 8, 44))
    ok("the new volumes are independent of their sources",
       s1.write(0, 8, 45) and sa.verify(0, 8, 43) and sb.write(0, 8, 46) and s2.verify(0, 8, 44))
    ok("a source group and a group snapshot together: InvalidInput",
       raises(exception.InvalidInput, drv.create_group_from_src, None, g3, [n1], gs1, [cd.snapshot(a)],
              group, [a]))
    for v in (n1, n2, a, b):
        drv.terminate_connection(v, c)
    for gs in (gs1, gs2):
        drv.delete_group_snapshot(None, gs, [])
    drv.delete_group(None, g3, [n1, n2])
    drv.delete_group(None, group, [a, b])
    ok("the groups' volumes are deleted with them", all(not_found("volumes", v["id"]) for v in (a, b, n1, n2)))


def force_detach(drv):
    print("---- force detach (terminate_connection with no connector)")
    h1, h2 = conn("force-1"), conn("force-2")
    v, w = cd.volume(1), cd.volume(1)
    drv.create_volume(v)
    drv.create_volume(w)
    t1, t2 = cd.connect(drv, v, h1), cd.connect(drv, v, h2)
    tw = cd.connect(drv, w, h1)
    ok("two hosts see the volume", t1.props["target_lun"] in cd.luns_of(h1["initiator"]) and
       t2.props["target_lun"] in cd.luns_of(h2["initiator"]))
    ok("the volume has two maps", by_name("volumes", v["id"])["num-of-lun-mappings"] == 2)
    drv.terminate_connection(v, None)
    l1, l2 = cd.luns_of(h1["initiator"]), cd.luns_of(h2["initiator"])
    ok("force detach: neither host sees the volume; host 1 still sees the other",
       t1.props["target_lun"] not in l1 and t2.props["target_lun"] not in l2 and tw.props["target_lun"] in l1,
       (l1, l2))
    ok("force detach: the volume has no map left", by_name("volumes", v["id"])["num-of-lun-mappings"] == 0)
    ok("force detach of an unmapped volume: nothing to do", drv.terminate_connection(v, None) is None)
    drv.terminate_connection(w, h1)
    drv.delete_volume(v)
    drv.delete_volume(w)


def clean_unused_ig(keep_drv):
    print("---- xtremio_clean_unused_ig")
    drv = cd.make_driver(clean_ig=True)
    drv.check_for_setup_error()
    c = conn("clean-host")
    ig = c["initiator"]  # the iSCSI driver names the group after the initiator
    v1, v2 = cd.volume(1), cd.volume(1)
    drv.create_volume(v1)
    drv.create_volume(v2)
    cd.connect(drv, v1, c)  # v1 is mapped (its map is what terminate_connection removes) but never written
    s2 = cd.connect(drv, v2, c)
    ok("write G to v2", s2.write(0, 8, 51))
    drv.terminate_connection(v1, c)
    g = by_name("initiator-groups", ig)
    ok("one map left: the group stays", g is not None and g["num-of-vols"] == 1, g)
    drv.terminate_connection(v2, c)
    ok("the last map gone: the group is deleted", not_found("initiator-groups", ig))
    r = cd.api("GET", "initiators", params={"filter": "port-address:eq:" + c["initiator"]})
    ok("and its initiator with it", r.status_code == 200 and r.json()["initiators"] == [], r.text)
    seen = cd.luns_of(c["initiator"])
    ok("the host sees no volume of the driver", seen is not None and all(l < 1 for l in seen), seen)
    s2 = cd.connect(drv, v2, c)
    ok("the next connection makes the group again and reads G",
       by_name("initiator-groups", ig) is not None and s2.verify(0, 8, 51))
    drv.terminate_connection(v2, c)
    # the same without the option: the group outlives its maps
    k = conn("keep-host")
    cd.connect(keep_drv, v1, k)
    keep_drv.terminate_connection(v1, k)
    g = by_name("initiator-groups", k["initiator"])
    ok("xtremio_clean_unused_ig off: the empty group stays", g is not None and g["num-of-vols"] == 0, g)
    drv.delete_volume(v1)
    drv.delete_volume(v2)


def busy_retry():
    print("---- system_is_busy and the driver's retry")
    # Debian 12's driver passes xtremio_array_busy_retry_count as cinder.utils.retry's
    # interval and xtremio_array_busy_retry_interval as its number of attempts (the two are
    # swapped in its @utils.retry call): so "interval" 3 means three attempts, and "count" 0
    # means no wait between them.
    drv = cd.make_driver(busy_count=0, busy_interval=3)
    drv.check_for_setup_error()
    rule = {"error": "system_is_busy", "method": "POST", "type": "volumes", "count": 2}
    r = lunlab("POST", "api-faults", json=rule)
    ok("an API fault rule: the next 2 POST volumes busy", r.status_code == 201, r.text)
    v = cd.volume(1)
    drv.create_volume(v)
    rules = lunlab("GET", "api-faults").json()["api-faults"]
    ok("create_volume succeeds on its third attempt after two system_is_busy",
       by_name("volumes", v["id"]) is not None and rules[0]["hits"] == 2, rules)
    s = cd.connect(drv, v, conn("busy-host"))
    ok("the volume is there over iSCSI, 1 GiB", s.capacity() == cd.GIB)
    lunlab("DELETE", "api-faults")

    r = lunlab("POST", "api-faults", json=dict(rule, count=3))
    w = cd.volume(1)
    ok("three busy answers: the driver gives up with XtremIOArrayBusy",
       raises(xtremio.XtremIOArrayBusy, drv.create_volume, w))
    ok("and nothing was created", not_found("volumes", w["id"]) and
       lunlab("GET", "api-faults").json()["api-faults"][0]["hits"] == 3)
    lunlab("DELETE", "api-faults")

    lunlab("POST", "api-faults", json={"error": "system_is_busy", "method": "DELETE", "type": "lun-maps",
                                       "count": 1})
    drv.terminate_connection(v, conn("busy-host"))
    seen = cd.luns_of(conn("busy-host")["initiator"])
    hits = lunlab("GET", "api-faults").json()["api-faults"][0]["hits"]
    ok("terminate_connection: a busy DELETE lun-maps retried, the LUN gone",
       hits == 1 and seen is not None and s.props["target_lun"] not in seen, (hits, seen))
    lunlab("DELETE", "api-faults")

    one = cd.make_driver(busy_count=5, busy_interval=1)
    lunlab("POST", "api-faults", json={"error": "system_is_busy", "method": "DELETE", "type": "volumes",
                                       "count": 1})
    ok("with xtremio_array_busy_retry_interval=1 the driver tries once (its swapped arguments)",
       raises(xtremio.XtremIOArrayBusy, one.delete_volume, v) and by_name("volumes", v["id"]) is not None)
    lunlab("DELETE", "api-faults")
    drv.delete_volume(v)
    ok("delete_volume once the array is not busy", not_found("volumes", v["id"]))

    # Cinder's documented defaults (xtremio_array_busy_retry_count=5, _interval=5, swapped as
    # above: 5 attempts, waits of 5 s, then 10 s, ...): one busy answer costs one 5 s wait.
    # The elapsed time's lower bound is the driver's own sleep: noise only makes it longer.
    dflt = cd.make_driver(busy_count=5, busy_interval=5)
    lunlab("POST", "api-faults", json=dict(rule, count=1))
    d = cd.volume(1)
    t0 = time.monotonic()
    dflt.create_volume(d)
    waited = time.monotonic() - t0
    ok("Cinder's default busy retry: one system_is_busy, created on the second attempt after >= 5 s",
       by_name("volumes", d["id"]) is not None and waited >= 5.0 and
       lunlab("GET", "api-faults").json()["api-faults"][0]["hits"] == 1, waited)
    lunlab("DELETE", "api-faults")
    dflt.delete_volume(d)


def main():
    drv = cd.make_driver()
    drv.check_for_setup_error()
    manage_flows(drv)
    group_flows(drv)
    force_detach(drv)
    clean_unused_ig(drv)
    busy_retry()
    finish("cinder3")


if __name__ == "__main__":
    sys.exit(main())
