/* login.c — the login phase (RFC 7143 section 6.3 and 11.12/11.13):
 * security -> operational -> full feature stage transitions, session type,
 * target name, the initiator allow-list, authentication (auth_login.c) and
 * the operational keys (params.c).  A refused login gets the status
 * class/detail the RFC names, then the connection closes. */
#include "target/iscsi/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/iscsi/auth_dyn.h"
#include "target/iscsi/auth_login.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/iscsi_stats.h"
#include "target/iscsi/login_throttle.h"
#include "target/iscsi/target.h"
#include "target/iscsi/text.h"
#include "target/lu/lu_table.h"

#define LOGIN_RSP_MAX 8192 /* the initiator's default MaxRecvDataSegmentLength */
#define LOGIN_ACC_MAX 65536 /* C-bit continuation: most text we accumulate */

/* status class << 8 | detail */
#define LS_INITIATOR_ERROR 0x0200
#define LS_AUTH_FAILED 0x0201
#define LS_NOT_ALLOWED 0x0202 /* "Authorization failure" */
#define LS_NOT_FOUND 0x0203
#define LS_UNSUPPORTED_VERSION 0x0205
#define LS_MISSING_PARAM 0x0207
#define LS_SESSION_NOT_FOUND 0x020a
#define LS_INVALID_REQUEST 0x020b
#define LS_TARGET_ERROR 0x0300
#define LS_OUT_OF_RESOURCES 0x0302

/* State that lives from the first Login Request to the last: the security
 * exchange and the text of C-bit continuations.  It hangs off login.acc,
 * the one per-login pointer struct conn frees when the connection goes
 * (conn_put), so a connection dropped mid-login leaks nothing.  acc_len
 * counts the accumulated text bytes in text[]. */
struct login_scratch {
	struct auth_session auth;
	/* CHAP credentials the management API set for this initiator
	 * (auth_dyn.h): then they, not the auth file's users, must be used */
	struct auth_config api_cfg;
	struct auth_user api_user;
	/* the auth file's config this login started with: a SIGHUP reload in the
	 * middle of it does not mix two files' users and allow-lists */
	const struct auth_config *file_auth;
	bool file_auth_pinned;
	bool api_checked, api_creds;
	char text[];
};

static struct login_scratch *scratch(struct conn *c)
{
	if (!c->login.acc) {
		struct login_scratch *ls = calloc(1, sizeof(*ls) + 1);
		if (!ls)
			return NULL;
		c->login.acc = (char *)ls;
		c->login.acc_len = 0;
	}
	return (struct login_scratch *)(void *)c->login.acc;
}

static void scratch_free(struct conn *c)
{
	if (c->login.acc)
		explicit_bzero(c->login.acc, sizeof(struct login_scratch));
	free(c->login.acc);
	c->login.acc = NULL;
	c->login.acc_len = 0;
}

/* The access control this login must pass: the initiator's own CHAP
 * credentials when the management API gave it some for this session type,
 * else the auth file's (target_auth(), pinned at the first call).  Asked once the initiator's name
 * and session type are known (first_pdu_keys). */
static const struct auth_config *login_auth(struct conn *c, struct login_scratch *ls)
{
	if (!ls->file_auth_pinned) {
		ls->file_auth = target_auth();
		ls->file_auth_pinned = true;
	}
	if (!ls->api_checked && c->initiator[0]) {
		ls->api_checked = true;
		ls->api_creds = auth_dyn_lookup(c->initiator, c->discovery, &ls->api_user);
		if (ls->api_creds && ls->file_auth && ls->file_auth->has_mutual) {
			ls->api_cfg.has_mutual = true;
			ls->api_cfg.mutual = ls->file_auth->mutual;
		}
	}
	if (!ls->api_creds)
		return ls->file_auth;
	ls->api_cfg.users = &ls->api_user; /* the scratch moves when login text grows */
	ls->api_cfg.nusers = 1;
	return &ls->api_cfg;
}

