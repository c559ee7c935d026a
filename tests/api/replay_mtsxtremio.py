#!/usr/bin/python3
"""MTSXtremIO (dmuegge, PowerShell), replayed: the requests of its
Set-XIOAPIConnectionInfo, Get-XIO* and New-XIO* functions, from
MTSXtremIO.psm1 at commit 7eb17bbf4e8e47bc17d77f95e606b2707caf122b.

The module keeps a base URI https://HOST/api/json/v2/types/ (a trailing
'/') and a Basic Authorization header, and appends a path to it:
- Get-XIOAPITypes: GET the base itself (the slash stays: its Remove() result
  is thrown away) and returns .Children;
- Get-XIO<Type> without arguments: GET TYPE, then for each entry GET
  "TYPE/?name=NAME" (a '/' before the query) and returns .content; with
  -Cluster it adds "&cluster-id=N" when the value parses as an integer
  (Test-ClusterID), else "&cluster-name=NAME"; Get-XIOXms builds "/xms"
  (types//xms?name=...), the list under "xmss";
- Get-XIOEvent -FromDateTime: "events?from-date-time=YYYY-MM-DD HH:MM:SS"
  (DateTime 'u' less its Z, the space as %20), returns .events;
- New-XIOVolume: POST volumes {"vol-size", "vol-name", "cluster-id"};
  New-XIOInitiatorGroup: POST initiator-groups {"ig-name", "cluster-id"};
  New-XIOInitiator: POST "Initiators" (capital I) {"ig-id", "port-address",
  "initiator-name", "cluster-id"}; New-XIOLunMap: POST lun-maps {"vol-id"
  (a name), "ig-id", "lun", "tg-id"};
- the tags (its CPUG demo's flow): New-XIOTag -Name DMCPUG -Type Volume: POST
  tags {"entity", "tag-name": "DMCPUG"} (the tag is /Volume/DMCPUG);
  Add-XIOTagObject: PUT "tags/?name=/Volume/DMCPUG" {"entity",
  "entity-details": NAME}; Get-XIOTagObject: GET "tags/?name=T" and each
  direct-list entry's [1]; Remove-XIOTagObject: DELETE it with that body and
  "cluster-id"; Set-XIOTag -NewName: PUT {"caption"}; Remove-XIOTag: DELETE
  "tags/?name=T".
It parses no field itself (the objects are returned as they come): each
answer's content is asserted to be the named object.
"""
import datetime
import time

from replay_lib import BASE, USER, PASSWORD, ok, finish, session

S = session()
S.auth = (USER, PASSWORD)
B = BASE + "/api/json/v2/types/"


def rest(method, path, **kw):
    return S.request(method, B + path, **kw)


def content(path):
    r = rest("GET", path)
    ok("GET %s: 200 content" % path, r.status_code == 200 and isinstance(r.json().get("content"), dict),
       (r.status_code, r.text[:200]))
    return r.json().get("content", {}) if r.status_code == 200 else {}


def get_all(kind, cluster=None, key=None):
    lst = rest("GET", kind).json().get(key or kind, [])
    ok("Get-XIO %s: the list" % kind, len(lst) > 0, lst)
    q = ""
    if cluster is not None:
        q = "&cluster-id=%s" % cluster if str(cluster).isdigit() else "&cluster-name=%s" % cluster
    for e in lst:
        c = content("%s/?name=%s%s" % (kind if kind != "xms" else "/xms", e["name"], q))
        ok("%s %s: the object asked for" % (kind, e["name"]), c.get("name") == e["name"], c)


