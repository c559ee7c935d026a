#!/usr/bin/python3
"""API fault rules (target/api/api_faults.h) against a running target: a
client's retry path as Cinder's driver walks it (400 "system_is_busy"
twice, then the request goes through: xtremio.py retries
XtremIOArrayBusy), "too_many_snapshots_per_vol" for snapshot POSTs only,
nothing changed by a refused request, a rule's counts, and bad rules
refused naming the field.
"""
from replay_lib import BASE, USER, PASSWORD, ok, finish, session

S = session()
S.auth = (USER, PASSWORD)
F = BASE + "/api/lunlab/api-faults"
V2 = BASE + "/api/json/v2/types/"


def main():
    r = S.post(F, json={"error": "system_is_busy", "method": "POST", "type": "volumes", "count": 2})
    ok("a busy rule for 2 volume POSTs", r.status_code == 201 and r.json()["error"] == "system_is_busy", r.text)
    rid = r.json()["id"]
    tries = []
    for _ in range(5):   # Cinder: xtremio_array_busy_retry_count (5 by default), retried on system_is_busy only
        r = S.post(V2 + "volumes", json={"vol-name": "busy-v", "vol-size": "1m"})
        tries.append(r.status_code)
        if r.status_code != 400 or r.json().get("message") != "system_is_busy":
            break
    ok("busy twice, then created", tries == [400, 400, 201], tries)
    r = S.get(F + "/%d" % rid).json()
    ok("the rule counted 3 matches, 2 hits, spent", (r["matches"], r["hits"], r["spent"]) == (3, 2, True), r)
    ok("one volume made (the refused POSTs changed nothing)",
       [v["name"] for v in S.get(V2 + "volumes").json()["volumes"]] == ["busy-v"])
    r = S.post(F, json={"error": "too_many_snapshots_per_vol", "type": "snapshots", "method": "POST"})
    ok("a snapshot-limit rule", r.status_code == 201, r.text)
    r = S.post(V2 + "snapshots", json={"volume-list": ["busy-v"], "snapshot-set-name": "ss"})
    ok("snapshot POST: 400 too_many_snapshots_per_vol",
       r.status_code == 400 and r.json() == {"message": "too_many_snapshots_per_vol", "error_code": 400}, r.text)
    ok("no snapshot set made", S.get(V2 + "snapshot-sets").json()["snapshot-sets"] == [])
    ok("other requests pass", S.get(V2 + "volumes", params={"name": "busy-v"}).status_code == 200)
    r = S.get(F).json()["api-faults"]
    ok("both rules listed", [x["error"] for x in r] == ["system_is_busy", "too_many_snapshots_per_vol"], r)
    ok("delete all", S.delete(F).json() == {"removed": 2})
    r = S.post(V2 + "snapshots", json={"volume-list": ["busy-v"], "snapshot-set-name": "ss"})
    ok("the snapshot is made once the rule is gone", r.status_code == 201, r.text)
    for body, want in (({"error": "nope"}, "error: nope is not"), ({"error": "system_is_busy", "status": 302},
                       "status: want"), ({"error": "system_is_busy", "x": 1}, "x: unknown field")):
        r = S.post(F, json=body)
        ok("bad rule %s: 400 %s" % (body, want), r.status_code == 400 and want in r.json()["message"], r.text)
    r = S.post(F, data=b"\x00{")
    ok("a body that is not JSON: 400", r.status_code == 400, r.text)
    finish("api-faults")


main()
