#!/bin/bash
# tests/package/deb.sh [DEBDIR] — the Debian packages as a user gets them: builds them
# (packaging/build-deb.sh, lintian with no error) unless DEBDIR holds them, installs them on
# this machine with apt, and runs the installed programs with no build tree on any path:
#   - the unit: systemd-analyze verify (clean) and security (its score printed);
#   - the unit's start path by hand where systemd is not PID 1 (as here and in CI): its
#     ExecStart line as user lunlab with only CAP_NET_BIND_SERVICE, on a port below 1024,
#     with $NOTIFY_SOCKET: READY=1 arrives only once iSCSI and the API answer;
#   - discovery (iscsi-ls), a clone by XCOPY written and read back (lunlab-bench clone
#     --verify), the API answering (curl), SIGHUP re-reading the auth file (the old API
#     password refused, the new one accepted), SIGTERM ending it with status 0;
#   - purge: nothing of the packages left but what Debian policy keeps (the system user
#     lunlab); /var/lib/lunlab and /etc/lunlab are gone.  The machine's files are listed before
#     the install and after the purge: every file or directory that appeared is printed, and
#     besides the files of packages apt pulled in as dependencies (they stay: apt-get purge
#     removes only what it is named) there must be none.
# Runs as root (apt).  Refuses to run when the packages are installed already (it would
# purge someone's installation).  Prints "deb.sh: N passed, M failed" last.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/lunlab-debtest.XXXXXX)
pass=0 fail=0 tpid= npid= installed=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
finish() {
	[[ -n $tpid ]] && kill "$tpid" 2>/dev/null
	[[ -n $npid ]] && kill "$npid" 2>/dev/null
	# stopped half-way: leave the machine as it was found
	if (( installed )); then
		rm -f /etc/lunlab/auth
		DEBIAN_FRONTEND=noninteractive apt-get purge -y lunlab lunlab-tcmu-handler >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap finish EXIT
started=$SECONDS

if [[ $(id -u) != 0 ]]; then echo "deb.sh: run as root (apt)"; echo "deb.sh: 0 passed, 1 failed"; exit 1; fi
for p in lunlab lunlab-tcmu-handler; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
		echo "deb.sh: $p is installed on this machine already; not touching it"
		echo "deb.sh: 0 passed, 1 failed"; exit 1
	fi
done

# LUNLAB_DEB_OUT: build into that directory and keep the .debs (packaging/oci/build.sh DEBDIR)
debdir=${1:-${LUNLAB_DEB_OUT:-$work/debs}}
if [[ -z ${1:-} ]]; then
	t0=$SECONDS
	if "$src/packaging/build-deb.sh" "$debdir" >/dev/null; then
		ok "dpkg-buildpackage -b + lintian (no error): $((SECONDS - t0)) s"
	else
		bad "dpkg-buildpackage -b + lintian"; echo "deb.sh: $pass passed, $((fail)) failed"; exit 1
	fi
fi

# the machine's files, less what apt, dpkg and the running system change on their own
snapshot() {
	find /etc /usr /opt /srv /var -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache \
		-o -path /var/log -o -path /var/tmp -o -path /var/backups -o -path /var/lib/systemd \
		-o -path /var/spool -o -path /var/mail \) -prune -o -print 2>/dev/null | LC_ALL=C sort
}
dpkg-query -W -f='${binary:Package}\n' | LC_ALL=C sort >"$work/pkgs.before"
snapshot >"$work/files.before"

# --- install with apt, as a user would (dependencies from the archive) ---
t0=$SECONDS
if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	"$debdir"/lunlab_*.deb "$debdir"/lunlab-tcmu-handler_*.deb >"$work/apt.log" 2>&1; then
	installed=1
	ok "apt-get install of lunlab + lunlab-tcmu-handler: $((SECONDS - t0)) s"
else
	tail -20 "$work/apt.log"; bad "apt-get install"; echo "deb.sh: $pass passed, $fail failed"; exit 1
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
handler=/usr/lib/$multiarch/tcmu-runner/handler_lunlab.so
check "handler in tcmu-runner's directory ($handler)" test -f "$handler"
check "system user lunlab made by postinst" bash -c "getent passwd lunlab >/dev/null"
for page in lunlab-target.8 lunlab-bench.1 lunlab-target.yaml.5 lunlab-profile.5; do
	check "man page $page" test -f "/usr/share/man/man${page##*.}/$page.gz"
done

