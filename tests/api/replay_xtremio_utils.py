#!/usr/bin/python3
"""XtremIO.Utils (mtboren, PowerShell), replayed: the requests its
Connect-XIOServer, Get-XIO* and New-XIO* send and the fields it reads,
from XtremIO.Utils/OtherXIOMgmt.ps1 (Connect-XIOServer),
XIO_SupportingFunctions.ps1 (New-XioApiURI, Get-XIOInfo,
_New-ObjectFromApiObject: the fields per type), GetXIOItem.ps1 and
NewXIOItem.ps1, SetXIOItem.ps1, RemoveXIOItem.ps1 (the tag cmdlets) and
configItems.ps1 (TagEntityTypeMapping) at commit 6f6334827e60d5d323282f66b301f9bc7da83b2b.

Its flows, with HTTP Basic on every request (Get-BasicAuthStringFromCredential):
- Connect-XIOServer: GET /api/json/types; when a child is named "xms", GET
  its href + "/1" and cast restapi-protocol-version, db-version and version
  to [System.Version] (dotted numbers only: "6.3.0-58" would throw); GET
  /api/json/types/clusters and keep .clusters.name.
- Get-XIO<Type>: the URI is https://HOST/api/json/v{major of
  restapi-protocol-version}/types/TYPE (only port 443 builds https URIs: the
  replay uses the test's port); for the types of its
  ItemTypesSupportingClusterNameInput "?cluster-name=CLUSTER" is added to
  the list and to each href it then GETs; each object's content fields are
  read.  PowerShell gives $null for a missing field, so a missing one
  breaks only where it is indexed (sys-id[1], brick-id.Item(1), ...), cast
  ([System.Version], [int]) or split (local-disk-uid.Split("_")[3]): those
  are asserted present with their type, with the others it shows.
- New-XIOVolume / -InitiatorGroup / -Initiator / -LunMap: first a Get by
  name (the item must not exist), then POST /api/json/types/TYPE (v1: it
  adds the /v{N} piece only when a caller passes XiosRestApiVersion) with
  its JSON spec plus "cluster-id": NAME when -Cluster is given; a 201's
  links[].href (+ "?cluster-name=") are then read back.
"""
import re
import time

from replay_lib import BASE, USER, PASSWORD, ok, fields, finish, session

S = session()
S.auth = (USER, PASSWORD)   # every request carries Basic: no session cookie
VERSION = re.compile(r"^\d+\.\d+(\.\d+){0,2}$")   # what [System.Version] parses


def get(url):
    r = S.get(url)
    ok("GET %s: 200" % url.replace(BASE, ""), r.status_code == 200, (r.status_code, r.text[:200]))
    return r.json() if r.status_code == 200 else {}


def sysid(label, c):
    # ClusterName = $oContent."sys-id".Item(1) / [1]; ClusterId = [0]
    ok("%s: sys-id is [guid, name, index]" % label, isinstance(c.get("sys-id"), list) and len(c["sys-id"]) == 3
       and isinstance(c["sys-id"][1], str), c.get("sys-id"))


def connect():
    top = get(BASE + "/api/json/types")
    kids = {c["name"]: c["href"] for c in top.get("children", [])}
    ok("Connect: /types lists xms", "xms" in kids, top)
    xms = get(kids["xms"] + "/1")["content"]
    for f in ("restapi-protocol-version", "db-version", "version"):
        ok("Connect: xms %s casts to [System.Version]" % f, isinstance(xms.get(f), str) and VERSION.match(xms[f]),
           xms.get(f))
    fields("xms", xms, {"sw-version": "str"})
    clusters = [c["name"] for c in get(BASE + "/api/json/types/clusters")["clusters"]]
    ok("Connect: cluster names", clusters == ["xbrick1"], clusters)
    return "/v%s" % xms["restapi-protocol-version"].split(".")[0], clusters[0]


