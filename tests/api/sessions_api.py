#!/usr/bin/python3
"""XMS REST v3 sessions against a running target (api_session.h): login by
HTTP Basic and by user=/password= in the query, the "sessid" cookie taken
in place of Basic on v1, v2 and v3, logout ending it, forged and malformed
cookies refused, the xms list under "xmss", v3 lists naming each object's
cluster (sys-name), and runs of '/' in a path taken as one.
"""
import os
import signal
import time

import requests

from replay_lib import API, BASE, USER, PASSWORD, ok, finish, session

UNAUTH = {"message": "Unauthorized", "error_code": 401}


def main():
    anon = session()
    # login by query parameters (the Prometheus exporter's form)
    r = anon.get(BASE + "/api/json/v3/commands/login", params={"password": PASSWORD, "user": USER})
    tok = r.cookies.get("sessid")
    ok("login by query: 200 and a 64-hex-digit cookie",
       r.status_code == 200 and tok is not None and len(tok) == 64 and int(tok, 16) >= 0, (r.status_code, r.headers))
    sc = r.headers.get("Set-Cookie", "")
    ok("the cookie is Secure and HttpOnly", "Secure" in sc and "HttpOnly" in sc, sc)
    ok("the query form is for login only",
       session().get(BASE + "/api/json/v2/types/volumes", params={"password": PASSWORD, "user": USER}).json()
       == UNAUTH)
    ok("login by query with a wrong password: 401",
       session().get(BASE + "/api/json/v3/commands/login", params={"password": "nope-nope", "user": USER}).json()
       == UNAUTH)
    jar = {"sessid": tok}
    for path in ("/api/json/types/clusters", "/api/json/v2/types/clusters", "/api/json/v3/types/clusters"):
        r = requests.get(BASE + path, cookies=jar, verify=False, timeout=30)
        ok("the cookie alone on " + path, r.status_code == 200 and len(r.json()["clusters"]) >= 1, r.text)
    r = requests.post(BASE + "/api/json/v3/types/volumes", cookies=jar, verify=False, timeout=30,
                      json={"vol-name": "sess-v", "vol-size": "1m"})
    ok("POST with the cookie", r.status_code == 201, r.text)
    r = requests.get(BASE + "/api/json/v3/types/volumes", cookies=jar, verify=False, timeout=30)
    ok("v3 list entries carry sys-name", any(v["name"] == "sess-v" and v["sys-name"] == "xbrick1"
                                             for v in r.json()["volumes"]), r.text)
    r = requests.get(BASE + "/api/json/v2/types/volumes", cookies=jar, verify=False, timeout=30)
    ok("v2 list entries are href + name", all(set(v) == {"href", "name"} for v in r.json()["volumes"]), r.text)
    r = requests.get(BASE + "/api/json/v3/types/volumes?name=sess-v", cookies=jar, verify=False, timeout=30)
    ok("an object's sys-name is its cluster", r.json()["content"]["sys-name"] == "xbrick1", r.text)
    r = requests.get(BASE + "/api/json/v3/types/xms", cookies=jar, verify=False, timeout=30)
    ok("the xms list is under xmss", [x["name"] for x in r.json().get("xmss", [])] == ["xms"], r.text)
    r = requests.get(BASE + "/api/json/v2/types/xms/1", cookies=jar, verify=False, timeout=30)
    c = r.json()["content"]
    ok("restapi-protocol-version 3.0 (v3 is served), sw-version 6.3.0-58",
       c["restapi-protocol-version"] == "3.0" and c["sw-version"] == "6.3.0-58", c)
    ok("num-of-user-accounts: the auth file's one api user; ram-usage below ram-total",
       c["num-of-user-accounts"] == 1 and 0 < int(c["ram-usage"]) < int(c["ram-total"]), c)
    ok("xms-ip is the address the client reached, db-version",
       c["xms-ip"] == API.rsplit(":", 1)[0] and c["db-version"] == "6.3.0.58", c)
    r = requests.get(BASE + "/api/json/v3/types", cookies=jar, verify=False, timeout=30)
    ok("GET v3/types lists v3 hrefs", all("/api/json/v3/types/" in x["href"] for x in r.json()["children"]), r.text)
    r = requests.get(BASE + "//api/json//v3/types///volumes", cookies=jar, verify=False, timeout=30,
                     params={"name": "sess-v"})
    ok("runs of '/' in a path are one", r.status_code == 200 and r.json()["content"]["name"] == "sess-v", r.text)
    # forged and malformed cookies
    for bad in (tok[:-1] + ("0" if tok[-1] != "0" else "1"), tok[:-1], tok + "0", tok.upper(), "", "x" * 5000):
        r = requests.get(BASE + "/api/json/v3/types/clusters", cookies={"sessid": bad}, verify=False, timeout=30)
        ok("a forged cookie (%d chars): 401" % len(bad), r.status_code == 401 and r.json() == UNAUTH, r.text)
    # a cookie and wrong Basic: the session is enough
    r = requests.get(BASE + "/api/json/v3/types/clusters", cookies=jar, auth=(USER, "wrong-password"),
                     verify=False, timeout=30)
    ok("a live cookie beside wrong Basic: 200", r.status_code == 200, r.text)
    # logout ends it; a second session of the same user lives on
    r2 = session().get(BASE + "/api/json/v3/commands/login", auth=(USER, PASSWORD))
    other = r2.cookies.get("sessid")
    r = requests.get(BASE + "/api/json/v3/commands/logout", cookies=jar, verify=False, timeout=30)
    ok("logout: 200", r.status_code == 200, r.text)
    r = requests.get(BASE + "/api/json/v3/types/clusters", cookies=jar, verify=False, timeout=30)
    ok("after logout the cookie is refused", r.status_code == 401 and r.json() == UNAUTH, r.text)
    r = requests.get(BASE + "/api/json/v3/types/clusters", cookies={"sessid": other}, verify=False, timeout=30)
    ok("the other session still works", r.status_code == 200, r.text)
    r = requests.get(BASE + "/api/json/v3/commands/logout", verify=False, timeout=30)
    ok("logout without a cookie or credentials: 401", r.status_code == 401, r.text)
    reload_ends_sessions()
    finish("sessions")


