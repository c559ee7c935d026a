#!/bin/bash
# test_auth_target.sh TARGET_BIN HANDLER_DIR
#
# Access control through the lunlab-target command line (what test_auth_e2e.c
# cannot reach: main.c and cli.c):
#   - --auth-file with mode 0644 / a bad line / a missing file: exit 2 and a
#     one-line error naming the file and the mode or line + field, no secret;
#   - two --listen portals, CHAP from --auth-file, --allow-initiator: iscsi-ls
#     (CHAP URL) lists the LUN on both portals; iscsi-inq with the secret in
#     LIBISCSI_CHAP_PASSWORD instead of the URL; a wrong secret fails and the
#     log says "CHAP authentication failed (user 'alice')"; an initiator
#     not on the allow-list is refused with 02/02; the secrets never appear in
#     the log; SIGTERM ends it with exit 0.
# Exit: 0 pass, 1 fail, 77 skipped (libiscsi-bin missing).
set -uo pipefail

bin=$1 handler_dir=$2
iqn=iqn.2026-11.org.lunlab:authcli
secret=alicesecret123
tsecret=targetsecret99
work=$(mktemp -d /tmp/lunlab-auth-target.XXXXXX)
pid=
fails=0

cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

command -v iscsi-ls >/dev/null && command -v iscsi-inq >/dev/null || {
    echo "SKIP: libiscsi-bin (iscsi-ls, iscsi-inq) not installed"; exit 77; }

# --- refusals at start-up -----------------------------------------------
umask 022
printf 'chap alice %s\n' "$secret" >"$work/open"
chmod 0644 "$work/open"
out=$("$bin" --handler-path "$handler_dir" --auth-file "$work/open" --lun size=1M 2>&1); rc=$?
if [[ $rc == 2 && $out == *"$work/open: mode 0644"*"0600"* && $(wc -l <<<"$out") == 1 && $out != *"$secret"* ]]; then
    ok "mode 0644 refused: $out"
else
    fail "mode 0644: rc=$rc out=$out"
fi

printf 'chap alice %s\nchap bob short\n' "$secret" >"$work/bad"
chmod 0600 "$work/bad"
out=$("$bin" --handler-path "$handler_dir" --auth-file "$work/bad" --lun size=1M 2>&1); rc=$?
if [[ $rc == 2 && $out == *"$work/bad line 2: field 3 (secret): 5 bytes"* && $out != *short* ]]; then
    ok "bad line refused: $out"
else
    fail "bad line: rc=$rc out=$out"
fi

out=$("$bin" --handler-path "$handler_dir" --auth-file "$work/none" --lun size=1M 2>&1); rc=$?
[[ $rc == 2 && $out == *"$work/none: No such file"* ]] && ok "missing file refused" ||
    fail "missing file: rc=$rc out=$out"

out=$("$bin" --handler-path "$handler_dir" --allow-initiator bogus --lun size=1M 2>&1); rc=$?
[[ $rc == 2 && $out == *"--allow-initiator"*"iqn."* ]] && ok "bad --allow-initiator refused" ||
    fail "bad --allow-initiator: rc=$rc out=$out"

# --- a running target ---------------------------------------------------
printf '# test\nchap alice %s\nmutual lunlab %s\n' "$secret" "$tsecret" >"$work/auth"
chmod 0600 "$work/auth"
ls_name=iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-ls
inq_name=iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-inq
for try in 1 2 3 4 5; do
    p1=$((20000 + RANDOM % 20000)); p2=$((p1 + 1))
    "$bin" --handler-path "$handler_dir" --listen "127.0.0.1:$p1" --listen "127.0.0.1:$p2" \
        --iqn "$iqn" --lun size=16M --auth-file "$work/auth" \
        --allow-initiator "$ls_name" --allow-initiator "$inq_name" >"$work/log" 2>&1 &
    pid=$!
    # until it listens or exits (a port taken: the next try); no 5 s limit of our own
    while :; do
        grep -q "listening on 127.0.0.1:$p2" "$work/log" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    grep -q "listening on 127.0.0.1:$p2" "$work/log" && break
    wait "$pid" 2>/dev/null; pid=
done
[[ -n $pid ]] || { cat "$work/log"; fail "target did not start"; exit 1; }

# docs/access-control.md's first command: iscsi-ls -s, whose TEST UNIT READY retries no
# 06/29/01, works on a fresh target (it owes a new I_T nexus no power on: target/lu/power_on.h)
out=$(iscsi-ls -s "iscsi://alice%$secret@127.0.0.1:$p2" 2>&1)
if [[ $out == *"Portal:127.0.0.1:$p2,1"* && $out == *"Portal:127.0.0.1:$p1,1"* &&
      $out =~ Lun:0\ +Type:DIRECT_ACCESS ]]; then
    ok "iscsi-ls -s with CHAP lists both portals and LUN 0"
else
    fail "iscsi-ls -s: $out"
fi
for p in "$p1" "$p2"; do
    out=$(iscsi-inq -i "$ls_name" "iscsi://alice%$secret@127.0.0.1:$p/$iqn/0" 2>&1)
    [[ $out == *"Peripheral Device Type:DIRECT_ACCESS"* ]] && ok "LUN 0 with CHAP on portal $p" ||
        fail "iscsi-inq on portal $p: $out"
done

out=$(LIBISCSI_CHAP_PASSWORD=$secret iscsi-inq "iscsi://alice@127.0.0.1:$p1/$iqn/0" 2>&1)
[[ $out == *"Peripheral Device Type:DIRECT_ACCESS"* ]] && ok "iscsi-inq, secret from the environment" ||
    fail "iscsi-inq (env secret): $out"

out=$(iscsi-inq "iscsi://alice%wrongsecret99@127.0.0.1:$p1/$iqn/0" 2>&1) && fail "wrong secret accepted" ||
    { [[ $out == *"(513)"* ]] && ok "wrong secret: $out" || fail "wrong secret: $out"; }

out=$(iscsi-inq -i iqn.2026-11.org.example:stranger "iscsi://alice%$secret@127.0.0.1:$p2/$iqn/0" 2>&1) &&
    fail "initiator off the allow-list accepted" ||
    { [[ $out == *"(514)"* ]] && ok "allow-list: $out" || fail "allow-list: $out"; }

kill -TERM "$pid"
wait "$pid"; rc=$?
pid=
[[ $rc == 0 ]] && ok "SIGTERM: exit 0" || fail "exit status $rc after SIGTERM"

grep -q "status 02/01: CHAP authentication failed (user 'alice')" "$work/log" &&
    ok "log names the failed CHAP user" || fail "no CHAP failure line in the log"
grep -q "initiator iqn.2026-11.org.example:stranger): status 02/02" "$work/log" &&
    ok "log names the refused initiator" || fail "no allow-list line in the log"
grep -q "auth=CHAP(user 'alice')" "$work/log" && ok "login line says auth=CHAP" || fail "no auth=CHAP login line"
if grep -q -e "$secret" -e "$tsecret" "$work/log"; then
    fail "a secret appears in the log"
else
    ok "no secret in the log"
fi
if (( fails )); then
    echo "---- target log ----"; cat "$work/log"
    exit 1
fi
exit 0
