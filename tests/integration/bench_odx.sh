#!/bin/bash
# tests/integration/bench_odx.sh TARGET_BIN HANDLER_DIR BENCH - lunlab-bench clone --mode odx
# against lunlab-target's ODX (issue 24 item 5): one token per chunk (POPULATE TOKEN, RRTI,
# WRITE USING TOKEN), every byte by WRITE USING TOKEN between two LUs of one array, clones read
# back equal; between two arrays the WRITE USING TOKEN is refused (a token belongs to its
# array) and every piece is copied with READ + WRITE instead, as Windows' copy engine does; a
# WRITE USING TOKEN that stops after 100 blocks (fault odx-fail-after=100) has its transfer
# count read by RRTI and only the rest copied with READ + WRITE; --explain narrates the three
# commands; info shows the ROD descriptors of VPD 0x8F.
# Exit: 0 pass, 1 fail, 77 skipped (no lunlab-target in this build, or no jq).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/target-ctl.sh
source "$here/../../ci/lib/target-ctl.sh"
bin=$1 handler_dir=$2 bench=$3
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
ll_test_scratch bench-odx "$bin"
iqn=iqn.2026-12.org.lunlab:odx
fail() { echo "FAIL: $*"; status=1; }
# expect LABEL JSON JQ-FILTER
expect() {
    if jq -e "$3" <<<"$2" >/dev/null; then echo "ok: $1"; else fail "$1: $(jq -c "${4:-.}" <<<"$2")"; fi
}

# LUNs 0, 1 and 3: one x2 array (LUN 3's first WRITE USING TOKEN stops after 100 blocks);
# LUN 2: another x2 array
ll_start_lunlab "$bin" "$log" --quiet --iqn "$iqn" --handler-path "$handler_dir" \
    --lun size=64m,model=x2,time_scale=0,array=a --lun size=64m,model=x2,time_scale=0,array=a \
    --lun size=64m,model=x2,time_scale=0,array=b --lun size=64m,model=x2,time_scale=0,array=a \
    --fault lun=3,odx-fail-after=100,count=1 || { status=1; exit; }
u=iscsi://127.0.0.1:$LL_PORT/$iqn

out=$(timeout 60 "$bench" info "$u/0" 2>&1)
grep -q '^  ODX  *yes (POPULATE TOKEN, WRITE USING TOKEN, RRTI)' <<<"$out" || fail "info: no 'ODX yes': $out"
grep -q '^    ROD limits ' <<<"$out" && grep -q '^    ROD type        00800000h (point in time copy): token in token out' <<<"$out" \
    && echo "ok: info shows the ROD limits and the point-in-time ROD type" || fail "info: ROD descriptors missing: $out"

# clone DEST OUT.json [options]: 2 clones of an 8 MiB template in 1 MiB tokens, read back
clone() {
    local dest=$1 out=$2
    shift 2
    timeout 120 "$bench" clone "$u/0" --dest "$u/$dest" --template-size 8m --template-content synthetic \
        --vms 2 --chunk 1m --parallel 1 --outstanding 2 --mode odx --verify --json --quiet "$@" > "$out"
}
clone 1 "$work/same.json" || fail "clone --mode odx within one array: exit $?"
j=$(jq -c '.runs[0] + {verified}' "$work/same.json")
expect "one array: every byte by WRITE USING TOKEN, no fallback" "$j" \
    '.odx == true and .fell_back == false and .odx_bytes == 16777216 and .software_bytes == 0'
expect "one token per 1 MiB chunk: 16 tokens, 3 commands each" "$j" '.odx_commands.tokens == 16 and .commands == 48'
expect "the clones read back equal to the template" "$j" '.verified == true'
expect "wire: 16 x (32-byte PT list + RRTI answer + 552-byte WUT list), no data" "$j" \
    '.wire_bytes > 16 * (32 + 546 + 552) - 1 and .wire_bytes < 16 * 2048'

clone 2 "$work/cross.json" --no-template || fail "clone --mode odx across arrays: exit $?"
j=$(jq -c '.runs[0] + {verified}' "$work/cross.json")
expect "two arrays: each clone's WRITE USING TOKEN refused, the clone copied with READ + WRITE" "$j" \
    '.odx == false and .fell_back == true and .fallback_clones == 2 and .odx_bytes == 0 and .software_bytes == 16777216' \
    '{odx, fell_back, fallback_clones, odx_bytes, software_bytes, fallback_reason}'
expect "the reason names the refused WRITE USING TOKEN and its RRTI transfer count" "$j" \
    '.fallback_reason | test("WRITE USING TOKEN: CHECK CONDITION.*RRTI: 0 of 2048 blocks written")' '.fallback_reason'
expect "the fallen-back clones read back equal too" "$j" '.verified == true'

clone 3 "$work/partial.json" --no-template || fail "clone --mode odx with a partial WRITE USING TOKEN: exit $?"
j=$(jq -c '.runs[0] + {verified}' "$work/partial.json")
expect "a partial WRITE USING TOKEN: its 100 blocks count as ODX, the rest of its clone by READ + WRITE" "$j" \
    '.fell_back == true and .fallback_clones == 1 and .odx_bytes % 1048576 == 51200 and
     .odx_bytes + .software_bytes == 16777216' '{fell_back, fallback_clones, odx_bytes, software_bytes}'
expect "the reason gives the RRTI transfer count of the stopped WRITE USING TOKEN" "$j" \
    '.fallback_reason | test("WRITE USING TOKEN: CHECK CONDITION, sense 0a/0d/02.*RRTI: 100 of 2048 blocks written")' \
    '.fallback_reason'
expect "the partly offloaded clones read back equal" "$j" '.verified == true'

out=$(timeout 120 "$bench" clone "$u/0" --dest "$u/1" --template-size 8m --no-template --vms 1 --chunk 1m \
    --mode odx --explain 1 --quiet 2>&1) || fail "clone --explain: $out"
for want in ' 1. POPULATE TOKEN (83h/10h) to the source LU' '  POPULATE TOKEN: GOOD' \
            '  range 0: LBA 0, 2048 blocks' ' 2. RECEIVE ROD TOKEN INFORMATION (84h/07h)' \
            'completed without errors, transfer count 2048 blocks, a 512-byte token of type 00800000h' \
            ' 3. WRITE USING TOKEN (83h/11h) to the destination LU' '  WRITE USING TOKEN: GOOD' \
            'data moved: none (a metadata copy)'; do
    grep -qF -- "$want" <<<"$out" || fail "--explain lacks '$want': $out"
done
echo "ok: --explain narrates POPULATE TOKEN, RRTI and WRITE USING TOKEN"
exit "$status"
