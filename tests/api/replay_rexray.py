#!/usr/bin/python3
"""REX-Ray's XtremIO storage driver, replayed: the driver's flow over
goxtremio, from rexray/rexray drivers/storage/xtremio/storage.go (commit
2856d9c01488e682b81830ca2eac881953b72562); the request shapes are
goxtremio's (replay_goxtremio.py: endpoint + "//types/TYPE", Basic, a
"null" body on GET and DELETE, Go's encoding/json on the answers).

- Init: GetInitiator("", IQN): initiators?name=IQN (the host's initiator is
  found by its iSCSI name used as its name);
- CreateVolume: POST volumes {"vol-name", "vol-size": GB*1024*1024 (KiB, a
  JSON integer)}; links[0].href's index; GetVolume(index): vol-size (Atoi:
  a decimal string), index, sys-id[0] (a string), naa-name;
- AttachVolume: GetInitiatorGroup("", IQN) (the group named as the
  initiator), POST lun-maps {"vol-id": int, "ig-id": int};
- GetVolumeMapping: GetVolumes and GetLunMaps (name + href) as signatures,
  each volume's naa-name matched against /dev/disk/by-id/wwn-0x... (the
  last 16 hex digits), lun-mapping-list entries whose item [1] is an id
  whose name ([1]) is the IQN;
- CreateSnapshot: POST snapshots {"snap-list": [{"ancestor-vol-id": NAME,
  "snap-vol-name"}], "folder-id": "/"}; GetSnapshot(index): ancestor-vol-id
  [2] (a number), creation-time; the volume's dest-snap-list [2];
- DetachVolume: lun-maps whose name VOL_IG_TG matches, DELETE lun-maps/ID;
  RemoveSnapshot / RemoveVolume: DELETE snapshots/ID, volumes/ID.
- Init's first test, isXtremIOAttached: a SCSI device whose sysfs vendor
  (INQUIRY's, trimmed) is "XtremIO" (/sys/class/scsi_device/*/device/vendor):
  run.sh starts this check's cluster with identity=xtremio (docs/identity.md),
  so the mapped volume's standard INQUIRY (iscsi-inq) must say vendor
  "XtremIO"; by default lunlab's LUs say "LUNLAB".
"""
import json
import os
import subprocess

from replay_lib import BASE, USER, PASSWORD, ok, fields, finish, session

s = session()
s.auth = (USER, PASSWORD)
EP = BASE + "/api/json"
IQN = "iqn.2026-12.org.lunlab:rexray-host"
PORTAL = os.environ["LUNLAB_PORTAL"]
TARGET = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]


def query(method, path, id_="", name="", body=None):
    url = "%s//types/%s" % (EP, path)
    if id_:
        url = "%s/%s" % (url, id_)
    return s.request(method, url, params={"name": name} if name else {}, data=json.dumps(body))


def index_of(href):
    return href.rsplit("/", 1)[1]


