#!/usr/bin/python3
"""Drive OpenStack's own XtremIO driver (Debian 12 python3-cinder,
cinder/volume/drivers/dell_emc/xtremio.py, XtremIOISCSIDriver) against
lunlab-target's XMS API, and check every effect on the SCSI side with
libiscsi (tests/api/api_scsi).

No other part of OpenStack runs: the driver gets a configuration object and
volume/snapshot/group records the way cinder-volume would hand them over.
Every driver call must succeed, and each one's effect is checked where an
initiator sees it: data of a snapshot's moment, a clone independent after
writes, a grown capacity (with its unit attention), a deleted or unmapped
volume gone, get_volume_stats equal to what LOG SENSE reports.  Runs twice:
with the cluster's chap-authentication-mode disabled, then enabled through
the API (PUT clusters, as on an XMS), so the driver's CHAP path runs too.

Environment: LUNLAB_API (host:port of the API), LUNLAB_API_USER,
LUNLAB_API_PASSWORD, LUNLAB_PORTAL (host:port of iSCSI), LUNLAB_IQN (the
target), API_SCSI (the api_scsi binary).  Exit 0 when every check passed.
"""
import os
import subprocess
import sys
import uuid
from unittest import mock

import requests
import urllib3

from cinder import objects

objects.register_all()
from cinder.volume.drivers.dell_emc import xtremio  # noqa: E402

urllib3.disable_warnings()

from replay_lib import API, USER, PASSWORD, ok, finish  # noqa: E402
PORTAL = os.environ["LUNLAB_PORTAL"]
IQN = os.environ["LUNLAB_IQN"]
API_SCSI = os.environ["API_SCSI"]
GIB = 1 << 30

