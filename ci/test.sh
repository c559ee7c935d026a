#!/bin/bash
# THE test command (README's second command; .ci/run calls it):
#   1. install the Debian packages (ci/install-deps.sh),
#   2. build with -Dwerror=true in build/ and run every meson test (unit, integration, browser;
#      the calibrate suite alone after step 4, as its checks are timings),
#   3. libiscsi's whole iscsi-test-cu ALL family against a fresh lunlab-target (tests/conformance/run-all.sh),
#      in memory and again with --state-dir,
#   4. the seeds' figures, scaled down (tests/repro/seed000.sh and seed002.sh --ci; both again
#      with --state-dir), and seed 000's whole job on the array's virtual clock
#      (seed000.sh --literal; at nice 15 beside steps 5-7, as its figures do not depend on time),
#   5. the real stack: handler_lunlab.so under Linux LIO + Debian's tcmu-runner, in Debian's
#      kernel booted with qemu (tests/realstack/lane.sh, 15-minute guard), then Linux's
#      open-iscsi + dm-multipath + fio against lunlab-target under faults, path changes and
#      ALUA (tests/multipath/lane.sh, 15-minute budget),
#   6. the same build, tests (tests/robust with LeakSanitizer) and suites again with
#      AddressSanitizer + UBSan in build-asan/ (built at nice 15 beside the qemu lanes of step 5),
#   7. every fuzz target for a bounded time (ci/fuzz.sh; LUNLAB_SKIP_FUZZ=1 skips it), also at
#      nice 15 beside steps 5 and 6 (LUNLAB_SERIAL=1 runs 6 and 7 after 5, one by one),
#   8. the .debs, built once before step 5 (its guest installs the handler's with dpkg -i), then
#      installed and smoke-tested (tests/package/deb.sh) and made into the OCI image, run and
#      tested (packaging/oci/build.sh --test; LUNLAB_SKIP_OCI=1 skips it), both beside step 5.
# Ends with one line "N passed, N failed, N skipped" summing all of it; exits non-zero on any
# failure.  LUNLAB_SKIP_DEPS=1 skips step 1 (developer machines that have the packages);
# LUNLAB_SKIP_ASAN=1 skips step 6 and LUNLAB_SKIP_REALSTACK=1 step 5 (quick local runs; CI
# always runs both).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=ci/lib/target-ctl.sh
source ci/lib/target-ctl.sh

jobs=$(nproc 2>/dev/null || echo 2)
total_pass=0 total_fail=0 total_skip=0
failures=()
started_pids=()

cleanup() {
    local p
    for p in "${started_pids[@]}"; do
        kill -0 "$p" 2>/dev/null && ll_stop_lunlab "$p" >/dev/null 2>&1
    done
}
trap cleanup EXIT

# Where the time goes: every step is a lane of the foreground sequence, timed from its start to
# the next step's; the side jobs (beside the qemu lanes) time themselves into build-side.times.
# lane_table prints them all at the end beside the previous run's times (the last run on this
# machine, /var/tmp/lunlab-ci/lane-times.tsv, else the committed ci/lane-times.tsv) and names
# every lane that grew by more than a quarter (and 15 s: a few seconds on a short lane are noise).
lane_names=() lane_secs=() lane_name= lane_t0=0
lane_close() {
    [[ -n $lane_name ]] || return 0
    lane_names+=("$lane_name"); lane_secs+=($((SECONDS - lane_t0)))
    lane_name=
}
step() {
    lane_close
    lane_name=$*; lane_t0=$SECONDS
    printf '\n===== %s =====\n' "$*"
}

fail_step() {
    failures+=("$1")
    total_fail=$((total_fail + 1))
}

# Add up a meson testlog.json (one JSON object per test).
count_meson() {
    local log=$1
    python3 - "$log" <<'PY'
import json, sys
p = f = s = 0
with open(sys.argv[1]) as fh:
    for line in fh:
        line = line.strip()
        if not line:
            continue
        r = json.loads(line).get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            p += 1
        elif r == "SKIP":
            s += 1
        else:                      # FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS
            f += 1
print(p, f, s)
PY
}

# slowest_meson LOG: the ten longest tests of a meson run (where a meson lane's time goes)
slowest_meson() {
    python3 - "$1" <<'PY'
import json, sys
rows = []
with open(sys.argv[1]) as fh:
    for line in fh:
        if line.strip():
            r = json.loads(line)
            rows.append((r.get("duration", 0), r.get("name", "?")))
rows.sort(reverse=True)
print("slowest: " + ", ".join(f"{n} {d:.0f} s" for d, n in rows[:10]))
PY
}