# every program below: a clean environment, no build tree on PATH, run from /
run() { (cd / && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent "$@"); }
check "lunlab-target --version" bash -c "$(declare -f run); run lunlab-target --version | grep -Eq '^lunlab-target [0-9]+\.[0-9]+\.[0-9]+'"
check "lunlab-bench --version" bash -c "$(declare -f run); run lunlab-bench --version | grep -Eq '^lunlab-bench [0-9]+\.[0-9]+\.[0-9]+'"
check "installed lunlab-target's default handler dir is tcmu-runner's" \
	bash -c "$(declare -f run); run lunlab-target --help | grep -qF '/usr/lib/$multiarch/tcmu-runner)'"

# --- the unit ---
unit=/lib/systemd/system/lunlab-target.service
check "systemd-analyze verify $unit: clean" bash -c "out=\$(systemd-analyze verify '$unit' 2>&1); echo \"\$out\" | sed 's/^/    /'; [[ -z \$out ]]"
score=$(systemd-analyze security --offline=true "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: *//p')
echo "    systemd-analyze security: $score"
check "systemd-analyze security scored (${score:-none})" test -n "$score"

# --- the service's start path by hand (systemd is not PID 1 here) ---
port=
for p in $(shuf -i 900-1010 -n 40); do
	ss -Hltn "sport = :$p" | grep -q . || { port=$p; break; }
done
# below the ephemeral range (32768-) and used by no socket: the start below is not retried
apiport=
for p in $(shuf -i 20000-32000 -n 200); do
	ss -Htan "sport = :$p" | grep -q . || { apiport=$p; break; }
done
cat >/etc/lunlab/lunlab-target.yaml <<YAML
listen:
  - 127.0.0.1:$port
iqn: iqn.2026-11.org.lunlab:pkgtest
auth-file: /etc/lunlab/auth
api: 127.0.0.1:$apiport
lun:
  - size: 256M
    model: x2
    array: a
  - size: 256M
    model: x2
    array: a
YAML
install -o lunlab -g lunlab -m 0600 /dev/null /etc/lunlab/auth
echo "api admin old-secret-1234" >/etc/lunlab/auth
# what StateDirectory=lunlab makes
install -d -o lunlab -g lunlab -m 0700 /var/lib/lunlab
exec_start=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's|\${STATE_DIRECTORY}|/var/lib/lunlab|')
echo "    ExecStart: $exec_start (port $port, API $apiport)"
# $NOTIFY_SOCKET: a datagram socket socat prints, standing for systemd's
socat -u UNIX-RECVFROM:"$work/notify",fork,mode=0777 OPEN:"$work/notify.log",creat,append &
npid=$!
# Each wait below is for an event, ended early only by the death of the process that owes it;
# 300 s is a hang guard (this runs at nice 15 beside the fuzzers and qemu lanes with no timeout
# around it), not a limit on a slow machine: each event takes well under a second alone.
for _ in $(seq 3000); do [[ -S $work/notify ]] && break; kill -0 "$npid" 2>/dev/null || break; sleep 0.1; done
chmod 0711 "$work"
# the unit's user and only its capability; no_new_privs as NoNewPrivileges=yes
(cd / && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin NOTIFY_SOCKET="$work/notify" \
	setpriv --reuid=lunlab --regid=lunlab --init-groups --inh-caps=-all,+net_bind_service \
	--ambient-caps=-all,+net_bind_service --bounding-set=-all,+net_bind_service --no-new-privs \
	$exec_start) >"$work/target.log" 2>&1 &
tpid=$!
ready=0
for _ in $(seq 3000); do
	grep -q READY=1 "$work/notify.log" 2>/dev/null && { ready=1; break; }
	kill -0 "$tpid" 2>/dev/null || break
	sleep 0.1
done
if (( ready )); then ok "READY=1 by sd_notify (as the unit's user, port $port < 1024 by CAP_NET_BIND_SERVICE)"; else
	cat "$work/target.log"; bad "READY=1 by sd_notify"; fi
# READY=1 only after the portals and the API listen: both answer at once, no retry
check "iSCSI portal listening at READY" bash -c "ss -Hltn 'sport = :$port' | grep -q ."
check "API listening at READY" bash -c "ss -Hltn 'sport = :$apiport' | grep -q ."
check "handler loaded from the package ($handler)" grep -qF "$handler" "/proc/$tpid/maps"
iqn=iqn.2026-11.org.lunlab:pkgtest
check "discovery (iscsi-ls)" bash -c "$(declare -f run); run iscsi-ls iscsi://127.0.0.1:$port | grep -qF '$iqn'"
check "lunlab-bench info" bash -c "$(declare -f run); run lunlab-bench info iscsi://127.0.0.1:$port/$iqn/0 --quiet >$work/info.txt 2>&1"
check "clone by XCOPY written and read back (lunlab-bench clone --verify)" bash -c "$(declare -f run); \
	run lunlab-bench clone iscsi://127.0.0.1:$port/$iqn/0 --dest iscsi://127.0.0.1:$port/$iqn/1 \
	--template-size 16m --template-content pattern --vms 2 --chunk 4m --mode xcopy --verify --json --quiet \
	>$work/clone.json 2>$work/clone.err && jq -e '.' $work/clone.json >/dev/null"