class Rec(dict):
    """A cinder record: dict and attribute access (the driver uses both)."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k)


def volume(size, group_id=None):
    vid = str(uuid.uuid4())
    return Rec(id=vid, name_id=vid, name="volume-" + vid, size=size, group_id=group_id,
               consistencygroup_id=None, volume_attachment=[])


def snapshot(vol):
    sid = str(uuid.uuid4())
    return Rec(id=sid, name="snapshot-" + sid, volume_id=vol["id"], volume_size=vol["size"], cgsnapshot_id=None,
               consistencygroup_id=None)


def make_driver(cluster="", clean_ig=False, busy_count=5, busy_interval=1):
    cfg = mock.Mock(san_ip=API, san_login=USER, san_password=PASSWORD,
                    xtremio_cluster_name=cluster, xtremio_array_busy_retry_count=busy_count,
                    xtremio_array_busy_retry_interval=busy_interval, xtremio_volumes_per_glance_cache=100,
                    xtremio_clean_unused_ig=clean_ig, xtremio_ports=[],
                    driver_ssl_cert_verify=False, driver_ssl_cert_path=None,
                    max_over_subscription_ratio=20.0, reserved_percentage=0,
                    volume_backend_name="lunlab" + (("-" + cluster) if cluster else ""))
    cfg.safe_get = lambda k: getattr(cfg, k)
    drv = xtremio.XtremIOISCSIDriver(configuration=cfg)
    drv.db = mock.Mock()
    drv.db.image_volume_cache_get_by_volume_id.return_value = None
    return drv


def api(method, path, **kw):
    return requests.request(method, "https://%s/api/json/v2/types/%s" % (API, path),
                            auth=(USER, PASSWORD), verify=False, timeout=60, **kw)


class Session:
    """How the SCSI side is reached for one connection the driver made."""

    def __init__(self, initiator, props):
        self.initiator = initiator
        self.props = props
        self.env = dict(os.environ)
        auth = ""
        if props.get("auth_method") == "CHAP":
            auth = props["auth_username"] + "@"
            self.env["LIBISCSI_CHAP_PASSWORD"] = props["auth_password"]
        # exactly the portal, IQN and LUN the driver returned
        self.url = "iscsi://%s%s/%s/%d" % (auth, props["target_portal"], props["target_iqn"],
                                           props["target_lun"])

    def run(self, *args, env=None):
        p = subprocess.run([API_SCSI, "-i", self.initiator] + list(args), capture_output=True,
                           text=True, env=env or self.env, timeout=120)
        return p.returncode, p.stdout.strip(), p.stderr.strip()

    def write(self, lba, blocks, seed):
        rc, out, err = self.run("write", self.url, str(lba), str(blocks), str(seed))
        return rc == 0 or print(err)

    def verify(self, lba, blocks, seed):
        rc, out, err = self.run("verify", self.url, str(lba), str(blocks), str(seed))
        return rc == 0 or print(err)

    def capacity(self):
        rc, out, err = self.run("capacity", self.url)
        return int(out.split()[0]) if rc == 0 else -1

    def logsense(self, page):
        rc, out, err = self.run("logsense", self.url, str(page))
        return {int(l.split()[0], 16): int(l.split()[1]) for l in out.splitlines()} if rc == 0 else {}


def luns_of(initiator, env=None, user=None):
    auth = user + "@" if user else ""
    p = subprocess.run([API_SCSI, "-i", initiator, "luns", "iscsi://%s%s/%s/0" % (auth, PORTAL, IQN)],
                       capture_output=True, text=True, env=env, timeout=120)
    return [int(x) for x in p.stdout.split()] if p.returncode == 0 else None


def connect(drv, vol, connector):
    info = drv.initialize_connection(vol, connector)
    ok("initialize_connection(%s): iscsi" % vol["id"][:8], info["driver_volume_type"] == "iscsi", info)
    return Session(connector["initiator"], info["data"])


def scenario(drv, chap):
    tag = "chap" if chap else "nochap"
    connector = {"initiator": "iqn.1993-08.org.debian:01:cinder-%s" % tag, "host": "host-" + tag,
                 "ip": "127.0.0.1"}
    print("---- scenario: chap-authentication-mode %s" % ("initiator" if chap else "disabled"))
    r = api("PUT", "clusters/1", json={"chap-authentication-mode": "initiator" if chap else "disabled"})
    ok("PUT clusters chap-authentication-mode", r.status_code == 200, r.text)

    v1 = volume(1)
    drv.create_volume(v1)
    s1 = connect(drv, v1, connector)
    p = s1.props
    ok("properties name the target and a portal", p["target_iqn"] == IQN and p["target_portal"] == PORTAL, p)
    ok("CHAP properties %s" % ("given" if chap else "absent"),
       (p.get("auth_method") == "CHAP" and p.get("auth_username") == "chap_user"
        and len(p.get("auth_password", "")) == 12) if chap else "auth_method" not in p, p)
    ok("create_volume: 1 GiB LU at the driver's LUN", s1.capacity() == GIB)
    ok("a new volume reads zeros", s1.verify(0, 64, 0))
    ok("write data A to the volume", s1.write(0, 64, 11))
    if chap:
        env = dict(os.environ, LIBISCSI_CHAP_PASSWORD="wrong-password-x")
        rc = subprocess.run([API_SCSI, "-i", connector["initiator"], "login", s1.url], env=env,
                            capture_output=True, timeout=60).returncode
        ok("a wrong CHAP secret is refused at login", rc == 3, rc)
        plain = "iscsi://%s/%s/%d" % (p["target_portal"], p["target_iqn"], p["target_lun"])
        env = dict(os.environ)
        env.pop("LIBISCSI_CHAP_PASSWORD", None)
        rc = subprocess.run([API_SCSI, "-i", connector["initiator"], "login", plain], env=env,
                            capture_output=True, timeout=60).returncode
        ok("a login without CHAP is refused", rc == 3, rc)
    other = luns_of("iqn.1993-08.org.debian:01:not-mapped")
    ok("another initiator does not see the volume (masking)", other is not None and p["target_lun"] not in other,
       other)

    snap = snapshot(v1)
    drv.create_snapshot(snap)
    ok("write data B over A after the snapshot", s1.write(0, 64, 12))

    v2 = volume(2)
    drv.create_volume_from_snapshot(v2, snap)
    s2 = connect(drv, v2, connector)
    ok("create_volume_from_snapshot: the snapshot's moment (data A)", s2.verify(0, 64, 11))
    ok("create_volume_from_snapshot: extended to 2 GiB", s2.capacity() == 2 * GIB)

    v3 = volume(1)
    drv.create_cloned_volume(v3, v1)
    s3 = connect(drv, v3, connector)
    ok("create_cloned_volume: the source's data now (B)", s3.verify(0, 64, 12))
    ok("write data C to the clone", s3.write(0, 64, 13))
    ok("the source still holds B (the clone is independent)", s1.verify(0, 64, 12))
    ok("write data D to the source", s1.write(32, 16, 14))
    ok("the clone still holds C", s3.verify(0, 64, 13))

    # a session that watches the source LU while the driver grows it
    watcher = subprocess.Popen([API_SCSI, "-i", connector["initiator"], "watch", s1.url], env=s1.env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ready = watcher.stdout.readline().strip()
    drv.extend_volume(v1, 3)
    answers = []
    for _ in range(2):
        watcher.stdin.write("\n")
        watcher.stdin.flush()
        answers.append(watcher.stdout.readline().strip())
    watcher.stdin.close()
    watcher.wait(timeout=60)
    ok("extend_volume: a logged-in session gets CAPACITY DATA HAS CHANGED once",
       ready == "ready" and answers == ["CHECK 6/2a/09", "GOOD"], (ready, answers))
    ok("extend_volume: READ CAPACITY says 3 GiB", s1.capacity() == 3 * GIB)
    ok("extend_volume: the data stays", s1.verify(0, 32, 12) and s1.verify(32, 16, 14))

    stats = drv.get_volume_stats(refresh=True)
    ls = s1.logsense(0x30)
    ok("LOG SENSE 30h reports capacity, use and provisioning",
       all(k in ls for k in (0x30, 0x32, 0x34)) and ls[0x32] > 0 and ls[0x34] >= 5 * GIB, ls)
    ok("get_volume_stats: total capacity = LOG SENSE 30h capacity",
       abs(stats["total_capacity_gb"] * GIB - ls.get(0x30, -1)) < 1024, (stats, ls.get(0x30)))
    ok("get_volume_stats: free capacity = capacity - LOG SENSE 30h used",
       abs((stats["total_capacity_gb"] - stats["free_capacity_gb"]) * GIB - ls.get(0x32, -1)) < 1024,
       (stats, ls.get(0x32)))
    ok("get_volume_stats: provisioned = LOG SENSE 30h provisioned",
       abs(stats["provisioned_capacity_gb"] * GIB - ls.get(0x34, -1)) < 1024, (stats, ls.get(0x34)))
    ok("get_volume_stats: thin provisioning", stats["thin_provisioning_support"] is True)

    drv.terminate_connection(v3, connector)
    seen = luns_of(connector["initiator"], env=s1.env, user=p.get("auth_username"))
    ok("terminate_connection: the clone's LUN is gone for the host",
       seen is not None and s3.props["target_lun"] not in seen and p["target_lun"] in seen, seen)
    drv.delete_volume(v3)
    r = api("GET", "volumes", params={"name": v3["id"]})
    ok("delete_volume: the API no longer knows it", r.status_code == 400 and r.json()["message"] == "obj_not_found",
       r.text)
    drv.terminate_connection(v2, connector)
    drv.delete_volume(v2)
    drv.delete_snapshot(snap)
    r = api("GET", "volumes", params={"name": snap["id"]})
    ok("delete_snapshot: gone", r.status_code == 400, r.text)
    ok("the source survives its snapshot's and clone's deletion", s1.verify(0, 32, 12))

    # groups: a consistency group, its snapshot, a group made from that snapshot
    group = Rec(id=str(uuid.uuid4()), status="available")
    drv.create_group(None, group)
    g1, g2 = volume(1, group["id"]), volume(1, group["id"])
    drv.create_volume(g1)
    drv.create_volume(g2)
    sg1, sg2 = connect(drv, g1, connector), connect(drv, g2, connector)
    ok("write the group's volumes", sg1.write(100, 8, 21) and sg2.write(100, 8, 22))
    gsnap = Rec(id=str(uuid.uuid4()), group_id=group["id"], consistencygroup_id=None)
    snaps = [snapshot(g1), snapshot(g2)]
    drv.create_group_snapshot(None, gsnap, snaps)
    ok("write after the group snapshot", sg1.write(100, 8, 23) and sg2.write(100, 8, 24))
    group2 = Rec(id=str(uuid.uuid4()), status="available")
    n1, n2 = volume(1, group2["id"]), volume(1, group2["id"])
    drv.create_group_from_src(None, group2, [n1, n2], group_snapshot=gsnap, snapshots=snaps)
    sn1, sn2 = connect(drv, n1, connector), connect(drv, n2, connector)
    ok("create_group_from_src: both volumes hold the group snapshot's moment",
       sn1.verify(100, 8, 21) and sn2.verify(100, 8, 22))
    r = api("GET", "consistency-groups", params={"name": group2["id"]})
    ok("create_group_from_src: the new group holds both", r.status_code == 200 and
       sorted(x[1] for x in r.json()["content"]["vol-list"]) == sorted([n1["id"], n2["id"]]), r.text)
    for v in (n1, n2, g1, g2, v1):
        drv.terminate_connection(v, connector)
    seen = luns_of(connector["initiator"], env=s1.env, user=p.get("auth_username"))
    ok("every LUN of the host is unmapped", seen is not None and all(l < 1 for l in seen), seen)
    drv.delete_group_snapshot(None, gsnap, snaps)
    drv.delete_group(None, group2, [n1, n2])
    drv.delete_group(None, group, [g1, g2])
    drv.delete_volume(v1)
    left = api("GET", "volumes").json()["volumes"]
    ok("nothing is left of the scenario's volumes", all(x["name"] not in (v1["id"], g1["id"], n1["id"])
                                                       for x in left), left)


def main():
    drv = make_driver()
    drv.check_for_setup_error()
    ok("check_for_setup_error: XMS 4.2+ client", type(drv.client).__name__ == "XtremIOClient42",
       type(drv.client).__name__)
    scenario(drv, chap=False)
    scenario(drv, chap=True)
    finish("cinder")


if __name__ == "__main__":
    sys.exit(main())
