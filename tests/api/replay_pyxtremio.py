#!/usr/bin/python3
"""PyXtremIO, replayed: the requests of chiragadm/PyXtremIO
PyXtremIO/rest_xtremio.py and rest_requests.py (commit
3a9acc9f207846486c1b31408e10a7620c82e5ee).

Its shape: a requests.Session with HTTP Basic and JSON headers; base URL
https://HOST:PORT/api/json/v3/types; an object named as "/TYPE/?name=NAME"
(a '/' before the query); every body carries "cluster-id"; a body is sent
pretty-printed (indent=4, sorted keys); DELETE without a body.  The calls
replayed: create_initiator_group with tag-list, create_initiator with
operating-system and CHAP, chg_init_auth_pw_on_initiator and
chg_init_auth_user_on_initiator (one CHAP field per PUT),
remove_init_auth_credentials_on_initiator, create_volume with the alert
switches, enable_readaccess_on_volume / enable_mgmtlock_on_volume (PUT
vol-access, management-locked), create_consistency_group with tag-list,
and the GETs that read them back (content).
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


def main():
    r = send("POST", "initiator-groups", {"ig-name": "pxhost", "cluster-id": CLUSTER, "tag-list": ["/InitiatorGroup/prod"]})
    ok("create_initiator_group with tag-list: 201", r.status_code == 201, r.text)
    ok("its tag-list kept", content("initiator-groups", "pxhost").get("tag-list") == ["/InitiatorGroup/prod"],
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
    ok("its tag-list kept", content("consistency-groups", "pxcg").get("tag-list") == ["/ConsistencyGroup/t1"])
    for otype, name in (("consistency-groups", "pxcg"), ("volumes", "pxvol"), ("initiators", "px-i1"),
                        ("initiator-groups", "pxhost")):
        r = send("DELETE", otype, name=name)
        ok("DELETE %s/?name=%s" % (otype, name), r.status_code == 200, r.text)
    finish("pyxtremio")


main()
