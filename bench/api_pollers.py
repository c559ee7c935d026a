#!/usr/bin/python3
"""bench/api_pollers.py: N API clients polling what monitoring tools poll (a cluster's and
every volume's performance figures, and the event log), each once per INTERVAL s, until
stdin closes; then prints the requests made, their mean and worst time, and any that failed.
Run by bench/api-pollers.sh; environment LUNLAB_API, LUNLAB_API_USER,
LUNLAB_API_PASSWORD; POLLERS (50), INTERVAL (1)."""
import os
import sys
import threading
import time

import requests
import urllib3

urllib3.disable_warnings()
API = os.environ["LUNLAB_API"]
AUTH = (os.environ["LUNLAB_API_USER"], os.environ["LUNLAB_API_PASSWORD"])
N = int(os.environ.get("POLLERS", "50"))
INTERVAL = float(os.environ.get("INTERVAL", "1"))
BASE = "https://%s/api/json/v3/types/" % API
# what a Telegraf/Prometheus exporter reads each round (docs/api.md "Clients")
POLLS = (("clusters/1", {}),
         ("volumes", {"full": 1, "prop": ["name", "rd-iops", "wr-iops", "rd-bw", "wr-bw", "avg-latency"]}),
         ("events", {}))
stop = threading.Event()
lock = threading.Lock()
stats = {"requests": 0, "failed": 0, "total_s": 0.0, "worst_s": 0.0}


def poller(i):
    s = requests.Session()
    s.auth, s.verify, s.trust_env = AUTH, False, False  # trust_env: REQUESTS_CA_BUNDLE beats verify
    next_t = time.monotonic() + INTERVAL * i / N  # spread over the interval
    while not stop.is_set():
        stop.wait(max(0.0, next_t - time.monotonic()))
        next_t += INTERVAL
        for path, params in POLLS:
            if stop.is_set():
                return
            t0 = time.monotonic()
            try:
                ok = s.get(BASE + path, params=params, timeout=30).status_code == 200
            except requests.RequestException:
                ok = False
            dt = time.monotonic() - t0
            with lock:
                stats["requests"] += 1
                stats["failed"] += 0 if ok else 1
                stats["total_s"] += dt
                stats["worst_s"] = max(stats["worst_s"], dt)


def main():
    threads = [threading.Thread(target=poller, args=(i,), daemon=True) for i in range(N)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    sys.stdin.read()
    stop.set()
    for t in threads:
        t.join(timeout=35)
    wall = time.monotonic() - t0
    n = max(stats["requests"], 1)
    print("pollers: %d clients, %d requests in %.1f s (%.0f/s), mean %.1f ms, worst %.0f ms, %d failed"
          % (N, stats["requests"], wall, stats["requests"] / wall, 1000 * stats["total_s"] / n,
             1000 * stats["worst_s"], stats["failed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
