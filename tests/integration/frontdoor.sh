#!/bin/bash
# frontdoor.sh LUNLAB_BENCH TARGET_BIN HANDLER_DIR
#
# What a new user meets first (issue 22 item 7), each against the real programs:
#   - lunlab-bench --help and info --help: exit 0 and the whole usage, to its last line;
#   - lunlab-target --help shows --alua's transition=MS;
#   - a lunlab-bench URL without a LUN is bad usage: exit 2, one line;
#   - --quiet: "listening on" (the port --listen :0 got) and the API's address still print,
#     tcmu INFO and login lines do not;
#   - lunlab-bench on a fresh target: no UNIT ATTENTION note (no power on owed);
#   - a LUN the target lacks: the sense named (LOGICAL UNIT NOT SUPPORTED), exit 1;
#   - a plain-HTTP client of the API: the log names its address and port;
#   - an allow-list without lunlab-bench's name: the refusal names the name and --initiator;
#   - GET /api/lunlab/luns lists the --lun LUs.
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build, no curl).
set -uo pipefail

bench=$1 bin=$2 handler_dir=$3
[[ -x $bin ]] || { echo "SKIP: no lunlab-target in this build"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"

work=$(mktemp -d /tmp/lunlab-frontdoor.XXXXXX)
pid=
fails=0
cleanup() {
    [[ -n $pid ]] && ll_stop_lunlab "$pid" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
iqn=iqn.2026-11.org.lunlab:frontdoor

# --- help texts -------------------------------------------------------------------------
for args in "--help" "info --help"; do
    # shellcheck disable=SC2086
    out=$("$bench" $args); rc=$?
    if [[ $rc == 0 && $out == "usage: lunlab-bench COMMAND URL"* &&
          $(tail -n 1 <<<"$out") == "docs:   docs/bench.md, docs/calibrate.md, docs/metrics.md, docs/scenarios.md" &&
          $out == *"watch HTTPS_URL"* && $out == *"--metrics-url"* && $out == *"--api-insecure"* ]]; then
        ok "lunlab-bench $args: exit 0, the whole usage ($(wc -c <<<"$out") bytes)"
    else
        fail "lunlab-bench $args: exit $rc, $(wc -c <<<"$out") bytes, ends [$(tail -n 1 <<<"$out")]"
    fi
done
out=$("$bin" --help 2>&1)
[[ $out == *"[,transition=MS:"* ]] && ok "lunlab-target --help shows --alua transition=MS" ||
    fail "lunlab-target --help: no transition=MS"

# --- bad usage --------------------------------------------------------------------------
out=$("$bench" info "iscsi://127.0.0.1:9/$iqn" 2>&1); rc=$?
if [[ $rc == 2 && $(wc -l <<<"$out") == 1 && $out == "lunlab-bench: bad URL 'iscsi://127.0.0.1:9/$iqn': "* ]]; then
    ok "a URL without a LUN: exit 2, one line"
else
    fail "a URL without a LUN: want exit 2 and one 'bad URL' line, got exit $rc: $out"
fi

# --- a quiet target on port 0 -------------------------------------------------------------
printf 'api admin frontdoor-secret-1\n' >"$work/auth"
chmod 600 "$work/auth"
"$bin" --quiet --listen 127.0.0.1:0 --iqn "$iqn" --handler-path "$handler_dir" --auth-file "$work/auth" \
    --api 127.0.0.1:0 --lun size=64M,time_scale=0 >"$work/quiet.log" 2>&1 &
pid=$!
# until it says so or exits: no limit of our own (meson's timeout is the hang guard; 10 s was
# one a loaded machine could reach)
until grep -q 'listening on' "$work/quiet.log" || ! kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
port=$(sed -n 's/.* listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/quiet.log")
if [[ -n $port && $port != 0 ]] && grep -q "api: https://127\.0\.0\.1:[1-9][0-9]*/api/json/v2/types" "$work/quiet.log"; then
    ok "--quiet still prints 'listening on 127.0.0.1:$port' and the API's address"
else
    fail "--quiet: no listening or api line: $(cat "$work/quiet.log")"
fi
ll_wait_iscsi "$port" "$pid" 30 || fail "the quiet target does not answer on $port"
"$bench" info "iscsi://127.0.0.1:$port/$iqn/0" >"$work/info.out" 2>&1
# stopped first, so that every line it would print about the session (its logout too) is in the
# log whenever it came: a 200 ms sleep let a late logout line pass unseen
ll_stop_lunlab "$pid" >/dev/null; pid=
if grep -q 'tcmu INFO\|login:\|logout:' "$work/quiet.log"; then
    fail "--quiet printed tcmu INFO or login lines: $(grep 'tcmu INFO\|login:\|logout:' "$work/quiet.log" | head -3)"
else
    ok "--quiet: no tcmu INFO, no login or logout line"
fi

# --- a target as the docs start it ------------------------------------------------------------
LL_START_TIMEOUT=30 ll_start_lunlab "$bin" "$work/target.log" --iqn "$iqn" --handler-path "$handler_dir" \
    --auth-file "$work/auth" --api 127.0.0.1:0 --allow-initiator iqn.2026-11.org.lunlab:bench \
    --lun size=64M,time_scale=0,array=fd || { fail "the target did not start"; exit 1; }
pid=$LL_PID
url=iscsi://127.0.0.1:$LL_PORT/$iqn
out=$("$bench" info "$url/0" 2>&1); rc=$?
if [[ $rc == 0 && $out == *"capacity          64 MiB"* && $out != *"UNIT ATTENTION"* ]]; then
    ok "lunlab-bench info on a fresh target: no unit attention to retry, no note"
else
    fail "lunlab-bench info (exit $rc): $out"
fi
out=$("$bench" info "$url/7" 2>&1); rc=$?
if [[ $rc == 1 && $out == *"sense 05/25/00 (ILLEGAL REQUEST: LOGICAL UNIT NOT SUPPORTED); the target has no such LUN"* ]]; then
    ok "a LUN the target lacks: exit 1, the sense named"
else
    fail "a missing LUN (exit $rc): $out"
fi
out=$("$bench" info "$url/0" --initiator iqn.2026-11.org.lunlab:stranger --timeout 60 2>&1); rc=$? # the refusal comes at once; 60 s only guards a hang
if [[ $rc != 0 && $out == *"login refused"*"(514)"*"logs in as iqn.2026-11.org.lunlab:stranger"*"--initiator IQN"* ]]; then
    ok "off the allow-list: the refusal names the initiator name and --initiator"
else
    fail "off the allow-list (exit $rc): $out"
fi
api=$(sed -n 's|.*api: \(https://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$work/target.log" | head -1)
curl -s -m 5 "${api/https/http}/api/json/v2/types" >/dev/null 2>&1
# until the line comes (or the target exits): no 5 s limit of our own, meson's timeout guards
until grep -q 'closed before any HTTPS request' "$work/target.log" || ! kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
if grep -Eq 'api: 127\.0\.0\.1:[0-9]+ closed before any HTTPS request \(a plain-HTTP client' "$work/target.log"; then
    ok "a plain-HTTP client: the log names its address and port"
else
    fail "a plain-HTTP client: no line with its address: $(grep 'api:' "$work/target.log" | tail -3)"
fi
out=$(curl -sk -m 10 -u admin:frontdoor-secret-1 "$api/api/lunlab/luns")
if [[ $out == '{ "luns": [ { "lun": 0, "size": 67108864, "block-size": 512, "array": "fd", "profile": "x2", "serial": "lunlab-'*'-lun0", "tpgs": "off" } ] }' ]]; then
    ok "GET /api/lunlab/luns lists the --lun LU with its array"
else
    fail "GET /api/lunlab/luns: $out"
fi
ll_stop_lunlab "$pid" || fail "the target did not stop cleanly"
pid=

echo "frontdoor: $fails failure(s)"
(( fails == 0 ))
