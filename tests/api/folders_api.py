#!/usr/bin/python3
"""`volume-folders` and `ig-folders` (target/api/xms_folders.h, docs/api.md "volume-folders,
ig-folders"): XMS 3's folders as views of the Volume and InitiatorGroup tags, in the phases
restart_api.sh runs against one --state-dir:

  make     the root "/" there from the start (v1, v2, v3 paths; the list under "folders"); a
           folder made with XtremIO.Utils' POST {"caption", "parent-folder-id"} is the tag
           /Volume/NAME (same index); a subfolder; goxtremio's and XtremIO.Utils' fields with
           their types; volumes and groups put in folders by POST parent-folder-id (goxtremio,
           XtremIO.Utils) and by tagging, seen in direct-list, num-of-vols and vol-size; an
           untagged volume in "/"; a rename (PUT caption) seen in the tag; every refusal with
           its status and message; DELETE with XtremIO.Utils' body removing a folder with its
           subfolders, its volumes back in "/"
  restart  (after a clean stop) the folders, their indexes and their volumes are back
Environment as xms_api.py."""
import sys

from replay_lib import ok, req, created, expect_err, fields, finish

FOLDER = {"name": "str", "caption": "str", "index": "int", "guid": "str", "folder-id": "list",
          "parent-folder-id": "list", "num-of-subfolders": "int", "subfolder-list": "list",
          "num-of-direct-objs": "int", "direct-list": "list", "xms-id": "list", "obj-severity": "str",
          "color": "str", "creation-time-long": "int", "object-type": "str"}
VOLFOLDER = dict(FOLDER, **{"num-of-vols": "int", "vol-size": "strint"})


def folder(kind, name, v=2):
    r = req("GET", kind, v=v, params={"name": name})
    ok("GET %s?name=%s (v%d): 200" % (kind, name, v), r.status_code == 200, (r.status_code, r.text))
    return r.json().get("content", {})


def direct_objs(f):
    """XtremIO.Utils' way: direct-list less subfolder-list"""
    subs = [s[0] for s in f.get("subfolder-list", [])]
    return sorted(d[1] for d in f.get("direct-list", []) if d[0] not in subs)


