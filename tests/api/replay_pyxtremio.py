#!/usr/bin/python3
"""PyXtremIO, replayed: the requests of chiragadm/PyXtremIO
PyXtremIO/rest_xtremio.py and rest_requests.py (commit
3a9acc9f207846486c1b31408e10a7620c82e5ee).

Its shape: a requests.Session with HTTP Basic and JSON headers; base URL
https://HOST:PORT/api/json/v3/types; an object named as "/TYPE/?name=NAME"
(a '/' before the query); every body carries "cluster-id"; a body is sent
pretty-printed (indent=4, sorted keys); DELETE without a body.  The calls
replayed: create_tag (POST tags {"entity", "tag-name"}, no cluster-id),
create_initiator_group with tag-list, create_initiator with
operating-system and CHAP, chg_init_auth_pw_on_initiator and
chg_init_auth_user_on_initiator (one CHAP field per PUT),
remove_init_auth_credentials_on_initiator, create_volume with the alert
switches, enable_readaccess_on_volume / enable_mgmtlock_on_volume (PUT
vol-access, management-locked), create_consistency_group with tag-list,
tag_object / untag_object (PUT / DELETE tags/?name=TAG with {"entity",
"entity-details": NAME, "cluster-id"}), get_tags and get_tag_info (with
cluster-name=), rename_tag (PUT {"caption"}), create_snapshot_from_taglist
(POST snapshots {"tag-list"}), remove_tag, and the GETs that read them back
(content).  A tag-list shows tags as object ids [guid, name, index].
"""
import json

from replay_lib import BASE, USER, PASSWORD, ok, finish, session

s = session()
s.auth = (USER, PASSWORD)
s.headers = {"content-type": "application/json", "accept": "application/json"}
URL = BASE + "/api/json/v3/types"
CLUSTER = "xbrick1"


def uri(otype, name=None):
    return URL + "/" + otype + ("/?name=%s" % name if name else "")


def send(method, otype, payload=None, name=None):
    if payload is None:
        return s.request(method, uri(otype, name), timeout=120)
    return s.request(method, uri(otype, name), timeout=120, data=json.dumps(payload, sort_keys=True, indent=4))


def content(otype, name):
    r = send("GET", otype, name=name)
    return r.json().get("content", {}) if r.status_code == 200 else {}


def tags_of(c):
    return [t[1] for t in c.get("tag-list", [])]


