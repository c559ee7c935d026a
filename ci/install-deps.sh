#!/bin/bash
# Install every Debian 12 package lunlab needs to build, test, demo and benchmark.
# Idempotent (apt-get skips what is there) and noninteractive; run as root on a fresh machine.
# Packages by purpose:
#   build:        build-essential gcc clang libclang-rt-14-dev (libFuzzer/sanitizer runtimes)
#                 meson ninja-build pkg-config binutils (nm for the handler symbol check)
#   libraries:    libiscsi-dev zlib1g-dev libdeflate-dev libjson-c-dev libyaml-dev
#                 libxxhash-dev libcmocka-dev (unit tests); CHAP's MD5/base64 come from libgnutls28-dev (no OpenSSL)
#                 libsqlite3-dev (--state-dir: the metadata of a state directory, docs/persistence.md)
#                 sqlite3 (its CLI: integration-persist damages a state on purpose; looking into one)
#                 libgsl-dev (lunlab-bench calibrate: weighted least squares with covariance)
#                 libmicrohttpd-dev libgnutls28-dev (the HTTPS management API, --api)
#                 libcurl4-gnutls-dev (lunlab-bench's API client; the API unit tests)
#                 libisal-dev (ISA-L: CRC32C for the iSCSI header and data digests, and for every
#                 persisted record and block payload)
#   test tools:   libiscsi-bin (iscsi-test-cu, iscsi-perf, iscsi-inq, iscsi-ls, ...)
#                 tcmu-runner (its binary and libtcmu.so.2: the handler symbol check)
#                 sg3-utils fio valgrind iproute2 (ss: free-port search) procps python3
#   peers/bench:  tgt (Debian's userspace iSCSI target) iperf3 (loopback limit)
#                 socat (a TCP proxy the lost-path tests of lunlab-bench cut and restore)
#   scenarios:    python3-junitparser (reads the JUnit files of lunlab-bench scenario as CI
#                 systems do: tests/scenarios/junit_check.py), python3-yaml (parses the CI
#                 snippets of docs/scenarios.md: tests/scenarios/run.sh snippets)
#   lint:         pyflakes3 (the python-lint test: unused names and imports in the Python tests and
#                 benchmarks, which no run of them reports)
#   API clients:  python3-cinder (OpenStack's XtremIO driver, the api-cinder test; it brings
#                 python3-requests) curl jq (the api-bench and bench-lost tests, docs/api.md's examples)
#   metrics:      prometheus (a real scraper of /metrics: tests/metrics/prometheus.sh, its promtool
#                 lints the exposition in the unit tests), chromium (the dashboard in a real
#                 browser: tests/browser), nodejs + npm only when no node is on the machine (npm ci
#                 installs the dashboard's uPlot at build time and playwright-core for the browser
#                 test, both pinned by package-lock.json; no browser is ever downloaded)
#   packaging:    scdoc (the man pages, docs/man/*.scd), libsystemd-dev (sd_notify for
#                 lunlab-target.service), debhelper lintian (tests/package/deb.sh: the .debs
#                 built by dpkg-buildpackage and checked)
# LUNLAB_OCI=1 adds what packaging/oci/build.sh needs (the OCI image; ci/test.sh sets it for its
# side job, LUNLAB_SKIP_OCI=1 leaves it out): podman buildah
# debootstrap runc
# --demo installs only what ci/demo.sh (the README's first command) needs: a C compiler (gcc
# and libc6-dev, not build-essential's g++ and dpkg-dev), meson and the libraries it asks for
# (python3: tests/unit/array's configure step), libiscsi-bin, jq and
# iproute2 (the short seed reproductions: tests/repro/lib.sh), procps; no test peers, API
# clients, metrics tools or browser (chromium, Cinder, Prometheus, tgt, ...), no nodejs/npm (the
# dashboard is then built without its chart library and says so).
# LUNLAB_REALSTACK=1 adds what tests/realstack/lane.sh needs (Debian's kernel under qemu with
# LIO + tcmu-runner): qemu-system-x86 busybox-static cpio kmod; and what tests/multipath/lane.sh
# copies into its guest (a Linux initiator): open-iscsi multipath-tools udev (their binaries and
# rules; the host's services are not used).
set -euo pipefail

demo=0
case ${1:-} in
--demo) demo=1 ;;
"") ;;
*) echo "usage: install-deps.sh [--demo]" >&2; exit 2 ;;
esac

demo_packages=(
    gcc libc6-dev meson ninja-build pkg-config
    libiscsi-dev libiscsi-bin libcmocka-dev zlib1g-dev libjson-c-dev libyaml-dev
    libxxhash-dev libsqlite3-dev libmicrohttpd-dev libgnutls28-dev libcurl4-gnutls-dev libisal-dev libgsl-dev
    python3 jq iproute2 procps
)
packages=(
    build-essential gcc clang libclang-rt-14-dev meson ninja-build pkg-config binutils
    libiscsi-dev libiscsi-bin libcmocka-dev zlib1g-dev libdeflate-dev libjson-c-dev libyaml-dev
    libxxhash-dev libsqlite3-dev libmicrohttpd-dev libgnutls28-dev libcurl4-gnutls-dev libisal-dev libgsl-dev
    tgt tcmu-runner iperf3 sg3-utils fio valgrind jq librsvg2-bin socat sqlite3
    iproute2 procps python3 git ca-certificates
    python3-cinder curl
    python3-junitparser python3-yaml pyflakes3
    prometheus chromium
    scdoc libsystemd-dev debhelper lintian
)
# a machine that came with its own Node.js (and npm) keeps it; Debian's would conflict with it
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
fi
if [[ ${LUNLAB_OCI:-0} == 1 ]]; then
    packages+=(podman buildah debootstrap runc)
fi
if [[ ${LUNLAB_REALSTACK:-0} == 1 ]]; then
    packages+=(qemu-system-x86 busybox-static cpio kmod open-iscsi multipath-tools udev)
    # ddpt (ddpt --odx, ddptctl): the multipath lane's guest copies LUN to LUN by ODX with them
    packages+=(ddpt)
fi
if (( demo )); then
    packages=("${demo_packages[@]}")
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps.sh: run as root (apt-get install)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do
    # dpkg-query prints "install ok installed" only for fully installed packages
    if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) != "install ok installed" ]]; then
        missing+=("$p")
    fi
done
if (( ${#missing[@]} == 0 )); then
    echo "install-deps: all ${#packages[@]} packages already installed"
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
apt-get update -q
# iperf3 asks whether to start a daemon; answer no so that nothing listens behind our back
echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections 2>/dev/null || true
apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confdef \
    -o Dpkg::Options::=--force-confold "${packages[@]}"
echo "install-deps: done"
