#!/bin/bash
# persist.sh TARGET_BIN HANDLER_DIR LUN_TOOL PERSIST_CHECK BENCH
#
# lunlab-target --state-dir through iSCSI (docs/persistence.md), against targets this script
# starts and stops itself on 127.0.0.1:
#   - in memory nothing is saved (PTPL_C 0, APTPL refused, no saved mode pages);
#   - with --state-dir: data written to two LUNs (a private array, and array=b with 4096-byte
#     blocks and a duplicate), a registration with APTPL and a reservation, WCE=0 saved on LUN 0
#     and set unsaved on LUN 1; SIGTERM (exit 0); --check-state says consistent; after a restart
#     the data, the NAA designators and the array figures are the same, LUN 1's first command gets
#     06/29/01, the reservation is back, LUN 0's WCE is still 0 and LUN 1's is 1 again;
#   - refusals with a reason: a second target on the same directory, another IQN, another
#     profile for an array, a LU smaller than its stored volume, a map row changed behind its
#     checksum, a cut slot file;
#   - a flipped byte in a block's data: --check-state names the block, the target still starts
#     and a READ of that block gets MEDIUM ERROR 03/11/00 while the rest reads back.
# Exit: 0 pass, 1 fail, 77 skipped.
set -uo pipefail

if (( $# != 5 )); then
    echo "usage: $0 TARGET_BIN HANDLER_DIR LUN_TOOL PERSIST_CHECK BENCH" >&2
    exit 2
fi
bin=$1 hd=$2 tool=$3 pcheck=$4 bench=$5
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
[[ -n $bin && -x $bin ]] || { echo "SKIP: lunlab-target is not part of this build"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 (the CLI) is not installed"; exit 77; }

iqn=iqn.2026-11.org.lunlab:persist
work=$(mktemp -d /tmp/lunlab-persist.XXXXXX)
state=$work/state
log=$work/target.log
status=0
luns=(--lun size=64M --lun size=32M,block=4096,array=b,serial=abc)

finish() {
    [[ -n ${LL_PID:-} ]] && kill -0 "$LL_PID" 2>/dev/null && { kill -KILL "$LL_PID"; wait "$LL_PID" 2>/dev/null; }
    if (( status != 0 )); then
        echo "---- last lines of the target log ($log) ----"
        tail -n 30 "$log"
        echo "(kept: $work)"
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap finish EXIT
trap 'status=1; exit' INT TERM

ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; status=1; }
url() { echo "iscsi://127.0.0.1:$LL_PORT/$iqn/$1"; }

start() { ll_start_lunlab "$bin" "$log" --iqn "$iqn" --handler-path "$hd" "$@"; }
stop() {
    kill -TERM "$LL_PID"
    wait "$LL_PID"
    local rc=$?
    LL_PID=
    (( rc == 0 )) || fail "lunlab-target exited $rc on SIGTERM"
}
# a start that must be refused: exit 2 and a line naming $1
refused() {
    local want=$1 out rc
    shift
    out=$(timeout 60 "$bin" --listen 127.0.0.1:0 --iqn "$iqn" --handler-path "$hd" "$@" 2>&1)
    rc=$?
    if (( rc == 2 )) && grep -qF -- "$want" <<<"$out"; then
        ok "refused ($want)"
    else
        fail "want exit 2 and '$want', got $rc: $out"
    fi
}
# the array's figures (LOG SENSE 30h) once the background accounting has caught up: the page
# reports no pending blocks (its accounting workers are idle-class, so on a loaded machine two
# reads half a second apart could agree while blocks were still pending; waited for without a
# limit of our own, the test's meson timeout is the hang guard)
figures() {
    local b
    while :; do
        b=$("$bench" info "$(url "$1")" 2>&1 | sed -n '/^Array capacity/,/^Array model/p' | grep -v "^Array model")
        [[ -n $b ]] && ! grep -q "accounting pending" <<<"$b" && break
        sleep 0.5
    done
    echo "$b"
}

# ---- in memory: nothing to save -------------------------------------------------------------
start "${luns[@]}" || { status=1; exit; }
"$pcheck" memory "127.0.0.1:$LL_PORT" "$iqn" || fail "persist_check memory"
stop

# ---- write, reserve, set the write caches; stop cleanly ------------------------------------
head -c $((3 * 1024 * 1024)) /dev/urandom >"$work/data"
start --state-dir "$state" "${luns[@]}" || { status=1; exit; }
"$tool" put "$(url 0)" 100 "$work/data" >/dev/null || fail "put LUN 0"
"$tool" put "$(url 0)" 50000 "$work/data" >/dev/null || fail "put LUN 0 again (deduplicated)"
"$tool" put "$(url 1)" 10 "$work/data" >/dev/null || fail "put LUN 1"
id0=$("$tool" ident "$(url 0)") id1=$("$tool" ident "$(url 1)")
fig0=$(figures 0) fig1=$(figures 1)
"$pcheck" before "127.0.0.1:$LL_PORT" "$iqn" || fail "persist_check before"
# ---- refusals while it runs: the directory is taken ----
refused "is in use by another process (pid $LL_PID)" --state-dir "$state" "${luns[@]}"
stop

out=$("$bin" --check-state "$state" --handler-path "$hd" 2>&1) && grep -q "^ok: array b: 1 volume(s) (0 named, 1 a LU's own)" <<<"$out" &&
    grep -q "consistent" <<<"$out" && ok "--check-state: $(tail -n 1 <<<"$out")" || fail "--check-state: $out"

# ---- the restart ---------------------------------------------------------------------------
start --state-dir "$state" "${luns[@]}" || { status=1; exit; }
"$pcheck" after "127.0.0.1:$LL_PORT" "$iqn" || fail "persist_check after"
for spec in "0 100" "0 50000" "1 10"; do
    read -r lun lba <<<"$spec"
    "$tool" get "$(url "$lun")" "$lba" "$(stat -c %s "$work/data")" "$work/back" >/dev/null &&
        cmp -s "$work/data" "$work/back" && ok "LUN $lun LBA $lba: the data is back" ||
        fail "LUN $lun LBA $lba: data differs after the restart"
done
[[ $("$tool" ident "$(url 0)") == "$id0" && $("$tool" ident "$(url 1)") == "$id1" ]] &&
    ok "same serials and NAA designators" || fail "identity changed: $id0 / $id1"
[[ $(figures 0) == "$fig0" && $(figures 1) == "$fig1" ]] && ok "same array figures:$(grep -m1 'data reduction' <<<"$fig0")" ||
    fail "figures changed: before [$fig0 / $fig1] after [$(figures 0) / $(figures 1)]"
stop

# ---- refusals ------------------------------------------------------------------------------
refused "written for iqn $iqn, this one has iqn iqn.2026-11.org.lunlab:other" \
    --iqn iqn.2026-11.org.lunlab:other --state-dir "$state" "${luns[@]}"
refused "written for profile x2, this one has profile x1" \
    --state-dir "$state" --lun size=64M --lun size=32M,block=4096,array=b,serial=abc,model=x1
refused "shrinking would drop data" --state-dir "$state" --lun size=64M --lun size=16M,block=4096,array=b,serial=abc

cp -a "$state" "$work/saved"
sqlite3 "$state/arrays/b/meta.db" "UPDATE chunks SET ids = X'05000000' || substr(ids, 5) WHERE rowid IN (SELECT rowid FROM chunks LIMIT 1)" 2>/dev/null ||
    sqlite3 "$state/arrays/b/meta.db" "UPDATE chunks SET ids = X'05000000' || substr(ids, 5) WHERE idx = (SELECT min(idx) FROM chunks)"
refused "fails its checksum (the file is damaged)" --state-dir "$state" "${luns[@]}"
out=$("$bin" --check-state "$state" --handler-path "$hd" 2>&1); rc=$?
(( rc == 1 )) && grep -q "arrays/b: .*map chunk .* fails its checksum" <<<"$out" && ok "--check-state names the damaged row" ||
    fail "--check-state on a damaged row: $rc $out"
rm -rf "$state" && cp -a "$work/saved" "$state"

truncate -s 16384 "$state/arrays/b/blocks.dat"
refused "(the file was cut)" --state-dir "$state" "${luns[@]}"
out=$("$bin" --check-state "$state" --handler-path "$hd" 2>&1); rc=$?
(( rc == 1 )) && grep -q "the file was cut" <<<"$out" && ok "--check-state names the cut file" ||
    fail "--check-state on a cut file: $rc $out"
rm -rf "$state" && cp -a "$work/saved" "$state"

# ---- one flipped byte in a block's data: found, never served -------------------------------
slot=$(sqlite3 "$state/arrays/b/meta.db" "SELECT min(id) FROM blocks")
printf '\x5a' | dd of="$state/arrays/b/blocks.dat" bs=1 seek=$(( slot * 16384 + 4000 )) conv=notrunc 2>/dev/null
out=$("$bin" --check-state "$state" --handler-path "$hd" 2>&1); rc=$?
(( rc == 1 )) && grep -q "block $slot's data fails its checksum" <<<"$out" && ok "--check-state names block $slot" ||
    fail "--check-state on a flipped byte: $rc $out"
start --state-dir "$state" "${luns[@]}" || { status=1; exit; }
bad=0 good=0
for (( blk = 0; blk < 768; blk += 4 )); do   # LUN 1 holds 3 MiB at LBA 10: 16 KiB = 4 blocks of 4096
    if out=$("$tool" get "$(url 1)" $(( 10 + blk )) 16384 - 2>&1 >/dev/null); then
        good=$((good + 1))
    elif grep -q "sense 3/11/00" <<<"$out"; then
        bad=$((bad + 1))
    else
        fail "READ at LBA $((10 + blk)): $out"
    fi
done
# the damaged 16 KiB block straddles at most two of these reads; everything else reads
(( bad >= 1 && bad <= 2 && good >= 190 )) && ok "the damaged block reads MEDIUM ERROR 03/11/00 ($bad read(s)), $good others read" ||
    fail "damaged block: $bad bad, $good good reads"
stop
(( status == 0 )) && echo "PASS: persist"
