#!/usr/bin/python3
"""Cinder with two backends in one lunlab-target: Debian 12's python3-cinder
XtremIOISCSIDriver twice, one with xtremio_cluster_name=x1a, one with
x2a (run.sh starts both clusters), as cinder-volume runs one driver per
backend.  The driver sends cluster-name= on GET/DELETE and cluster-id in
every other body; each backend must see only its cluster: the same volume
name made in both (names are unique per cluster), its own capacity in
get_volume_stats, extend and delete touching only its own volume, one host
connected to both with distinct LUNs on the one target, each LU the size
its backend gave it.  Environment as cinder_driver.py.
"""
import sys

import cinder_driver as cd
from replay_lib import finish

ok = cd.ok


def main():
    d1, d2 = cd.make_driver("x1a"), cd.make_driver("x2a")
    for d in (d1, d2):
        d.check_for_setup_error()
    caps = {c["name"]: int(c["ud-ssd-space"]) for c in cd.api("GET", "clusters", params={"full": 1}).json()["clusters"]}
    s1, s2 = d1.get_volume_stats(refresh=True), d2.get_volume_stats(refresh=True)
    ok("each backend's total capacity is its cluster's",
       round(s1["total_capacity_gb"] * 1024 * 1024) == caps["x1a"] and
       round(s2["total_capacity_gb"] * 1024 * 1024) == caps["x2a"] and caps["x1a"] != caps["x2a"],
       (s1["total_capacity_gb"], s2["total_capacity_gb"], caps))
    vol = cd.volume(1)
    d1.create_volume(vol)
    d2.create_volume(cd.Rec(vol, size=2))  # the same name in the other cluster
    for cl, size in (("x1a", "1048576"), ("x2a", "2097152")):
        c = cd.api("GET", "volumes", params={"name": vol["id"], "cluster-name": cl}).json().get("content", {})
        ok("create_volume in %s: its own volume" % cl, c.get("sys-name") == cl and c.get("vol-size") == size, c)
    d1.extend_volume(vol, 3)
    c2 = cd.api("GET", "volumes", params={"name": vol["id"], "cluster-name": "x2a"}).json()["content"]
    ok("extend_volume on x1a leaves x2a's", c2["vol-size"] == "2097152", c2)
    connector = {"initiator": "iqn.2026-12.org.example:two-backends", "host": "two", "multipath": False}
    t1 = cd.connect(d1, vol, connector)
    t2 = cd.connect(d2, vol, connector)
    ok("one host, one target, two LUNs", t1.props["target_lun"] != t2.props["target_lun"],
       (t1.props["target_lun"], t2.props["target_lun"]))
    ok("each LU the size its backend gave it", t1.capacity() == 3 * cd.GIB and t2.capacity() == 2 * cd.GIB,
       (t1.capacity(), t2.capacity()))
    ok("the two are different data", t1.write(0, 8, 71) and t2.verify(0, 8, 0) and t1.verify(0, 8, 71))
    d1.terminate_connection(vol, connector)
    d2.terminate_connection(vol, connector)
    d1.delete_volume(vol)
    left = cd.api("GET", "volumes", params={"full": 1, "prop": ["name", "sys-name"]}).json()["volumes"]
    ok("delete_volume on x1a removes only x1a's", [(v["sys-name"], v["name"]) for v in left] == [("x2a", vol["id"])],
       left)
    d2.delete_volume(vol)
    ok("and x2a's goes with x2a's", cd.api("GET", "volumes").json()["volumes"] == [])
    finish("cinder2")


if __name__ == "__main__":
    sys.exit(main())
