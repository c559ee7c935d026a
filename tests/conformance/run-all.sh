#!/bin/bash
# run-all.sh BUILD_DIR
#
# The whole iscsi-test-cu ALL family against lunlab-target from BUILD_DIR: starts one target with
# one LU of each kind all.suites describes (512, 4k, pb, ro; mp = the 512 LU through two
# sessions), runs tests/conformance/all.suites and pr.suites on each LU with run-suites.sh (one
# iscsi-test-cu process per suite, --dataloss), stops the target and wants exit status 0.
#
# Fails (exit 1) on any FAILED test, any [SKIPPED] without a matching allow-skip line, a suite
# that dies or hangs, a suite name iscsi-test-cu does not know, an ALL suite that neither file
# names, or a target that does not start or stop cleanly.  Prints each run's per-suite table,
# one line per LU, and last "conformance: N passed, N failed, N skipped".
#
# Environment: CONF_LOG_DIR (default BUILD_DIR/conformance-all) keeps the suite logs and the
#   target log; CONF_SUMMARY=FILE gets "passed failed skipped"; CONF_SUITE_TIMEOUT seconds per
#   suite (default 240); CONF_TOTAL_TIMEOUT seconds for everything (default 1800); CONF_LUS the
#   LUs to run, default "512 4k pb ro mp" (a smaller set, e.g. "512 pb ro mp", still covers every
#   test of the family; the 4k LU repeats the read-write suites with 4096-byte blocks);
#   CONF_STATE_DIR=DIR runs the target with --state-dir on a fresh directory under DIR
#   (docs/persistence.md: every test must pass the same way).
set -uo pipefail