# build DIR LABEL meson-options...
build() {
    local dir=$1 label=$2
    shift 2
    step "$label: configure + build ($dir)"
    if [[ -f $dir/build.ninja ]]; then
        meson setup --reconfigure "$dir" "$@" || { fail_step "$label: meson setup"; return 1; }
    else
        meson setup "$dir" "$@" || { fail_step "$label: meson setup"; return 1; }
    fi
    ninja -C "$dir" -j"$jobs" || { fail_step "$label: build"; return 1; }
}

# run_meson_tests DIR LABEL [meson test args]
run_meson_tests() {
    local dir=$1 label=$2 rc=0 counts
    shift 2
    step "$label: meson test"
    rm -f "$dir/meson-logs/testlog.json"
    meson test -C "$dir" --print-errorlogs --num-processes "$jobs" "$@" || rc=$?
    if [[ -f $dir/meson-logs/testlog.json ]]; then
        counts=$(count_meson "$dir/meson-logs/testlog.json")
        read -r p f s <<<"$counts"
        echo "$label meson tests: $p passed, $f failed, $s skipped"
        slowest_meson "$dir/meson-logs/testlog.json"
        total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
        (( f > 0 )) && failures+=("$label: $f meson test(s) failed")
        (( rc != 0 && f == 0 )) && fail_step "$label: meson test exited $rc"
    elif (( rc != 0 )); then
        fail_step "$label: meson test exited $rc without a test log"
    fi
    return 0
}

# run_conformance BUILD_DIR LABEL: libiscsi's whole iscsi-test-cu ALL family (230 tests, one
# process per suite, --dataloss) against lunlab-target from that build, on a 512-byte, a
# 4096-byte, a physical_block=4096 and a read-only LU, MultipathIO over two portals, reservation
# suites included (tests/conformance/run-all.sh, all.suites + pr.suites). Fails on any FAILED
# test, an unexpected [SKIPPED], a suite that dies, or a target that does not stop cleanly.
run_conformance() {
    local dir=$1 label=$2 summary rc=0
    step "$label: iscsi-test-cu, the whole ALL family${CONF_STATE_DIR:+ (--state-dir)}"
    if [[ ! -x $dir/target/lunlab-target ]]; then
        echo "SKIP: $dir/target/lunlab-target was not built, so there is no target to run iscsi-test-cu against"
        total_skip=$((total_skip + 1))
        return 0
    fi
    summary=$(mktemp)
    CONF_SUMMARY="$summary" CONF_LOG_DIR="$dir/conformance-all${CONF_STATE_DIR:+-state}" CONF_TOTAL_TIMEOUT=1800 \
        tests/conformance/run-all.sh "$dir" || rc=$?
    if [[ -s $summary ]]; then
        read -r p f s <"$summary"
        total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
        (( f > 0 )) && failures+=("$label: $f conformance test(s) failed or skipped unexpectedly (logs $dir/conformance-all)")
        (( rc != 0 && f == 0 )) && fail_step "$label: run-all.sh exited $rc"
    else
        fail_step "$label: the conformance runner produced no summary (exit $rc)"
    fi
    rm -f "$summary"
}

# run_realstack BUILD_DIR: the qemu lane; counts the lunlab LUN's suites and the lane's checks
run_realstack() {
    local dir=$1 out=/tmp/lunlab-realstack/checks t0=$SECONDS
    step "real stack: LIO + tcmu-runner + handler_lunlab.so under qemu"
    rm -f "$out/summary"
    # a hang guard, not a budget: the lane took 555-599 s in full CI runs (beside the sanitizer
    # build and the literal seed job at nice 15), ~440 s on a quiet machine
    if LUNLAB_DEBDIR=$(debs_built) timeout 900 bash tests/realstack/lane.sh "$dir"; then :; fi
    if [[ -s $out/summary ]]; then
        read -r p f s <"$out/summary"
        total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
        (( f > 0 )) && failures+=("real stack: $f check(s) failed")
    else
        fail_step "real stack: the lane did not finish (see output above)"
    fi
    echo "real stack lane: $((SECONDS - t0)) s"
}