def get_type(ver, cluster, kind, spec, by_cluster=True):
    q = "?cluster-name=%s" % cluster if by_cluster else ""
    lst = get(BASE + "/api/json%s/types/%s%s" % (ver, kind, q)).get(kind, [])
    ok("Get-XIO %s: a list of href/name" % kind, len(lst) > 0 and all("href" in x for x in lst), lst)
    out = []
    for x in lst[:3]:
        c = get(x["href"] + q).get("content", {})
        fields(kind, c, spec)
        out.append(c)
    return out


TAG = {"name": "str", "caption": "str", "child-list": "list", "color": "str", "creation-time-long": "int",
       "direct-list": "list", "guid": "str", "index": "int", "num-of-children": "int", "num-of-direct-objs": "int",
       "num-of-items": "int", "obj-list": "list", "object-type": "str", "parent-id": "list", "xms-id": "list"}


def new_tag(ver, name, entity, color=None):
    """New-XIOTag: Get-XIOItemInfo by name first (the tags list, names matched with -like:
    none may match), then POST on v2 (it sets XiosRestApiVersion 2.0), the links read back"""
    names = [t["name"] for t in get(BASE + "/api/json%s/types/tags" % ver).get("tags", [])]
    ok("New-XIOTag %s: no such tag yet" % name, name not in names, names)
    body = {"tag-name": name, "entity": entity}
    if color:
        body["color"] = color
    r = S.post(BASE + "/api/json/v2/types/tags", json=body)
    ok("New-XIOTag %s: 201 Created" % name, r.status_code == 201 and r.reason == "Created", (r.status_code, r.text))
    href = r.json()["links"][0]["href"] if r.status_code == 201 else ""
    c = get(href).get("content", {})
    fields("tag", c, TAG)
    return href, c


def tags(ver, cluster):
    """New-XIOTag, New-XIOTagAssignment, Get-XIOTag -RelatedObject, Set-XIOTag,
    Remove-XIOTagAssignment, Remove-XIOTag (NewXIOItem.ps1, SetXIOItem.ps1, RemoveXIOItem.ps1;
    the Tag's fields from _New-ObjectFromApiObject's "tags" case).  Tags take no cluster-name
    (ItemTypesSupportingClusterNameInput lacks them); an object's TagList is its tag-list of
    [guid, name, index]; a body names the tag by "tag-id" and the entity by its object id."""
    href, t = new_tag(ver, "utils-tag", "Volume", "#FFCC99")
    ok("the tag is /Volume/utils-tag, object-type Volume, color #FFCC99, a child of /Volume",
       t.get("name") == "/Volume/utils-tag" and t.get("object-type") == "Volume" and t.get("color") == "#FFCC99"
       and t.get("parent-id", [0, 0])[1] == "/Volume", t)
    sub_href, sub = new_tag(ver, "/Volume/utils-tag/subF", "Volume")
    ok("the nested tag's ParentTag is utils-tag", sub.get("parent-id", [0, 0])[1] == "/Volume/utils-tag", sub)
    vol_href = [v["href"] for v in get(BASE + "/api/json%s/types/volumes?cluster-name=%s" % (ver, cluster))["volumes"]
                if v["name"] == "utils-v"][0] + "?cluster-name=" + cluster
    vol = get(vol_href)["content"]
    # New-XIOTagAssignment -Tag $t -Entity $vol: PUT the tag's Uri
    r = S.put(href, json={"tag-id": [t["guid"], t["name"], t["index"]], "entity": "Volume",
                          "entity-details": [vol["guid"], vol["name"], vol["index"]], "cluster-id": cluster})
    ok("New-XIOTagAssignment: 200", r.status_code == 200, r.text)
    t = get(href)["content"]
    ok("the tag's DirectObjectList holds utils-v", [d[1] for d in t["direct-list"]] == ["utils-v"], t)
    vol = get(vol_href)["content"]
    names = [x[1] for x in vol.get("tag-list", [])]
    ok("the volume's TagList names the tag", names == ["/Volume/utils-tag"], vol.get("tag-list"))
    # Get-XIOTag -RelatedObject $vol: the tags list matched by TagList.Name
    lst = get(BASE + "/api/json%s/types/tags" % ver)["tags"]
    ok("Get-XIOTag -RelatedObject: found by its name", [x["name"] for x in lst if x["name"] in names] == names, lst)
    # Set-XIOTag -Caption utils-renamed -Color 00FF00: PUT the tag's Uri, then read it back
    r = S.put(href, json={"caption": "utils-renamed", "color": "#00FF00"})
    ok("Set-XIOTag: 200", r.status_code == 200, r.text)
    t = get(href)["content"]
    ok("renamed and recolored", t["name"] == "/Volume/utils-renamed" and t["caption"] == "utils-renamed"
       and t["color"] == "#00FF00", t)
    ok("its child follows", get(sub_href)["content"]["name"] == "/Volume/utils-renamed/subF")
    # Remove-XIOTagAssignment: DELETE the tag's Uri with tag-id, entity, entity-details, cluster-id
    r = S.delete(href, json={"tag-id": [t["guid"], t["name"], t["index"]], "entity": "Volume",
                             "entity-details": [vol["guid"], vol["name"], vol["index"]], "cluster-id": cluster})
    ok("Remove-XIOTagAssignment: 200", r.status_code == 200, r.text)
    ok("the volume's TagList is empty", get(vol_href)["content"]["tag-list"] == [])
    # Remove-XIOTag: DELETE the tag's Uri with its tag-id; "and any child tags"
    r = S.delete(href, json={"tag-id": [t["guid"], t["name"], t["index"]]})
    ok("Remove-XIOTag: 200", r.status_code == 200, r.text)
    left = [x["name"] for x in get(BASE + "/api/json%s/types/tags" % ver)["tags"]]
    ok("the tag and its child are gone, the root stays", left == ["/Volume"], left)