def main():
    # the host's group and initiator, both named by its IQN (as REX-Ray expects), made the Cinder way
    ok("setup: group", s.post(BASE + "/api/json/v2/types/initiator-groups", json={"ig-name": IQN}).status_code == 201)
    ok("setup: initiator", s.post(BASE + "/api/json/v2/types/initiators",
                                  json={"ig-id": IQN, "port-address": IQN}).status_code == 201)
    r = query("GET", "initiators", name=IQN)
    ini = r.json().get("content", {})
    ok("Init: GetInitiator by the IQN as name", r.status_code == 200 and ini.get("name") == IQN, r.text)
    fields("initiator", ini, {"index": "int", "name": "str"})

    r = query("POST", "volumes", body={"vol-name": "rex-v", "vol-size": 1 * 1024 * 1024})
    ok("CreateVolume: 201 with links", r.status_code == 201, r.text)
    vid = index_of(r.json()["links"][0]["href"])
    v = query("GET", "volumes", id_=vid).json()["content"]
    fields("volume", v, {"vol-size": "strint", "index": "int", "naa-name": "str", "name": "str", "sys-id": "list",
                         "lun-mapping-list": "list", "dest-snap-list": "list"})
    ok("volume: 1 GiB (Atoi(vol-size)/1024/1024 == 1), sys-id[0] a string",
       int(v["vol-size"]) // 1024 // 1024 == 1 and isinstance(v["sys-id"][0], str), v)

    r = query("GET", "initiator-groups", name=IQN)
    ig = r.json().get("content", {})
    ok("AttachVolume: GetInitiatorGroup by the IQN", r.status_code == 200 and isinstance(ig.get("index"), int), r.text)
    r = query("POST", "lun-maps", body={"vol-id": int(vid), "ig-id": ig["index"]})
    ok("AttachVolume: POST lun-maps with int ids: 201", r.status_code == 201, r.text)

    # GetVolumeMapping
    vols = query("GET", "volumes").json()["volumes"]
    maps = query("GET", "lun-maps").json()["lun-maps"]
    ok("signatures: volumes and lun-maps as name + href", all({"name", "href"} <= set(x) for x in vols + maps)
       and len(vols) == 1 and len(maps) == 1, (vols, maps))
    v = query("GET", "volumes", id_=index_of(vols[0]["href"])).json()["content"]
    mine = [l2 for l1 in v["lun-mapping-list"] for l2 in l1 if isinstance(l2, list) and l2[1] == IQN]
    ok("lun-mapping-list: an entry whose id names the IQN's group", len(mine) == 1, v["lun-mapping-list"])
    lun = v["lun-mapping-list"][0][2]
    p = subprocess.run([API_SCSI, "-i", IQN, "naa", "iscsi://%s/%s/%d" % (PORTAL, TARGET, lun)],
                       capture_output=True, text=True, timeout=120)
    ok("naa-name is the LU's VPD 83h NAA: /dev/disk/by-id/wwn-0x%s's last 16 digits match" % p.stdout.strip(),
       p.returncode == 0 and p.stdout.strip()[-16:] == v["naa-name"][-16:] and len(v["naa-name"]) == 32,
       (p.stdout, p.stderr, v["naa-name"]))
    inq = subprocess.run(["iscsi-inq", "-i", IQN, "iscsi://%s/%s/%d" % (PORTAL, TARGET, lun)], capture_output=True,
                         text=True, timeout=60).stdout
    vendor = [line.split(":", 1)[1].strip() for line in inq.splitlines() if line.startswith("Vendor:")]
    ok("isXtremIOAttached: the volume's INQUIRY vendor, trimmed, is XtremIO (identity=xtremio)",
       vendor == ["XtremIO"], inq)

    # CreateSnapshot of the volume, by its name
    r = query("POST", "snapshots", body={"snap-list": [{"ancestor-vol-id": "rex-v", "snap-vol-name": "rex-s"}],
                                         "folder-id": "/"})
    ok("CreateSnapshot: 201", r.status_code == 201, r.text)
    sid = index_of(r.json()["links"][0]["href"])
    sn = query("GET", "snapshots", id_=sid).json()["content"]
    fields("snapshot", sn, {"name": "str", "index": "int", "ancestor-vol-id": "list", "creation-time": "str"})
    ok("the snapshot's ancestor-vol-id[2] is the volume's index (a number)",
       sn["ancestor-vol-id"][2] == int(vid) and sn["name"] == "rex-s", sn)
    v = query("GET", "volumes", id_=vid).json()["content"]
    ok("the volume's dest-snap-list [2] names the snapshot", [d[2] for d in v["dest-snap-list"]] == [int(sid)],
       v["dest-snap-list"])

    # DetachVolume: the map named VOL_IG_TG
    refs = [m for m in query("GET", "lun-maps").json()["lun-maps"]
            if len(m["name"].split("_")) >= 3 and m["name"].split("_")[:2] == [vid, str(ig["index"])]]
    ok("DetachVolume: the map found by its name", len(refs) == 1, refs)
    r = query("DELETE", "lun-maps", id_=index_of(refs[0]["href"]))
    ok("DELETE lun-maps/ID (null body): 200", r.status_code == 200, r.text)
    ok("RemoveSnapshot: 200", query("DELETE", "snapshots", id_=sid).status_code == 200)
    ok("RemoveVolume: 200", query("DELETE", "volumes", id_=vid).status_code == 200)
    r = query("GET", "volumes", id_=vid)
    ok("gone: 400 obj_not_found (its GetVolume maps that to no volume)",
       r.status_code == 400 and r.json().get("message") == "obj_not_found", r.text)
    finish("rexray")


main()