# run_multipath BUILD_DIR: a Linux initiator (open-iscsi, dm-multipath, fio) under qemu against
# lunlab-target while paths go down and up and ALUA states change (tests/multipath/lane.sh);
# every "ok:"/"FAIL:" line of the lane is one test
run_multipath() {
    local dir=$1 out t0=$SECONDS p f
    step "multipath: Linux open-iscsi + dm-multipath + fio under qemu"
    out=$(mktemp)
    timeout 900 flock /tmp/lunlab-qemu.lock bash tests/multipath/lane.sh "$dir" 2>&1 | tee "$out"
    p=$(grep -c '^ok: ' "$out")
    f=$(grep -c '^FAIL: ' "$out")
    if ! grep -q '^multipath lane: 0 check(s) failed' "$out"; then
        (( f == 0 )) && f=1
        failures+=("multipath lane: $(grep '^FAIL: ' "$out" | cut -c7- | paste -sd ';' - | cut -c1-300)")
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    rm -f "$out"
    echo "multipath lane: $((SECONDS - t0)) s"
}

# run_repro BUILD_DIR: the seeds' figures, scaled down (tests/repro, docs/reproduce.md); every
# figure checked is one test
# The third run is seed 000's whole job (100 x 11.9 GiB per profile) on the array's virtual
# clock, ~8 min here; its data-reduction rows use the --ci image size (the 11.9 GiB image
# adds ~5 min and its figures are the same, docs/reproduce.md).
# seed000 --ci and seed002 --ci run again with every target on --state-dir (docs/persistence.md:
# the figures do not depend on where the array lives; they go through clones, snapshots-by-
# XCOPY, dedup, the accounting and the 100-VM reads on the persistent store).  seed002's write
# rows there are limited by the disk (~200-300 MB/s of 4 MiB unique writes against the model's
# 600), which its machine check reports as MACHINE-LIMITED (SKIP), not as the array's figure;
# its reads and every check of the model's figures must pass.  Measured on the 2-core machine:
# 38 s (seed000 --ci) + 142 s (seed002 --ci) on a state directory.
run_repro() {
    local dir=$1 s mode run out sd label
    shift
    for run in "$@"; do
        s=${run%% *}; mode=${run#* }; mode=${mode%% *}
        sd= label=$mode
        if [[ $run == *" state" ]]; then
            sd=$(mktemp -d /tmp/lunlab-repro-state.XXXXXX) label="$mode --state-dir"
        fi
        step "reproduce $s ($label)"
        out=$(mktemp)
        REPRO_STATE_DIR=$sd REPRO_DRR_SIZE=256m bash "tests/repro/$s.sh" "$dir" "$mode" 2>&1 | tee "$out"
        count_repro "$out" "$s" "$label"
        rm -f "$out"
        [[ -n $sd ]] && rm -rf "$sd"
    done
}

# count_repro OUTPUT SEED LABEL: one reproduction's rows into the totals
count_repro() {
    local out=$1 s=$2 label=$3 p f k missed
    p=$(grep -cE '\| ok$' "$out")
    f=$(grep -cE '\| (MISS|FAIL|no)[^|]*$' "$out")
    k=$(grep -cE '\| SKIP$' "$out")
    if ! grep -q 'all figures within the published tolerances' "$out"; then
        (( f == 0 )) && f=1
        # name the rows that missed: the summary is often all a CI log keeps
        missed=$(grep -E '\| (MISS|FAIL|no)[^|]*$' "$out" | sed -E 's/ +\| +/ | /g' | paste -sd ';' -)
        failures+=("reproduce $s $label: ${missed:-the run failed (see its output above)}")
    fi
    (( k > 0 )) && echo "reproduce $s: $k figure(s) not judged: this machine is too slow for them (SKIP rows above)"
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + k))
}

# Whether LeakSanitizer can run here (it cannot under some ptrace-restricted sandboxes).
lsan_works() {
    local tmp rc=0
    tmp=$(mktemp -d)
    printf '#include <stdlib.h>\nint main(void){void *p=malloc(7);p=0;return 0;}\n' >"$tmp/leak.c"
    if ! cc -fsanitize=address -g "$tmp/leak.c" -o "$tmp/leak" 2>/dev/null; then
        rm -rf "$tmp"; return 1
    fi
    ASAN_OPTIONS=detect_leaks=1 "$tmp/leak" >"$tmp/out" 2>&1 || rc=$?
    # a working LSan reports the 7-byte leak; a broken one prints a fatal error instead
    grep -q 'Direct leak of 7 byte' "$tmp/out"
    rc=$?
    rm -rf "$tmp"
    return $rc
}

