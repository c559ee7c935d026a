# tests/repro/lib.sh - shared by seed000.sh and seed002.sh: start/stop a private
# lunlab-target on 127.0.0.1, run lunlab-bench --json, compare figures with the published
# ones and print "published | lunlab | delta | ok" rows.  Sourced, not run.
#
# Conventions: BUILD is the meson build dir (first argument of the scripts); every target
# this file starts is stopped by its own pid at exit (never by name).

REPRO_FAILS=0
REPRO_PIDS=""
REPRO_TMP=$(mktemp -d /tmp/lunlab-repro.XXXXXX)
REPRO_IQN=iqn.2026-11.org.lunlab:target

repro_cleanup() {
	for p in $REPRO_PIDS; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	REPRO_PIDS=""
	rm -rf "$REPRO_TMP"
}
trap repro_cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "$0: $*" >&2; exit 2; }

repro_need_build() {
	BUILD=${1:?usage: $0 BUILD_DIR [--ci|--full]}
	TARGET=$BUILD/target/lunlab-target
	BENCH=$BUILD/client/lunlab-bench
	[ -x "$TARGET" ] || die "no lunlab-target in $BUILD/target (build first: ninja -C $BUILD)"
	[ -x "$BENCH" ] || die "no lunlab-bench in $BUILD/client"
	command -v jq >/dev/null || die "jq is needed (Debian: apt-get install jq)"
}

# A free TCP port on 127.0.0.1: random in 20000..59999, checked with ss.
repro_free_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		if ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	die "no free port found"
}

# repro_start_target LUNSPEC...: starts lunlab-target with one --lun per argument on a free
# port; sets REPRO_PORT, REPRO_TPID and REPRO_URL (LUN 0).  Waits until it listens.
# REPRO_STATE_DIR=DIR: each target keeps its arrays in a fresh directory under DIR
# (--state-dir, docs/persistence.md): the figures must come out the same.
# REPRO_STATE_CLEAN=1 with it: each directory's disk use is appended to DIR/usage (bytes and the
# directory) when its target stops, and the directory removed (bench/persist.sh literal).
# repro_alive PID: running (a child that exited stays a zombie until waited for, and a zombie
# still answers kill -0)
repro_alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

repro_start_target() {
	local luns=() args s attempt i
	for s in "$@"; do luns+=(--lun "$s"); done
	# a free port can be taken by another process (a lane running beside) before the target
	# binds it: a target that exits at start is tried again on another port
	for attempt in 1 2 3 4 5; do
		args=("${luns[@]}")
		if [ -n "${REPRO_STATE_DIR:-}" ]; then
			mkdir -p "$REPRO_STATE_DIR"
			REPRO_TSTATE=$(mktemp -d "$REPRO_STATE_DIR/target.XXXXXX")
			args+=(--state-dir "$REPRO_TSTATE")
		fi
		REPRO_PORT=$(repro_free_port)
		"$TARGET" --listen "127.0.0.1:$REPRO_PORT" --quiet --handler-path "$BUILD/handlers" \
			"${args[@]}" >"$REPRO_TMP/target.log" 2>&1 &
		REPRO_TPID=$!
		REPRO_PIDS="$REPRO_PIDS $REPRO_TPID"
		# until it listens or exits; 300 s is a hang guard (ci/test.sh runs the seeds with no
		# timeout around them), not the 10 s limit a loaded machine could reach (a start takes
		# well under a second alone)
		for _ in $(seq 1 3000); do
			# listening, and it is this target that listens (not whoever took the port)
			if ss -Htlnp "sport = :$REPRO_PORT" 2>/dev/null | grep -q "pid=$REPRO_TPID,"; then
				REPRO_URL="iscsi://127.0.0.1:$REPRO_PORT/$REPRO_IQN/0"
				return 0
			fi
			repro_alive "$REPRO_TPID" || break
			sleep 0.1
		done
		repro_alive "$REPRO_TPID" && break # running but not listening: no retry helps
		grep -q 'Address already in use' "$REPRO_TMP/target.log" || break
		wait "$REPRO_TPID" 2>/dev/null
		echo "lunlab-target: port $REPRO_PORT was taken at start (attempt $attempt); another port" >&2
		[ -n "${REPRO_STATE_DIR:-}" ] && rm -rf "$REPRO_TSTATE"
	done
	cat "$REPRO_TMP/target.log" >&2
	die "lunlab-target did not start ($*)"
}