def reloaded(n):
    """SIGHUP (auth re-read, target/auth_reload.c) to the target run.sh started; wait for the
    n-th reload line in its log, until it comes or the target is gone (no 30 s limit of its own:
    run.sh's timeout is the hang guard)"""
    pid = int(os.environ["LUNLAB_TARGET_PID"])
    os.kill(pid, signal.SIGHUP)
    while True:
        with open(os.environ["LUNLAB_TARGET_LOG"], encoding="utf-8", errors="replace") as f:
            if f.read().count("reload: ") >= n:
                return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.1)


def reload_ends_sessions():
    """a user removed from the auth file by a re-read: their session is refused"""
    path = os.environ["LUNLAB_AUTH_FILE"]
    with open(path, encoding="utf-8") as f:
        original = f.read()
    with open(path, "a", encoding="utf-8") as f:
        f.write("api temp TempSecret123\n")
    ok("SIGHUP re-reads the auth file with a second api user", reloaded(1))
    tmp = session().get(BASE + "/api/json/v3/commands/login", auth=("temp", "TempSecret123")).cookies.get("sessid")
    mine = session().get(BASE + "/api/json/v3/commands/login", auth=(USER, PASSWORD)).cookies.get("sessid")
    ok("the new user logs in", tmp is not None and requests.get(
        BASE + "/api/json/v3/types/clusters", cookies={"sessid": tmp}, verify=False, timeout=30).status_code == 200)
    with open(path, "w", encoding="utf-8") as f:
        f.write(original)
    ok("SIGHUP re-reads it without the user", reloaded(2))
    r = requests.get(BASE + "/api/json/v3/types/clusters", cookies={"sessid": tmp}, verify=False, timeout=30)
    ok("the removed user's session is refused", r.status_code == 401 and r.json() == UNAUTH, r.text)
    r = requests.get(BASE + "/api/json/v3/types/clusters", cookies={"sessid": mine}, verify=False, timeout=30)
    ok("the remaining user's session lives on", r.status_code == 200, r.text)


main()
