/* conn_policy.c - see conn_policy.h: retry decisions, backoffs, login-failure classes and the
 * wording of messages, with no I/O so that tests/unit/client/test_conn_policy.c pins them. */
#include "client/conn_policy.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

uint64_t conn_busy_backoff_ns(unsigned n)
{
	return n >= 9 ? 500 * MS : (MS << n) > 500 * MS ? 500 * MS : MS << n;
}

uint64_t conn_not_ready_backoff_ns(unsigned n)
{
	return n >= 5 ? 1000 * MS : (50 * MS << n) > 1000 * MS ? 1000 * MS : 50 * MS << n;
}

uint64_t conn_login_backoff_ns(unsigned failed_attempts)
{
	unsigned n = failed_attempts ? failed_attempts - 1 : 0;
	return n >= 4 ? 1000 * MS : (100 * MS << n) > 1000 * MS ? 1000 * MS : 100 * MS << n;
}

/* Commands whose repetition after a partial execution could change the outcome (the layout
 * table's CDB_L_NOT_REPEATABLE: EXTENDED COPY, COMPARE AND WRITE, PERSISTENT RESERVE OUT,
 * WRITE ATOMIC): the caller sees their ABORTED COMMAND / TASK ABORTED (clone falls back to
 * the software datamover). */
static bool repeatable(uint8_t opcode)
{
	return !(cdb_opcode_props(opcode) & CDB_L_NOT_REPEATABLE);
}

static struct retry_decision waited(enum retry_kind k, uint64_t delay, uint64_t elapsed, uint64_t timeout)
{
	struct retry_decision d = { RETRY_NONE, 0 };
	if (elapsed + delay <= timeout) {
		d.kind = k;
		d.delay_ns = delay;
	}
	return d;
}

struct retry_decision conn_retry_decide(uint8_t opcode, int status, uint8_t key, uint8_t asc, uint8_t ascq,
					const struct conn_retries *t, uint64_t elapsed_ns, uint64_t timeout_ns)
{
	struct retry_decision none = { RETRY_NONE, 0 };
	switch (status) {
	case SCSI_STAT_BUSY:
		return waited(RETRY_BUSY, conn_busy_backoff_ns(t->busy), elapsed_ns, timeout_ns);
	case SCSI_STAT_TASK_SET_FULL:
		return waited(RETRY_TASK_SET_FULL, conn_busy_backoff_ns(t->task_set_full), elapsed_ns, timeout_ns);
	case SCSI_STAT_TASK_ABORTED:
		if (repeatable(opcode) && t->aborted < CONN_MAX_ABORTED_RETRIES)
			return (struct retry_decision){ RETRY_ABORTED, 0 };
		return none;
	case SCSI_STAT_CHECK_CONDITION:
		break;
	default:
		return none;
	}
	switch (key) {
	case SCSI_SK_UNIT_ATTENTION: /* the command was not executed */
		if (t->unit_attention < CONN_MAX_UA_RETRIES)
			return (struct retry_decision){ RETRY_UNIT_ATTENTION, 0 };
		return none;
	case SCSI_SK_NOT_READY: {     /* only the conditions that end by themselves */
		uint16_t code = scsi_asc_pair(asc, ascq);
		if (code == SCSI_ASC_LU_BECOMING_READY || code == SCSI_ASC_LU_NOT_READY_OPERATION_IN_PROGRESS ||
		    code == SCSI_ASC_LU_NOT_ACCESSIBLE_TRANSITION)
			return waited(RETRY_NOT_READY, conn_not_ready_backoff_ns(t->not_ready), elapsed_ns, timeout_ns);
		return none;
	}
	case SCSI_SK_ABORTED_COMMAND: /* 0B/10/xx are protection information errors: final */
		if (asc != scsi_asc(SCSI_ASC_GUARD_CHECK_FAILED) && repeatable(opcode) && t->aborted < CONN_MAX_ABORTED_RETRIES)
			return (struct retry_decision){ RETRY_ABORTED, 0 };
		return none;
	default:
		return none;
	}
}

bool conn_login_error_final(const char *e)
{
	/* libiscsi 1.19 login.c: "Failed to log in to target. Status: %s(%d)" with the 16-bit
	 * status class << 8 | detail. */
	const char *p = e ? strstr(e, "Status: ") : NULL;
	if (!p)
		return false;
	const char *open = strrchr(p, '(');
	if (!open)
		return false;
	char *end;
	long v = strtol(open + 1, &end, 10);
	if (end == open + 1 || *end != ')' || v < 0 || v > 0xffff)
		return false;
	return (v >> 8) == 2;
}