started=$SECONDS
if [[ ${LUNLAB_SKIP_DEPS:-0} != 1 ]]; then
    step "install dependencies"
    LUNLAB_REALSTACK=$(( ${LUNLAB_SKIP_REALSTACK:-0} == 1 ? 0 : 1 )) LUNLAB_OCI=$(( ${LUNLAB_SKIP_OCI:-0} == 1 ? 0 : 1 )) \
        bash ci/install-deps.sh || { echo "dependency install failed"; echo "0 passed, 1 failed"; exit 1; }
fi

rm -f "$root"/build-side.*
# The .debs, built once (build_debs) for the real-stack lane's guest (dpkg -i of the handler's),
# the package test and the OCI image; debs_built names their directory once they are there.
debdir=$root/build-debs
rm -rf "$debdir"
build_debs() {
    step "package: the .debs (packaging/build-deb.sh: dpkg-buildpackage -b, lintian with no error)"
    if bash packaging/build-deb.sh "$debdir"; then total_pass=$((total_pass + 1)); else fail_step "package: dpkg-buildpackage -b or lintian"; fi
}
debs_built() { compgen -G "$debdir/lunlab-tcmu-handler_*.deb" >/dev/null && echo "$debdir"; return 0; }
# The two qemu lanes keep about one core busy for ~15 minutes while the other idles: the
# sanitizer build and the fuzzers run beside them at nice 15 (CFS gives a nice-15 task ~3% of
# a core the lanes want, so the lanes' timings do not move), and only their results are
# waited for. LUNLAB_SERIAL=1 runs everything one after the other as before.
asan_opts=(-Dwerror=false -Db_sanitize=address,undefined -Db_lundef=false)
bg_log=$root/build-side.log bg_pid=
start_side_jobs() {
    [[ ${LUNLAB_SERIAL:-0} != 1 && -z $bg_pid ]] || return 0
    (
        trap - EXIT
        rc=0 t=$SECONDS
        if [[ ${LUNLAB_SKIP_ASAN:-0} != 1 ]]; then
            echo "== asan: configure + build (build-asan)"
            { [[ -f build-asan/build.ninja ]] && meson setup --reconfigure build-asan "${asan_opts[@]}" ||
                meson setup build-asan "${asan_opts[@]}"; } && nice -n 15 ninja -C build-asan -j"$jobs" || rc=1
            echo "$rc" >"$root/build-side.asan-rc"
            printf 'asan: configure + build\t%d\tside\n' $((SECONDS - t)) >>"$root/build-side.times"
        fi
        if [[ ${LUNLAB_SKIP_FUZZ:-0} != 1 ]]; then
            echo "== fuzz: tests/fuzz, ${LUNLAB_FUZZ_SECONDS:-20} s per target (clang, ASan + UBSan)"
            t=$SECONDS
            nice -n 15 bash ci/fuzz.sh "$root/build-fuzz" "${LUNLAB_FUZZ_SECONDS:-20}" >"$root/build-side.fuzz" 2>&1
            printf 'fuzz: build + every target\t%d\tside\n' $((SECONDS - t)) >>"$root/build-side.times"
        fi
        touch "$root/build-side.fuzz-done"
        # the .debs (built above) installed with apt, smoke-tested and purged (~70 s)
        t=$SECONDS
        [[ ${LUNLAB_SKIP_DEB:-0} == 1 ]] || nice -n 15 bash tests/package/deb.sh $(debs_built) >"$root/build-side.deb" 2>&1
        printf 'package: install, smoke, purge\t%d\tside\n' $((SECONDS - t)) >>"$root/build-side.times"
        touch "$root/build-side.deb-done"
        # the OCI image from the same .debs, run with podman and answering iSCSI and the API
        # (~30 s with its cached base root filesystem; debootstrap adds 2-4 min on a fresh machine)
        t=$SECONDS
        [[ ${LUNLAB_SKIP_OCI:-0} == 1 ]] || nice -n 15 bash packaging/oci/build.sh --test $(debs_built) >"$root/build-side.oci" 2>&1
        printf 'oci: image built, run, tested\t%d\tside\n' $((SECONDS - t)) >>"$root/build-side.times"
        touch "$root/build-side.oci-done"
        # seed 000's whole job runs on the array's virtual clock: its figures do not depend on
        # the CPU it gets, so it runs here (~8 min alone) rather than before the lanes
        echo "== reproduce seed000 (--literal)"
        t=$SECONDS
        REPRO_DRR_SIZE=256m nice -n 15 bash tests/repro/seed000.sh build --literal >"$root/build-side.literal" 2>&1
        printf 'reproduce seed000 (--literal)\t%d\tside\n' $((SECONDS - t)) >>"$root/build-side.times"
        touch "$root/build-side.literal-done"
    ) >"$bg_log" 2>&1 &
    bg_pid=$!
}

