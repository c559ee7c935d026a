#!/usr/bin/python3
"""Failed logins throttled per client address (target/iscsi/login_throttle.h)
against a running target: wrong API passwords and wrong CHAP answers are
counted in /metrics and logged with the user and the address, a right
password from another address (127.0.0.2) is not slowed, and after the
wait a right one is let in.  The waits themselves (429 inside one, the
lockout) are asserted by the api-server unit test on a clock held still;
here nothing depends on how fast the machine is: the test only sleeps
longer than a wait before it expects the wait to be over.
"""
import os
import subprocess
import time

from requests.adapters import HTTPAdapter

from replay_lib import BASE, USER, PASSWORD, ok, finish, session

V2 = BASE + "/api/json/v2/types/"
LOG = os.environ["LUNLAB_TARGET_LOG"]


class FromAddress(HTTPAdapter):
    """connections from another loopback address: another client"""
    def __init__(self, source, **kw):
        self.source = source
        super().__init__(**kw)

    def init_poolmanager(self, *a, **kw):
        kw["source_address"] = (self.source, 0)
        super().init_poolmanager(*a, **kw)


def metric(s, line_start):
    text = s.get(BASE + "/metrics", auth=(USER, PASSWORD)).text
    for line in text.splitlines():
        if line.startswith(line_start + " "):
            return int(line.split()[-1])
    return None


def log_has(text):
    with open(LOG, encoding="utf-8", errors="replace") as f:
        return text in f.read()


def main():
    here = session()
    other = session()
    other.mount("https://", FromAddress("127.0.0.2"))
    for i in range(4):
        r = here.get(V2 + "clusters", auth=(USER, "wrong-password"))
        ok("wrong password %d: 401" % (i + 1), r.status_code == 401, r.status_code)
    ok("logged with the user and the address",
       log_has("api: failed login: user=%s from 127.0.0.1 (4 in a row; next try in 1 s)" % USER))
    ok("the secret is not logged", not log_has("wrong-password") and not log_has(PASSWORD))
    r = other.get(V2 + "clusters", auth=(USER, PASSWORD))
    ok("a right password from 127.0.0.2 is let in", r.status_code == 200, r.text)
    ok("/metrics counts 4 API failures", metric(other, 'lunlab_login_failures_total{kind="api"}') == 4)
    time.sleep(1.5)  # longer than the 1 s wait after the 4th failure
    r = here.get(V2 + "clusters", auth=(USER, PASSWORD))
    ok("after the wait a right password from 127.0.0.1 is let in", r.status_code == 200, r.text)

    # CHAP: an initiator with credentials, the cluster asking for them
    iqn = "iqn.2026-12.org.example:throttle"
    here.auth = (USER, PASSWORD)
    here.post(V2 + "initiator-groups", json={"ig-name": "th"})
    r = here.post(V2 + "initiators", json={"ig-id": "th", "port-address": iqn,
                                          "initiator-authentication-user-name": "th_user",
                                          "initiator-authentication-password": "ThrottleSecret1"})
    ok("an initiator with CHAP credentials", r.status_code == 201, r.text)
    here.post(V2 + "volumes", json={"vol-name": "thv", "vol-size": "1m"})
    here.post(V2 + "lun-maps", json={"vol-id": "thv", "ig-id": "th", "lun": 5})
    ok("CHAP required", here.put(V2 + "clusters/1", json={"chap-authentication-mode": "initiator"}).status_code == 200)
    url = "iscsi://th_user@%s/%s/5" % (os.environ["LUNLAB_PORTAL"], os.environ["LUNLAB_IQN"])
    for i in range(4):
        env = dict(os.environ, LIBISCSI_CHAP_PASSWORD="WrongSecret%02d" % i)
        rc = subprocess.run([os.environ["API_SCSI"], "-i", iqn, "login", url], env=env, capture_output=True,
                            timeout=60).returncode
        ok("wrong CHAP secret %d: refused" % (i + 1), rc == 3, rc)
    ok("/metrics counts 4 CHAP failures", metric(other, 'lunlab_login_failures_total{kind="chap"}') == 4)
    ok("logged with the address and the CHAP user",
       log_has("login throttle: 127.0.0.1 failed CHAP 4 in a row (CHAP authentication failed (user 'th_user'))"))
    time.sleep(1.5)
    env = dict(os.environ, LIBISCSI_CHAP_PASSWORD="ThrottleSecret1")
    rc = subprocess.run([os.environ["API_SCSI"], "-i", iqn, "login", url], env=env, capture_output=True,
                        timeout=60).returncode
    ok("after the wait the right secret logs in", rc == 0, rc)
    here.put(V2 + "clusters/1", json={"chap-authentication-mode": "disabled"})
    events(here)
    finish("throttle")


def events(s):
    """the event log (xms_events.h): failed logins, changes, the start"""
    def ev(**params):
        r = s.get(BASE + "/api/json/v3/types/events", params=params)
        return r.json()["events"] if r.status_code == 200 else r
    api = ev(entity="XMS", severity="minor")
    ok("4 API login failures as minor security events, newest first",
       [e["description"] for e in api if e["classification"] == "security"] ==
       ["API login failed for user %s from 127.0.0.1 (%d in a row); next try in %d s" % (USER, n, w)
        for n, w in ((4, 1), (3, 0), (2, 0), (1, 0))], api)
    chap = ev(entity="Target")
    ok("4 CHAP failures with the CHAP user", len(chap) == 4 and all(e["entity_details"] == "th_user" and
       e["severity"] == "minor" for e in chap), chap)
    vol = ev(entity="Volume")
    ok("the volume's creation, an audit event", [e["description"] for e in vol] ==
       ["User %s created volumes 'thv'" % USER], vol)
    ok("the start", [e["description"] for e in ev(entity="XMS", severity="information")] ==
       ["The management server started (1 cluster)"])
    allev = ev()
    ok("ids increase, newest first; every field a string but id",
       [e["id"] for e in allev] == sorted((e["id"] for e in allev), reverse=True) and
       all(isinstance(e["id"], int) and all(isinstance(e[k], str) for k in
           ("timestamp", "severity", "entity", "entity_details", "classification", "event_code", "description"))
           for e in allev), allev[:2])
    ok("limit=2", len(ev(limit=2)) == 2)
    ok("to-date-time before any event: none", ev(**{"to-date-time": "2000-01-01 00:00:00"}) == [])
    ok("from-date-time long ago: all", len(ev(**{"from-date-time": "2000-01-01 00:00:00"})) == len(allev))
    r = ev(**{"from-date-time": "yesterday"})
    ok("a bad time: 400 naming it", r.json() == {"message": "Command Syntax Error: from-date-time: want "
                                                 "YYYY-MM-DD HH:MM:SS", "error_code": 400}, r.text)
    r = ev(severity="fatal")
    ok("a bad severity: 400", r.status_code == 400, r.text)


main()
