#!/bin/sh
# ci/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] — builds the libFuzzer targets of
# tests/fuzz with clang (ASan + UBSan everywhere, libFuzzer coverage on the
# parsers) and runs each one for a bounded time on a scratch copy of its seed
# corpus (tests/fuzz/corpus/<target>/; the committed corpus is never changed).
# Prints per target: executions, coverage at start and end, and the verdict.
# Any crash, sanitizer report, leak, timeout or OOM fails the target; the
# report names the file libFuzzer saved the input in (reproduce with
# BUILD_DIR/tests/fuzz/<target> <file>).  Ends with 'N passed, N failed';
# exit status 1 when anything failed.
# About 3 minutes with the default 20 s per target on 2 cores.
set -u

BUILD=${1:?usage: ci/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET]}
SECS=${2:-20}
case $SECS in
''|*[!0-9]*|0) echo "fuzz: SECONDS_PER_TARGET must be a positive integer (libFuzzer reads 0 as no limit)"; exit 1 ;;
esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${FUZZ_JOBS:-2}

command -v clang >/dev/null || { echo "fuzz: clang not found (apt-get install clang libclang-rt-14-dev)"; exit 1; }

# -Dtests=false: only the fuzz targets and what they link; no -Dwerror: the
# rest of the tree is written against gcc's warning set.  b_lundef=false is
# what clang's sanitizers need for the shared handler module.
if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" "$SRC" -Dfuzz=true -Dtests=false \
		-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >"$BUILD.setup.log" 2>&1 ||
		{ cat "$BUILD.setup.log"; echo "fuzz: meson setup failed"; exit 1; }
fi
# the targets exist only once the top-level meson.build includes tests/fuzz
if ! grep -q 'tests/fuzz/fuzz-iscsi-rx' "$BUILD/build.ninja"; then
	echo "fuzz: no fuzz targets in $BUILD: is tests/fuzz wired into meson.build"
	echo "      (if get_option('fuzz') / subdir('tests/fuzz') / endif) and is the compiler clang?"
	exit 1
fi
# every executable tests/fuzz/meson.build defined (fuzz-xcopy-parse only while
# helper G's source exists)
TARGETS=$(sed -n 's#^build tests/fuzz/\(fuzz-[a-z0-9-]*\): .*#\1#p' "$BUILD/build.ninja" | sort -u)
ninja -C "$BUILD" -j"$JOBS" $(for t in $TARGETS; do printf 'tests/fuzz/%s ' "$t"; done) >"$BUILD/fuzz-build.log" 2>&1 ||
	{ tail -40 "$BUILD/fuzz-build.log"; echo "fuzz: build failed"; exit 1; }

# LeakSanitizer needs ptrace-like access some containers refuse; where it
# cannot work, leaks are not checked (said so) rather than every target failing
LEAKS=1
probe=$(mktemp -d)
printf '#include <stdlib.h>\nint main(void){void *p=malloc(7);p=0;return 0;}\n' >"$probe/leak.c"
if clang -fsanitize=address "$probe/leak.c" -o "$probe/leak" 2>/dev/null; then
	ASAN_OPTIONS=detect_leaks=1 "$probe/leak" >"$probe/out" 2>&1
	grep -q 'Direct leak of 7 byte' "$probe/out" || LEAKS=0
else
	LEAKS=0
fi
rm -rf "$probe"
[ "$LEAKS" = 1 ] || echo "note: LeakSanitizer does not work here; fuzzing without leak detection"

WORK="$BUILD/fuzz-run"
rm -rf "$WORK"
mkdir -p "$WORK"

# one target: scratch corpus, bounded run, verdict in $WORK/<t>/verdict
run_one() {
	t=$1
	d="$WORK/$t"
	mkdir -p "$d/corpus" "$d/crash"
	cp "$SRC/tests/fuzz/corpus/$t/"* "$d/corpus/" 2>/dev/null
	# UBSan: any finding is fatal (halt_on_error) so it counts as a crash.  -timeout counts
	# wall time, and the fuzzers run at low priority beside the qemu lanes, where a process
	# gets a few percent of a core: 60 s per input is still a hang guard (every input here
	# takes milliseconds alone) but not one a busy neighbour can trip (docs/testing.md).
	# -report_slow_units the same: libFuzzer's default (10 s) wrote a "slow-unit" artifact
	# for a fuzz-pr-state input that took 12 s beside the qemu lanes and 68 ms alone, and
	# an artifact failed the lane; a unit slower than 60 s is a timeout, which still fails.
	( cd "$d" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ASAN_OPTIONS=detect_leaks=$LEAKS:abort_on_error=0 \
	  "$BUILD/tests/fuzz/$t" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=60 -report_slow_units=60 -detect_leaks="$LEAKS" \
		-artifact_prefix="$d/crash/" -print_final_stats=1 corpus >"$d/log" 2>&1 )
	echo $? >"$d/rc"
}

# JOBS targets at a time (they share the cores; each still gets SECS seconds)
set -- $TARGETS
while [ $# -gt 0 ]; do
	pids=""
	n=0
	while [ $# -gt 0 ] && [ $n -lt "$JOBS" ]; do
		run_one "$1" &
		pids="$pids $!"
		n=$((n + 1))
		shift
	done
	for p in $pids; do wait "$p"; done
done

pass=0
fail=0
for t in $TARGETS; do
	d="$WORK/$t"
	log="$d/log"
	rc=$(cat "$d/rc" 2>/dev/null || echo 99)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov0=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
	cov1=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
	[ -n "$cov1" ] || cov1=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' "$log" | tail -1)
	newunits=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
	# a slow unit (over -report_slow_units, under -timeout) is the machine's noise, not a finding
	artifact=$(ls "$d/crash/" 2>/dev/null | grep -v '^slow-unit-' | head -1)
	if [ "$rc" = 0 ] && [ -z "$artifact" ]; then
		pass=$((pass + 1))
		printf '%-24s PASS  execs=%s cov=%s->%s new_units=%s\n' "$t" "${execs:-?}" "${cov0:-?}" "${cov1:-?}" "${newunits:-?}"
	else
		fail=$((fail + 1))
		kind=$(grep -m1 -o 'ERROR: [A-Za-z]*Sanitizer: [a-z-]*\|ERROR: libFuzzer: [a-z-]*\|runtime error: .*' "$log")
		printf '%-24s FAIL  rc=%s execs=%s %s\n' "$t" "$rc" "${execs:-?}" "${kind:-see log}"
		printf '    crash file: %s\n' "${artifact:+$d/crash/$artifact}"
		printf '    log: %s\n' "$log"
		grep -m12 -E '^ *#[0-9]+ .* in |SUMMARY' "$log" | sed 's/^/    /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
