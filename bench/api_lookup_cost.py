#!/usr/bin/python3
"""bench/api_lookup_cost.py: what one GET volumes?name=X and one GET volumes/INDEX cost the
target at N volumes (issue 21: a lookup computed every volume's array figures).  Run by
bench/api-lookup-cost.sh, which starts the target; environment LUNLAB_API, LUNLAB_API_USER,
LUNLAB_API_PASSWORD, LUNLAB_PID; VOLUMES (3000), SAMPLE (100 lookups of each kind), CLIENTS
(4 threads creating the volumes).  Prints the target's CPU time (utime+stime from
/proc/PID/stat) per lookup.  A measurement, not a test: it never fails on a figure."""
import concurrent.futures
import os
import sys

import api_post_cost as common

VOLUMES = int(os.environ.get("VOLUMES", "3000"))
SAMPLE = int(os.environ.get("SAMPLE", "100"))
CLIENTS = int(os.environ.get("CLIENTS", "4"))


def main():
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(common.create, range(VOLUMES)))
    s = common.session()
    for what, path, params in (("GET volumes?name=", "volumes", {"name": "bench-%05d" % (VOLUMES // 2)}),
                               ("GET volumes/INDEX", "volumes/%d" % (VOLUMES // 2 + 1), None)):
        c0 = common.target_cpu()
        for _ in range(SAMPLE):
            r = s.get(common.URL + path, params=params, timeout=600)
            if r.status_code != 200 or "content" not in r.json():
                raise SystemExit("%s: %d %s" % (what, r.status_code, r.text[:200]))
        print("%6d volumes: %s: target CPU %.2f ms per lookup (%d lookups)"
              % (VOLUMES, what, 1000 * (common.target_cpu() - c0) / SAMPLE, SAMPLE), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
