#!/usr/bin/python3
"""bench/api_pollers.py: N API clients polling what monitoring tools poll (a cluster's and
every volume's performance figures, and the event log), each once per INTERVAL s, until
stdin closes.  Each first makes its connection (one GET of the xms), then the polls start
(READY, when set, names a file written at that moment); at the end it prints one line: the requests made, their times (mean, median, 99th
percentile, worst) and any that failed; the pollers' own CPU (this process: user + system,
every thread); and, when LUNLAB_PID names the target, the CPU its API threads spent
meanwhile (MHD-listen, MHD-connection, xms-perf-hist: /proc/PID/task/TID/schedstat, threads
that appeared counted from 0; one that ended before the last reading is missed, which a
poller keeping its connection open does not do), per request.
Run by bench/api-pollers.sh; environment LUNLAB_API, LUNLAB_API_USER, LUNLAB_API_PASSWORD,
LUNLAB_PID and READY (optional); POLLERS (50), INTERVAL (1)."""
import glob
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
PID = os.environ.get("LUNLAB_PID")
N = int(os.environ.get("POLLERS", "50"))
INTERVAL = float(os.environ.get("INTERVAL", "1"))
BASE = "https://%s/api/json/v3/types/" % API
# what a Telegraf/Prometheus exporter reads each round (docs/api.md "Clients")
POLLS = (("clusters/1", {}),
         ("volumes", {"full": 1, "prop": ["name", "rd-iops", "wr-iops", "rd-bw", "wr-bw", "avg-latency"]}),
         ("events", {}))
# the target's threads that do API work (target/api/api_nice.h)
API_THREADS = ("MHD-listen", "MHD-connection", "xms-perf-hist")
stop = threading.Event()
lock = threading.Lock()
stats = {"requests": 0, "failed": 0, "times": []}


def api_cpu():
    """{tid: CPU seconds} of the target's API threads now ({} without LUNLAB_PID)"""
    out = {}
    if not PID:
        return out
    for task in glob.glob("/proc/%s/task/*" % PID):
        try:
            with open(task + "/comm") as f:
                comm = f.read().strip()
            if comm not in API_THREADS:
                continue
            # schedstat's first field: ns on a CPU.  Not stat's utime + stime: those are
            # in clock ticks (10 ms), and 50 connection threads using 3 ms each read 0 each
            with open(task + "/schedstat") as f:
                out[task] = int(f.read().split()[0]) / 1e9
        except OSError:
            pass  # the thread ended while it was read
    return out


def connect():
    """a poller's session, its connection made (TLS handshake) by one GET of the xms: a
    monitoring tool keeps its connection between polls (the target closes an idle one after
    60 s, API_TIMEOUT_S), so the handshakes are not part of what a poll costs"""
    s = requests.Session()
    s.auth, s.verify, s.trust_env = AUTH, False, False  # trust_env: REQUESTS_CA_BUNDLE beats verify
    s.get(BASE + "xms", timeout=60)
    return s


def poller(i, s, start):
    next_t = start + INTERVAL * i / N  # spread over the interval
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
                stats["times"].append(dt)


def main():
    sessions = [connect() for _ in range(N)]
    if os.environ.get("READY"):  # bench/api-pollers.sh waits for it before it starts the I/O
        with open(os.environ["READY"], "w") as f:
            f.write("connected\n")
    cpu0, own0 = api_cpu(), os.times()
    t0 = time.monotonic()
    threads = [threading.Thread(target=poller, args=(i, sessions[i], t0), daemon=True) for i in range(N)]
    for t in threads:
        t.start()
    sys.stdin.read()
    # the readings at the end of the window, before stop: a poller that returns closes its
    # session, and the target's thread for it ends, its CPU with it
    with lock:
        cpu1, own1, wall, n = api_cpu(), os.times(), time.monotonic() - t0, stats["requests"]
        times = sorted(stats["times"]) or [0.0]
    stop.set()
    for t in threads:
        t.join(timeout=35)
    api = sum(c - cpu0.get(tid, 0.0) for tid, c in cpu1.items())
    own = (own1.user + own1.system) - (own0.user + own0.system)
    per = max(n, 1)
    line = ("pollers: %d clients every %g s, %d requests in %.1f s (%.0f/s), mean %.1f ms, median %.1f ms, "
            "p99 %.0f ms, worst %.0f ms, %d failed; pollers' CPU %.2f s (%.2f core, %.2f ms per request)"
            % (N, INTERVAL, n, wall, n / wall, 1000 * sum(times) / len(times), 1000 * statistics.median(times),
               1000 * times[min(len(times) - 1, int(0.99 * len(times)))], 1000 * times[-1], stats["failed"],
               own, own / wall, 1000 * own / per))
    if PID:
        line += "; target's API threads %.2f s (%.3f core, %.2f ms per request)" % (api, api / wall, 1000 * api / per)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