repro_stop_target() {
	kill "$REPRO_TPID" 2>/dev/null && wait "$REPRO_TPID" 2>/dev/null
	REPRO_PIDS=$(echo "$REPRO_PIDS" | tr ' ' '\n' | grep -vx "$REPRO_TPID" | tr '\n' ' ')
	if [ -n "${REPRO_STATE_DIR:-}" ] && [ "${REPRO_STATE_CLEAN:-0}" = 1 ] && [ -d "${REPRO_TSTATE:-}" ]; then
		echo "$(du -sb "$REPRO_TSTATE" | cut -f1) $REPRO_TSTATE" >>"$REPRO_STATE_DIR/usage"
		rm -rf "$REPRO_TSTATE"
	fi
}

# repro_bench OUT.json ARGS...: lunlab-bench ARGS --json > OUT.json (stderr to the log).
repro_bench() {
	local out=$1; shift
	if ! "$BENCH" "$@" --json >"$out" 2>"$REPRO_TMP/bench.err"; then
		cat "$REPRO_TMP/bench.err" >&2
		echo "$0: lunlab-bench $* failed" >&2
		return 1
	fi
}

repro_header() {
	printf '\n%-40s | %12s | %12s | %9s | %s\n' "$1" "published" "lunlab" "delta" "ok"
	printf '%-40s-+-%12s-+-%12s-+-%9s-+-%s\n' "----------------------------------------" \
		"------------" "------------" "---------" "----"
}

# repro_check LABEL PUBLISHED MEASURED KIND TOL [UNIT]
#   KIND rel: |m/p - 1| <= TOL (TOL a fraction, delta printed in %)
#        abs: |m - p| <= TOL (delta printed in the unit)
#        max: m <= p (p is a bound, TOL ignored)
#        min: m >= p (p is a bound, TOL ignored)
repro_check() {
	local label=$1 pub=$2 got=$3 kind=$4 tol=$5 unit=${6:-}
	local line
	line=$(awk -v p="$pub" -v m="$got" -v k="$kind" -v t="$tol" -v u="$unit" 'BEGIN {
		if (m == "" || m == "null") { printf "%12s | %12s | %9s | %s", p u, "none", "-", "MISS"; exit }
		if (k == "rel") { d = (m / p - 1); ok = (d <= t + 1e-12 && -d <= t + 1e-12);
			printf "%12s | %12s | %+8.1f%% | %s", p u, sprintf("%.4g", m) u, 100 * d, ok ? "ok" : "MISS" }
		else if (k == "abs") { d = m - p; ok = (d <= t + 1e-12 && -d <= t + 1e-12);
			printf "%12s | %12s | %+9.3f | %s", p u, sprintf("%.4g", m) u, d, ok ? "ok" : "MISS" }
		else if (k == "min") { ok = (m >= p - 1e-12);
			printf "%12s | %12s | %+8.1f%% | %s", ">=" p u, sprintf("%.4g", m) u, 100 * (m / p - 1), ok ? "ok" : "MISS" }
		else { ok = (m <= p + 1e-12);
			printf "%12s | %12s | %9s | %s", "<=" p u, sprintf("%.4g", m) u, "", ok ? "ok" : "MISS" }
	}')
	printf '%-40s | %s\n' "$label" "$line"
	case $line in *MISS) REPRO_FAILS=$((REPRO_FAILS + 1)) ;; esac
}

repro_note() { printf '  note: %s\n' "$*"; }

repro_finish() {
	if [ "$REPRO_FAILS" -ne 0 ]; then
		echo "$0: $REPRO_FAILS figure(s) outside the published tolerance"
		exit 1
	fi
	echo "$0: all figures within the published tolerances"
}
