#!/usr/bin/python3
"""/api/lunlab/arrays (target/api/lunlab_arrays.c): an array's physical capacity and soft
threshold changed while the target runs, checked on the SCSI side (tests/api/api_scsi):
the figures follow, the threshold keeps its share when only the capacity is given, every
nexus is told 06/2A/01 MODE PARAMETERS CHANGED, a use above a lowered threshold is
06/38/07, a capacity below the use is refused with the array's reason, bad fields name
themselves.  Environment as xms_api.py (one --lun LU, every initiator's LUN 0).
"""
import os
import subprocess
import sys
import time

from replay_lib import ok, expect_err, finish
from replay_lib import lunlab_req as req
URL0 = "iscsi://%s/%s/0" % (os.environ["LUNLAB_PORTAL"], os.environ["LUNLAB_IQN"])
API_SCSI = os.environ["API_SCSI"]
HOST = "iqn.2026-12.org.example:arrays-a"


def main():
    arrays = req("GET", "arrays").json()["arrays"]
    ok("one array, the --lun LU's", len(arrays) == 1, arrays)
    name, cap = arrays[0]["name"], arrays[0]["capacity"]
    w = subprocess.Popen([API_SCSI, "-i", HOST, "watch", URL0], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ok("a session watches LUN 0", w.stdout.readline().strip() == "ready")
    rc = subprocess.run([API_SCSI, "-i", HOST, "write", URL0, "0", "2048", "3"], capture_output=True, timeout=120)
    ok("1 MiB of unique data written", rc.returncode == 0, rc.stderr)
    # the accounting compresses in the background (idle class): until it has, "used" holds each
    # new block's uncompressed reservation, so wait for it (docs/testing.md, rule 5; the
    # 300 s of run.sh's timeout are the hang guard)
    while req("GET", "arrays/" + name).json()["pending-blocks"]:
        time.sleep(0.1)
    used = req("GET", "arrays/" + name).json()["used"]
    ok("the array uses space (the pattern compresses)", 0 < used < 1 << 20, used)

    r = req("PUT", "arrays/" + name, json={"capacity": "64m", "soft-threshold": 50})
    a = r.json()
    ok("capacity 64 MiB, threshold 50% (32 MiB)", r.status_code == 200 and a["capacity"] == 64 << 20 and
       a["soft-threshold-bytes"] == 32 << 20, r.text)
    r = req("PUT", "arrays/" + name, json={"capacity": 128 << 20})
    ok("only the capacity: the threshold keeps its 50% (64 MiB)",
       r.status_code == 200 and r.json()["soft-threshold-bytes"] == 64 << 20, r.text)
    r = req("PUT", "arrays/" + name, json={"capacity": "16m", "soft-threshold": 1})
    ok("16 MiB, threshold 1% (167772 bytes): now below the use",
       r.status_code == 200 and r.json()["soft-threshold-bytes"] == 167772 and r.json()["used"] > 167772, r.text)
    answers = []
    for _ in range(4):
        w.stdin.write("\n")
        w.stdin.flush()
        answers.append(w.stdout.readline().strip())
    w.stdin.close()
    w.wait(timeout=60)
    ok("the watching session: MODE PARAMETERS CHANGED and SOFT THRESHOLD REACHED once each, then GOOD",
       sorted(answers[:2]) == ["CHECK 6/2a/01", "CHECK 6/38/07"] and answers[2:] == ["GOOD", "GOOD"], answers)

    expect_err("below the use", req("PUT", "arrays/" + name, json={"capacity": 4096}), 400,
               "capacity 4096 is below the %d bytes array '%s' uses now" % (req("GET", "arrays/" + name)
                                                                          .json()["used"], name))
    expect_err("a capacity that is not one", req("PUT", "arrays/" + name, json={"capacity": "lots"}), 400,
               "capacity: want a size in bytes (an integer, or a string like 64m, 2g)")
    expect_err("a percentage above 100", req("PUT", "arrays/" + name, json={"soft-threshold": 101}), 400,
               "soft-threshold: want a number 0..100")
    expect_err("nothing to change", req("PUT", "arrays/" + name, json={}), 400,
               "want {\"capacity\": SIZE} and/or {\"soft-threshold\": PERCENT}")
    expect_err("an unknown array", req("PUT", "arrays/nope", json={"capacity": "1g"}), 404, "obj_not_found")
    expect_err("PUT on the list", req("PUT", "arrays", json={"capacity": "1g"}), 405,
               "PUT an array: /api/lunlab/arrays/NAME")
    ok("refusals changed nothing", req("GET", "arrays/" + name).json()["capacity"] == 16 << 20)
    req("PUT", "arrays/" + name, json={"capacity": cap, "soft-threshold": 80})
    finish("arrays")


if __name__ == "__main__":
    sys.exit(main())