def make():
    for v in (1, 2, 3):
        r = req("GET", "volume-folders", v=v)
        ok("v%d volume-folders: the list under folders, the root / in it" % v, r.status_code == 200
           and [f["name"] for f in r.json().get("folders", [])] == ["/"], (r.status_code, r.text[:300]))
    root = folder("volume-folders", "/", v=1)
    fields("root", root, VOLFOLDER)
    ok("root: no parent, caption /", root.get("parent-folder-id") == [] and root.get("caption") == "/", root)
    igroot = folder("ig-folders", "/")
    fields("ig root", igroot, FOLDER)
    ok("ig root: object-type InitiatorGroup, no num-of-vols", igroot.get("object-type") == "InitiatorGroup"
       and "num-of-vols" not in igroot, igroot)
    ok("the roots are the tags /Volume and /InitiatorGroup (same index)",
       req("GET", "tags", params={"name": "/Volume"}).json()["content"]["index"] == root["index"]
       and req("GET", "tags", params={"name": "/InitiatorGroup"}).json()["content"]["index"] == igroot["index"])

    # XtremIO.Utils' New-XIOVolumeFolder: caption and parent-folder-id "/" (v1 path, XMS 3's)
    r = req("POST", "volume-folders", v=1, json={"caption": "db", "parent-folder-id": "/"})
    ok("POST volume-folders {caption, parent-folder-id /}: 201", r.status_code == 201, (r.status_code, r.text))
    db = created(r)
    ok("the link names volume-folders", "/api/json/types/volume-folders/%s" % db in r.json()["links"][0]["href"],
       r.text)
    r = req("POST", "volume-folders", json={"caption": "logs", "parent-folder-id": "/db"})
    logs = created(r)
    ok("a subfolder under /db: 201", logs is not None, r.text)
    f = folder("volume-folders", "/db/logs", v=3)
    fields("/db/logs", f, VOLFOLDER)
    ok("/db/logs: index the link's, parent /db, folder-id [guid, /db/logs, index]",
       f["index"] == logs and f["parent-folder-id"][1:] == ["/db", db]
       and f["folder-id"] == [f["guid"], "/db/logs", logs] and f["caption"] == "logs", f)
    t = req("GET", "tags/%d" % logs).json()["content"]
    ok("the folder is the tag /Volume/db/logs", t["name"] == "/Volume/db/logs" and t["guid"] == f["guid"], t)
    r = req("POST", "ig-folders", json={"caption": "hosts"})
    hosts = created(r)
    ok("POST ig-folders without a parent: under / (XtremIO.Utils' default)", hosts is not None
       and folder("ig-folders", "/hosts")["parent-folder-id"][1] == "/", r.text)

    # objects in folders: goxtremio's and XtremIO.Utils' parent-folder-id on POST volumes
    r = req("POST", "volumes", v=1, json={"vol-name": "fv1", "vol-size": "1g", "parent-folder-id": "/db"})
    ok("POST volumes parent-folder-id /db: 201", r.status_code == 201, r.text)
    r = req("POST", "volumes", json={"vol-name": "fv2", "vol-size": "2g", "parent-folder-id": logs})
    ok("POST volumes parent-folder-id as an index: 201", r.status_code == 201, r.text)
    r = req("POST", "volumes", json={"vol-name": "fv3", "vol-size": "1g", "parent-folder-id": "/"})
    ok("POST volumes parent-folder-id /: 201", r.status_code == 201, r.text)
    r = req("POST", "initiator-groups", json={"ig-name": "fh1", "parent-folder-id": "/hosts"})
    ok("POST initiator-groups parent-folder-id /hosts: 201", r.status_code == 201, r.text)
    vol = req("GET", "volumes", params={"name": "fv1"}).json()["content"]
    ok("fv1 carries the tag /Volume/db", [x[1] for x in vol["tag-list"]] == ["/Volume/db"], vol.get("tag-list"))
    f = folder("volume-folders", "/db")
    ok("/db: one subfolder (logs), one volume (fv1) of 1 GiB", f["num-of-subfolders"] == 1
       and f["subfolder-list"][0][1] == "/db/logs" and direct_objs(f) == ["fv1"] and f["num-of-vols"] == 1
       and f["num-of-direct-objs"] == 2 and f["vol-size"] == "1048576", f)
    f = folder("volume-folders", "/db/logs")
    ok("/db/logs: fv2, 2 GiB", direct_objs(f) == ["fv2"] and f["vol-size"] == "2097152", f)
    f = folder("volume-folders", "/")
    ok("/: fv3 (in no folder), subfolder /db", direct_objs(f) == ["fv3"] and f["num-of-vols"] == 1
       and [x[1] for x in f["subfolder-list"]] == ["/db"], f)
    ok("/hosts: fh1", direct_objs(folder("ig-folders", "/hosts")) == ["fh1"])
    # tagging is putting in a folder: the same tree
    r = req("PUT", "tags", params={"name": "/Volume/db"}, json={"entity": "Volume", "entity-details": "fv3"})
    ok("tag fv3 with /Volume/db: 200", r.status_code == 200, r.text)
    ok("fv3 now in /db, not in /", direct_objs(folder("volume-folders", "/db")) == ["fv1", "fv3"]
       and direct_objs(folder("volume-folders", "/")) == [])

    # Set-XIOVolumeFolder: PUT {"caption"}
    r = req("PUT", "volume-folders/%d" % logs, json={"caption": "redo"})
    ok("PUT volume-folders/N {caption}: 200", r.status_code == 200, r.text)
    ok("renamed: /db/redo, the tag too", folder("volume-folders", "/db/redo")["index"] == logs
       and req("GET", "tags/%d" % logs).json()["content"]["name"] == "/Volume/db/redo")

    # refusals (lunlab's words: no public source shows XMS's)
    expect_err("the same caption under /db", req("POST", "volume-folders", json={"caption": "redo",
                                                                                "parent-folder-id": "/db"}),
               400, "obj_name_not_unique")
    expect_err("a missing parent", req("POST", "volume-folders", json={"caption": "x", "parent-folder-id": "/nope"}),
               400, "obj_not_found: parent-folder-id")
    expect_err("an ig folder as a volume folder's parent",
               req("POST", "volume-folders", json={"caption": "x", "parent-folder-id": hosts}),
               400, "obj_not_found: parent-folder-id")
    expect_err("no caption", req("POST", "volume-folders", json={"parent-folder-id": "/"}), 400,
               "Command Syntax Error: caption: want 1..128 printable characters, no '/'")
    expect_err("a caption with /", req("POST", "volume-folders", json={"caption": "a/b"}), 400,
               "Command Syntax Error: caption: want 1..128 printable characters, no '/'")
    expect_err("parent-folder-id a list", req("POST", "volume-folders", json={"caption": "x", "parent-folder-id": []}),
               400, "Command Syntax Error: parent-folder-id: want a folder name (\"/a\") or index")
    r = req("POST", "volume-folders", json={"caption": "c", "parent-folder-id": "/db/redo"})
    ok("/db/redo/c: 201 (4 levels with the root)", r.status_code == 201, r.text)
    expect_err("a fifth level", req("POST", "volume-folders", json={"caption": "d", "parent-folder-id": "/db/redo/c"}),
               400, "Command Syntax Error: parent-folder-id: at most 3 levels below \"/\"")
    expect_err("the root renamed", req("PUT", "volume-folders/%d" % root["index"], json={"caption": "r"}), 400,
               "Command Syntax Error: caption: \"/\" is the root folder: its name is fixed")
    expect_err("the root removed", req("DELETE", "volume-folders/%d" % root["index"]), 400,
               "Command Syntax Error: \"/\" is the root folder: it cannot be removed")
    expect_err("a volume in a missing folder", req("POST", "volumes", json={"vol-name": "fvx", "vol-size": "1g",
                                                                           "parent-folder-id": "/nope"}),
               400, "obj_not_found: parent-folder-id")
    expect_err("... and not made", req("GET", "volumes", params={"name": "fvx"}), 400, "obj_not_found")
    expect_err("an ig folder's index is no volume folder", req("GET", "volume-folders/%d" % hosts), 400,
               "obj_not_found")

    # Remove-XIOVolumeFolder's body: the path names it; the subfolders go with it
    r = req("POST", "volume-folders", json={"caption": "tmp"})
    tmp = created(r)
    req("POST", "volume-folders", json={"caption": "sub", "parent-folder-id": "/tmp"})
    req("POST", "volumes", json={"vol-name": "fv4", "vol-size": "1g", "parent-folder-id": "/tmp/sub"})
    r = req("DELETE", "volume-folders/%d" % tmp, json={"folder-name": "/tmp", "folder-type": "Volume"})
    ok("DELETE volume-folders/N {folder-name, folder-type}: 200", r.status_code == 200, r.text)
    names = sorted(f["name"] for f in req("GET", "volume-folders").json()["folders"])
    ok("/tmp and /tmp/sub gone", names == ["/", "/db", "/db/redo", "/db/redo/c"], names)
    ok("fv4 back in /", "fv4" in direct_objs(folder("volume-folders", "/")))


def restart():
    names = sorted(f["name"] for f in req("GET", "volume-folders").json()["folders"])
    ok("the volume folders are back", names == ["/", "/db", "/db/redo", "/db/redo/c"], names)
    f = folder("volume-folders", "/db")
    ok("/db holds fv1 and fv3 again", direct_objs(f) == ["fv1", "fv3"], f)
    ok("/db/redo holds fv2", direct_objs(folder("volume-folders", "/db/redo")) == ["fv2"])
    ok("/hosts holds fh1", direct_objs(folder("ig-folders", "/hosts")) == ["fh1"])
    r = req("POST", "volume-folders", json={"caption": "new"})
    new = created(r)
    ok("a new folder gets a new index", new is not None and new > f["index"], r.text)


{"make": make, "restart": restart}[sys.argv[1]]()
finish("folders " + sys.argv[1])