api="https://127.0.0.1:$apiport/api/json/v2/types"
code() { curl -ks -o /dev/null -w '%{http_code}' -u "$1" "$api"; }
check "API answers (curl, 200)" test "$(code admin:old-secret-1234)" = 200
# SIGHUP: the auth file re-read (systemctl reload)
echo "api admin new-secret-5678" >/etc/lunlab/auth
kill -HUP "$tpid"
for _ in $(seq 3000); do
	grep -q "reload: /etc/lunlab/auth re-read" "$work/target.log" && break; kill -0 "$tpid" 2>/dev/null || break; sleep 0.1
done
check "SIGHUP re-read the auth file (log line)" grep -q "reload: /etc/lunlab/auth re-read" "$work/target.log"
check "after reload: the old API password refused (401)" test "$(code admin:old-secret-1234)" = 401
check "after reload: the new one accepted (200)" test "$(code admin:new-secret-5678)" = 200
echo "chap broken" >/etc/lunlab/auth
kill -HUP "$tpid"
for _ in $(seq 3000); do
	grep -q "reload refused" "$work/target.log" && break; kill -0 "$tpid" 2>/dev/null || break; sleep 0.1
done
check "a bad auth file is refused as a whole (log line)" grep -q "reload refused" "$work/target.log"
check "after a refused reload: the password in force still works" test "$(code admin:new-secret-5678)" = 200
kill -TERM "$tpid"; wait "$tpid"; rc=$?; tpid=
check "SIGTERM: clean stop, status 0 (got $rc)" test "$rc" = 0
check "STOPPING=1 sent" grep -q STOPPING=1 "$work/notify.log"
check "the state persisted in /var/lib/lunlab" bash -c "[[ -n \$(ls -A /var/lib/lunlab) ]]"
kill "$npid" 2>/dev/null; npid=
grep -E "reload|listening|signal" "$work/target.log" | sed 's/^/    log: /'

# --- purge: what is left is what Debian policy keeps ---
rm -f /etc/lunlab/auth # the admin's file, not the package's: the admin removes it
DEBIAN_FRONTEND=noninteractive apt-get purge -y lunlab lunlab-tcmu-handler >"$work/purge.log" 2>&1 && installed=0
check "apt-get purge" bash -c "! dpkg-query -W -f='\${Status}' lunlab 2>/dev/null | grep -q installed"
check "purge: no package file left" bash -c "[[ ! -e /usr/bin/lunlab-target && ! -e $handler && ! -e $unit && ! -e /usr/share/lunlab ]]"
check "purge: /etc/lunlab and /var/lib/lunlab gone" bash -c "[[ ! -e /etc/lunlab && ! -e /var/lib/lunlab ]]"
check "purge: the system user lunlab kept (Debian policy)" bash -c "getent passwd lunlab >/dev/null"
check "purge: no lunlab package left in dpkg's database (not even config-files)" \
	bash -c "! dpkg-query -W -f='\${db:Status-Abbrev} \${binary:Package}\n' 'lunlab*' 2>/dev/null | grep -q '^.[^n]'"
# every path that appeared since before the install, less the files of the packages apt added
dpkg-query -W -f='${binary:Package}\n' | LC_ALL=C sort >"$work/pkgs.after"
LC_ALL=C comm -13 "$work/pkgs.before" "$work/pkgs.after" >"$work/pkgs.new"
snapshot >"$work/files.after"
# the backups useradd keeps of the files it edited (/etc/passwd- ...) belong to the kept user
LC_ALL=C comm -13 "$work/files.before" "$work/files.after" | grep -Ev '^/etc/(passwd|group|shadow|gshadow)-$' >"$work/files.new"
if [[ -s $work/pkgs.new ]]; then
	echo "    kept, as apt-get purge removes only the packages named: the dependencies apt added: $(paste -sd' ' "$work/pkgs.new")"
	xargs dpkg-query -L <"$work/pkgs.new" 2>/dev/null | LC_ALL=C sort -u >"$work/files.deps"
	LC_ALL=C comm -23 "$work/files.new" "$work/files.deps" >"$work/files.left"
else
	cp "$work/files.new" "$work/files.left"
fi
echo "    left on the machine by install + purge (besides the user's lines in /etc/passwd, group, shadow, gshadow): $(wc -l <"$work/files.left") path(s)"
sed 's/^/      /' "$work/files.left"
check "purge: no file or directory left behind" test ! -s "$work/files.left"
echo "deb.sh: $((SECONDS - started)) s"
echo "deb.sh: $pass passed, $fail failed"
(( fail == 0 ))
