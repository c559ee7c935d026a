/* discovery.c — Text Request (RFC 7143 11.10/11.11): SendTargets, the only
 * text key lunlab answers; everything else is NotUnderstood. */
#include "target/iscsi/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/iscsi/target.h"
#include "target/iscsi/text.h"

#define TEXT_RSP_MAX 8192

static void add_target(struct conn *c, struct text_buf *out)
{
	char addr[96];

	snprintf(addr, sizeof(addr), "%s,%u", c->local, g_target.tpgt);
	text_add(out, "TargetName", g_target.iqn);
	text_add(out, "TargetAddress", addr);
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
			if (strcmp(v, "All") == 0) {
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
	ic->finished = true;
	icmd_unlink(ic);
	icmd_put(ic);
}
