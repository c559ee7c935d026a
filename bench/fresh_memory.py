#!/usr/bin/python3
"""bench/fresh_memory.py: the machine's own price of fresh memory, the reference that
bench/first-writes.sh runs beside lunlab's first writes and iperf3 (issue 25 item 1,
docs/accounting.md "The host's price of fresh memory").

A first write into never-written space needs memory the process never had: whoever stores
the bytes (lunlab's payload slots, tgt's backing file on tmpfs, any program) makes the kernel
find, charge, zero and map a fresh page for each 4 KiB, and on a virtual machine whose host
took free memory back (virtio-balloon free page reporting) the host must back it again first.
This probe does only that, with no target, no network and no hashing: one thread copies
BLOCK-byte buffers of unique data into a fresh anonymous mapping, block after block, for
DURATION seconds (or LIMIT bytes), exactly as a writer without lunlab's filler would.  What it
reaches is what no program that stores new bytes on this machine passes with one thread.

usage: fresh_memory.py DURATION [BLOCK (4194304)] [LIMIT bytes (16 GiB)]
prints one JSON object: mb_s (10^6 bytes/s over the run), bytes, cpu_ms_per_mib (this
process's CPU, user+system, per MiB stored), and per_step: the ms per MiB of each whole 256 MiB
in turn (where the machine's price changes: the first GiBs may come from memory the host still
backs, the later ones not)."""
import json
import mmap
import os
import sys
import time

MAP_NORESERVE = 0x4000  # Linux; Python 3.11's mmap module does not name it
GIB = 1 << 30
STEP = 256 << 20  # the price is reported per this many bytes stored


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    def arg(i, name, kind, default, ok, want):
        """argument i, or default; None (after one line naming it) when bad"""
        text = sys.argv[i] if len(sys.argv) > i else None
        try:
            v = default if text is None else kind(text)
        except ValueError:
            v = None
        if v is None or v != v or not ok(v):  # (v != v: a float NaN)
            print(f"fresh_memory.py: {name} '{text}': want {want}", file=sys.stderr)
            return None
        return v

    duration = arg(1, "DURATION", float, None, lambda v: 0 < v < 1e6, "seconds, more than 0 and under 1000000")
    block = duration and arg(2, "BLOCK", int, 4 << 20, lambda v: 0 < v <= GIB and v % 4096 == 0,
                             "bytes, a multiple of 4096 up to 1 GiB")
    limit = block and arg(3, "LIMIT", int, 16 * GIB, lambda v: block <= v <= 1 << 46,
                          f"bytes, at least BLOCK ({block}) and at most 64 TiB")
    if not limit:
        return 2
    limit -= limit % block
    # reserved, not committed: only the pages written are ever taken
    m = mmap.mmap(-1, limit, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
    # unique data in every block: one random buffer, its first 8 bytes the block's number
    src = bytearray(os.urandom(block))
    per_step, step_t = [], time.monotonic()
    c0, t0 = time.process_time(), time.monotonic()
    at = 0
    while at + block <= limit:
        src[0:8] = (at // block).to_bytes(8, "little")
        m[at:at + block] = src
        at += block
        now = time.monotonic()
        if at >= (len(per_step) + 1) * STEP:  # crossed a step (BLOCK need not divide it)
            done = at - len(per_step) * STEP - (at % STEP)
            per_step.append(round((now - step_t) * 1000 / (done >> 20), 3))
            per_step += [per_step[-1]] * (done // STEP - 1)
            step_t = now
        if now - t0 >= duration:
            break
    wall, cpu = time.monotonic() - t0, time.process_time() - c0
    mib = at / (1 << 20)
    print(json.dumps({"mb_s": round(at / wall / 1e6, 1), "bytes": at,
                      "cpu_ms_per_mib": round(cpu * 1000 / mib, 3) if mib else 0,
                      "per_step": per_step}))
    m.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
