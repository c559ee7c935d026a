#!/usr/bin/python3
"""The `tags` resource (target/api/xms_tags.h, docs/api.md "Tags") and the tag-list of the
objects it tags, in the phases restart_api.sh runs against one --state-dir:

  make     tags made with their missing parents (CoprHD's "/Volume/P", MTSXtremIO's bare
           "MyVols"), listed and read with the fields XtremIO.Utils' Tag reads; volumes,
           initiator groups, initiators, consistency groups and snapshot sets tagged (PUT with
           entity-details as a name, CoprHD and PyXtremIO, or as an object id, XtremIO.Utils)
           and untagged (DELETE with them); tag-list in POST/PUT bodies; Volume tags as the
           sources of a snapshot set and the volumes of a consistency group; every refusal
           with its exact status and message; a rename seen in the tag-list of what it tags;
           a volume's removal leaving its tags, a tag's removal (with its children) leaving
           its objects untagged; a Cluster tag on the cluster, tags on a brick, a storage
           controller, an SSD, a BBU and a target
  restart  (after a clean stop) the tags are back with their index, guid, name and color, and
           so is what they tag; a new tag gets a new index
Environment as xms_api.py."""
import sys

from replay_lib import ok, req, created, expect_err, fields, finish

C = {"cluster-id": "xbrick1"}


def make_tag(entity, name, **extra):
    r = req("POST", "tags", json=dict({"entity": entity, "tag-name": name}, **extra))
    ok("POST tags %s %s: 201" % (entity, name), r.status_code == 201, (r.status_code, r.text))
    return created(r)


def tag(name):
    r = req("GET", "tags", params={"name": name})
    ok("GET tags?name=%s: 200" % name, r.status_code == 200, (r.status_code, r.text))
    return r.json().get("content", {})


def content(kind, name):
    r = req("GET", kind, params={"name": name})
    ok("GET %s?name=%s: 200" % (kind, name), r.status_code == 200, (r.status_code, r.text))
    return r.json().get("content", {})


def tag_names(obj):
    return [t[1] for t in obj.get("tag-list", [])]


def put_tag(name, body, label):
    r = req("PUT", "tags", params={"name": name}, json=body)
    ok(label + ": 200", r.status_code == 200, (r.status_code, r.text))