if (( $# != 1 )); then
    echo "usage: $0 BUILD_DIR" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd) || { echo "run-all: no build dir '$1'" >&2; exit 2; }
bin=$build/target/lunlab-target
[[ -x $bin ]] || { echo "run-all: $bin was not built" >&2; exit 2; }
command -v iscsi-test-cu >/dev/null || { echo "run-all: iscsi-test-cu not found (apt-get install libiscsi-bin)" >&2; exit 2; }
# shellcheck source=ci/lib/target-ctl.sh
source "$root/ci/lib/target-ctl.sh"

logdir=${CONF_LOG_DIR:-$build/conformance-all}
mkdir -p "$logdir"
: >"$logdir/target.log"
total_budget=${CONF_TOTAL_TIMEOUT:-1800}
suite_timeout=${CONF_SUITE_TIMEOUT:-240}
files=("$here/all.suites" "$here/pr.suites")
iqn=iqn.2026-11.org.lunlab:conformance
read -r -a want_lus <<<"${CONF_LUS:-512 4k pb ro mp}"
for w in "${want_lus[@]}"; do
    [[ " 512 4k pb ro mp " == *" $w "* ]] || { echo "run-all: CONF_LUS: unknown LU '$w' (512 4k pb ro mp)" >&2; exit 2; }
done
t0=$SECONDS
problems=()
tot_p=0 tot_f=0 tot_s=0

# --- every ALL suite named exactly once across the files ------------------------------------
listing=$(iscsi-test-cu --list 2>&1)
mapfile -t family < <(grep -E '^ALL\.[A-Za-z0-9_-]+$' <<<"$listing" | sed 's/^ALL\.//')
declare -A named=()
for f in "${files[@]}"; do
    if [[ ! -r $f ]]; then
        problems+=("$(basename "$f"): missing")
        continue
    fi
    while read -r kw name _; do
        [[ $kw == suite ]] || continue
        if [[ -n ${named[$name]:-} ]]; then
            problems+=("suite $name: named twice (${named[$name]} and $(basename "$f"))")
        fi
        named[$name]=$(basename "$f")
    done < <(sed 's/#.*//' "$f")
done
for s in "${family[@]}"; do
    [[ -n ${named[$s]:-} ]] || problems+=("ALL.$s: in no suites file (${files[*]##*/})")
done
for s in "${!named[@]}"; do
    grep -qx "ALL.$s" <<<"$listing" || problems+=("suite $s (${named[$s]}): not an ALL suite of iscsi-test-cu")
done
tot_f=$((tot_f + ${#problems[@]}))

# --- the target: LUN 0 512, 1 4k, 2 pb, 3 ro -------------------------------------------------
two_portals=0
extra_listen=()
if "$bin" --help 2>&1 | grep -- '--listen.*repeatable' >/dev/null; then
    port2=$(ll_free_port) && { two_portals=1; extra_listen=(--listen "127.0.0.1:$port2"); }
fi
tlog=$logdir/target.log
if [[ -n ${CONF_STATE_DIR:-} ]]; then
    mkdir -p "$CONF_STATE_DIR"
    extra_listen+=(--state-dir "$(mktemp -d "$CONF_STATE_DIR/conformance.XXXXXX")")
fi
if ! ll_start_lunlab "$bin" "$tlog" "${extra_listen[@]}" --quiet --iqn "$iqn" --handler-path "$build/handlers" \
        --lun size=2G,model=unlimited \
        --lun size=1G,block=4096,model=unlimited \
        --lun size=1G,physical_block=4096,model=unlimited \
        --lun size=64M,readonly=1,model=unlimited; then
    echo "conformance: 0 passed, $((tot_f + 1)) failed, 0 skipped"
    echo "run-all: lunlab-target did not start (log $tlog)" >&2
    exit 1
fi
trap 'kill -0 "$LL_PID" 2>/dev/null && ll_stop_lunlab "$LL_PID" >/dev/null 2>&1' EXIT
url() { echo "iscsi://127.0.0.1:${2:-$LL_PORT}/$iqn/$1"; }
if (( two_portals )); then
    mp_urls=("$(url 0)" "$(url 0 "$port2")")
    mp_how="two portals (127.0.0.1:$LL_PORT and :$port2)"
else
    mp_urls=("$(url 0)" "$(url 0)")
    mp_how="two sessions through one portal"
fi

# LABEL|CONF_LUN|URL...
runs=(
    "512|512 rw|$(url 0)"
    "4k|4k rw|$(url 1)"
    "pb|pb rw|$(url 2)"
    "ro|ro|$(url 3)"
    "mp|mp|${mp_urls[0]}|${mp_urls[1]}"
)
lu_lines=()
for r in "${runs[@]}"; do
    IFS='|' read -r label lun u1 u2 <<<"$r"
    [[ " ${want_lus[*]} " == *" $label "* ]] || continue
    us=("$u1")
    [[ -n ${u2:-} ]] && us+=("$u2")
    lp=0 lf=0 ls=0
    for f in "${files[@]}"; do
        [[ -r $f ]] || continue
        left=$(( total_budget - (SECONDS - t0) ))
        name=$(basename "$f" .suites)
        sum=$logdir/$label-$name.summary
        rm -f "$sum"
        echo "== LU $label ($lun): $(basename "$f")"
        if (( left <= 0 )); then
            problems+=("LU $label, $(basename "$f"): not run, the ${total_budget}s budget was spent")
            lf=$((lf + 1))
            continue
        fi
        CONF_LUN=$lun CONF_LOG_DIR="$logdir/$label-$name" CONF_SUMMARY="$sum" \
            CONF_SUITE_TIMEOUT=$suite_timeout CONF_TOTAL_TIMEOUT=$left \
            "$here/run-suites.sh" "${us[@]}" "$f"
        rc=$?
        if [[ -s $sum ]]; then
            read -r p f_ s <"$sum"
            lp=$((lp + p)); lf=$((lf + f_)); ls=$((ls + s))
            (( rc != 0 && f_ == 0 )) && { lf=$((lf + 1)); problems+=("LU $label, $(basename "$f"): run-suites exit $rc"); }
        else
            lf=$((lf + 1))
            problems+=("LU $label, $(basename "$f"): run-suites.sh gave no summary (exit $rc)")
        fi
    done
    lu_lines+=("$(printf '%-4s %-8s %4d passed %3d failed %3d skipped' "$label" "($lun)" "$lp" "$lf" "$ls")")
    tot_p=$((tot_p + lp)); tot_f=$((tot_f + lf)); tot_s=$((tot_s + ls))
done

trap - EXIT
if ! ll_stop_lunlab "$LL_PID"; then
    problems+=("lunlab-target did not exit 0 after SIGTERM (log $tlog)")
    tot_f=$((tot_f + 1))
fi

echo
echo "== per LU (MultipathIO over $mp_how)"
printf '  %s\n' "${lu_lines[@]}"
if (( ${#problems[@]} > 0 )); then
    echo "run-all problems:"
    printf '  %s\n' "${problems[@]}"
fi
echo "logs: $logdir; wall time $((SECONDS - t0)) s"
[[ -n ${CONF_SUMMARY:-} ]] && echo "$tot_p $tot_f $tot_s" >"$CONF_SUMMARY"
echo "conformance: $tot_p passed, $tot_f failed, $tot_s skipped"
(( tot_f == 0 ))
