#!/bin/bash
# nice_api.sh TARGET_BIN HANDLER_DIR: --api-nice (target/api/api_nice.h, docs/api.md "Pollers
# and I/O").  The API's threads (MHD's listener, a connection's thread while a client keeps it
# open, the performance sampler xms-perf-hist) run N nice steps below the target's own nice,
# read from /proc/PID/task/TID/stat; the I/O threads (the main and iSCSI threads, the
# handlers' tcmu-w*) keep the target's nice.  Three targets in turn: --api-nice 7, no option
# (the default, 10), --api-nice 0 (as before: every thread alike); 20, -1 and non-numbers are refused.
# Nothing here is timed.  Exit 0 pass, 1 fail.
set -uo pipefail
bin=$1 handlers=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=run-api-target.sh
source "$here/run-api-target.sh"

api_scratch nice
# one target: its threads' nice values while a client keeps a connection open
# ("want" = min(base + steps, 19), base = the nice of the target's main thread)
check_threads() { # LABEL STEPS [lunlab-target args]
    local label=$1 steps=$2
    shift 2
    mkdir -p "$work/$label"
    api_start "$bin" "$handlers" "$work/$label" --lun size=16M "$@" || { status=1; return; }
    LUNLAB_PID=$LL_PID STEPS=$steps LABEL=$label /usr/bin/python3 - <<'PY' || status=1
import glob, os, sys, requests, urllib3
urllib3.disable_warnings()
pid, steps, label = os.environ["LUNLAB_PID"], int(os.environ["STEPS"]), os.environ["LABEL"]

def nice_of(task):
    # stat: "pid (comm) state ..." - after the comm's ")" the 17th field is nice (field 19)
    with open(task + "/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])

s = requests.Session()
s.auth, s.verify, s.trust_env = (os.environ["API_USER"], os.environ["API_PASSWORD"]), False, False
r = s.get("https://%s/api/json/v3/types/xms" % os.environ["API"], timeout=60)  # keeps its connection
bad = 0 if r.status_code == 200 else 1
base = nice_of("/proc/%s/task/%s" % (pid, pid))
want = min(base + steps, 19)
seen = {}
for t in sorted(glob.glob("/proc/%s/task/*" % pid)):
    with open(t + "/comm") as f:
        comm = f.read().strip()
    seen.setdefault(comm, []).append(nice_of(t))
api = ("MHD-listen", "MHD-connection", "xms-perf-hist")
for comm in api:
    got = seen.get(comm)
    ok = bool(got) and all(n == want for n in got)
    print("%s: %s: %s: nice %s, want %d (base %d + %d)" % ("ok" if ok else "FAIL", label, comm, got, want, base, steps))
    bad |= not ok
io = {c: n for c, n in seen.items() if c.startswith("tcmu-w") or c == "lunlab-target"}
ok = any(c.startswith("tcmu-w") for c in io) and all(n == base for ns in io.values() for n in ns)
print("%s: %s: the I/O threads keep the target's nice %d: %s" % ("ok" if ok else "FAIL", label, base, sorted(io.items())))
bad |= not ok
sys.exit(bad)
PY
    if (( steps )); then
        grep -q "api: its threads run at nice [0-9]*, the I/O threads at [0-9]* (--api-nice $steps)" "$API_LOG" &&
            echo "ok: $label: logged" || { echo "FAIL: $label: no 'api: its threads run at nice' line"; status=1; }
    fi
    api_stop || status=1
}

check_threads api-nice-7 7 --api-nice 7
check_threads default 10
check_threads api-nice-0 0 --api-nice 0

# out of range and not numbers: exit 2 and the exact one-line refusal naming the option
for bad in 20 -1 x 1x "" 99999999999999999999; do
    out=$("$bin" --api-nice "$bad" --api 127.0.0.1:0 2>&1)
    rc=$?
    if (( rc == 2 )) && [[ $out == "lunlab-target: --api-nice $bad: want a number 0..19" ]]; then
        echo "ok: --api-nice '$bad' refused: $out"
    else
        echo "FAIL: --api-nice '$bad': exit $rc, '$out' (want 2 and 'lunlab-target: --api-nice $bad: want a number 0..19')"
        status=1
    fi
done
