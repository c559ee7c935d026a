#!/bin/sh
# The OCI image's entrypoint: lunlab-target with the image's config
# (/etc/lunlab/lunlab-target.yaml: every address, port 3260, one 8 GiB thin x2 LUN)
# and its state in /var/lib/lunlab (a volume, if you want it kept).
# LUNLAB_API_PASSWORD set: the HTTPS API on LUNLAB_API_LISTEN (default 0.0.0.0:8443)
# for user LUNLAB_API_USER (default admin), with /metrics and the dashboard.
# Arguments are lunlab-target options; a list given there (--listen, --lun) replaces
# the config file's.
set -eu
set -- --config /etc/lunlab/lunlab-target.yaml --state-dir /var/lib/lunlab "$@"
if [ -n "${LUNLAB_API_PASSWORD:-}" ]; then
	# the auth file must be 0600 and owned by the user the target runs as: this one
	auth=$(mktemp /tmp/lunlab-auth.XXXXXX)
	printf 'api %s %s\n' "${LUNLAB_API_USER:-admin}" "$LUNLAB_API_PASSWORD" >"$auth"
	set -- "$@" --auth-file "$auth" --api "${LUNLAB_API_LISTEN:-0.0.0.0:8443}"
fi
# exec: lunlab-target is PID 1 and gets podman stop's SIGTERM itself (it blocks the
# signal and reads it from a signalfd, which PID 1 receives like any process)
exec lunlab-target "$@"
