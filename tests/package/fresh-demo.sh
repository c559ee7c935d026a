#!/bin/bash
# tests/package/fresh-demo.sh [GIT_DIR [REV]] — times the README's demo command (`bash ci/demo.sh`)
# as a newcomer runs it: in a fresh Debian 12 root filesystem (debootstrap --variant=minbase
# bookworm, the same cached base as packaging/oci/build.sh; nothing preinstalled beyond it), from
# a tree exported by `git archive` (no build directory, no .git), as root in a chroot, with apt
# fetching from this machine's mirror (its debian.sources copied in, as a fresh install has).
# Not a CI lane: it takes minutes and its figure is a time.  Prints "fresh-demo: N s, exit RC"
# last; apt's and the build's shares are read from the demo's own section marks.
# Shares the host's network namespace (apt needs the mirror; the demo's target listens on a free
# 127.0.0.1 port).  Needs root, debootstrap (LUNLAB_OCI=1 ci/install-deps.sh).
set -euo pipefail
git_dir=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
rev=${2:-HEAD}
cache=${LUNLAB_OCI_CACHE:-/var/cache/lunlab-oci}
base=$cache/bookworm-minbase.tar
work=$(mktemp -d /tmp/lunlab-fresh.XXXXXX)
root=$work/root
cleanup() {
	for m in dev/pts dev proc sys; do umount "$root/$m" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
if [[ ! -s $base ]]; then
	mkdir -p "$cache"
	debootstrap --variant=minbase bookworm "$work/base" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1
	tar -C "$work/base" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$work/base"
fi
mkdir -p "$root"
tar -C "$root" -xf "$base"
# the machine's apt sources (bookworm, -updates, -security), as a fresh Debian 12 install has them
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
	: >"$root/etc/apt/sources.list"
	cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/root/lunlab"
git -C "$git_dir" archive "$rev" | tar -C "$root/root/lunlab" -xf -
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
echo "fresh-demo: $(git -C "$git_dir" rev-parse --short "$rev") in a minbase bookworm root ($work)"
t0=${EPOCHREALTIME/./}
rc=0
# every output line stamped with the seconds since the start: where the time goes
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# the CPU time it used too: on a shared machine the wall time says as much about the others
/usr/bin/time -f 'fresh-demo: CPU %U s user + %S s system' -o "$work/cpu" chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LANG=C.UTF-8 \
	bash -c 'cd /root/lunlab && bash ci/demo.sh' 2>&1 |
	while IFS= read -r line; do
		d=$(( ${EPOCHREALTIME/./} - t0 )); printf '%4d.%d %s\n' $((d / 1000000)) $((d / 100000 % 10)) "$line"
	done | tee "$work/demo.log" || rc=$?
d=$(( ${EPOCHREALTIME/./} - t0 ))
grep -E '^ *[0-9.]+ ==== ' "$work/demo.log" | sed 's/^/fresh-demo: section at /'
cat "$work/cpu"
echo "fresh-demo: load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end ($(nproc) CPUs)"
echo "fresh-demo: $((d / 1000000)) s, exit $rc"
cp "$work/demo.log" "${LUNLAB_FRESH_LOG:-/tmp/lunlab-fresh-demo.log}"
