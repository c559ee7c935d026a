#!/bin/bash
# bench_api.sh: lunlab-bench's use of the management API, against the target run.sh started
# (cluster xb1, unpaced).  A template volume is made and mapped to lunlab-bench's initiator
# through the API (curl), then:
#   clone --mode snapshot --verify --json: 4 clones made, verified, no physical space added
#   the same with every third WRITE answered TASK SET FULL (a fault rule through the API): the
#     template's writes are retried and counted by the connection layer, the clones verify
#   info --api --json: the LU's cluster and its capacity fields, equal to GET clusters
#   refusals: --mode snapshot without --api (exit 2), a wrong password (exit 1, HTTP 401)
set -uo pipefail
status=0
fail() { echo "FAIL: $*"; status=1; }
pass() { echo "ok: $*"; }
api() { curl -sk -u "$LUNLAB_API_USER:$LUNLAB_API_PASSWORD" "$@"; }
U=https://$LUNLAB_API/api/json/v2/types
INI=iqn.2026-11.org.lunlab:bench
api -X POST -d '{"vol-name":"tmpl","vol-size":"256m"}' "$U/volumes" >/dev/null
api -X POST -d '{"ig-name":"bench"}' "$U/initiator-groups" >/dev/null
api -X POST -d "{\"ig-id\":\"bench\",\"port-address\":\"$INI\"}" "$U/initiators" >/dev/null
lun=$(api -X POST -d '{"vol-id":"tmpl","ig-id":"bench"}' "$U/lun-maps" | jq -r '.links[0].href' |
      xargs -I{} curl -sk -u "$LUNLAB_API_USER:$LUNLAB_API_PASSWORD" {} | jq -r .content.lun)
[[ $lun =~ ^[0-9]+$ ]] || { fail "mapping the template: no LUN ($lun)"; exit 1; }
url=iscsi://$LUNLAB_PORTAL/$LUNLAB_IQN/$lun

out=$("$LUNLAB_BENCH" clone "$url" --mode snapshot --api "https://$LUNLAB_API" --api-insecure --vms 4 \
      --template-size 32m --template-content synthetic --verify --json --quiet) || fail "clone --mode snapshot: exit $?"
echo "$out" | jq -c '{clones, verified, before: .before.physical_in_use_bytes, after: .after.physical_in_use_bytes}'
[[ $(jq -r .clones <<<"$out") == 4 ]] && pass "4 clones made" || fail "clones: $(jq -r .clones <<<"$out")"
[[ $(jq -r .verified <<<"$out") == true ]] && pass "every clone read back equal to the template" || fail "not verified"
[[ $(jq -r '.after.physical_in_use_bytes - .before.physical_in_use_bytes' <<<"$out") == 0 ]] &&
    pass "snapshots add no physical space" || fail "physical space grew: $out"
[[ $(jq -r '.after.provisioned_bytes - .before.provisioned_bytes' <<<"$out") == $((4 * 256 * 1048576)) ]] &&
    pass "provisioned grew by 4 x 256 MiB" || fail "provisioned: $out"
left=$(api "$U/snapshots" | jq '.snapshots | length')
[[ $left == 0 ]] && pass "the clones are deleted at the end" || fail "$left snapshots left"

F=https://$LUNLAB_API/api/lunlab/faults
rule=$(api -X POST -d '{"spec": "op=write,every=3,status=task-set-full"}' "$F" | jq -r .id)
if [[ $rule =~ ^[0-9]+$ ]]; then
    out=$("$LUNLAB_BENCH" clone "$url" --mode snapshot --api "https://$LUNLAB_API" --api-insecure --vms 2 \
          --template-size 8m --template-content synthetic --verify --json --quiet) ||
        fail "clone --mode snapshot under TASK SET FULL: exit $?"
    api -X DELETE "$F/$rule" >/dev/null
    jq -e '.connection.task_set_full > 0 and .connection.reconnects == 0 and .verified and .clones == 2' \
        <<<"$out" >/dev/null && pass "snapshot clone under TASK SET FULL: $(jq -c .connection.task_set_full <<<"$out") retried, verified" ||
        fail "snapshot clone under TASK SET FULL: $(jq -c '{clones, verified, connection}' <<<"$out")"
else
    fail "the fault rule was not made: $rule"
fi

out=$("$LUNLAB_BENCH" info "$url" --api "https://$LUNLAB_API" --api-insecure --json) || fail "info --api: exit $?"
want=$(api "$U/clusters?name=xb1" | jq -r '.content["ud-ssd-space"]')
[[ $(jq -r .cluster.name <<<"$out") == xb1 && $(jq -r .cluster.of_lu <<<"$out") == true &&
   $(jq -r .cluster.volume <<<"$out") == tmpl ]] && pass "info names the LU's cluster and volume" || fail "info: $out"
[[ $(jq -r .cluster.physical_capacity_bytes <<<"$out") == $((want * 1024)) ]] &&
    pass "info's capacity = the cluster's ud-ssd-space" || fail "capacity $(jq -r .cluster.physical_capacity_bytes <<<"$out") vs $want KiB"

msg=$("$LUNLAB_BENCH" clone "$url" --mode snapshot 2>&1); rc=$?
[[ $rc == 2 && $msg == *"--mode snapshot needs --api"* ]] && pass "--mode snapshot without --api: exit 2" ||
    fail "without --api: rc $rc: $msg"
msg=$(LUNLAB_API_PASSWORD=wrong-password "$LUNLAB_BENCH" info "$url" --api "https://$LUNLAB_API" --api-insecure 2>&1); rc=$?
[[ $rc == 1 && $msg == *"HTTP 401: Unauthorized"* ]] && pass "a wrong password: exit 1, HTTP 401" ||
    fail "wrong password: rc $rc: $msg"
msg=$("$LUNLAB_BENCH" info "$url" --api "https://$LUNLAB_API" 2>&1); rc=$?
[[ $rc == 1 && $msg == *"SSL"* || $msg == *"certificate"* ]] && pass "a self-signed API is refused without --api-insecure" ||
    fail "no --api-insecure: rc $rc: $msg"
exit "$status"
