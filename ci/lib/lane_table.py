#!/usr/bin/env python3
"""lane_table.py CURRENT.tsv [PREVIOUS.tsv] - where a CI run's time went (ci/test.sh).

Each TSV line is "lane<TAB>seconds<TAB>kind", kind "fg" for the foreground sequence (their sum is
the run's wall time) or "side" for a job that ran beside it.  Prints one table, longest lanes
first, with each lane's share of the wall time and its time in the previous run, and names the
lanes that grew by more than a quarter (and by 15 s or more: a few seconds on a short lane are
this machine's noise, not a trend)."""
import sys

GROWTH = 1.25
MIN_DELTA_S = 15


def load(path):
    rows = []
    try:
        with open(path) as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3 and parts[1].isdigit():
                    rows.append((parts[0], int(parts[1]), parts[2]))
    except OSError:
        pass
    return rows


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: lane_table.py CURRENT.tsv [PREVIOUS.tsv]")
    cur = load(sys.argv[1])
    prev = {name: secs for name, secs, _ in load(sys.argv[2])} if len(sys.argv) == 3 else {}
    wall = sum(secs for _, secs, kind in cur if kind == "fg") or 1
    grew = []
    print(f"{'lane':<62} {'s':>6} {'share':>6} {'before':>7} {'change':>7}")
    for name, secs, kind in sorted(cur, key=lambda r: -r[1]):
        label = name if kind == "fg" else name + " (beside)"
        share = f"{100 * secs / wall:5.1f}%" if kind == "fg" else "     -"
        before = prev.get(name)
        if before is None:
            b, c = "-", "new"
        else:
            b = str(before)
            c = f"{100 * (secs - before) / before:+.0f}%" if before else "-"
            if secs > GROWTH * before and secs - before >= MIN_DELTA_S:
                grew.append(f"{name} ({before} s -> {secs} s)")
                c += " GREW"
        print(f"{label[:62]:<62} {secs:>6} {share:>6} {b:>7} {c:>7}")
    print(f"{'wall time of the foreground sequence':<62} {wall:>6}")
    if grew:
        print("lanes that grew by more than a quarter since the previous run: " + "; ".join(grew))
    elif prev:
        print("no lane grew by more than a quarter since the previous run")
    else:
        print("no previous run's times to compare with")


if __name__ == "__main__":
    main()
