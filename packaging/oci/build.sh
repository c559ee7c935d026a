#!/bin/bash
# packaging/oci/build.sh [--test] [DEBDIR] — an OCI image of lunlab-target (and
# lunlab-bench) made with Debian's tools and no registry:
#   1. a bookworm root filesystem by debootstrap --variant=minbase from the machine's
#      apt mirror (cached in $LUNLAB_OCI_CACHE, default /var/cache/lunlab-oci: ~4 min
#      the first time, then a tar extract);
#   2. the .debs (DEBDIR, else built by packaging/build-deb.sh) installed in it with apt,
#      then apt's lists and caches dropped;
#   3. `podman import` with the image's config: USER lunlab, the entrypoint
#      (entrypoint.sh), EXPOSE 3260 8443, a volume for /var/lib/lunlab.
# The image: localhost/lunlab:VERSION and localhost/lunlab:latest.
# --test then runs it as CI would (`podman run --runtime runc --ulimit ... --network host`,
# see docs/install.md for why) on free loopback ports: iSCSI discovery and the LU's identity
# and capacity from the host (libiscsi's iscsi-ls, iscsi-inq, iscsi-readcapacity16), data
# written, cloned by XCOPY and read back by the image's own lunlab-bench from a second
# container, the API answering, `podman stop` ending it by SIGTERM with status 0.  Prints
# "oci: ok - ..." / "oci: FAIL - ..." per check, its size and times.
# Needs root and: podman buildah debootstrap runc (ci/install-deps.sh with LUNLAB_OCI=1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
test=0
[[ ${1:-} == --test ]] && { test=1; shift; }
cache=${LUNLAB_OCI_CACHE:-/var/cache/lunlab-oci}
work=$(mktemp -d /tmp/lunlab-oci.XXXXXX)
cid=
cleanup() {
	[[ -n $cid ]] && podman rm -f "$cid" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
# the two workarounds this sandbox needs (containers.md): runc (cgroups are mixed v1/v2)
# and fixed rlimits (raising them is not allowed here)
podman_run=(podman run --runtime runc --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 --network host)
version=$(sed -n "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'\([^']*\)'.*/\1/p" "$src/meson.build" | head -1)
t_all=$SECONDS

debdir=${1:-$work/debs}
if [[ -z ${1:-} ]]; then
	t=$SECONDS
	"$src/packaging/build-deb.sh" "$debdir" >/dev/null
	echo "oci: .debs built in $((SECONDS - t)) s"
fi

# --- 1. the base root filesystem, cached ---
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[[ -n $mirror ]] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[[ -n $mirror ]] || mirror=http://deb.debian.org/debian
base=$cache/bookworm-minbase.tar
rootfs=$work/rootfs
mkdir -p "$cache" "$rootfs"
t=$SECONDS
if [[ ! -s $base ]]; then
	debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 || {
		tail -20 "$work/debootstrap.log" >&2; echo "oci: debootstrap failed" >&2; exit 1; }
	tar -C "$work/base" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$work/base"
	echo "oci: debootstrap --variant=minbase bookworm: $((SECONDS - t)) s (cached in $base)"
fi
tar -C "$rootfs" -xf "$base"

# --- 2. the packages, with apt inside the root filesystem ---
t=$SECONDS
mkdir -p "$rootfs/tmp/debs"
cp "$debdir"/lunlab_*.deb "$debdir"/lunlab-tcmu-handler_*.deb "$rootfs/tmp/debs/"
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
mount -t proc proc "$rootfs/proc"
trap 'umount "$rootfs/proc" 2>/dev/null; cleanup' EXIT
chroot "$rootfs" sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q &&
	apt-get install -y -q --no-install-recommends /tmp/debs/*.deb' >"$work/apt.log" 2>&1 || {
	tail -20 "$work/apt.log" >&2; echo "oci: apt-get install in the root filesystem failed" >&2; exit 1; }
umount "$rootfs/proc"
trap cleanup EXIT
install -m 0644 "$here/lunlab-target.yaml" "$rootfs/etc/lunlab/lunlab-target.yaml"
install -m 0755 "$here/entrypoint.sh" "$rootfs/usr/local/bin/lunlab-entrypoint"
install -d -o "$(chroot "$rootfs" id -u lunlab)" -g "$(chroot "$rootfs" id -g lunlab)" -m 0700 "$rootfs/var/lib/lunlab"
# what a running container never reads: apt's lists and caches, the .debs, docs beyond copyright
rm -rf "$rootfs"/tmp/debs "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
	"$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/*
find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright ! -path '*/lunlab/*' -type f -delete
: >"$rootfs/etc/resolv.conf"
echo "oci: packages installed in the root filesystem: $((SECONDS - t)) s"

# --- 3. the image ---
t=$SECONDS
tar -C "$rootfs" -c . | podman import \
	--change 'USER lunlab' \
	--change 'WORKDIR /var/lib/lunlab' \
	--change 'ENTRYPOINT ["/usr/local/bin/lunlab-entrypoint"]' \
	--change 'CMD []' \
	--change 'EXPOSE 3260' --change 'EXPOSE 8443' \
	--change 'VOLUME /var/lib/lunlab' \
	--change 'STOPSIGNAL SIGTERM' \
	--change 'LABEL org.opencontainers.image.title=lunlab' \
	--change "LABEL org.opencontainers.image.version=$version" \
	- "localhost/lunlab:$version" >/dev/null
podman tag "localhost/lunlab:$version" localhost/lunlab:latest
size=$(podman image inspect --format '{{.Size}}' "localhost/lunlab:$version")
echo "oci: podman import: $((SECONDS - t)) s; image localhost/lunlab:$version, $((size / 1000000)) MB"

if (( test )); then
	# shellcheck source=../../ci/lib/target-ctl.sh
	. "$src/ci/lib/target-ctl.sh"
	port=$(ll_free_port) api=$(ll_free_port)
	t=$SECONDS
	cid=$("${podman_run[@]}" -d -e LUNLAB_API_PASSWORD=oci-test-secret -e LUNLAB_API_LISTEN="127.0.0.1:$api" \
		"localhost/lunlab:$version" --listen "127.0.0.1:$port" --lun size=256M,model=x2)
	iqn=iqn.2026-11.org.lunlab:target
	ok=1
	for _ in $(seq 100); do iscsi-ls "iscsi://127.0.0.1:$port" 2>/dev/null | grep -qF "$iqn" && break; sleep 0.2; done
	if iscsi-ls "iscsi://127.0.0.1:$port" | grep -qF "$iqn"; then echo "oci: ok - iSCSI discovery answers (port $port)"; else echo "oci: FAIL - iSCSI discovery"; ok=0; fi
	lu=iscsi://127.0.0.1:$port/$iqn/0
	if iscsi-inq "$lu" >"$work/inq.txt" 2>&1 && grep -q '^Product:' "$work/inq.txt" &&
		[[ $(iscsi-readcapacity16 -s "$lu" 2>&1) == 268435456 ]]; then
		echo "oci: ok - the LU answers INQUIRY and READ CAPACITY(16): 256 MiB (iscsi-inq, iscsi-readcapacity16)"
	else echo "oci: FAIL - iscsi-inq / iscsi-readcapacity16"; cat "$work/inq.txt"; ok=0; fi
	# the image's own lunlab-bench, in a second container on the host's loopback: a template
	# written, cloned twice by EXTENDED COPY, every clone read back and compared
	if "${podman_run[@]}" --rm --entrypoint lunlab-bench "localhost/lunlab:$version" \
		clone "$lu" --template-size 16m --template-content pattern --vms 2 --chunk 4m --mode xcopy \
		--verify --json --quiet >"$work/clone.json" 2>"$work/clone.err" &&
		jq -e '.verified == true and .xcopy == true' "$work/clone.json" >/dev/null; then
		echo "oci: ok - data written, cloned by XCOPY and read back identical (the image's lunlab-bench, second container)"
	else echo "oci: FAIL - lunlab-bench clone --verify"; cat "$work/clone.err"; head -c 600 "$work/clone.json"; ok=0; fi
	codes=$(curl -ks -o /dev/null -w '%{http_code}' -u admin:oci-test-secret "https://127.0.0.1:$api/api/json/v2/types")
	if [[ $codes == 200 ]]; then echo "oci: ok - API answers (200)"; else echo "oci: FAIL - API: $codes"; ok=0; fi
	t_stop=$SECONDS
	podman stop -t 20 "$cid" >/dev/null
	rc=$(podman inspect --format '{{.State.ExitCode}}' "$cid")
	# status 0 is the proof: had SIGTERM not ended it within -t 20, podman's SIGKILL makes it 137
	if [[ $rc == 0 ]]; then echo "oci: ok - podman stop: SIGTERM, status 0 in $((SECONDS - t_stop)) s"
	else echo "oci: FAIL - podman stop: status $rc after $((SECONDS - t_stop)) s"; podman logs "$cid" | tail -5; ok=0; fi
	podman logs "$cid" 2>&1 | sed 's/^/    log: /' | tail -8
	echo "oci: run test $((SECONDS - t)) s"
	(( ok )) || { echo "oci: image test failed"; exit 1; }
fi
echo "oci: done in $((SECONDS - t_all)) s"
