#!/bin/bash
# test_config_target.sh TARGET_BIN HANDLER_DIR EXAMPLE_YAML
#
# lunlab-target --config FILE end to end (what test_config_file.c cannot
# reach: main.c, the handler's own checks, a running target):
#   - refusals at start-up: exit 2 and one line "lunlab-target: FILE:LINE:
#     FIELD: why" for an unknown key, a bad value, a duplicate key, a LUN key
#     the handler refuses (blamed on that key's line), a missing file;
#   - a file of our own on 127.0.0.1 on a free port: iscsi-inq and
#     iscsi-readcapacity16 see each LUN with the size, block size and serial
#     the file gave;
#   - the documented example (docs/lunlab-target.yaml) with --listen and
#     --handler-path on the command line: the command line's address replaces
#     the file's, the file's IQN, LUNs, I/O threads and allow-list apply
#     (a stranger initiator is refused); SIGTERM ends it with exit 0.
# Exit: 0 pass, 1 fail, 77 skipped (libiscsi-bin missing).
set -uo pipefail

bin=$1 handler_dir=$2 example=$3
work=$(mktemp -d /tmp/lunlab-config-target.XXXXXX)
pid=
fails=0

cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

command -v iscsi-inq >/dev/null && command -v iscsi-readcapacity16 >/dev/null || {
    echo "SKIP: libiscsi-bin (iscsi-inq, iscsi-readcapacity16) not installed"; exit 77; }

# --- refusals at start-up -----------------------------------------------
# refused FILE_TEXT WANT [prefix]: exit 2, exactly one error line, exactly
# WANT (or starting with WANT: the handler's own lists of names may grow)
refused() {
    local text=$1 want=$2 mode=${3:-exact} out rc
    printf '%s' "$text" >"$work/bad.yaml"
    # the handlers through the environment, which the file's handler-path
    # overrides; port 0 and a time limit in case a refusal fails to happen
    out=$(LUNLAB_HANDLER_PATH=$handler_dir timeout 10 "$bin" --listen 127.0.0.1:0 --config "$work/bad.yaml" 2>&1)
    rc=$?
    out=$(grep -v '^tcmu INFO ' <<<"$out") # the LUNs created before the bad one say so
    if [[ $rc == 2 && $(wc -l <<<"$out") == 1 && ( $out == "$want" || ( $mode == prefix && $out == "$want"* ) ) ]]; then
        ok "refused: $out"
    else
        fail "want exit 2 and [$want], got exit $rc and [$out]"
    fi
}
f=$work/bad.yaml
refused $'iqn: iqn.2026-11.org.lunlab:x\nlistn:\n  - 127.0.0.1:3260\n' \
    "lunlab-target: $f:2: listn: unknown key (known: listen, iqn, lun, handler-path, io-threads, portal-group, max-sessions, login-timeout, stall-timeout, alias, allow-initiator, auth-file, trace, quiet, state-dir, check-state, api, api-cert, api-key, api-metrics-open, cluster, fault, alua, handler-threads, no-hugepages, api-nice, prealloc-mib)"
refused $'io-threads: 0\n' "lunlab-target: $f:1: io-threads: '0': want a number 1..256"
refused $'prealloc-mib: 64\nstate-dir: '"$work"$'/state\n' \
    "lunlab-target: $f:1: prealloc-mib: not with state-dir (the payloads are in the state directory's file)"