def main():
    ver, cluster = connect()
    ok("the version piece is /v3", ver == "/v3", ver)

    # New-XIOVolume -Name utils-v -SizeGB 2 -Cluster xbrick1: Get by name first (absent), then POST v1
    lst = get(BASE + "/api/json%s/types/volumes?cluster-name=%s" % (ver, cluster)).get("volumes", [])
    ok("New-XIOVolume: no such volume yet", "utils-v" not in [v["name"] for v in lst])
    r = S.post(BASE + "/api/json/types/volumes", json={"vol-name": "utils-v", "vol-size": "2g", "cluster-id": cluster,
                                                      "small-io-alerts": "enabled"})
    ok("New-XIOVolume: 201 Created", r.status_code == 201 and r.reason == "Created", (r.status_code, r.reason, r.text))
    for link in r.json().get("links", []):
        c = get(link["href"] + "?cluster-name=" + cluster)["content"]
        ok("the new volume read back, 2 GiB, small-io-alerts kept",
           c["name"] == "utils-v" and c["vol-size"] == "2097152" and c["small-io-alerts"] == "enabled", c)
    # New-XIOInitiatorGroup -Name utils-ig, New-XIOInitiator, New-XIOLunMap
    r = S.post(BASE + "/api/json/types/initiator-groups", json={"ig-name": "utils-ig", "cluster-id": cluster})
    ok("New-XIOInitiatorGroup: 201", r.status_code == 201, r.text)
    r = S.post(BASE + "/api/json/types/initiators", json={"initiator-name": "utils-i", "ig-id": "utils-ig",
                                                         "port-address": "iqn.2026-12.org.lunlab:utils",
                                                         "cluster-id": cluster})
    ok("New-XIOInitiator: 201", r.status_code == 201, r.text)
    r = S.post(BASE + "/api/json/types/lun-maps", json={"vol-id": "utils-v", "ig-id": "utils-ig", "lun": 11,
                                                       "cluster-id": cluster})
    ok("New-XIOLunMap: 201", r.status_code == 201, r.text)

    ids = {"guid": "str", "index": "int", "name": "str", "xms-id": "list", "sys-id": "list"}
    for c in get_type(ver, cluster, "volumes", dict(ids, **{"vol-size": "strint", "lb-size": "int",
                                                            "naa-name": "str", "lun-mapping-list": "list",
                                                            "small-io-alerts": "str", "vol-id": "list"})):
        sysid("volume", c)
    c = get_type(ver, cluster, "clusters", {"guid": "str", "index": "int", "name": "str", "sys-id": "list",
                                            "license-id": "str", "sys-psnt-serial-number": "str",
                                            "sys-sw-version": "str", "sys-state": "str", "size-and-capacity": "str",
                                            "ud-ssd-space": "strint", "ud-ssd-space-in-use": "strint",
                                            "num-of-ssds": "int", "num-of-vols": "int", "compression-factor": "num",
                                            "dedup-ratio": "num", "data-reduction-ratio": "num",
                                            "thin-provisioning-ratio": "num", "logical-space-in-use": "strint"},
                 by_cluster=False)
    for c in get_type(ver, cluster, "initiator-groups", dict(ids, **{"ig-id": "list", "num-of-initiators": "int",
                                                                     "num-of-vols": "int"})):
        sysid("initiator group", c)
    for c in get_type(ver, cluster, "initiators", dict(ids, **{"ig-id": "list", "initiator-id": "list",
                                                               "port-address": "str", "port-type": "str",
                                                               "operating-system": "str"})):
        sysid("initiator", c)
    for c in get_type(ver, cluster, "lun-maps", dict(ids, **{"mapping-id": "list", "ig-name": "str",
                                                             "ig-index": "int", "vol-name": "str", "vol-index": "int",
                                                             "tg-name": "str", "tg-index": "int", "lun": "int"})):
        ok("lun map: LUN 11 of utils-v", c["lun"] == 11 and c["vol-name"] == "utils-v", c)
    hw = {"guid": "str", "index": "int", "name": "str", "sys-id": "list", "brick-id": "list", "xms-id": "list",
          "enabled-state": "str", "serial-number": "str", "part-number": "str", "model-name": "str",
          "fw-version": "str", "hw-revision": "str", "obj-severity": "str"}
    b = get_type(ver, cluster, "bricks", {"brick-id": "list", "sys-id": "list", "index-in-system": "int",
                                          "num-of-nodes": "int", "num-of-ssds": "int", "node-list": "list",
                                          "ups-list": "list", "jbod-list": "list", "ssd-slot-array": "list",
                                          "rg-id": "list", "brick-state": "str", "obj-severity": "str"})
    # Name = $oContent."brick-id".Item(1); the SSDs at index 3 of each ssd-slot-array entry
    ok("brick: brick-id[1] and every slot's [3] an object id", b and b[0]["brick-id"][1] == "X1" and all(
        isinstance(s, list) and len(s) > 3 and len(s[3]) == 3 for s in b[0]["ssd-slot-array"]), b[:1])
    get_type(ver, cluster, "ssds", dict(hw, **{"ssd-id": "list", "ssd-size-in-kb": "int", "useful-ssd-space": "strint",
                                               "ssd-space-in-use": "strint", "percent-endurance-remaining": "int",
                                               "slot-num": "int", "ssd-uid": "str", "rg-id": "list",
                                               "diagnostic-health-state": "str", "iops": "strint"}))
    get_type(ver, cluster, "storage-controllers", dict(hw, **{"node-id": "list", "node-health-state": "str",
                                                              "sc-start-timestamp": "int", "local-disk-list": "list",
                                                              "monitored-ups-list": "list", "sw-version": "str",
                                                              "bios-fw-version": "str", "index-in-brick": "int"}))
    get_type(ver, cluster, "xenvs", {"guid": "str", "index": "int", "name": "str", "brick-id": "list",
                                     "node-id": "list", "xenv-id": "list", "cpu-usage": "num", "num-of-mdls": "int",
                                     "xenv-state": "str"})
    for c in get_type(ver, cluster, "local-disks", dict(hw, **{"local-disk-id": "list", "node-id": "list",
                                                               "local-disk-uid": "str", "slot-num": "int"})):
        p = c["local-disk-uid"].split("_")
        ok("local-disk-uid.Split('_')[1] and [3] exist", len(p) >= 4, c["local-disk-uid"])
    get_type(ver, cluster, "bbus", dict(hw, **{"ups-id": "list", "index-in-brick": "int", "power": "int",
                                               "ups-battery-charge-in-percent": "int", "ups-load-in-percent": "int",
                                               "is-low-battery-has-input": "str", "ups-need-battery-replacement": "str",
                                               "monitoring-nodes-obj-id-list": "list"}))
    get_type(ver, cluster, "dae-controllers", dict(hw, **{"jbod-id": "list", "jbod-controller-id": "list"}))
    get_type(ver, cluster, "dae-psus", dict(hw, **{"jbod-id": "list", "jbod-psu-id": "list", "power-feed": "str"}))
    for c in get_type(ver, cluster, "targets", {"guid": "str", "index": "int", "name": "str", "brick-id": "list",
                                                "port-type": "str", "port-address": "str", "port-state": "str",
                                                "sys-id": "list"}):
        sysid("target", c)
    # alert-definitions and alerts have no cluster-name in its list
    get_type(ver, cluster, "alert-definitions", {"alert-code": "str", "alert-type": "str", "class-name": "str",
                                                 "clearance-mode": "str", "activity-mode": "str", "guid": "str",
                                                 "index": "int", "name": "str", "severity": "str",
                                                 "threshold-type": "str", "threshold-value": "strint",
                                                 "user-modified": "str", "send-to-call-home": "str"},
             by_cluster=False)
    # Get-XIOEvent: the events list holds whole objects
    ev = get(BASE + "/api/json%s/types/events" % ver).get("events", [])
    ok("Get-XIOEvent: events", len(ev) > 0, ev[:1])
    for e in ev[:3]:
        fields("event", e, {"classification": "str", "description": "str", "entity": "str", "id": "int",
                            "severity": "str", "timestamp": "str"})
    tags(ver, cluster)
    performance(ver, cluster)
    finish("xtremio-utils")


