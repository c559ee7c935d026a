#!/bin/bash
# learn-offload.sh BUILD_DIR — runs every command of docs/learn-offload.md (issue 15 part 5),
# so the lab never goes stale: each ```sh block, in order, in one bash with -e (a failing
# command fails the test), from the top of the source tree, with B=BUILD_DIR, free ports for
# PORT/API (never the lab's fixed 3260/8443, which may be taken) and SIZE=64m (the lab's
# default is 256m; the shape of every figure is the same).  Fails when the page has no
# command block or when the target it started does not exit 0.
set -uo pipefail
build=$(realpath "${1:?usage: learn-offload.sh BUILD_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

doc=$root/docs/learn-offload.md
script=$(mktemp /tmp/lunlab-lab-script.XXXXXX)
out=$(mktemp /tmp/lunlab-lab-out.XXXXXX)
trap 'rm -f "$script" "$out"' EXIT
{
    echo 'set -eo pipefail'
    # a lab that fails half-way leaves its target running: stop this shell's own jobs
    echo 'trap '"'"'j=$(jobs -p); if [ -n "$j" ]; then kill $j 2>/dev/null || true; wait || true; fi'"'"' EXIT'
    awk '/^```sh$/ { on = 1; n++; print "echo \"+++ lab block " n "\""; next }
         /^```/ { on = 0; next }
         on { print }' "$doc"
    echo 'echo "+++ lab done, target exit 0"'
} >"$script"
blocks=$(grep -c '^```sh$' "$doc")
(( blocks > 0 )) || { echo "FAIL: $doc has no sh blocks"; exit 1; }

port=$(ll_free_port) api=$(ll_free_port)
cd "$root"
# the lab's own kill + wait stops the target and fails the block unless it exits 0
B=$build PORT=$port API=$api SIZE=64m timeout 900 bash "$script" >"$out" 2>&1
rc=$?
cat "$out"
ran=$(grep -c '^+++ lab block' "$out")
if (( rc != 0 )) || ! grep -q '^+++ lab done, target exit 0$' "$out"; then
    echo "FAIL: docs/learn-offload.md: block $ran of $blocks failed (exit $rc)"
    exit 1
fi
echo "ok: every command of docs/learn-offload.md ran ($blocks blocks)"
