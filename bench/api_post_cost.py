#!/usr/bin/python3
"""bench/api_post_cost.py: what one POST volumes costs the target at N volumes (issue 21: with
--state-dir each change used to store the whole model, so the n-th POST wrote all n volumes).
Run by bench/api-post-cost.sh, which starts the target; environment LUNLAB_API,
LUNLAB_API_USER, LUNLAB_API_PASSWORD, LUNLAB_PID; VOLUMES (the counts to measure at,
"1000,5000"), SAMPLE (50 POSTs measured one at a time at each count), CLIENTS (4 threads
creating the volumes in between).  Prints per count the target's CPU time (utime+stime from
/proc/PID/stat, far less noisy than wall time on a shared machine) per POST, and the wall
time per POST.  A measurement, not a test: it never fails on a figure."""
import concurrent.futures
import os
import sys
import time

# the session, the POST and the CPU reading are api_list.py's (the same target, the same counters)
from api_list import create, target_cpu

API = os.environ["LUNLAB_API"]
CHECKPOINTS = [int(x) for x in os.environ.get("VOLUMES", "1000,5000").split(",")]
SAMPLE = int(os.environ.get("SAMPLE", "50"))
CLIENTS = int(os.environ.get("CLIENTS", "4"))
PID = os.environ["LUNLAB_PID"]


def target_written():
    """bytes the target has written so far (wchar of /proc/PID/io: its state directory's
    databases, logs; deterministic where CPU and wall time are not)"""
    with open("/proc/%s/io" % PID) as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def main():
    have = 0
    t_start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        for n in CHECKPOINTS:
            list(pool.map(create, range(have, n)))
            have = n
            print("%6d volumes created (%.0f s so far)" % (n, time.monotonic() - t_start), flush=True)
            c0, t0, w0 = target_cpu(), time.monotonic(), target_written()
            for i in range(SAMPLE):
                create(have + i)  # one at a time: the target does nothing else meanwhile
            cpu, wall, wrote = target_cpu() - c0, time.monotonic() - t0, target_written() - w0
            have += SAMPLE
            print("%6d volumes: POST volumes: target CPU %.2f ms, wall %.2f ms, %.0f bytes written per POST "
                  "(%d POSTs)" % (n, 1000 * cpu / SAMPLE, 1000 * wall / SAMPLE, wrote / SAMPLE, SAMPLE), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