if build build normal -Dwerror=true; then
    # the calibrate suite measures timings: it runs alone below, not beside other tests
    run_meson_tests build normal --timeout-multiplier 2 --no-suite calibrate
    run_conformance build normal
    state=$(mktemp -d /tmp/lunlab-conf-state.XXXXXX)
    CONF_STATE_DIR=$state run_conformance build normal
    rm -rf "$state"
    if [[ ${LUNLAB_SERIAL:-0} == 1 || ${LUNLAB_SKIP_REALSTACK:-0} == 1 ]]; then
        run_repro build "seed000 --ci" "seed002 --ci" "seed000 --literal" "seed000 --ci state" "seed002 --ci state"
    else
        run_repro build "seed000 --ci" "seed002 --ci" "seed000 --ci state" "seed002 --ci state"   # --literal: beside the lanes
    fi
    run_meson_tests build calibrate --suite calibrate --num-processes 1 --timeout-multiplier 2
    # the figures above are timed: nothing runs beside them
    [[ ${LUNLAB_SKIP_REALSTACK:-0} == 1 ]] || { build_debs; start_side_jobs; run_realstack build; run_multipath build; }
fi

if [[ ${LUNLAB_SKIP_ASAN:-0} != 1 ]]; then
    if lsan_works; then leaks=1; else leaks=0; echo "note: LeakSanitizer does not work on this machine; detect_leaks=0"; fi
    export ASAN_OPTIONS="detect_leaks=$leaks:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    if [[ -n $bg_pid ]]; then
        step "asan: configure + build (build-asan, beside the lanes above)"
        while [[ ! -f $root/build-side.asan-rc ]] && kill -0 "$bg_pid" 2>/dev/null; do sleep 5; done
        sed -n '1,/^== fuzz/p' "$bg_log" | tail -40
        if [[ $(cat "$root/build-side.asan-rc" 2>/dev/null) == 0 ]]; then asan_built=1; else fail_step "asan: build"; asan_built=0; fi
    elif build build-asan asan "${asan_opts[@]}"; then asan_built=1; else asan_built=0; fi
    if (( asan_built )); then
        # not the calibrate suite: what it checks are timings the sanitizers distort; its code
        # runs here in the unit tests and in integration-bench-lost-*-calibrate
        run_meson_tests build-asan asan --timeout-multiplier 5 --no-suite calibrate
        run_conformance build-asan asan
    fi
    # Without LeakSanitizer the robustness groups that drop, garble and shut down connections
    # run once more under valgrind (normal build), so a leak still fails CI.
    if (( leaks == 0 )) && [[ -x build/tests/robust/robust_check ]]; then
        step "robustness under valgrind (LeakSanitizer unavailable here)"
        for g in drop garbage shutdown; do
            if ROBUST_VALGRIND=1 tests/robust/run-robust.sh "$root/build/target/lunlab-target" "$root/build/handlers" \
                    "$root/build/tests/robust/robust_check" "$g"; then
                total_pass=$((total_pass + 1))
            else
                total_fail=$((total_fail + 1)); failures+=("valgrind: robust-$g")
            fi
        done
    fi
fi