refused $'prealloc-mib: 1x\n' "lunlab-target: $f:1: prealloc-mib: '1x': want a number 0..4194304"
# the same refusals on the command line: exit 2, exactly one line
for args in "--prealloc-mib 1x|lunlab-target: --prealloc-mib 1x: want a number 0..4194304" \
    "--prealloc-mib 4194305|lunlab-target: --prealloc-mib 4194305: want a number 0..4194304" \
    "--prealloc-mib 64 --state-dir $work/state|lunlab-target: --prealloc-mib: not with --state-dir (the payloads are in the state directory's file)"; do
    want=${args#*|}
    read -r -a argv <<<"${args%%|*}"
    out=$(timeout 10 "$bin" --listen 127.0.0.1:0 --handler-path "$handler_dir" "${argv[@]}" 2>&1); rc=$?
    [[ $rc == 2 && $out == "$want" ]] && ok "refused: $out" || fail "${args%%|*}: want exit 2 and [$want], got exit $rc and [$out]"
done
refused $'lun:\n  - size: 1G\n    block: 4096\n    block: 512\n' \
    "lunlab-target: $f:4: lun[0].block: duplicate key (first at line 3)"
refused $'lun:\n  - size: 1G\n  - size: 1G\n    array: b\n    model: x9\n' \
    "lunlab-target: $f:5: lun[1].model: model 'x9': unknown profile (" prefix
refused $'lun:\n  - size: 1G\n    colour: red\n' \
    "lunlab-target: $f:3: lun[0].colour: unknown key 'colour' (known: model, " prefix

# values only main() can check (the auth file's mode, the handler directory)
# are blamed on the config file's line too
umask 022
printf 'chap alice alicesecret123\n' >"$work/auth"
chmod 0644 "$work/auth"
refused $'iqn: iqn.2026-11.org.lunlab:x\nauth-file: '"$work/auth"$'\nlun:\n  - size: 1M\n' \
    "lunlab-target: $f:2: auth-file: $work/auth: mode 0644" prefix
refused $'quiet: true\nhandler-path: '"$work/nohandlers"$'\n' \
    "lunlab-target: $f:2: handler-path: loading handlers from $work/nohandlers: " prefix

out=$(timeout 10 "$bin" --listen 127.0.0.1:0 --handler-path "$handler_dir" --config "$work/none.yaml" 2>&1); rc=$?
[[ $rc == 2 && $out == "lunlab-target: $work/none.yaml: No such file or directory" ]] &&
    ok "missing file refused" || fail "missing file: rc=$rc out=$out"

# start BIN ARGS...: on a free port (tries 5), sets pid and port; the port
# goes into @PORT@ of the config file $work/cfg.yaml when there is one
start() {
    for try in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 20000))
        [[ -f $work/cfg.in ]] && sed "s/@PORT@/$port/" "$work/cfg.in" >"$work/cfg.yaml"
        "$bin" "${@//@PORT@/$port}" >"$work/log" 2>&1 &
        pid=$!
        # until it listens or exits (a port taken: the next try); no 5 s limit of our own, which
        # a loaded machine (or a sanitizer build) could reach: meson's timeout is the hang guard
        while :; do
            grep -q "listening on 127.0.0.1:$port" "$work/log" && return 0
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
    done
    cat "$work/log"
    return 1
}

stop() {
    kill -TERM "$pid"
    wait "$pid"; local rc=$?
    pid=
    [[ $rc == 0 ]] && ok "SIGTERM: exit 0" || fail "exit status $rc after SIGTERM"
}

# rc16 URL BLOCK LAST_LBA
rc16() {
    local out
    out=$(iscsi-readcapacity16 "$1" 2>&1)
    if [[ $out == *"LOGICAL BLOCK LENGTH IN BYTES:$2"* && $out == *"RETURNED LOGICAL BLOCK ADDRESS:$3"* ]]; then
        ok "iscsi-readcapacity16 $1: $2-byte blocks, last LBA $3"
    else
        fail "iscsi-readcapacity16 $1: want block $2 last LBA $3, got: $out"
    fi
}

# --- a file of our own ----------------------------------------------------
iqn=iqn.2026-11.org.lunlab:cfgtest
cat >"$work/cfg.in" <<EOF
# written by test_config_target.sh
listen:
  - 127.0.0.1:@PORT@
iqn: $iqn
io-threads: 1
prealloc-mib: 16
lun:
  - size: 64M
    serial: cfg-lun-0
  - size: 32M
    block: 4096
    array: shared
    serial: cfg-lun-1
