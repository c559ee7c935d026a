#!/bin/bash
# build-deb.sh OUTDIR — lunlab's .debs from this tree: copies the tree's files
# (committed and not, less what .gitignore leaves out) to a scratch directory,
# runs `dpkg-buildpackage -b -us -uc` there, then lintian, and leaves the .debs,
# the .changes and lintian.txt in OUTDIR.  The copy keeps build output out of the
# tree and its parent; .git-revision carries the revision into --version.
# Exit 1 when the build fails or lintian reports an error.
set -euo pipefail
out=$(mkdir -p "$1" && realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/lunlab-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/lunlab"
# every file git knows or would add; a build dir or a leftover .deb is left out
(cd "$src" && git ls-files -z --cached --others --exclude-standard | \
	xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' | \
	tar --null -T - -cf -) | tar -C "$work/lunlab" -xf -
git -C "$src" describe --always --dirty --abbrev=12 > "$work/lunlab/.git-revision" 2>/dev/null || true
cd "$work/lunlab"
# -j2: the machine's two cores; nice: beside the other CI lanes
DEB_BUILD_OPTIONS="parallel=2 nocheck" nice -n 10 dpkg-buildpackage -b -us -uc > "$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "build-deb.sh: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
	exit 1
}
cp ../*.deb ../*.changes ../*.buildinfo "$out/"
# --fail-on error: warnings are fixed or overridden with a reason (debian/*.lintian-overrides)
lintian --fail-on error --info --display-info ../*.changes > "$out/lintian.txt" 2>&1 || {
	cat "$out/lintian.txt" >&2
	echo "build-deb.sh: lintian reports an error" >&2
	exit 1
}
ls "$out"/*.deb