void conn_url_redact(const char *url, char *out, size_t outlen)
{
	if (!outlen)
		return;
	out[0] = 0;
	if (!url)
		return;
	size_t o = 0;
	const char *p = url;
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *at = strchr(host, '@');
	const char *slash = strchr(host, '/');
	const char *pct = strchr(host, '%');
	bool secret_in_userinfo = at && pct && pct < at && (!slash || at < slash);
	while (*p && o + 1 < outlen) {
		if (secret_in_userinfo && p == pct) {
			p = at;                       /* keep "user@", drop "%secret" */
			continue;
		}
		if (*p == '=' && p > url) {
			/* ...?target_password=SECRET&...: keep the key, hide the value */
			const char *k = p;
			while (k > url && k[-1] != '?' && k[-1] != '&')
				k--;
			if ((size_t)(p - k) == 15 && !strncmp(k, "target_password", 15)) {
				const char *stars = "=***";
				for (const char *s = stars; *s && o + 1 < outlen; s++)
					out[o++] = *s;
				p++;
				while (*p && *p != '&')
					p++;
				continue;
			}
		}
		out[o++] = *p++;
	}
	out[o] = 0;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

void conn_describe_cdb(const uint8_t *cdb, int len, char *out, size_t outlen)
{
	if (!outlen)
		return;
	if (!cdb || len < 1) {
		snprintf(out, outlen, "a command");
		return;
	}
	uint8_t op = cdb[0];
	/* the vocabulary's name, with the service action of the multiplexed opcodes */
	const char *name = scsi_opcode_name(cdb, (size_t)len);
	/* READ/WRITE: the LBA says which one it was */
	int lba_off = 0, lba_len = 0, need = 0;
	switch (op) {
	case SCSI_OP_READ_10: case SCSI_OP_WRITE_10: lba_off = 2; lba_len = 4; need = 10; break;
	case SCSI_OP_READ_12: case SCSI_OP_WRITE_12: lba_off = 2; lba_len = 4; need = 12; break;
	case SCSI_OP_READ_16: case SCSI_OP_WRITE_16: lba_off = 2; lba_len = 8; need = 16; break;
	default: break;
	}
	if (need && len >= need)
		snprintf(out, outlen, "%s at LBA %llu", name, (unsigned long long)be(cdb + lba_off, lba_len));
	else if (op == SCSI_OP_INQUIRY && len >= 3 && (cdb[1] & 1))
		snprintf(out, outlen, "INQUIRY (VPD 0x%02x)", cdb[2]);
	else if (op == SCSI_OP_LOG_SENSE && len >= 3)
		snprintf(out, outlen, "LOG SENSE (page 0x%02x)", cdb[2] & 0x3f);
	else if (name)
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "opcode 0x%02x", op);
}

/* The additional sense codes a user of lunlab-bench meets when the URL or the request is
 * wrong (SPC-4 table 51): named so that "05/25/00" says what it means.  A media or
 * transport error is said well enough by its sense key.  The words are the vocabulary's. */
static const char *asc_name(uint8_t asc, uint8_t ascq)
{
	static const uint16_t named[] = {
		SCSI_ASC_INVALID_OPCODE, SCSI_ASC_LBA_OUT_OF_RANGE, SCSI_ASC_INVALID_FIELD_IN_CDB,
		SCSI_ASC_LU_NOT_SUPPORTED, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, SCSI_ASC_WRITE_PROTECTED,
		SCSI_ASC_REPORTED_LUNS_DATA_CHANGED,
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i] == scsi_asc_pair(asc, ascq))
			return scsi_asc_name(asc, ascq);
	return NULL;
}

void conn_describe_status(int status, uint8_t key, uint8_t asc, uint8_t ascq, char *out, size_t outlen)
{
	const char *key_name = scsi_sense_key_name(key & 0x0f), *an = asc_name(asc, ascq);
	char unnamed[16];

	if (!key_name) {
		snprintf(unnamed, sizeof(unnamed), "sense key %02Xh", key & 0x0f);
		key_name = unnamed;
	}
	switch (status) {
	case SCSI_STAT_GOOD: snprintf(out, outlen, "GOOD"); break;
	case SCSI_STAT_CHECK_CONDITION:
		snprintf(out, outlen, "CHECK CONDITION, sense %02x/%02x/%02x (%s%s%s)", key, asc, ascq, key_name,
			 an ? ": " : "", an ? an : "");
		break;
	case SCSI_STAT_BUSY: snprintf(out, outlen, "BUSY"); break;
	case SCSI_STAT_RESERVATION_CONFLICT: snprintf(out, outlen, "RESERVATION CONFLICT"); break;
	case SCSI_STAT_TASK_SET_FULL: snprintf(out, outlen, "TASK SET FULL"); break;
	case SCSI_STAT_TASK_ABORTED: snprintf(out, outlen, "TASK ABORTED"); break;
	default: snprintf(out, outlen, "status 0x%02x", (unsigned)status & 0xff); break;
	}
}
