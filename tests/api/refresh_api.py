#!/usr/bin/python3
"""Snapshot refresh and restore through the XMS API (POST snapshots with
from-*-id / to-*-id; target/api/xms_refresh.c), checked on the SCSI side by
libiscsi initiators (tests/api/api_scsi): the refreshed volume reads back the
snapshot's data (a write made after the snapshot is gone), each nexus of its
LU sees 06/28/00 once, the backup snapshot exists unless no-backup and holds
the data the refresh replaced, the consistency-group / snapshot-set forms
pair volumes by lineage, and every bad request is refused with XMS's message
and changes nothing.  Environment as xms_api.py.
"""
import os
import subprocess
import sys

from replay_lib import ok, req, created, finish
import replay_lib
PORTAL = os.environ["LUNLAB_PORTAL"]
IQN = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]
A = "iqn.2026-12.org.example:refresh-a"
B = "iqn.2026-12.org.example:refresh-b"


def expect_err(label, r, message):
    """the refusals here are all 400s"""
    return replay_lib.expect_err(label, r, 400, message)


def scsi(*args):
    p = subprocess.run([API_SCSI, "-i", A] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def url(lun):
    return "iscsi://%s/%s/%d" % (PORTAL, IQN, lun)


def lun_of(vol):
    m = created(req("POST", "lun-maps", json={"vol-id": vol, "ig-id": "rhosts"}))
    return req("GET", "lun-maps/%d" % m).json()["content"]["lun"]


def holds(lun, seed, label):
    rc, _, err = scsi("verify", url(lun), "0", "16", str(seed))
    ok(label, rc == 0, err)


def write(lun, seed):
    rc, _, err = scsi("write", url(lun), "0", "16", str(seed))
    ok("write seed %d at LUN %d" % (seed, lun), rc == 0, err)


def snapshots():
    return sorted(x["name"] for x in req("GET", "snapshots").json()["snapshots"])


def watchers(*initiators):
    ws = []
    for i in initiators:
        w = subprocess.Popen([API_SCSI, "-i", i, "watch", url(LUN)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
        ok("session of %s ready" % i[-9:], w.stdout.readline().strip() == "ready")
        ws.append(w)
    return ws


def two_turs(ws):
    out = []
    for w in ws:
        answers = []
        for _ in range(2):
            w.stdin.write("\n")
            w.stdin.flush()
            answers.append(w.stdout.readline().strip())
        w.stdin.close()
        w.wait(timeout=60)
        out.append(answers)
    return out


def main():
    global LUN
    for name in ("r1", "r2"):
        ok("volume " + name, req("POST", "volumes", json={"vol-name": name, "vol-size": "16m"}).status_code == 201)
    ok("volume big", req("POST", "volumes", json={"vol-name": "big", "vol-size": "32m"}).status_code == 201)
    req("POST", "initiator-groups", json={"ig-name": "rhosts"})
    req("POST", "initiators", json={"initiator-name": "ra", "ig-id": "rhosts", "port-address": A})
    req("POST", "initiators", json={"initiator-name": "rb", "ig-id": "rhosts", "port-address": B})
    LUN = lun_of("r1")
    write(LUN, 5)
    ok("snapshot r1.s", req("POST", "snapshots", json={"volume-list": ["r1"], "snapshot-set-name": "rs",
                                                        "snap-suffix": "s"}).status_code == 201)
    write(LUN, 8)  # after the snapshot: the refresh must take it away

    # ---- volume from a snapshot, with a backup
    ws = watchers(A, B)
    r = req("POST", "snapshots", json={"from-volume-id": "r1.s", "to-volume-id": "r1",
                                       "backup-snap-suffix": "before"})
    ok("refresh r1 from r1.s: 201 linking r1", r.status_code == 201 and
       r.json()["links"][0]["href"].endswith("/volumes/%d" % req("GET", "volumes", params={"name": "r1"})
                                              .json()["content"]["index"]), r.text)
    ok("each nexus sees 06/28/00 once, then GOOD",
       two_turs(ws) == [["CHECK 6/28/00", "GOOD"], ["CHECK 6/28/00", "GOOD"]])
    holds(LUN, 5, "r1 reads back the snapshot's data (the later write is gone)")
    ok("the backup snapshot r1.before exists", "r1.before" in snapshots(), snapshots())
    c = req("GET", "snapshots", params={"name": "r1.before"}).json()["content"]
    ok("r1.before is a snapshot of r1 in a set of its own", c["ancestor-vol-id"][1] == "r1" and
       c["snapset-list"][0][1] != "rs", c)
    holds(lun_of("r1.before"), 8, "the backup holds the data the refresh replaced")
    ok("r1 keeps its LUN and its NAA-bearing identity (still mapped once)",
       req("GET", "volumes", params={"name": "r1"}).json()["content"]["num-of-lun-mappings"] == 1)

    # ---- no-backup (as a string, as CoprHD and xtremio-python send it)
    write(LUN, 9)
    before = snapshots()
    ws = watchers(A)
    ok("refresh with no-backup \"true\"", req("POST", "snapshots", json={
        "from-volume-id": "r1.s", "to-volume-id": "r1", "no-backup": "true"}).status_code == 201)
    ok("no backup snapshot made", snapshots() == before, snapshots())
    ok("one 06/28/00 again", two_turs(ws) == [["CHECK 6/28/00", "GOOD"]])
    holds(LUN, 5, "r1 holds the snapshot's data again")

    # ---- consistency group -> snapshot set (XtremIO.Utils' form), renamed (MTSXtremIO's new name)
    req("POST", "consistency-groups", json={"consistency-group-name": "rcg", "vol-list": ["r1", "r2"]})
    ok("a set of the group", req("POST", "snapshots", json={"consistency-group-id": "rcg", "snapshot-set-name": "cgs",
                                                             "snap-suffix": "c"}).status_code == 201)
    write(LUN, 11)
    r = req("POST", "snapshots", json={"from-consistency-group-id": "rcg", "to-snapshot-set-id": "cgs",
                                       "no-backup": True, "snapshot-set-name": "cgs2"})
    ok("refresh the set from the group: two links", r.status_code == 201 and len(r.json()["links"]) == 2, r.text)
    ok("the set is renamed cgs2", req("GET", "snapshot-sets", params={"name": "cgs2"}).status_code == 200)
    holds(lun_of("r1.c"), 11, "r1.c holds r1's data of the refresh")

    # ---- restore: snapshot set -> consistency group
    write(LUN, 12)
    ok("restore the group from the set", req("POST", "snapshots", json={
        "from-snapshot-set-id": "cgs2", "to-consistency-group-id": "rcg", "no-backup": True}).status_code == 201)
    holds(LUN, 11, "r1 is back to the set's data")

    # ---- refused, and nothing changed
    before = snapshots()
    expect_err("two sources", req("POST", "snapshots", json={"from-volume-id": "r1.s", "from-consistency-group-id":
                                                             "rcg", "to-volume-id": "r1"}),
               "Command Syntax Error: a refresh takes exactly one of from-volume-id, from-consistency-group-id, "
               "from-snapshot-set-id")
    expect_err("no target", req("POST", "snapshots", json={"from-volume-id": "r1.s"}),
               "Command Syntax Error: a refresh takes exactly one of to-volume-id, to-consistency-group-id, "
               "to-snapshot-set-id")
    expect_err("an unknown volume", req("POST", "snapshots", json={"from-volume-id": "nope", "to-volume-id": "r1"}),
               "vol_obj_not_found")
    expect_err("an unknown group", req("POST", "snapshots", json={"from-consistency-group-id": "nope",
                                                                  "to-volume-id": "r1"}), "cg_obj_not_found")
    expect_err("an unknown set", req("POST", "snapshots", json={"from-snapshot-set-id": "nope",
                                                                "to-volume-id": "r1"}), "obj_not_found")
    expect_err("sizes differ", req("POST", "snapshots", json={"from-volume-id": "big", "to-volume-id": "r1"}),
               "Command Syntax Error: to-volume-id: 'big' and 'r1' differ in size or block size")
    expect_err("from itself", req("POST", "snapshots", json={"from-volume-id": "r1", "to-volume-id": "r1"}),
               "Command Syntax Error: to-volume-id: 'r1' cannot be refreshed from itself")
    expect_err("no-backup not a boolean", req("POST", "snapshots", json={"from-volume-id": "r1.s",
                                                                         "to-volume-id": "r1", "no-backup": "yes"}),
               "Command Syntax Error: no-backup: want true or false")
    expect_err("a suffix without a backup", req("POST", "snapshots", json={
        "from-volume-id": "r1.s", "to-volume-id": "r1", "no-backup": True, "backup-snap-suffix": "x"}),
        "Command Syntax Error: backup-snap-suffix: no backup is made with no-backup")
    expect_err("a group against one volume", req("POST", "snapshots", json={
        "from-consistency-group-id": "rcg", "to-volume-id": "r1"}),
        "Command Syntax Error: from-consistency-group-id has 2 volumes, to-volume-id 1")
    expect_err("the backup's name taken", req("POST", "snapshots", json={
        "from-volume-id": "r1.s", "to-volume-id": "r1", "backup-snap-suffix": "before"}), "vol_obj_name_not_unique")
    expect_err("the new set name taken", req("POST", "snapshots", json={
        "from-consistency-group-id": "rcg", "to-snapshot-set-id": "cgs2", "no-backup": True,
        "snapshot-set-name": "rs"}), "obj_name_not_unique")
    ok("no snapshot made or lost by the refusals", snapshots() == before, snapshots())
    holds(LUN, 11, "r1 unchanged by the refusals")
    finish("refresh")


if __name__ == "__main__":
    sys.exit(main())
