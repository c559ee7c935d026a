#!/usr/bin/python3
"""The cluster limits of --cluster max_volumes= and max_snapshots_per_volume=
(target/api/xms_cluster_spec.h, docs/api.md "Limits") against a target started
with one cluster `lim` (max_volumes=7, max_snapshots_per_volume=2) beside the
default one: volumes and snapshots beyond them are refused with XMS's error
names (Cinder's too_many_objs and too_many_snapshots_per_vol), nothing is made
by a refusal, the other cluster is not limited, and room freed is usable again.
"""
from replay_lib import ok, req, created, expect_err, finish


def names(cl):
    r = req("GET", "volumes", params={"cluster-name": cl})
    return sorted(v["name"] for v in r.json()["volumes"])


def main():
    L = {"cluster-id": "lim"}

    def vol(name):
        return created(req("POST", "volumes", json=dict(L, **{"vol-name": name, "vol-size": "8m"})))

    def snap(sources, suffix):
        return req("POST", "snapshots", json=dict(L, **{"volume-list": sources, "snap-suffix": suffix}))

    ok("volumes a, b in lim", vol("a") and vol("b"))
    r = snap(["a"], "s1")
    ok("a snapshot of a (a's family: 1)", r.status_code == 201, r.text)
    r = snap(["a.s1"], "s2")
    ok("a snapshot of a.s1 (a's family: 2, the limit)", r.status_code == 201, r.text)
    expect_err("a third in a's family: too_many_snapshots_per_vol", snap(["a"], "s3"), 400,
               "too_many_snapshots_per_vol")
    r = snap(["b"], "s1")
    ok("a snapshot of b (b's family: 1)", r.status_code == 201, r.text)
    expect_err("b and b.s1 at once (b's family would be 3): refused whole", snap(["b", "b.s1"], "x"), 400,
               "too_many_snapshots_per_vol")
    ok("volumes c, c2 (lim: 7 = max_volumes)", vol("c") and vol("c2"))
    want = ["a", "a.s1", "a.s1.s2", "b", "b.s1", "c", "c2"]
    ok("lim holds " + ", ".join(want), names("lim") == want, names("lim"))
    expect_err("an eighth volume: too_many_objs", req("POST", "volumes", json=dict(L, **{"vol-name": "d",
                                                                                         "vol-size": "8m"})),
               400, "too_many_objs")
    expect_err("a snapshot of c (an eighth volume): too_many_objs", snap(["c"], "s1"), 400, "too_many_objs")
    ok("nothing made by the refusals", names("lim") == want, names("lim"))
    ok("the default cluster is not limited: 7 volumes",
       all(created(req("POST", "volumes", json={"vol-name": "d%d" % i, "vol-size": "8m",
                                                   "cluster-id": "xbrick1"})) for i in range(7)))
    r = req("DELETE", "volumes", params={"name": "c", "cluster-name": "lim"})
    ok("c deleted", r.status_code == 200, r.text)
    ok("room again: volume d in lim", vol("d"))
    finish("limits")


if __name__ == "__main__":
    main()