def main():
    for entity, name in (("InitiatorGroup", "/InitiatorGroup/prod"), ("ConsistencyGroup", "/ConsistencyGroup/t1"),
                         ("Volume", "/Volume/Prod")):
        r = send("POST", "tags", {"entity": entity, "tag-name": name})
        ok("create_tag %s %s: 201" % (entity, name), r.status_code == 201, r.text)
    r = send("POST", "initiator-groups", {"ig-name": "pxhost", "cluster-id": CLUSTER, "tag-list": ["/InitiatorGroup/prod"]})
    ok("create_initiator_group with tag-list: 201", r.status_code == 201, r.text)
    ok("its tag-list names the tag", tags_of(content("initiator-groups", "pxhost")) == ["/InitiatorGroup/prod"],
       content("initiator-groups", "pxhost"))
    r = send("POST", "initiators", {"ig-id": "pxhost", "cluster-id": CLUSTER, "port-address": "iqn.2026-12.org.example:px",
                                    "initiator-name": "px-i1", "operating-system": "windows",
                                    "initiator-authentication-user-name": "pxuser",
                                    "initiator-authentication-password": "TwelveChars1"})
    ok("create_initiator with CHAP and operating-system: 201", r.status_code == 201, r.text)
    c = content("initiators", "px-i1")
    ok("operating-system kept", c.get("operating-system") == "windows", c)
    r = send("PUT", "initiators", {"initiator-authentication-password": "AnotherSecret2", "cluster-id": CLUSTER}, "px-i1")
    ok("chg_init_auth_pw_on_initiator: one CHAP field", r.status_code == 200, r.text)
    c = content("initiators", "px-i1")
    ok("the password changed, the user kept",
       c.get("chap-authentication-initiator-password") == "AnotherSecret2" and
       c.get("chap-authentication-initiator-user-name") == "pxuser", c)
    r = send("PUT", "initiators", {"initiator-authentication-user-name": "pxuser2", "cluster-id": CLUSTER}, "px-i1")
    ok("chg_init_auth_user_on_initiator", r.status_code == 200, r.text)
    ok("the user changed", content("initiators", "px-i1").get("chap-authentication-initiator-user-name") == "pxuser2")
    r = send("PUT", "initiators", {"initiator-discovery-password": "DiscoSecret12", "cluster-id": CLUSTER}, "px-i1")
    ok("a discovery password alone, with no discovery user: 400 naming both",
       r.status_code == 400 and r.json()["message"] == "Command Syntax Error: initiator-discovery-user-name and "
       "initiator-discovery-password: one would be set without the other", r.text)
    r = send("PUT", "initiators", {"remove-initiator-authentication-credentials": "enabled", "cluster-id": CLUSTER},
             "px-i1")
    ok("remove_init_auth_credentials_on_initiator", r.status_code == 200, r.text)
    c = content("initiators", "px-i1")
    ok("credentials cleared", c.get("chap-authentication-initiator-user-name") == "" and
       c.get("chap-authentication-initiator-password") == "", c)
    r = send("POST", "volumes", {"vol-name": "pxvol", "vol-size": "1g", "cluster-id": CLUSTER, "lb-size": 512,
                                 "small-io-alerts": "enabled", "unaligned-io-alerts": "disabled",
                                 "vaai-tp-alerts": "enabled"})
    ok("create_volume with alert switches: 201", r.status_code == 201, r.text)
    c = content("volumes", "pxvol")
    ok("alert switches kept", (c.get("small-io-alerts"), c.get("unaligned-io-alerts"), c.get("vaai-tp-alerts")) ==
       ("enabled", "disabled", "enabled"), c)
    for payload, field, want in (({"vol-access": "read_access"}, "vol-access", "read_access"),
                                 ({"management-locked": "enabled"}, "management-locked", "enabled"),
                                 ({"management-locked": "disabled"}, "management-locked", "disabled")):
        payload["cluster-id"] = CLUSTER
        r = send("PUT", "volumes", payload, "pxvol")
        ok("PUT volumes %s" % json.dumps(payload), r.status_code == 200, r.text)
        ok("%s is %s" % (field, want), content("volumes", "pxvol").get(field) == want)
    r = send("PUT", "volumes", {"vol-access": "rw", "cluster-id": CLUSTER}, "pxvol")
    ok("a vol-access XMS does not know: 400 naming it", r.status_code == 400 and r.json() == {
        "message": "Command Syntax Error: vol-access: want no_access, read_access or write_access", "error_code": 400},
       r.text)
    r = send("POST", "consistency-groups", {"consistency-group-name": "pxcg", "cluster-id": CLUSTER,
                                            "vol-list": ["pxvol"], "tag-list": ["/ConsistencyGroup/t1"]})
    ok("create_consistency_group with tag-list", r.status_code == 201, r.text)
    ok("its tag-list names the tag", tags_of(content("consistency-groups", "pxcg")) == ["/ConsistencyGroup/t1"])
    # tag_object, get_tags, get_tag_info, create_snapshot_from_taglist, untag_object, rename_tag, remove_tag
    r = send("PUT", "tags", {"entity-details": "pxvol", "entity": "Volume", "cluster-id": CLUSTER}, "/Volume/Prod")
    ok("tag_object pxvol /Volume/Prod: 200", r.status_code == 200, r.text)
    ok("pxvol's tag-list", tags_of(content("volumes", "pxvol")) == ["/Volume/Prod"])
    r = s.get(uri("tags"), params="cluster-name=" + CLUSTER, timeout=120)
    ok("get_tags: the three and their roots", r.status_code == 200 and len(r.json()["tags"]) == 6, r.text[:300])
    r = s.get(uri("tags", "/Volume/Prod"), params="cluster-name=" + CLUSTER, timeout=120)
    ok("get_tag_info: pxvol directly", r.status_code == 200 and
       [d[1] for d in r.json()["content"]["direct-list"]] == ["pxvol"], r.text[:300])
    r = send("POST", "snapshots", {"tag-list": ["/Volume/Prod"], "snapshot-set-name": "pxss", "cluster-id": CLUSTER,
                                   "snap-suffix": "px", "snapshot-type": "readonly"})
    ok("create_snapshot_from_taglist: one snapshot, of pxvol", r.status_code == 201 and len(r.json()["links"]) == 1,
       r.text)
    ok("pxvol.px is pxvol's", content("snapshots", "pxvol.px").get("ancestor-vol-id", [0, 0])[1] == "pxvol")
    r = send("DELETE", "snapshot-sets", None, "pxss")
    ok("the set removed", r.status_code == 200, r.text)
    r = send("DELETE", "tags", {"entity-details": "pxvol", "entity": "Volume", "cluster-id": CLUSTER}, "/Volume/Prod")
    ok("untag_object: 200", r.status_code == 200, r.text)
    ok("pxvol carries no tag", content("volumes", "pxvol").get("tag-list") == [])
    r = send("PUT", "tags", {"caption": "Test"}, "/Volume/Prod")
    ok("rename_tag /Volume/Prod to Test: 200", r.status_code == 200, r.text)
    r = send("DELETE", "tags", None, "/Volume/Test")
    ok("remove_tag /Volume/Test (its new name): 200", r.status_code == 200, r.text)
    for otype, name in (("consistency-groups", "pxcg"), ("volumes", "pxvol"), ("initiators", "px-i1"),
                        ("initiator-groups", "pxhost")):
        r = send("DELETE", otype, name=name)
        ok("DELETE %s/?name=%s" % (otype, name), r.status_code == 200, r.text)
    finish("pyxtremio")


main()