def main():
    r = rest("GET", "")
    kids = r.json().get("children", []) if r.status_code == 200 else []
    ok("Get-XIOAPITypes: the base with its '/' lists the types", r.status_code == 200 and
       {"volumes", "xms", "ssds", "alerts"} <= {k["name"] for k in kids}, r.text[:300])
    get_all("xms", key="xmss")
    get_all("clusters")
    # New-XIOVolume -Name mts-v -Size 1g -Cluster xbrick1
    r = rest("POST", "volumes", json={"vol-size": "1g", "vol-name": "mts-v", "cluster-id": "xbrick1"})
    ok("New-XIOVolume: 201", r.status_code == 201, r.text)
    r = rest("POST", "initiator-groups", json={"ig-name": "mts-ig", "cluster-id": "xbrick1"})
    ok("New-XIOInitiatorGroup: 201", r.status_code == 201, r.text)
    r = rest("POST", "Initiators", json={"ig-id": "mts-ig", "port-address": "iqn.2026-12.org.lunlab:mts",
                                         "initiator-name": "mts-i", "cluster-id": "xbrick1"})
    ok("New-XIOInitiator: POST .../Initiators (capital I): 201", r.status_code == 201, r.text)
    r = rest("POST", "lun-maps", json={"vol-id": "mts-v", "ig-id": "mts-ig", "lun": 9, "tg-id": "Default"})
    ok("New-XIOLunMap: 201", r.status_code == 201, r.text)
    # Get-XIOVolume -Name mts-v [-Cluster 1 | -Cluster xbrick1]
    for q in ("", "&cluster-id=1", "&cluster-name=xbrick1"):
        c = content("volumes/?name=mts-v" + q)
        ok("Get-XIOVolume -Name mts-v%s" % q, c.get("name") == "mts-v" and c.get("vol-size") == "1048576", c)
    c = content("volumes/%d?cluster-id=1" % c.get("index", 0))
    ok("Get-XIOVolume -ID N -Cluster 1", c.get("name") == "mts-v", c)
    r = rest("GET", "volumes/?name=mts-v&cluster-id=7")
    ok("a cluster-id that does not exist: 400 obj_not_found", r.status_code == 400 and
       r.json().get("message") == "obj_not_found", r.text)
    for kind in ("volumes", "initiator-groups", "initiators", "lun-maps", "bricks", "storage-controllers", "ssds",
                 "bbus", "local-disks", "dae-controllers", "dae-psus", "xenvs", "targets", "target-groups",
                 "iscsi-portals", "alert-definitions"):
        get_all(kind, cluster=1 if kind in ("volumes", "ssds") else None)
    get_all("ssds", cluster="xbrick1")
    # an alert to list: Get-XIOAlert walks alerts/?name=
    S.put(BASE + "/api/lunlab/hardware", json={"component": "ssd", "name": "2", "state": "failed"})
    get_all("alerts")
    S.put(BASE + "/api/lunlab/hardware", json={"component": "ssd", "name": "2", "state": "healthy"})
    since = (datetime.datetime.utcnow() - datetime.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%SZ").replace("Z", "")
    r = rest("GET", "events?from-date-time=" + since.replace(" ", "%20"))
    ev = r.json().get("events", []) if r.status_code == 200 else []
    ok("Get-XIOEvent -FromDateTime: .events, this run's", len(ev) > 0 and
       any("mts-v" in e["description"] for e in ev), r.text[:300])
    # Get-XIOPerformance -Entity Volume -FromTime -ToTime -Granularity one_hour -ObjectList mts-v
    # -PropertyList avg__iops,avg__avg_latency -Cluster 1: "performance?entity=..&from-time=..
    # &to-time=..&granularity=..&obj-list=..&prop=..&prop=..&cluster-id=1" (its order); it takes
    # members[0] for the timestamp and each member by position
    frm = (datetime.datetime.utcnow() - datetime.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    to = (datetime.datetime.utcnow() + datetime.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
    q = ("performance?entity=Volume&from-time=%s&to-time=%s&granularity=one_hour&obj-list=mts-v"
         "&prop=avg__iops&prop=avg__avg_latency&cluster-id=1" % (frm.replace(" ", "%20"), to.replace(" ", "%20")))
    rest("GET", q)
    time.sleep(1.1)   # a second reading (a query reads at most once a second; not a timing check)
    r = rest("GET", q)
    j = r.json() if r.status_code == 200 else {}
    ok("Get-XIOPerformance -PropertyList avg__iops,avg__avg_latency -Cluster 1: members[0] the timestamp, "
       "then the row's name and the two", j.get("members") == ["timestamp", "guid", "name", "index", "avg__iops",
                                                               "avg__avg_latency"], r.text[:300])
    ok("its rows: mts-v's, a value per member", j.get("counters") and
       all(len(x) == 6 and x[2] == "mts-v" for x in j["counters"]), j.get("counters"))
    # the tags
    r = rest("POST", "tags", json={"entity": "Volume", "tag-name": "DMCPUG"})
    ok("New-XIOTag -Name DMCPUG -Type Volume: 201", r.status_code == 201, r.text)
    r = rest("PUT", "tags/?name=/Volume/DMCPUG", json={"entity": "Volume", "entity-details": "mts-v"})
    ok("Add-XIOTagObject mts-v: 200", r.status_code == 200, r.text)
    c = content("tags/?name=/Volume/DMCPUG")
    ok("Get-XIOTagObject: TagObject mts-v", [o[1] for o in c.get("direct-list", [])] == ["mts-v"], c)
    r = rest("DELETE", "tags/?name=/Volume/DMCPUG", json={"entity": "Volume", "entity-details": "mts-v",
                                                          "cluster-id": "xbrick1"})
    ok("Remove-XIOTagObject mts-v: 200", r.status_code == 200, r.text)
    ok("no TagObject left", content("tags/?name=/Volume/DMCPUG").get("direct-list") == [])
    r = rest("PUT", "tags/?name=/Volume/DMCPUG", json={"caption": "DMCPUG2"})
    ok("Set-XIOTag -NewName DMCPUG2: 200", r.status_code == 200, r.text)
    r = rest("DELETE", "tags/?name=/Volume/DMCPUG2")
    ok("Remove-XIOTag /Volume/DMCPUG2: 200", r.status_code == 200, r.text)
    ok("gone", rest("GET", "tags/?name=/Volume/DMCPUG2").status_code == 400)
    finish("mtsxtremio")


main()