if [[ ${LUNLAB_SKIP_FUZZ:-0} != 1 ]]; then
    step "fuzz: tests/fuzz, ${LUNLAB_FUZZ_SECONDS:-20} s per target (clang, ASan + UBSan)"
    if [[ -n $bg_pid ]]; then
        while [[ ! -f $root/build-side.fuzz-done ]] && kill -0 "$bg_pid" 2>/dev/null; do sleep 5; done
        fuzz_out=$(cat "$root/build-side.fuzz" 2>/dev/null)
    else
        fuzz_out=$(bash ci/fuzz.sh "$root/build-fuzz" "${LUNLAB_FUZZ_SECONDS:-20}" 2>&1)
    fi
    echo "$fuzz_out"
    if [[ $(tail -1 <<<"$fuzz_out") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        total_pass=$((total_pass + BASH_REMATCH[1])); total_fail=$((total_fail + BASH_REMATCH[2]))
        (( BASH_REMATCH[2] == 0 )) || failures+=("fuzz: see above")
    else
        fail_step "fuzz: build or setup failed"
    fi
fi

# without the lanes (LUNLAB_SKIP_REALSTACK=1, LUNLAB_SERIAL=1) the .debs are built here
[[ -n $bg_pid || -n $(debs_built) || ( ${LUNLAB_SKIP_DEB:-0} == 1 && ${LUNLAB_SKIP_OCI:-0} == 1 ) ]] || build_debs
if [[ ${LUNLAB_SKIP_DEB:-0} != 1 ]]; then
    step "package: tests/package/deb.sh (the .debs built, installed, run with no build tree, purged)"
    if [[ -n $bg_pid ]]; then
        while [[ ! -f $root/build-side.deb-done ]] && kill -0 "$bg_pid" 2>/dev/null; do sleep 5; done
        deb_out=$(cat "$root/build-side.deb" 2>/dev/null)
    else
        deb_out=$(bash tests/package/deb.sh $(debs_built) 2>&1)
    fi
    echo "$deb_out"
    if [[ $(tail -1 <<<"$deb_out") =~ ^deb\.sh:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        total_pass=$((total_pass + BASH_REMATCH[1])); total_fail=$((total_fail + BASH_REMATCH[2]))
        (( BASH_REMATCH[2] == 0 )) || failures+=("package: tests/package/deb.sh, see above")
    else
        fail_step "package: tests/package/deb.sh did not finish"
    fi
fi

if [[ ${LUNLAB_SKIP_OCI:-0} != 1 ]]; then
    step "oci: packaging/oci/build.sh --test (the image built from the .debs, run with podman, iSCSI and the API)"
    if [[ -n $bg_pid ]]; then
        while [[ ! -f $root/build-side.oci-done ]] && kill -0 "$bg_pid" 2>/dev/null; do sleep 5; done
        oci_out=$(cat "$root/build-side.oci" 2>/dev/null)
    else
        oci_out=$(bash packaging/oci/build.sh --test $(debs_built) 2>&1)
    fi
    echo "$oci_out"
    p=$(grep -c '^oci: ok - ' <<<"$oci_out"); f=$(grep -c '^oci: FAIL - ' <<<"$oci_out")
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    (( f == 0 )) || failures+=("oci: $(grep '^oci: FAIL - ' <<<"$oci_out" | cut -c13- | paste -sd ';' -)")
    grep -q '^oci: done in ' <<<"$oci_out" || (( f > 0 )) || fail_step "oci: packaging/oci/build.sh did not finish (see above)"
fi

if [[ -n $bg_pid ]]; then
    step "reproduce seed000 (--literal, beside the lanes and the sanitizer run)"
    wait "$bg_pid"
    cat "$root/build-side.literal" 2>/dev/null
    count_repro "$root/build-side.literal" seed000 --literal
fi

lane_close
step "where the time went"
lane_name=
times=$root/build/ci-lane-times.tsv prev_times=/var/tmp/lunlab-ci/lane-times.tsv
[[ -s $prev_times ]] || prev_times=$root/ci/lane-times.tsv
mkdir -p "$root/build"
{
    for i in "${!lane_names[@]}"; do printf '%s\t%d\tfg\n' "${lane_names[$i]}" "${lane_secs[$i]}"; done
    cat "$root/build-side.times" 2>/dev/null
} >"$times"
python3 ci/lib/lane_table.py "$times" "$prev_times"
# the next run on this machine compares with this one (ci/lane-times.tsv keeps a full run's for
# a fresh machine: copy build/ci-lane-times.tsv there after a full run)
mkdir -p /var/tmp/lunlab-ci 2>/dev/null && cp "$times" /var/tmp/lunlab-ci/lane-times.tsv 2>/dev/null

step "summary ($(( SECONDS - started )) s)"
if (( ${#failures[@]} > 0 )); then
    printf 'FAILED: %s\n' "${failures[@]}"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
(( total_fail == 0 && total_pass > 0 ))