static void fill_rsp_header(struct conn *c, struct txpdu *t, const uint8_t *req)
{
	uint8_t *h = t->hdr;

	pdu_init_rsp(h, ISCSI_OP_LOGIN_RSP, 0);
	h[2] = 0; /* Version-max */
	h[3] = 0; /* Version-active */
	memcpy(h + 8, req + 8, 6); /* ISID */
	put_be16(h + 14, c->tsih);
	memcpy(h + 16, req + 16, 4); /* ITT */
	put_be32(h + 24, c->stat_sn);
	put_be32(h + 28, c->exp_cmd_sn);
	put_be32(h + 32, conn_max_cmd_sn(c));
}

static void login_fail(struct conn *c, const uint8_t *req, unsigned status, const char *why)
{
	struct txpdu *t = tx_new();

	target_log("login refused from %s (initiator %s): status %02x/%02x: %s", c->peer,
		   c->initiator[0] ? c->initiator : "?", status >> 8, status & 0xff, why);
	iscsi_stats_login(login_result_of_status(status));
	if (!t) {
		conn_close(c, "out of memory");
		return;
	}
	fill_rsp_header(c, t, req);
	t->hdr[1] = req[1] & 0x0c; /* CSG echoed, T=0 */
	t->hdr[36] = (uint8_t)(status >> 8);
	t->hdr[37] = (uint8_t)status;
	t->close_after = true;
	conn_queue(c, t, true);
	c->state = CS_CLOSING; /* whatever the initiator pipelined is ignored */
}

static void log_login(struct conn *c, const char *target)
{
	const struct login_scratch *ls = (const struct login_scratch *)(const void *)c->login.acc;
	const struct auth_session *a = ls ? &ls->auth : NULL;
	char isid[13], auth[96] = "None";

	for (int i = 0; i < 6; i++)
		snprintf(isid + 2 * i, 3, "%02x", c->isid[i]);
	if (a && a->chap)
		snprintf(auth, sizeof(auth), "CHAP%s(user '%s')", a->mutual ? "-mutual" : "", a->user);
	target_log("login: initiator=%s isid=%s tsih=%u type=%s target=%s peer=%s auth=%s "
		   "digests=%s/%s mrdsl=%u/%u burst=%u/%u immediate=%s initialr2t=%s",
		   c->initiator, isid, c->tsih, c->discovery ? "Discovery" : "Normal",
		   target ? target : "-", c->peer, auth, c->params.header_digest ? "CRC32C" : "None",
		   c->params.data_digest ? "CRC32C" : "None", c->params.max_recv_dsl,
		   c->params.max_xmit_dsl, c->params.first_burst, c->params.max_burst,
		   c->params.immediate_data ? "Yes" : "No", c->params.initial_r2t ? "Yes" : "No");
}

/* Declarative keys of the first Login Request.  Returns 0 or a status. */
static unsigned first_pdu_keys(struct conn *c, const struct text_list *kv, const char **why)
{
	const char *name = text_get(kv, "InitiatorName");
	const char *type = text_get(kv, "SessionType");
	const char *target = text_get(kv, "TargetName");
	const char *alias = text_get(kv, "InitiatorAlias");

	if (!name || !*name) {
		*why = "InitiatorName missing";
		return LS_MISSING_PARAM;
	}
	if (strlen(name) >= sizeof(c->initiator)) {
		*why = "InitiatorName longer than 223 bytes";
		return LS_INITIATOR_ERROR;
	}
	strcpy(c->initiator, name);
	if (alias)
		snprintf(c->initiator_alias, sizeof(c->initiator_alias), "%s", alias);
	if (!type || strcmp(type, "Normal") == 0) {
		c->discovery = false;
	} else if (strcmp(type, "Discovery") == 0) {
		c->discovery = true;
	} else {
		*why = "SessionType neither Discovery nor Normal";
		return LS_INITIATOR_ERROR;
	}
	if (!c->discovery) {
		if (!target || !*target) {
			*why = "TargetName missing in a normal session";
			return LS_MISSING_PARAM;
		}
		if (strcmp(target, g_target.iqn) != 0) {
			*why = "TargetName is not this target";
			return LS_NOT_FOUND;
		}
		/* checked before authentication, as LIO does: a name not on the
		 * list gets nowhere near the CHAP exchange */
		if (!auth_config_allows(target_auth(), c->initiator)) {
			*why = "initiator not on the target's allow-list (--allow-initiator / 'allow')";
			return LS_NOT_ALLOWED;
		}
	}
	if (atomic_load(&g_session_count) >= g_target.max_sessions) {
		*why = "too many sessions (--max-sessions)";
		return LS_OUT_OF_RESOURCES;
	}
	return 0;
}