def make():
    # create: a bare name goes under the entity's root (MTSXtremIO, XtremIO.Utils)
    gold = make_tag("Volume", "gold", color="#FF0000")
    t = tag("/Volume/gold")
    ok("gold: its index is the link's", t.get("index") == gold, t)
    fields("tag", t, {"name": "str", "caption": "str", "guid": "str", "index": "int", "object-type": "str",
                      "parent-id": "list", "child-list": "list", "direct-list": "list", "obj-list": "list",
                      "num-of-direct-objs": "int", "num-of-items": "int", "num-of-children": "int", "color": "str",
                      "creation-time-long": "int", "tag-id": "list", "xms-id": "list"})
    ok("gold: caption gold, object-type Volume, color #FF0000, under /Volume",
       t["caption"] == "gold" and t["object-type"] == "Volume" and t["color"] == "#FF0000"
       and t["parent-id"][1] == "/Volume" and t["num-of-direct-objs"] == 0, t)
    root = tag("/Volume")
    ok("the root /Volume: its direct-list is its child tags", [d[1] for d in root["direct-list"]] == ["/Volume/gold"]
       and root["parent-id"] == [], root)
    # nested: the missing levels are made (XtremIO.Utils: no parent needs to exist)
    logs = make_tag("Volume", "/Volume/apps/db/logs")
    t = tag("/Volume/apps/db/logs")
    ok("logs: parent /Volume/apps/db, index the link's", t["parent-id"][1] == "/Volume/apps/db" and t["index"] == logs, t)
    ok("apps has db as its child", [c[1] for c in tag("/Volume/apps")["child-list"]] == ["/Volume/apps/db"])
    names = sorted(x["name"] for x in req("GET", "tags").json()["tags"])
    ok("the list (CoprHD's getTagNames reads each name)", names == ["/Volume", "/Volume/apps", "/Volume/apps/db",
                                                                     "/Volume/apps/db/logs", "/Volume/gold"], names)
    r = req("GET", "tags", v=3, params={"full": 1})
    ok("v3 with full=1: every tag", r.status_code == 200 and len(r.json()["tags"]) == 5, r.text[:300])
    ok("no v1 path (tags came with XMS 4, API v2)", req("GET", "tags", v=1).status_code == 404)
    # refusals: exact status and message, nothing made
    expect_err("the same tag again", req("POST", "tags", json={"entity": "Volume", "tag-name": "/Volume/gold"}),
               400, "obj_name_not_unique")
    expect_err("5 levels", req("POST", "tags", json={"entity": "Volume", "tag-name": "/Volume/a/b/c/d"}), 400,
               "Command Syntax Error: tag-name: at most 4 levels, the root's included")
    expect_err("an unknown entity", req("POST", "tags", json={"entity": "Disk", "tag-name": "x"}), 400,
               "Command Syntax Error: entity: want Volume, InitiatorGroup, Initiator, ConsistencyGroup, SnapshotSet, "
               "Scheduler, Cluster, X-Brick, StorageController, SSD, DAE, BatteryBackupUnit, InfinibandSwitch, "
               "DataProtectionGroup or Target")
    expect_err("a name under another root", req("POST", "tags", json={"entity": "Volume",
                                                                       "tag-name": "/InitiatorGroup/x"}), 400,
               "Command Syntax Error: tag-name: /InitiatorGroup/x is not under /Volume (the entity's root)")
    expect_err("an empty level", req("POST", "tags", json={"entity": "Volume", "tag-name": "/Volume//x"}), 400,
               "Command Syntax Error: tag-name: each level 1..128 printable characters")
    expect_err("no tag-name", req("POST", "tags", json={"entity": "Volume"}), 400,
               "Command Syntax Error: tag-name: missing")
    expect_err("tag-name not a string", req("POST", "tags", json={"entity": "Volume", "tag-name": 5}), 400,
               "Command Syntax Error: tag-name: want a string")
    ok("nothing made by the refusals", len(req("GET", "tags").json()["tags"]) == 5)

    # the objects
    for v in ("v1", "v2", "v3"):
        ok("volume " + v, created(req("POST", "volumes", json=dict(C, **{"vol-name": v, "vol-size": "8m"}))))
    ok("initiator group ig1", created(req("POST", "initiator-groups", json=dict(C, **{"ig-name": "ig1"}))))
    ok("initiator i1", created(req("POST", "initiators", json=dict(C, **{"initiator-name": "i1", "ig-id": "ig1",
                                                                        "port-address": "iqn.2026-12.org.x:i1"}))))
    # tag: CoprHD's tagObject (entity-details a name, cluster-id)
    put_tag("/Volume/gold", dict(C, entity="Volume", **{"entity-details": "v1"}), "tag v1 with gold (by name)")
    v1 = content("volumes", "v1")
    t = tag("/Volume/gold")
    ok("v1's tag-list names gold as an object id", v1.get("tag-list") == [[t["guid"], "/Volume/gold", gold]], v1)
    # XtremIO.Utils' New-XIOTagAssignment: tag-id, entity-details as an object id, PUT tags/INDEX
    v2 = content("volumes", "v2")
    r = req("PUT", "tags/%d" % gold, json={"tag-id": t["tag-id"], "entity": "Volume",
                                           "entity-details": v2["vol-id"], "cluster-id": "xbrick1"})
    ok("tag v2 with gold (by object id): 200", r.status_code == 200, r.text)
    put_tag("/Volume/gold", dict(C, entity="Volume", **{"entity-details": "v1"}), "tag v1 again (no change)")
    t = tag("/Volume/gold")
    ok("gold's direct-list: v1, v2", sorted(d[1] for d in t["direct-list"]) == ["v1", "v2"]
       and t["num-of-direct-objs"] == 2, t)
    put_tag("/Volume/apps/db/logs", dict(C, entity="Volume", **{"entity-details": "v3"}), "tag v3 with logs")
    apps = tag("/Volume/apps")
    ok("apps: no direct object, v3 among its items", apps["num-of-direct-objs"] == 0 and apps["num-of-items"] == 1
       and apps["obj-list"][0][1] == "v3", apps)
    expect_err("a Volume tag for an initiator group",
               req("PUT", "tags", params={"name": "/Volume/gold"}, json={"entity": "InitiatorGroup",
                                                                         "entity-details": "ig1"}), 400,
               "Command Syntax Error: entity: /Volume/gold tags Volume objects, not InitiatorGroup")
    expect_err("a volume that does not exist", req("PUT", "tags", params={"name": "/Volume/gold"},
                                                   json={"entity": "Volume", "entity-details": "nope"}), 400,
               "vol_obj_not_found")
    expect_err("the root tag assigned", req("PUT", "tags", params={"name": "/Volume"},
                                            json={"entity": "Volume", "entity-details": "v1"}), 400,
               "Command Syntax Error: /Volume is a root tag: it tags no object itself")
    expect_err("a tag that does not exist", req("PUT", "tags", params={"name": "/Volume/none"},
                                                json={"entity": "Volume", "entity-details": "v1"}), 400,
               "obj_not_found")
    expect_err("PUT with nothing to do", req("PUT", "tags", params={"name": "/Volume/gold"}, json={}), 400,
               "Command Syntax Error: give caption or color, or entity and entity-details")

    # tag-list in bodies: initiator groups (CoprHD's createInitiatorGroup), initiators, volumes
    make_tag("InitiatorGroup", "hosts")
    r = req("POST", "initiator-groups", json=dict(C, **{"ig-name": "ig2", "tag-list": ["/InitiatorGroup/hosts"]}))
    ok("ig2 made with tag-list [/InitiatorGroup/hosts]", r.status_code == 201, r.text)
    ok("ig2's tag-list", tag_names(content("initiator-groups", "ig2")) == ["/InitiatorGroup/hosts"])
    expect_err("a tag-list naming no tag", req("POST", "initiator-groups", json=dict(C, **{
        "ig-name": "ig3", "tag-list": ["/InitiatorGroup/none"]})), 400, "obj_not_found: tag-list[0]")
    expect_err("a Volume tag in an initiator group's tag-list", req("POST", "initiator-groups", json=dict(C, **{
        "ig-name": "ig3", "tag-list": ["/Volume/gold"]})), 400,
        "Command Syntax Error: tag-list[0]: /Volume/gold tags Volume objects, not InitiatorGroup")
    expect_err("a tag-list that is not a list", req("POST", "initiator-groups", json=dict(C, **{
        "ig-name": "ig3", "tag-list": "hosts"})), 400,
        "Command Syntax Error: tag-list: want a list of at most 4096 tag names or ids")
    ok("no ig3 made", req("GET", "initiator-groups", params={"name": "ig3"}).status_code == 400)
    esx = make_tag("Initiator", "/Initiator/esx")
    put_tag("/Initiator/esx", dict(C, entity="Initiator", **{"entity-details": "i1"}), "tag initiator i1")
    ok("i1's tag-list", tag_names(content("initiators", "i1")) == ["/Initiator/esx"])
    ok("esx: object-type Initiator, i1 directly", tag("/Initiator/esx")["direct-list"][0][1] == "i1")
    r = req("PUT", "volumes", params={"name": "v3"}, json={"tag-list": [gold, "/Volume/apps/db/logs"]})
    ok("PUT v3 tag-list [gold's index, logs' name]: 200", r.status_code == 200, r.text)
    ok("v3 carries both, in that order", tag_names(content("volumes", "v3")) == ["/Volume/gold", "/Volume/apps/db/logs"])
    # consistency groups: its own tag, and Volume tags naming its volumes (New-XIOConsistencyGroup -Tag)
    make_tag("ConsistencyGroup", "prod")
    r = req("POST", "consistency-groups", json=dict(C, **{"consistency-group-name": "cgt",
                                                          "tag-list": ["/ConsistencyGroup/prod", "/Volume/gold"]}))
    ok("cg made with tag-list [/ConsistencyGroup/prod, /Volume/gold]: 201", r.status_code == 201, r.text)
    cg = content("consistency-groups", "cgt")
    ok("cg: tagged prod, holding gold's volumes v1 v2 v3", tag_names(cg) == ["/ConsistencyGroup/prod"]
       and sorted(v[1] for v in cg["vol-list"]) == ["v1", "v2", "v3"], cg)
    r = req("PUT", "consistency-groups", params={"name": "cgt"}, json={"tag-list": []})
    ok("PUT cgt tag-list []: 200, no tag left", r.status_code == 200 and
       content("consistency-groups", "cgt").get("tag-list") == [], r.text)
    r = req("PUT", "consistency-groups", params={"name": "cgt"}, json={"tag-list": ["/ConsistencyGroup/prod"]})
    ok("PUT cgt tag-list [prod]: 200", r.status_code == 200, r.text)
    # snapshot sets: tag-list as the sources (PyXtremIO's create_snapshot_from_taglist)
    r = req("POST", "snapshots", json=dict(C, **{"tag-list": ["/Volume/apps/db/logs"], "snapshot-set-name": "ss1"}))
    ok("a snapshot of logs' volumes (v3): 201, one link", r.status_code == 201 and len(r.json()["links"]) == 1, r.text)
    make_tag("SnapshotSet", "daily")
    put_tag("/SnapshotSet/daily", dict(C, entity="SnapshotSet", **{"entity-details": "ss1"}), "tag snapshot set ss1")
    ok("ss1's tag-list", tag_names(content("snapshot-sets", "ss1")) == ["/SnapshotSet/daily"])
    ok("daily: object-type SnapSet", tag("/SnapshotSet/daily")["object-type"] == "SnapSet")
    # untag (XtremIO.Utils' Remove-XIOTagAssignment, PyXtremIO's untag_object)
    r = req("DELETE", "tags", params={"name": "/Volume/gold"}, json=dict(C, entity="Volume", **{"entity-details": "v2"}))
    ok("untag v2: 200", r.status_code == 200, r.text)
    ok("v2 carries no tag", content("volumes", "v2").get("tag-list") == [])
    expect_err("untag v2 again", req("DELETE", "tags", params={"name": "/Volume/gold"},
                                     json=dict(C, entity="Volume", **{"entity-details": "v2"})), 400,
               "obj_not_found: v2 does not carry the tag")
    # rename and color (Set-XIOTag, PyXtremIO's rename_tag): what it tags shows the new name
    put_tag("/Volume/apps", {"caption": "services"}, "rename apps to services")
    ok("v3 shows /Volume/services/db/logs", tag_names(content("volumes", "v3")) == ["/Volume/gold",
                                                                                   "/Volume/services/db/logs"])
    put_tag("/Volume/gold", {"color": "#00FF00"}, "gold's color")
    expect_err("a rename to a sibling's caption", req("PUT", "tags", params={"name": "/Volume/services"},
                                                      json={"caption": "gold"}), 400, "obj_name_not_unique")
    expect_err("the root renamed", req("PUT", "tags", params={"name": "/Volume"}, json={"caption": "Vols"}), 400,
               "Command Syntax Error: caption: /Volume is a root tag: its name is fixed")
    # a volume removed leaves its tags
    ok("v1 removed", req("DELETE", "volumes", params={"name": "v1"}).status_code == 200)
    ok("gold tags v3 only", [d[1] for d in tag("/Volume/gold")["direct-list"]] == ["v3"])
    # a tag removed with its children; its objects stay, untagged
    ok("remove /Volume/services", req("DELETE", "tags", params={"name": "/Volume/services"}).status_code == 200)
    ok("its children went with it", req("GET", "tags", params={"name": "/Volume/services/db/logs"}).status_code == 400)
    ok("v3 carries gold only", tag_names(content("volumes", "v3")) == ["/Volume/gold"])
    expect_err("the root removed", req("DELETE", "tags", params={"name": "/Volume"}), 400,
               "Command Syntax Error: /Volume is a root tag: it cannot be removed")
    # CoprHD's getTagDetails / deleteTag carry cluster-name: tags are XMS-wide, it narrows nothing
    t = req("GET", "tags", params={"name": "/Initiator/esx", "cluster-name": "xbrick1"})
    ok("GET with cluster-name: num-of-direct-objs 1", t.status_code == 200
       and t.json()["content"]["num-of-direct-objs"] == 1, t.text)
    ok("esx's index kept", t.json()["content"]["index"] == esx)
    # each change is an audit event of entity Tag (the tag's name in its entity-details)
    ev = req("GET", "events", params={"entity": "Tag"}).json().get("events", [])
    ok("events: the tags made, changed and removed", any(e["entity_details"] == "/Volume/gold" and
                                                         "created tags" in e["description"] for e in ev)
       and any("removed tags '/Volume/services'" in e["description"] for e in ev), ev[-3:])
    # a Cluster tag on the cluster (XtremIO.Utils' New-XIOTagAssignment -Entity Cluster)
    make_tag("Cluster", "prod")
    put_tag("/Cluster/prod", {"entity": "Cluster", "entity-details": "xbrick1", "cluster-id": "xbrick1"},
            "tag the cluster xbrick1")
    ok("xbrick1 carries /Cluster/prod", tag_names(content("clusters", "xbrick1")) == ["/Cluster/prod"])
    ok("/Cluster/prod tags xbrick1", [d[1] for d in tag("/Cluster/prod")["direct-list"]] == ["xbrick1"])
    expect_err("a cluster that does not exist", req("PUT", "tags", params={"name": "/Cluster/prod"}, json={
        "entity": "Cluster", "entity-details": "nope"}), 400, "obj_not_found")
    r = req("DELETE", "tags", params={"name": "/Cluster/prod"}, json={"entity": "Cluster", "entity-details": "xbrick1"})
    ok("untag the cluster: 200, its tag-list empty", r.status_code == 200
       and tag_names(content("clusters", "xbrick1")) == [], r.text)
    put_tag("/Cluster/prod", {"entity": "Cluster", "entity-details": 1}, "tag the cluster by its index")
    # the inventory: a brick, a storage controller, an SSD and a BBU, by name, index or object id
    ssd = req("GET", "ssds", params={"full": 1}).json()["ssds"][0]
    for entity, root, details, kind, name in (
            ("X-Brick", "rack1", "X1", "bricks", "X1"),
            ("StorageController", "sc-a", "X1-SC1", "storage-controllers", "X1-SC1"),
            ("SSD", "hot", ssd["ssd-id"], "ssds", ssd["name"]),
            ("BatteryBackupUnit", "ups", 1, "bbus", "X1-BBU1"),
            ("Target", "fast", req("GET", "targets").json()["targets"][0]["name"], "targets",
             req("GET", "targets").json()["targets"][0]["name"])):
        make_tag(entity, root)
        put_tag("/%s/%s" % (entity, root), {"entity": entity, "entity-details": details, "cluster-id": "xbrick1"},
                "tag %s %s" % (entity, name))
        ok("%s %s carries /%s/%s" % (kind, name, entity, root),
           tag_names(content(kind, name)) == ["/%s/%s" % (entity, root)])
        ok("/%s/%s tags %s" % (entity, root, name), [d[1] for d in tag("/%s/%s" % (entity, root))["direct-list"]]
           == [name])
    ok("X1-SC2 carries nothing", tag_names(content("storage-controllers", "X1-SC2")) == [])
    expect_err("an SSD that does not exist", req("PUT", "tags", params={"name": "/SSD/hot"}, json={
        "entity": "SSD", "entity-details": "wwn-0xnope"}), 400, "obj_not_found")
    expect_err("untag a BBU that carries nothing", req("DELETE", "tags", params={"name": "/BatteryBackupUnit/ups"},
                                                      json={"entity": "BatteryBackupUnit",
                                                            "entity-details": "X1-BBU2"}),
               400, "obj_not_found: X1-BBU2 does not carry the tag")
    make_tag("StorageController", "gone")
    put_tag("/StorageController/gone", {"entity": "StorageController", "entity-details": "X1-SC2"}, "tag X1-SC2")
    r = req("DELETE", "tags", params={"name": "/StorageController/gone"},
            json={"entity": "StorageController", "entity-details": "X1-SC2"})
    ok("untag X1-SC2: 200, it carries nothing", r.status_code == 200
       and tag_names(content("storage-controllers", "X1-SC2")) == [], r.text)
    ok("a removed tag leaves the SC untagged", req("DELETE", "tags", params={"name": "/StorageController/gone"})
       .status_code == 200 and tag_names(content("storage-controllers", "X1-SC1")) == ["/StorageController/sc-a"])


