/* discovery.c — Text Request (RFC 7143 11.10/11.11): SendTargets, the only
 * text key lunlab answers (every portal, filtered by the allow-list);
 * everything else is NotUnderstood. */
#include "target/iscsi/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/iscsi/auth_config.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"
#include "target/iscsi/text.h"

#define TEXT_RSP_MAX 8192

/* the host part of "host:port" or "[v6]:port" (brackets kept) */
static void local_host(const char *local, char *host, size_t cap)
{
	const char *end = local[0] == '[' ? strchr(local, ']') : strrchr(local, ':');
	size_t n = end ? (size_t)(end - local) + (local[0] == '[') : strlen(local);

	if (n >= cap)
		n = cap - 1;
	memcpy(host, local, n);
	host[n] = '\0';
}

/* What SendTargets says for portal i: its advertise= address if it has
 * one (an initiator behind NAT or qemu's user network cannot reach the
 * address we listen on), else the address it listens on; a wildcard portal
 * is reported with the address the initiator reached (host). */
static void portal_address(int i, const char *host, char *out, size_t cap)
{
	const struct target_portal *p = &g_target.portals[i];
	uint16_t tpgt = target_portal_tpgt(i);

	if (p->adv_host[0])
		snprintf(out, cap, "%s%s%s:%u,%u", p->adv_v6 ? "[" : "", p->adv_host, p->adv_v6 ? "]" : "",
			 p->adv_port, tpgt);
	else if (p->wildcard)
		snprintf(out, cap, "%s:%u,%u", host, p->port, tpgt);
	else
		snprintf(out, cap, "%s%s%s:%u,%u", p->v6 ? "[" : "", p->host, p->v6 ? "]" : "", p->port, tpgt);
}

/* TargetName plus one TargetAddress per portal (RFC 7143 section 13.8):
 * first the one this connection came in on, then every other --listen that
 * is up (a portal set down is not offered). */
static void add_target(struct conn *c, struct text_buf *out)
{
	char first[96], addr[96], host[80];

	text_add(out, "TargetName", g_target.iqn);
	local_host(c->local, host, sizeof(host));
	if (c->portal >= 0 && c->portal < g_target.nportals)
		portal_address(c->portal, host, first, sizeof(first));
	else
		snprintf(first, sizeof(first), "%s,%u", c->local, target_portal_tpgt(c->portal));
	text_add(out, "TargetAddress", first);
	for (int i = 0; i < g_target.nportals; i++) {
		if (portal_is_down(i))
			continue;
		portal_address(i, host, addr, sizeof(addr));
		if (strcmp(addr, first) != 0)
			text_add(out, "TargetAddress", addr);
	}
}

/* Discovery reports the target only to initiators its allow-list admits,
 * so a refused initiator does not even learn the name. */
static bool may_see_target(struct conn *c)
{
	if (auth_config_allows(target_auth(), c->initiator))
		return true;
	target_log("discovery from %s (initiator %s): not on the allow-list, SendTargets "
		   "reports no target", c->peer, c->initiator);
	return false;
}

void text_handle(struct conn *c, struct icmd *ic)
{
	struct text_list kv;
	struct text_buf out;
	const char *why = "";
	char *rsp = malloc(TEXT_RSP_MAX);
	struct txpdu *t = tx_new();
	char *buf = (char *)ic->buf;
	char empty[1];

	if (!rsp || !t) {
		free(rsp);
		free(t);
		conn_close(c, "out of memory");
		return;
	}
	text_buf_init(&out, rsp, TEXT_RSP_MAX);
	if (ic->hdr[1] & ISCSI_TEXT_CONTINUE) {
		/* multi-PDU text requests are not supported */
		conn_queue_reject(c, ic->hdr, ISCSI_REJECT_CMD_NOT_SUPPORTED,
				  "Text Request with the C bit: multi-PDU text is not supported");
		goto out;
	}
	if (!buf)
		buf = empty;
	if (text_parse(buf, ic->buf_len, &kv, &why) < 0) {
		conn_queue_reject(c, ic->hdr, ISCSI_REJECT_PROTOCOL_ERROR, why);
		goto out;
	}
	for (int i = 0; i < kv.n; i++) {
		const char *k = kv.kv[i].key, *v = kv.kv[i].val;
		if (strcmp(k, "SendTargets") == 0) {
			if (!may_see_target(c)) {
				/* nothing to report */
			} else if (strcmp(v, "All") == 0) {
				add_target(c, &out);
			} else if (*v == '\0') {
				if (!c->discovery)
					add_target(c, &out); /* "this session's target" */
			} else if (strcmp(v, g_target.iqn) == 0) {
				add_target(c, &out);
			}
			/* an unknown name: nothing to report */
		} else {
			text_add(&out, k, "NotUnderstood");
		}
	}
	pdu_init_rsp(t->hdr, ISCSI_OP_TEXT_RSP, ISCSI_FLAG_FINAL);
	put_be32(t->hdr + 16, ic->itt);
	put_be32(t->hdr + 20, ISCSI_RSVD_TAG);
	if (out.len > c->params.max_xmit_dsl)
		out.len = c->params.max_xmit_dsl; /* cannot split: one target fits anyway */
	if (out.len) {
		t->data = (uint8_t *)rsp;
		t->dlen = (uint32_t)out.len;
		t->owned = rsp;
		rsp = NULL;
	}
	conn_queue(c, t, true);
	t = NULL;
out:
	free(rsp);
	free(t);
scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
	icmd_unlink(ic);
	icmd_put(ic);
}
