#!/bin/bash
# run-dashboard.sh BUILD_DIR — the dashboard in a real browser (issue 15 part 3).
#
# Starts lunlab-target (two LUNs of one x2 array in slow motion, --api with
# --api-metrics-open) and lunlab-bench cloning a template by EXTENDED COPY, and meanwhile
# tests/browser/dashboard.mjs drives Debian's chromium (headless, playwright-core from npm,
# installed here with `npm ci` from the committed lockfile; no browser is downloaded): the
# copy bandwidth must show in the charts, the page's figures must equal /metrics, no console
# error may occur.  The screenshot is kept as BUILD_DIR/dashboard.png (a CI artifact).
# Exit: 0 pass, 1 fail, 77 skipped (no chromium / node in this environment).
set -uo pipefail
build=$(realpath "${1:?usage: run-dashboard.sh BUILD_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../metrics/lib.sh
source "$here/../metrics/lib.sh"

for tool in /usr/bin/chromium node npm; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed (ci/install-deps.sh installs chromium; node/npm come with the machine)"
        exit 77
    fi
done

npmdir=$build/tests/browser-npm
mkdir -p "$npmdir"
if ! cmp -s "$here/package-lock.json" "$npmdir/package-lock.json" || [[ ! -d $npmdir/node_modules/playwright-core ]]; then
    cp "$here/package.json" "$here/package-lock.json" "$npmdir/"
    (cd "$npmdir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error --cache "$npmdir/npm-cache") ||
        { echo "FAIL: npm ci"; exit 1; }
fi
cp "$here/dashboard.mjs" "$npmdir/"   # resolves playwright-core from its node_modules

work=$(mktemp -d /tmp/lunlab-dashboard.XXXXXX)
log=$work/target.log
bench_pid=
status=0
finish() {
    [[ -n $bench_pid ]] && kill "$bench_pid" 2>/dev/null && wait "$bench_pid" 2>/dev/null
    ll_stop_verified "$log" || status=1
    (( status == 0 )) || { echo "--- target log"; tail -n 40 "$log"; }
    rm -rf "$work"
    exit "$status"
}
trap finish EXIT

auth=$(mt_auth_file "$work")
iqn=iqn.2026-11.org.lunlab:dashboard
# x2 in slow motion (time_scale=40): the clone's modeled 0.2 s (3 GiB) take at least 8 s of real
# time, so a page read once a second sees the copy running (what the test asserts holds however
# many readings fall inside it: dashboard.mjs)
mt_start "$build/target/lunlab-target" "$log" "$auth" --iqn "$iqn" --api-metrics-open --quiet \
    --handler-path "$build/handlers" \
    --lun size=4G,model=x2,array=lab,time_scale=40 --lun size=4G,model=x2,array=lab,time_scale=40 ||
    { echo "FAIL: lunlab-target did not start"; status=1; exit 1; }

url=iscsi://127.0.0.1:$LL_PORT/$iqn
# The template (and one clone) before the page opens: the clone the page watches then crosses
# the wire with its EXTENDED COPY commands alone, so every reading that shows bytes cloned shows
# the wire under 1% of them, however the page's readings fall (a reading spanning the template's
# writes and the copy would not)
"$build/client/lunlab-bench" clone "$url/0" --dest "$url/1" --template-size 64m --template-content synthetic \
    --vms 1 --chunk 4m --mode xcopy --quiet >"$work/template.out" 2>&1 ||
    { echo "FAIL: lunlab-bench clone (the template):"; cat "$work/template.out"; status=1; exit 1; }

done_file=$work/clone-done ready_file=$work/page-ready
# the clone starts once the page shows its first readings (dashboard.mjs creates ready_file),
# however long that takes (meson's timeout is the hang guard; finish() stops this if the page
# never gets there)
( until [[ -e $ready_file ]]; do sleep 0.1; done
  "$build/client/lunlab-bench" clone "$url/0" --dest "$url/1" --no-template \
    --template-size 64m --template-content synthetic --vms 48 --chunk 4m --mode xcopy --quiet >"$work/bench.out" 2>&1
  echo "lunlab-bench clone exit $?" >>"$work/bench.out"; touch "$done_file" ) &
bench_pid=$!

node "$npmdir/dashboard.mjs" "$MT_BASE" "$build/dashboard.png" "$ready_file" "$done_file" || status=1
# a page that failed before its first readings never starts the clone: stop the waiting loop
[[ -e $ready_file ]] || { kill "$bench_pid" 2>/dev/null; status=1; }
wait "$bench_pid"; bench_pid=
if ! grep -q 'lunlab-bench clone exit 0' "$work/bench.out"; then
    echo "FAIL: lunlab-bench clone:"; cat "$work/bench.out"; status=1
fi
