#!/usr/bin/python3
"""cthiel42/prometheus-xtremio-exporter, replayed: the requests of its
xtremio.py (commit 88fda7f81e0cb266ccd0279613ad27509e4fb43d) and the fields
it reads, each with the type it uses.

Its flow per scrape: GET /api/json/v3/commands/login?password=P&user=U (no
Basic) and keep the response's cookies; for each configured collector GET
/api/json/v3/types/TYPE with those cookies and Accept/Content-Type JSON
headers; read the list under TYPE's own key and links[0].href; for
clusters, bbus, bricks, ssds and xms GET each TYPE/INDEX (the href's last
segment) and read content fields (a missing one is a KeyError that fails
that collector); every list entry's name, href and, for volumes, bricks,
xenvs, ssds, dae-*, sys-name; then GET /api/json/v3/commands/logout with no
cookie at all.  Every collector of its default configuration is served
(alert-definitions, bbus, bricks, clusters, ssds, volumes, xenvs, xms, and
dae-controllers, dae-psus); the fields it reads that lunlab does not serve
are asserted absent: docs/api.md lists them.
"""
import requests

from replay_lib import BASE, USER, PASSWORD, ok, fields, absent, finish

HEADERS = {"Accept": "application/json", "Content-Type": "application/json"}
# collectors that only count a list ("unimplemented" in the exporter): the list key is the type
LIST_ONLY = ["consistency-groups", "initiator-groups", "initiators", "iscsi-portals", "lun-maps", "snapshot-sets",
             "target-groups", "targets", "events"]
# list collectors reading name, sys-name, href of each entry
NAMED_LISTS = ["bricks", "ssds", "xenvs", "dae-controllers", "dae-psus", "bbus"]
# collectors that GET each entry: its content fields (prometheus_client takes
# numbers or numeric strings as sample values; labels are strings)
CONTENT = {
    "bbus": {"serial-number": "str", "guid": "str", "power-feed": "str", "name": "str", "model-name": "str",
             "power": "num", "enabled-state": "str", "avg-daily-temp": "num",
             "ups-need-battery-replacement": "str", "is-low-battery-no-input": "str"},
    "bricks": {"num-of-ssds": "int", "guid": "str", "sys-name": "str", "name": "str"},
    "ssds": {"guid": "str", "serial-number": "str", "ssd-uid": "str", "sys-name": "str", "model-name": "str",
             "fw-version": "str", "ssd-size": "strint", "ssd-space-in-use": "strint", "wr-iops": "strint",
             "rd-iops": "strint", "wr-bw": "strint", "rd-bw": "strint", "num-bad-sectors": "int"},
}
CLUSTER = {"hardware-platform": "str", "name": "str", "license-id": "str", "guid": "str",
           "sys-psnt-serial-number": "str", "compression-factor": "num", "rd-iops": "strint", "wr-iops": "strint",
           "num-of-vols": "int", "free-ud-ssd-space-in-percent": "int", "data-reduction-ratio": "num",
           "num-of-ssds": "int"}
CLUSTER_NOT_SERVED = ["total-memory-in-use-in-percent"]
XMS = {"xms-ip": "str", "version": "str", "name": "str", "guid": "str", "wr-iops": "strint", "rd-iops": "strint",
       "wr-latency": "strint", "rd-latency": "strint", "overall-efficiency-ratio": "strnum",
       "ssd-space-in-use": "strint", "ram-usage": "strint", "ram-total": "strint", "cpu": "num",
       "num-of-user-accounts": "int"}
XMS_NOT_SERVED = []


def get(path, cookies):
    return requests.get(BASE + "/api/json/v3/types/" + path, cookies=cookies, headers=HEADERS, verify=False,
                        timeout=60)


def main():
    # something in each list: a volume (Basic, v2, as Cinder would)
    r = requests.post(BASE + "/api/json/v2/types/volumes", auth=(USER, PASSWORD), verify=False, timeout=60,
                      json={"vol-name": "prom-v", "vol-size": "1m"})
    ok("setup: a volume", r.status_code == 201, r.text)
    r = requests.get(BASE + "/api/json/v3/commands/login?password={}&user={}".format(PASSWORD, USER), verify=False,
                     timeout=60)
    jar = r.cookies
    ok("login by query: a cookie jar with sessid", r.status_code == 200 and "sessid" in jar, r.headers)

    resp = get("volumes", jar).json()
    ok("volumes: list and links[0].href", isinstance(resp.get("volumes"), list) and
       isinstance(resp["links"][0]["href"], str), resp)
    for v in resp.get("volumes", []):
        fields("volumes list entry", v, {"name": "str", "sys-name": "str", "href": "str"})
    for t in LIST_ONLY:
        resp = get(t, jar).json()
        ok("%s: list and links[0].href" % t, isinstance(resp.get(t), list) and
           isinstance(resp["links"][0]["href"], str), resp)
    resp = get("clusters", jar).json()
    for c in resp["clusters"]:
        fields("clusters list entry", c, {"href": "str", "name": "str"})
        content = get("clusters/" + c["href"].split("/")[-1], jar).json()["content"]
        fields("cluster", content, CLUSTER)
        absent("cluster", content, CLUSTER_NOT_SERVED)
    resp = get("xms", jar).json()
    ok("xms: under xmss", len(resp.get("xmss", [])) == 1, resp)
    for x in resp.get("xmss", []):
        fields("xmss entry", x, {"href": "str", "name": "str"})
        content = get("xms/" + x["href"].split("/")[-1], jar).json()["content"]
        fields("xms", content, XMS)
        absent("xms", content, XMS_NOT_SERVED)
    resp = get("alert-definitions", jar).json()
    ok("alert-definitions: list and links[0].href", len(resp.get("alert-definitions", [])) > 0 and
       isinstance(resp["links"][0]["href"], str), resp)
    for a in resp.get("alert-definitions", []):
        fields("alert definition", a, {"name": "str", "href": "str"})
    for t in NAMED_LISTS:
        resp = get(t, jar).json()
        ok("%s: list and links[0].href" % t, len(resp.get(t, [])) > 0 and isinstance(resp["links"][0]["href"], str),
           resp)
        for e in resp.get(t, []):
            fields("%s list entry" % t, e, {"name": "str", "sys-name": "str", "href": "str"})
            if t in CONTENT:
                content = get(t + "/" + e["href"].split("/")[-1], jar).json()["content"]
                fields(t, content, CONTENT[t])
    r = requests.get(BASE + "/api/json/v3/commands/logout", verify=False, timeout=60)
    ok("its logout carries no cookie: 401 (the session stays until idle)", r.status_code == 401, r.status_code)
    ok("the session still works", get("clusters", jar).status_code == 200)
    finish("prometheus-exporter")


main()
