#!/bin/bash
# tests/bench_fresh_memory_args.sh: bench/fresh_memory.py (the fresh-memory reference of
# bench/first-writes.sh) refuses each bad argument with exit 2 and one exact line naming it,
# and a small good run prints its JSON (8 MiB stored, whole 4 KiB blocks).  Run from the
# source root by meson.
set -uo pipefail
status=0
probe=bench/fresh_memory.py
expect() { # WANT_LINE ARGS...
	local want=$1 got rc
	shift
	got=$(python3 "$probe" "$@" 2>&1 >/dev/null); rc=$?
	if [[ $rc == 2 && $got == "$want" ]]; then echo "ok: $* -> $want"
	else echo "FAIL: $*: exit $rc, got '$got', want '$want'"; status=1; fi
}
d="want seconds, more than 0 and under 1000000"
expect "fresh_memory.py: DURATION 'x': $d" x
expect "fresh_memory.py: DURATION '0': $d" 0
expect "fresh_memory.py: DURATION '-1': $d" -1
expect "fresh_memory.py: DURATION 'nan': $d" nan
expect "fresh_memory.py: DURATION '1e9': $d" 1e9
b="want bytes, a multiple of 4096 up to 1 GiB"
expect "fresh_memory.py: BLOCK '4095': $b" 1 4095
expect "fresh_memory.py: BLOCK 'abc': $b" 1 abc
expect "fresh_memory.py: BLOCK '0': $b" 1 0
expect "fresh_memory.py: BLOCK '2147483648': $b" 1 2147483648
expect "fresh_memory.py: LIMIT '100': want bytes, at least BLOCK (4096) and at most 64 TiB" 1 4096 100
expect "fresh_memory.py: LIMIT '99999999999999999999': want bytes, at least BLOCK (8192) and at most 64 TiB" 1 8192 99999999999999999999
# a good run: LIMIT ends it long before DURATION
out=$(python3 "$probe" 30 4096 $((8 << 20))) || { echo "FAIL: good run exited $?"; status=1; }
if [[ $(jq -r '.bytes' <<<"$out" 2>/dev/null) == 8388608 && $(jq -r '.mb_s > 0' <<<"$out") == true ]]; then
	echo "ok: good run: $out"
else
	echo "FAIL: good run printed '$out'"; status=1
fi
exit $status
