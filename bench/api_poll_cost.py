#!/usr/bin/python3
"""bench/api_poll_cost.py: the target's CPU per request for each GET bench/api_pollers.py
polls (docs/api.md "Pollers and I/O"), with no I/O and one client: ROUNDS (5) of N (200)
requests of each over one kept connection (its TLS handshake made first), the CPU the
target's API threads spent (/proc/PID/task/TID/schedstat, ns on a CPU) per request, the
median round and the spread; GET of a type that does not exist (404 from the router) gives
what any request costs (TLS, HTTP, authentication, the log line).  EVENTS=N first makes N
events (renames of one volume: an audit event each) so the ring is full (4096), and adds a
poller's read of what is new (events?from-date-time= a second after the last one: none).
Environment LUNLAB_API, LUNLAB_API_USER, LUNLAB_API_PASSWORD,
LUNLAB_PID; run by bench/api-poll-cost.sh.  A measurement, not a test."""
import glob
import os
import statistics
import sys
import time

import requests
import urllib3

urllib3.disable_warnings()
API = os.environ["LUNLAB_API"]
PID = os.environ["LUNLAB_PID"]
ROUNDS = int(os.environ.get("ROUNDS", "5"))
N = int(os.environ.get("N", "200"))
BASE = "https://%s/api/json/v3/types/" % API
PROP = ["name", "rd-iops", "wr-iops", "rd-bw", "wr-bw", "avg-latency"]
GETS = (("no-such-type", {}, 404), ("xms", {}, 200), ("clusters/1", {}, 200),
        ("volumes", {"full": 1, "prop": PROP}, 200), ("events", {}, 200), ("volumes", {"full": 1}, 200))


def api_cpu():
    """seconds on a CPU of the target's API threads (target/api/api_nice.h) so far"""
    total = 0
    for task in glob.glob("/proc/%s/task/*" % PID):
        try:
            with open(task + "/comm") as f:
                if f.read().strip() not in ("MHD-listen", "MHD-connection", "xms-perf-hist"):
                    continue
            with open(task + "/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e9


def main():
    s = requests.Session()
    s.auth = (os.environ["LUNLAB_API_USER"], os.environ["LUNLAB_API_PASSWORD"])
    s.verify, s.trust_env = False, False
    s.get(BASE + "xms", timeout=60)  # the connection, its handshake, outside the rounds
    gets = GETS
    events = int(os.environ.get("EVENTS", "0"))
    if events:
        for i in range(events):
            r = s.put(BASE + "volumes/1", json={"vol-name": "poll-0" if i % 2 else "poll-x"}, timeout=60)
            if r.status_code != 200:
                raise SystemExit("PUT volumes/1: %d %s" % (r.status_code, r.text[:200]))
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + 1))
        gets = GETS + (("events", {"from-date-time": since}, 200),)
        print("events made: %d" % events)
    for path, params, status in gets:
        per = []
        for _ in range(ROUNDS):
            c0 = api_cpu()
            for _ in range(N):
                r = s.get(BASE + path, params=params, timeout=60)
                if r.status_code != status:
                    raise SystemExit("GET %s: %d %s" % (path, r.status_code, r.text[:200]))
            per.append((api_cpu() - c0) / N)
        what = path + ("?" + "&".join("%s=%s" % (k, v if not isinstance(v, list) else ",".join(v))
                                      for k, v in params.items()) if params else "")
        print("%-72s %7d bytes: target's API CPU %.3f ms per request (rounds %s)"
              % (what, len(r.content), 1000 * statistics.median(per), " ".join("%.3f" % (1000 * p) for p in per)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
