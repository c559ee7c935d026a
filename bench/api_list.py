#!/usr/bin/python3
"""bench/api_list.py: time GET /api/json/v2/types/volumes?full=1 over N volumes (issue 21:
10,000 in under 1 s).  Run by bench/api-list.sh, which starts the target; environment
LUNLAB_API, LUNLAB_API_USER, LUNLAB_API_PASSWORD; VOLUMES (the counts to time the listing
at, "1000,2500,5000,10000"), ROUNDS (7), CLIENTS (4 threads creating the volumes).  Prints,
per count, the creation rate, the listings' median and each time, the response size, the
cost per volume, the target's CPU time (utime+stime from /proc/PID/stat, far less noisy than
wall time on a shared machine) per listing when LUNLAB_PID names the target, and one GET by name.  A measurement, not a test: it never fails on a figure.

Each API volume is an LU; its commands run on the target's one worker pool (target/tcmu/
work_pool.h, --handler-threads), so 10,000 volumes cost no thread each (before, 4 threads
per volume stopped creation near 8,000 on a machine with kernel.pid_max 32768).
bench/api-10k.sh runs this at 10,000 and adds threads, memory and the shutdown time."""
import concurrent.futures
import os
import statistics
import sys
import threading
import time

import requests
import urllib3

urllib3.disable_warnings()
API = os.environ["LUNLAB_API"]
AUTH = (os.environ["LUNLAB_API_USER"], os.environ["LUNLAB_API_PASSWORD"])
# volumes counts at which the listing is timed, created in turn
CHECKPOINTS = [int(x) for x in os.environ.get("VOLUMES", "1000,2500,5000,10000").split(",")]
ROUNDS = int(os.environ.get("ROUNDS", "7"))
CLIENTS = int(os.environ.get("CLIENTS", "4"))
URL = "https://%s/api/json/v2/types/" % API
local = threading.local()
PID = os.environ.get("LUNLAB_PID")


def target_cpu():
    """the target's user+system CPU seconds so far (0 when LUNLAB_PID is unset)"""
    if not PID:
        return 0.0
    with open("/proc/%s/stat" % PID) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def session():
    if not hasattr(local, "s"):
        local.s = requests.Session()
        local.s.auth = AUTH
        local.s.verify = False
        local.s.trust_env = False  # REQUESTS_CA_BUNDLE would override verify=False
    return local.s


def create(i):
    r = session().post(URL + "volumes", json={"vol-name": "bench-%05d" % i, "vol-size": "1g"}, timeout=120)
    if r.status_code != 201:
        raise SystemExit("POST volumes bench-%05d: %d %s" % (i, r.status_code, r.text))


def listing(n):
    s = session()
    times, cpu = [], []
    for _ in range(ROUNDS):
        c0 = target_cpu()
        t0 = time.monotonic()
        r = s.get(URL + "volumes", params={"full": 1}, timeout=600)
        times.append(time.monotonic() - t0)
        cpu.append(target_cpu() - c0)
        body = r.content
        if r.status_code != 200 or len(r.json()["volumes"]) != n:
            raise SystemExit("GET volumes?full=1: %d, %d bytes" % (r.status_code, len(body)))
    t0 = time.monotonic()
    r = s.get(URL + "volumes", params={"name": "bench-%05d" % (n // 2)}, timeout=600)
    one = time.monotonic() - t0
    print("%6d volumes: GET volumes?full=1 median of %d %.3f s (%s), %d bytes, %.1f us per volume; "
          "GET volumes?name= %.1f ms" % (n, ROUNDS, statistics.median(times), " ".join("%.3f" % t for t in times),
                                          len(body), 1e6 * statistics.median(times) / n, 1000 * one))
    if PID:
        print("%6d volumes: target CPU per listing median %.3f s (%s)"
              % (n, statistics.median(cpu), " ".join("%.2f" % c for c in cpu)))


def main():
    made = 0
    for n in CHECKPOINTS:
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as ex:
            list(ex.map(create, range(made, n)))
        dt = time.monotonic() - t0
        print("%6d volumes: created %d through POST volumes (%d clients) in %.1f s: %.0f/s"
              % (n, n - made, CLIENTS, dt, (n - made) / dt))
        made = n
        listing(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
