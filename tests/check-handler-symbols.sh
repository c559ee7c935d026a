#!/bin/sh
# check-handler-symbols.sh BUILD_DIR
#
# handler_lunlab.so must load unchanged in Debian 12's tcmu-runner 1.5.4 and
# in lunlab-target.  Handlers are not linked against libtcmu: every tcmu_* /
# tcmur_* symbol they leave undefined must be exported by the tcmu-runner
# executable or by libtcmu.so.2 (what the real runner resolves against at
# dlopen), and by lunlab-target (export_dynamic) for the embedded host.
# It also checks handler_init is exported and nothing else is: what
# lunlab-target and the module offer each other beyond the tcmu-runner ABI
# goes through the extension contract (include/lunlab/host_ext.h), which
# the module finds with one dlsym, so no lunlab_* symbol is needed or
# exported either way.
# Exit 0: all good; 1: a problem (listed); 77: a system file is missing
# (install the tcmu-runner package: ci/ does).
set -eu

BUILD=${1:?usage: $0 BUILD_DIR}
NM=${NM:-nm}
HANDLER="$BUILD/handlers/handler_lunlab.so"
TARGET="$BUILD/target/lunlab-target"
RUNNER=${TCMU_RUNNER:-/usr/bin/tcmu-runner}
LIBTCMU=${LIBTCMU:-/usr/lib/x86_64-linux-gnu/libtcmu.so.2}

for f in "$HANDLER" "$TARGET"; do
	if [ ! -f "$f" ]; then
		echo "check-handler-symbols: $f not built" >&2
		exit 1
	fi
done
for f in "$RUNNER" "$LIBTCMU"; do
	if [ ! -f "$f" ]; then
		echo "check-handler-symbols: $f missing (apt-get install tcmu-runner)" >&2
		exit 77
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# symbol names only, version suffixes (@...) dropped
syms() { "$NM" -D "$@" | awk '{ print $NF }' | sed 's/@.*//' | sort -u; }

syms --undefined-only "$HANDLER" | grep -E '^tcmur?_' > "$tmp/needed" || true
syms --defined-only "$RUNNER" "$LIBTCMU" > "$tmp/debian"
syms --defined-only "$TARGET" > "$tmp/lunlab"

fail=0
missing_debian=$(comm -23 "$tmp/needed" "$tmp/debian")
if [ -n "$missing_debian" ]; then
	echo "handler_lunlab.so needs tcmu symbols Debian's tcmu-runner/libtcmu.so.2 do not export:"
	echo "$missing_debian" | sed 's/^/  /'
	fail=1
fi
missing_lunlab=$(comm -23 "$tmp/needed" "$tmp/lunlab")
if [ -n "$missing_lunlab" ]; then
	echo "handler_lunlab.so needs tcmu symbols lunlab-target does not export:"
	echo "$missing_lunlab" | sed 's/^/  /'
	fail=1
fi
if ! syms --defined-only "$HANDLER" | grep -qx handler_init; then
	echo "handler_lunlab.so does not export handler_init (hosts call it after dlopen)"
	fail=1
fi
# the contract is found by one dlsym at run time: a lunlab_* symbol the
# module leaves undefined (even weak) is a second way in, and a code path
# that silently differs between the hosts
bylink=$(syms --undefined-only "$HANDLER" | grep '^lunlab_' || true)
if [ -n "$bylink" ]; then
	echo "handler_lunlab.so binds lunlab host symbols by name (use include/lunlab/host_ext.h's struct):"
	echo "$bylink" | sed 's/^/  /'
	fail=1
fi
extra=$(syms --defined-only "$HANDLER" | grep -vx handler_init || true)
if [ -n "$extra" ]; then
	echo "handler_lunlab.so exports more than handler_init (it could interpose on the host's symbols):"
	echo "$extra" | sed 's/^/  /'
	fail=1
fi
if readelf -d "$HANDLER" 2>/dev/null | grep NEEDED | grep -q 'libtcmu'; then
	echo "handler_lunlab.so is linked against libtcmu (NEEDED entry); handlers must not be:"
	readelf -d "$HANDLER" | grep NEEDED | grep libtcmu | sed 's/^/  /'
	fail=1
fi
if [ "$fail" = 0 ]; then
	echo "handler_lunlab.so: $(wc -l < "$tmp/needed") tcmu symbols, all exported by tcmu-runner/libtcmu.so.2 and lunlab-target"
fi
exit "$fail"