/* Answers every key of one Login Request.  Returns 0 or a status. */
static unsigned negotiate_keys(struct conn *c, uint8_t csg, const struct text_list *kv,
			       struct text_buf *out, const char **why)
{
	for (int i = 0; i < kv->n; i++) {
		const char *k = kv->kv[i].key, *v = kv->kv[i].val;
		enum params_rc rc;

		if (strcmp(k, "InitiatorName") == 0 || strcmp(k, "InitiatorAlias") == 0 ||
		    strcmp(k, "SessionType") == 0 || strcmp(k, "TargetName") == 0) {
			continue; /* declarative, handled on the first PDU */
		}
		if (auth_login_is_auth_key(k)) {
			if (csg != 0) {
				*why = "AuthMethod or CHAP_* key outside the security stage";
				return LS_INITIATOR_ERROR;
			}
			continue; /* auth_login_step answered it */
		}
		rc = params_negotiate(&c->params, k, v, c->discovery, out, why);
		if (rc == PARAMS_FAIL)
			return LS_INITIATOR_ERROR;
		if (rc == PARAMS_NOT_OPERATIONAL)
			text_add(out, k, "NotUnderstood");
	}
	return 0;
}

void login_handle(struct conn *c, const uint8_t *bhs, uint8_t *data, uint32_t dlen)
{
	uint8_t flags = bhs[1];
	bool transit = flags & ISCSI_LOGIN_TRANSIT, cont = flags & ISCSI_LOGIN_CONTINUE;
	uint8_t csg = (flags >> 2) & 3, nsg = flags & 3;
	char *text = (char *)data;
	size_t tlen = dlen;
	struct text_list kv;
	char rspbuf[LOGIN_RSP_MAX];
	struct text_buf out;
	const char *why = "";
	char whybuf[320];
	unsigned st;
	struct txpdu *t;
	struct login_scratch *ls;

	if (bhs[3] > 0) { /* Version-min above the only version there is */
		login_fail(c, bhs, LS_UNSUPPORTED_VERSION, "Version-min > 0");
		return;
	}
	if (transit && cont) {
		login_fail(c, bhs, LS_INITIATOR_ERROR, "T and C bits both set");
		return;
	}
	if (!c->login.started) {
		c->login.started = true;
		memcpy(c->isid, bhs + 8, 6);
		c->cid = get_be16(bhs + 20);
		c->stat_sn = get_be32(bhs + 28);
		c->login.csg = csg;
		if (get_be16(bhs + 14) != 0) {
			login_fail(c, bhs, LS_SESSION_NOT_FOUND,
				   "TSIH != 0: adding connections to a session is not supported");
			return;
		}
		if (csg == 2 || csg == 3) {
			login_fail(c, bhs, LS_INITIATOR_ERROR, "login must start in stage 0 or 1");
			return;
		}
	} else {
		if (memcmp(c->isid, bhs + 8, 6) != 0) {
			login_fail(c, bhs, LS_INITIATOR_ERROR, "ISID changed during login");
			return;
		}
		if (csg != c->login.csg) {
			login_fail(c, bhs, LS_INITIATOR_ERROR, "CSG does not match the current stage");
			return;
		}
	}
	c->exp_cmd_sn = get_be32(bhs + 24);

	ls = scratch(c);
	if (!ls) {
		conn_close(c, "out of memory");
		return;
	}
	/* C bit: keep the text, acknowledge with an empty response */
	if (cont || c->login.acc_len) {
		if (c->login.acc_len + dlen > LOGIN_ACC_MAX) {
			login_fail(c, bhs, LS_INITIATOR_ERROR, "login text too long");
			return;
		}
		char *n = realloc(c->login.acc, sizeof(*ls) + c->login.acc_len + dlen + 1);
		if (!n) {
			conn_close(c, "out of memory");
			return;
		}
		c->login.acc = n;
		ls = (struct login_scratch *)(void *)n;
		memcpy(ls->text + c->login.acc_len, data, dlen);
		c->login.acc_len += dlen;
		if (cont) {
			t = tx_new();
			if (!t) {
				conn_close(c, "out of memory");
				return;
			}
			fill_rsp_header(c, t, bhs);
			t->hdr[1] = (uint8_t)(csg << 2);
			conn_queue(c, t, true);
			return;
		}
		text = ls->text;
		tlen = c->login.acc_len;
	}
	if (text_parse(text, tlen, &kv, &why) < 0) {
		login_fail(c, bhs, LS_INITIATOR_ERROR, why);
		return;
	}
	text_buf_init(&out, rspbuf, sizeof(rspbuf));
	if (!c->initiator[0]) {
		st = first_pdu_keys(c, &kv, &why);
		if (st) {
			login_fail(c, bhs, st, why);
			return;
		}
	}
	if (csg == 0) {
		/* a CHAP answer is a guess at a secret: its address may have to
		 * wait first (login_throttle.h); refused at once, never slept on:
		 * this is an I/O thread */
		bool answer = text_get(&kv, "CHAP_N") || text_get(&kv, "CHAP_R");
		char host[LOGIN_THROTTLE_HOST_MAX];
		uint64_t now = login_throttle_now_ms(), wait = 0;

		login_throttle_host(c->peer, host, sizeof(host));
		if (answer && ls->auth.stage == AUTH_WAIT_R &&
		    (wait = login_throttle_check(LOGIN_THROTTLE_CHAP, host, now))) {
			snprintf(whybuf, sizeof(whybuf), "too many failed logins from %s: refused unchecked for %llu s",
				 host, (unsigned long long)((wait + 999) / 1000));
			login_fail(c, bhs, LS_AUTH_FAILED, whybuf);
			return;
		}
		bool checked = answer && ls->auth.stage == AUTH_WAIT_R;
		st = auth_login_step(&ls->auth, login_auth(c, ls), &kv, &out, whybuf, sizeof(whybuf));
		if (checked && st == LS_AUTH_FAILED) {
			unsigned row = 0;
			wait = login_throttle_fail(LOGIN_THROTTLE_CHAP, host, now, &row);
			login_throttle_notify(LOGIN_THROTTLE_CHAP, host, text_get(&kv, "CHAP_N"), row, wait);
			target_log("login throttle: %s failed CHAP %u in a row (%s); %s %llu s", host, row, whybuf,
				   row >= LOGIN_THROTTLE_LOCK_FAILS ? "locked out for" : "next try in",
				   (unsigned long long)((wait + 999) / 1000));
		} else if (checked && !st && ls->auth.chap) {
			login_throttle_ok(host);
		}
		if (st) {
			login_fail(c, bhs, st, whybuf);
			return;
		}
		c->login.auth_done = ls->auth.stage == AUTH_DONE;
	}
	st = negotiate_keys(c, csg, &kv, &out, &why);
	c->login.acc_len = 0; /* the text is consumed; the scratch state stays */
	if (st) {
		login_fail(c, bhs, st, why);
		return;
	}
	/* leaving (or skipping) the security stage needs authentication done */
	if (csg == 1 && auth_config_requires_chap(login_auth(c, ls)) && ls->auth.stage != AUTH_DONE) {
		login_fail(c, bhs, LS_AUTH_FAILED,
			   "CHAP required but the login skipped the security stage");
		return;
	}
	if (csg == 0 && transit) {
		st = auth_login_may_leave(&ls->auth, login_auth(c, ls), &why);
		if (st == AUTH_STAY) {
			transit = false; /* RFC 7143 11.13.3: we answer T=0 until CHAP is done */
		} else if (st) {
			login_fail(c, bhs, st, why);
			return;
		}
	}
	if (!c->discovery && !c->login.tpgt_sent) {
		text_add_u32(&out, "TargetPortalGroupTag", target_portal_tpgt(c->portal));
		if (g_target.alias)
			text_add(&out, "TargetAlias", g_target.alias);
		c->login.tpgt_sent = true;
	}
	if (csg == 1 && !c->login.mrdsl_sent) {
		text_add_u32(&out, "MaxRecvDataSegmentLength", TGT_MAX_RECV_DSL);
		c->login.mrdsl_sent = true;
	}
	if (out.overflow) {
		login_fail(c, bhs, LS_TARGET_ERROR, "login response too long");
		return;
	}
	if (transit && (nsg == 2 || nsg <= csg)) {
		login_fail(c, bhs, LS_INITIATOR_ERROR, "invalid NSG");
		return;
	}

	t = tx_new();
	char *copy = out.len ? malloc(out.len) : NULL;
	if (!t || (out.len && !copy)) {
		free(t);
		free(copy);
		conn_close(c, "out of memory");
		return;
	}
	if (copy)
		memcpy(copy, out.data, out.len);
	if (transit && nsg == 3)
		c->tsih = target_alloc_tsih();
	fill_rsp_header(c, t, bhs);
	t->hdr[1] = (uint8_t)(csg << 2);
	if (transit)
		t->hdr[1] |= (uint8_t)(ISCSI_LOGIN_TRANSIT | nsg);
	t->data = (uint8_t *)copy;
	t->owned = copy;
	t->dlen = (uint32_t)out.len;
	conn_queue(c, t, true);
	if (!transit)
		return;
	c->login.csg = nsg;
	if (nsg != 3)
		return;
	/* full feature phase from the next PDU on */
	c->params.max_recv_dsl = c->login.mrdsl_sent ? TGT_MAX_RECV_DSL : 8192;
	if (c->params.first_burst > c->params.max_burst)
		c->params.first_burst = c->params.max_burst;
	c->state = CS_FFP;
	c->digests_live = true;
	c->nexus_id = target_next_nexus();
	/* The nexus's identity, on a discovery session too: a SCSI command sent there
	 * still reaches the core (which finds no LU for it), and must find who sent it
	 * (fuzz-iscsi-rx: a discovery session's command met a NULL isid). */
	const struct target_portal *p = c->portal >= 0 && c->portal < g_target.nportals
					? &g_target.portals[c->portal] : NULL;
	struct scsi_itn *itn = &c->itn;

	itn->ops = &scsi_cmd_core_ops;
	itn->initiator = c->initiator;
	itn->isid = c->isid;
	itn->nexus_id = c->nexus_id;
	itn->tpg = target_portal_tpgt(c->portal);
	itn->portal = p ? p->name : NULL;
	itn->portal_adv = p && p->adv_name[0] ? p->adv_name : NULL;
	/* a new nexus owes nothing to events before it existed, except a power
	 * on its port was not told of yet and reservation conditions queued
	 * for the port (the LUs' unit attention stores keep both) */
	if (!c->discovery)
		scsi_core_itn_start(itn);
	if (!c->discovery && c->thr)
		io_threads_reinstate(c->initiator, c->isid, target_portal_tpgt(c->portal), c->tsih);
	c->counted = true;
	atomic_fetch_add(&g_session_count, 1);
	iscsi_stats_login(LOGIN_RESULT_SUCCESS);
	iscsi_stats_session_open(c->discovery);
	log_login(c, c->discovery ? NULL : g_target.iqn);
	scratch_free(c); /* login over: the challenge and the auth state go */
}