def restart():
    t = tag("/Volume/gold")
    ok("gold back with its color", t.get("color") == "#00FF00" and [d[1] for d in t["direct-list"]] == ["v3"], t)
    ok("v3 carries gold", tag_names(content("volumes", "v3")) == ["/Volume/gold"])
    ok("ig2 carries hosts", tag_names(content("initiator-groups", "ig2")) == ["/InitiatorGroup/hosts"])
    ok("i1 carries esx", tag_names(content("initiators", "i1")) == ["/Initiator/esx"])
    ok("ss1 carries daily", tag_names(content("snapshot-sets", "ss1")) == ["/SnapshotSet/daily"])
    ok("cgt carries prod", tag_names(content("consistency-groups", "cgt")) == ["/ConsistencyGroup/prod"])
    ok("xbrick1 carries /Cluster/prod", tag_names(content("clusters", "xbrick1")) == ["/Cluster/prod"])
    ok("the inventory's tags are back", tag_names(content("bricks", "X1")) == ["/X-Brick/rack1"]
       and tag_names(content("storage-controllers", "X1-SC1")) == ["/StorageController/sc-a"]
       and tag_names(content("bbus", "X1-BBU1")) == ["/BatteryBackupUnit/ups"]
       and [d[1] for d in tag("/SSD/hot")["direct-list"]] == [req("GET", "ssds", params={"full": 1}).json()["ssds"][0]["name"]]
       and tag_names(req("GET", "ssds", params={"full": 1}).json()["ssds"][0]) == ["/SSD/hot"]
       and tag_names(req("GET", "targets", params={"full": 1}).json()["targets"][0]) == ["/Target/fast"])
    before = max(x["index"] for x in req("GET", "tags", params={"full": 1}).json()["tags"])
    new = make_tag("Volume", "silver")
    ok("a new tag's index is above every one before the restart (none reused)", new and new > before, (new, before))


{"make": make, "restart": restart}[sys.argv[1]]()
finish("tags " + sys.argv[1])