def performance(ver, cluster):
    """Get-XIOPerformanceCounter -EntityType Volume -TimeFrame last_hour -AggregationType avg,max
    -Cluster C (GetXIOItem.ps1): "/types/performance/?limit=50&entity=Volume&time-frame=last_hour
    &aggregation-type=avg&aggregation-type=max&cluster-name=C" (limit first, then the name=value
    pairs, then one aggregation-type per value, the cluster last); _New-Object_fromItemTypeAndContent
    takes name, guid, timestamp (ms: AddMilliseconds) and index by IndexOf in members, and
    every other member as a counter, by position"""
    url = (BASE + "/api/json%s/types/performance/?limit=50&entity=Volume&time-frame=last_hour"
           "&aggregation-type=avg&aggregation-type=max&cluster-name=%s" % (ver, cluster))
    get(url)
    time.sleep(1.1)   # a second reading (a query reads at most once a second; not a timing check)
    r = get(url)
    m = r.get("members", [])
    ok("Get-XIOPerformanceCounter: name, guid, timestamp and index among the members",
       all(k in m for k in ("name", "guid", "timestamp", "index")), m)
    ok("-AggregationType avg,max: avg__ and max__ counters", "avg__iops" in m and "max__iops" in m, m)
    rows = r.get("counters", [])
    ok("a row per volume of the cluster, a value per member, the timestamp a number of ms",
       rows and all(len(x) == len(m) and isinstance(x[m.index("timestamp")], int) and
                    x[m.index("timestamp")] > 10 ** 12 for x in rows), rows[:2])


main()
