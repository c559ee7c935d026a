#!/bin/bash
# version.sh TARGET BENCH VERSION SRCDIR — `--version` of both programs says meson's project
# version and, in a git tree, the revision the build came from (version/meson.build);
# exit 0 and nothing else printed, wherever --version stands on the line.
set -euo pipefail
target=$1 bench=$2 version=$3 src=$4
rev=$(git -C "$src" describe --always --dirty --abbrev=12 2>/dev/null || true)
want_t="lunlab-target $version${rev:+ (git $rev)}"
want_b="lunlab-bench $version${rev:+ (git $rev)}"
fail=0
check() { # NAME WANT COMMAND...
	local name=$1 want=$2 got
	shift 2
	if ! got=$("$@" 2>&1); then echo "FAIL $name: exit status not 0: $got"; fail=1; return; fi
	# the revision may have moved on (a commit since the build): compare the version part
	# exactly and the revision's presence
	if [[ -n $rev ]]; then
		[[ $got =~ ^${want%% (git*}\ \(git\ [0-9a-f]{7,}(-dirty)?\)$ ]] || { echo "FAIL $name: '$got', want '$want'"; fail=1; return; }
	else
		[[ $got == "$want" ]] || { echo "FAIL $name: '$got', want '$want'"; fail=1; return; }
	fi
	echo "ok $name: $got"
}
check "lunlab-target --version" "$want_t" "$target" --version
check "lunlab-target --lun ... --version" "$want_t" "$target" --lun size=1M --version
check "lunlab-bench --version" "$want_b" "$bench" --version
check "lunlab-bench info URL --version" "$want_b" "$bench" info iscsi://127.0.0.1/x/0 --version
exit $fail