EOF
if start --handler-path "$handler_dir" --config "$work/cfg.yaml"; then
    grep -q "target $iqn, 2 LUN(s), 1 I/O thread(s)" "$work/log" && ok "file's iqn, LUNs, io-threads" ||
        fail "start line: $(grep 'LUN(s)' "$work/log")"
    # prealloc-mib: each of the two arrays populated 16 MiB before the target listened
    n=$(grep -c '^lunlab: array payloads: 16 MiB of memory populated at open (LUNLAB_PREALLOC_MIB)$' "$work/log")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    [[ $n == 2 && $rss -ge 32768 ]] && ok "prealloc-mib 16: two arrays populated, RSS $rss KiB" ||
        fail "prealloc-mib 16: $n lines, RSS $rss KiB; log: $(grep 'array payloads' "$work/log")"
    for lun in 0 1; do
        out=$(iscsi-inq "iscsi://127.0.0.1:$port/$iqn/$lun" 2>&1)
        [[ $out == *"Peripheral Device Type:DIRECT_ACCESS"* && $out == *"Vendor:LUNLAB"* ]] &&
            ok "iscsi-inq LUN $lun" || fail "iscsi-inq LUN $lun: $out"
        out=$(iscsi-inq -e 1 -c 128 "iscsi://127.0.0.1:$port/$iqn/$lun" 2>&1)
        [[ $out == *"Unit Serial Number:[cfg-lun-$lun]"* ]] && ok "LUN $lun serial from the file" ||
            fail "VPD 80 LUN $lun: $out"
    done
    rc16 "iscsi://127.0.0.1:$port/$iqn/0" 512 $((64 * 1024 * 1024 / 512 - 1))
    rc16 "iscsi://127.0.0.1:$port/$iqn/1" 4096 $((32 * 1024 * 1024 / 4096 - 1))
    stop
else
    fail "target with $work/cfg.yaml did not start"
fi
rm -f "$work/cfg.in"

# --- the documented example, the command line overriding its address -------
iqn=iqn.2026-11.org.lunlab:t0
if start --config "$example" --listen "127.0.0.1:@PORT@" --handler-path "$handler_dir"; then
    grep -q "listening on 127.0.0.1:3260" "$work/log" && fail "the file's listen was not replaced" ||
        ok "--listen replaced the file's list"
    grep -q "target $iqn, 3 LUN(s), 2 I/O thread(s), access: no CHAP, allow-list" "$work/log" &&
        ok "example: iqn, 3 LUNs, 2 I/O threads, allow-list" || fail "start line: $(grep 'LUN(s)' "$work/log")"
    rc16 "iscsi://127.0.0.1:$port/$iqn/0" 512 $((2 * 1024 * 1024 * 1024 / 512 - 1))
    rc16 "iscsi://127.0.0.1:$port/$iqn/1" 4096 $((1024 * 1024 * 1024 / 4096 - 1))
    rc16 "iscsi://127.0.0.1:$port/$iqn/2" 4096 $((64 * 1024 * 1024 / 4096 - 1))
    out=$(iscsi-readcapacity16 "iscsi://127.0.0.1:$port/$iqn/2" 2>&1)
    [[ $out == *"LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT:2"* ]] && ok "LUN 2 physical_block 16384" ||
        fail "LUN 2 exponent: $out"
    out=$(iscsi-inq -e 1 -c 128 "iscsi://127.0.0.1:$port/$iqn/1" 2>&1)
    [[ $out == *"Unit Serial Number:[abc]"* ]] && ok "LUN 1 serial abc" || fail "VPD 80 LUN 1: $out"
    out=$(iscsi-inq -i iqn.2026-11.org.example:stranger "iscsi://127.0.0.1:$port/$iqn/0" 2>&1) &&
        fail "an initiator off the file's allow-list logged in" ||
        { [[ $out == *"(514)"* ]] && ok "stranger refused: allow-initiator from the file" ||
            fail "stranger: $out"; }
    stop
else
    fail "target with $example did not start"
fi

[[ $fails == 0 ]] && echo "PASS" || echo "$fails FAILED"
[[ $fails == 0 ]]
