#!/usr/bin/python3
"""Telegraf's XtremIO input, replayed: the requests it sends and the fields
it decodes, from influxdata/telegraf plugins/inputs/xtremio/xtremio.go
(commit 9945d26046b5db7d40bbfebb2e922ead64912476) and xtremio_types.go
(commit 50d76b275f0213bbd4e7790c4a852a108d764457).

Its flow per poll: GET /api/json/v3/commands/login with HTTP Basic, keep the
cookie named "sessid"; for each collector GET /api/json/v3/types/COLLECTOR
with only that cookie (no Basic), take each href's last segment and GET
/api/json/v3/types/COLLECTOR/INDEX; it never logs out.  The list key of the
xms collector is "xmss".  Go's encoding/json refuses a field of the wrong
type (`json:",string"` needs a JSON string), so each field's type is
asserted as Go decodes it (its BBU struct's tag "Name" matches "name":
encoding/json matches keys case-insensitively).
"""
from replay_lib import BASE, USER, PASSWORD, ok, fields, absent, finish, session

COLLECTORS = {
    "clusters": {"hardware-platform": "str", "license-id": "str", "guid": "str", "name": "str",
                 "free-ud-ssd-space-in-percent": "int", "rd-iops": "strint", "wr-iops": "strint", "num-of-ssds": "int",
                 "sys-psnt-serial-number": "str", "compression-factor": "num", "num-of-vols": "int",
                 "data-reduction-ratio": "num"},
    "volumes": {"guid": "str", "sys-name": "str", "name": "str", "vol-size": "strint",
                "logical-space-in-use": "strint", "rd-iops": "strint", "wr-iops": "strint", "rd-latency": "strint",
                "wr-latency": "strint"},
    "xms": {"guid": "str", "name": "str", "version": "str", "xms-ip": "str", "rd-iops": "strint",
            "wr-iops": "strint", "rd-latency": "strint", "wr-latency": "strint", "overall-efficiency-ratio": "strnum",
            "ssd-space-in-use": "strint", "ram-usage": "strint", "ram-total": "strint", "cpu": "num",
            "num-of-user-accounts": "int"},
    "bbus": {"serial-number": "str", "guid": "str", "power-feed": "str", "name": "str", "model-name": "str",
             "power": "int", "avg-daily-temp": "int", "enabled-state": "str",
             "ups-need-battery-replacement": "strbool", "is-low-battery-no-input": "strbool"},
    "ssds": {"model-name": "str", "fw-version": "str", "ssd-uid": "str", "guid": "str", "sys-name": "str",
             "serial-number": "str", "ssd-size": "strint", "ssd-space-in-use": "strint", "wr-iops": "strint",
             "rd-iops": "strint", "wr-bw": "strint", "rd-bw": "strint", "num-bad-sectors": "int"},
}
# read by the plugin, not served by lunlab yet (performance counters, the
# XMS host's own figures): Go leaves them zero
NOT_SERVED = {
    "clusters": ["total-memory-in-use-in-percent"],
    "volumes": ["data-reduction-ratio"],
    "xms": [],
    "bbus": [],
    "ssds": [],
}
LIST_KEY = {"clusters": "clusters", "volumes": "volumes", "xms": "xmss", "bbus": "bbus", "ssds": "ssds"}


def main():
    # something to collect: a volume made the Cinder way (Basic, v2)
    s = session()
    r = s.post(BASE + "/api/json/v2/types/volumes", auth=(USER, PASSWORD),
               json={"vol-name": "telegraf-vol", "vol-size": "1g"})
    ok("setup: a volume", r.status_code == 201, r.text)

    s = session()
    r = s.get(BASE + "/api/json/v3/commands/login", auth=(USER, PASSWORD))
    ok("login (Basic): 200", r.status_code == 200, (r.status_code, r.text))
    cookie = r.cookies.get("sessid")
    ok("login: a sessid cookie", cookie is not None and len(cookie) == 64, r.headers)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    for collector, spec in COLLECTORS.items():
        # only the cookie: a fresh client with no Basic credentials at all
        r = s.get(BASE + "/api/json/v3/types/" + collector, headers=headers)
        ok("%s list: 200 with the cookie alone" % collector, r.status_code == 200, (r.status_code, r.text))
        hrefs = [x.get("href") for x in r.json().get(LIST_KEY[collector], [])]
        ok("%s list: under %s, hrefs" % (collector, LIST_KEY[collector]),
           hrefs and all(isinstance(h, str) and h.split("/")[-1].isdigit() for h in hrefs), r.text)
        for h in hrefs:
            r = s.get(BASE + "/api/json/v3/types/%s/%s" % (collector, h.split("/")[-1]), headers=headers)
            ok("%s/%s: 200" % (collector, h.split("/")[-1]), r.status_code == 200, r.text)
            content = r.json().get("content", {})
            fields(collector, content, spec)
            absent(collector, content, NOT_SERVED[collector])
    # the next poll logs in again (Telegraf forgets its cookie after each)
    r = session().get(BASE + "/api/json/v3/commands/login", auth=(USER, PASSWORD))
    ok("second login: another cookie", r.cookies.get("sessid") not in (None, cookie), r.headers)
    r = session().get(BASE + "/api/json/v3/commands/login", auth=(USER, "wrong-password"))
    ok("login with a wrong password: 401, no cookie", r.status_code == 401 and "sessid" not in r.cookies,
       (r.status_code, r.headers))
    finish("telegraf")


main()
