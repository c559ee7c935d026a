#!/usr/bin/python3
"""bench/api_list.py: time GET /api/json/v2/types/volumes?full=1 over N volumes (issue 21:
10,000 in under 1 s).  Run by bench/api-list.sh, which starts the target; environment
LUNLAB_API, LUNLAB_API_USER, LUNLAB_API_PASSWORD; VOLUMES (10000), ROUNDS (7), CLIENTS (4
threads creating the volumes).  Prints the creation rate, then each listing's time and the
median with the response size.  A measurement, not a test: it never fails on a figure."""
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
N = int(os.environ.get("VOLUMES", "10000"))
ROUNDS = int(os.environ.get("ROUNDS", "7"))
CLIENTS = int(os.environ.get("CLIENTS", "4"))
URL = "https://%s/api/json/v2/types/" % API
local = threading.local()


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


def main():
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as ex:
        list(ex.map(create, range(N)))
    dt = time.monotonic() - t0
    print("created %d volumes through POST volumes (%d clients) in %.1f s: %.0f/s" % (N, CLIENTS, dt, N / dt))
    s = session()
    times = []
    for _ in range(ROUNDS):
        t0 = time.monotonic()
        r = s.get(URL + "volumes", params={"full": 1}, timeout=600)
        times.append(time.monotonic() - t0)
        body = r.content
        if r.status_code != 200 or len(r.json()["volumes"]) != N:
            raise SystemExit("GET volumes?full=1: %d, %d bytes" % (r.status_code, len(body)))
        print("GET volumes?full=1: %.3f s, %d bytes" % (times[-1], len(body)))
    t0 = time.monotonic()
    r = s.get(URL + "volumes", timeout=600)
    print("GET volumes (names and hrefs only): %.3f s, %d bytes" % (time.monotonic() - t0, len(r.content)))
    print("median of %d GET volumes?full=1 over %d volumes: %.3f s, %d bytes (goal under 1 s)"
          % (ROUNDS, N, statistics.median(times), len(body)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
