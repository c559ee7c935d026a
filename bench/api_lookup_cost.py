#!/usr/bin/python3
"""bench/api_lookup_cost.py: what one GET volumes?name=X and one GET volumes/INDEX cost the
target at N volumes (issue 21: a lookup computed every volume's array figures, then compared
every name), and what one full listing of initiator groups costs at G groups of I initiators
(it summed every initiator per group: G x I).  Run by bench/api-lookup-cost.sh, which starts
the target; environment LUNLAB_API, LUNLAB_API_USER, LUNLAB_API_PASSWORD, LUNLAB_PID; VOLUMES
(3000), SAMPLE (100 lookups of each kind), CLIENTS (4 threads creating the objects), IGS (0:
no group listing; e.g. 500), INITS (4 initiators per group), LISTINGS (20 group listings).
Prints the target's CPU time (utime+stime from /proc/PID/stat) per request.  A measurement,
not a test: it never fails on a figure."""
import concurrent.futures
import os
import sys

# the session, the POST and the CPU reading are api_list.py's (the same target, the same counters)
from api_list import URL, create, session, target_cpu

VOLUMES = int(os.environ.get("VOLUMES", "3000"))
SAMPLE = int(os.environ.get("SAMPLE", "100"))
CLIENTS = int(os.environ.get("CLIENTS", "4"))
IGS = int(os.environ.get("IGS", "0"))
INITS = int(os.environ.get("INITS", "4"))
LISTINGS = int(os.environ.get("LISTINGS", "20"))


def made(r, what):
    if r.status_code != 201:
        raise SystemExit("%s: %d %s" % (what, r.status_code, r.text[:200]))


def group(g):
    s = session()
    made(s.post(URL + "initiator-groups", json={"ig-name": "bench-ig-%05d" % g}, timeout=120), "group %d" % g)
    for i in range(INITS):
        made(s.post(URL + "initiators", json={"initiator-name": "bench-i-%05d-%d" % (g, i), "ig-id": "bench-ig-%05d" % g,
                                              "port-address": "iqn.2026-12.org.example:bench-%05d-%d" % (g, i)},
                    timeout=120), "initiator %d of group %d" % (i, g))


def per_request(what, path, params, n, key):
    s = session()
    c0 = target_cpu()
    for _ in range(n):
        r = s.get(URL + path, params=params, timeout=600)
        if r.status_code != 200 or key not in r.json():
            raise SystemExit("%s: %d %s" % (what, r.status_code, r.text[:200]))
    return 1000 * (target_cpu() - c0) / n


def main():
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(create, range(VOLUMES)))
        list(pool.map(group, range(IGS)))
    for what, path, params in (("GET volumes?name=", "volumes", {"name": "bench-%05d" % (VOLUMES // 2)}),
                               ("GET volumes/INDEX", "volumes/%d" % (VOLUMES // 2 + 1), None)):
        print("%6d volumes: %s: target CPU %.2f ms per lookup (%d lookups)"
              % (VOLUMES, what, per_request(what, path, params, SAMPLE, "content"), SAMPLE), flush=True)
    if IGS:
        what = "GET initiator-groups?full=1"
        print("%6d groups of %d initiators: %s: target CPU %.2f ms per listing (%d listings)"
              % (IGS, INITS, what, per_request(what, "initiator-groups", {"full": 1}, LISTINGS, "initiator-groups"),
                 LISTINGS), flush=True)
        print("%6d groups of %d initiators: GET initiators?name=: target CPU %.2f ms per lookup (%d lookups)"
              % (IGS, INITS, per_request("GET initiators?name=", "initiators",
                                         {"name": "bench-i-%05d-0" % (IGS // 2)}, SAMPLE, "content"), SAMPLE),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
