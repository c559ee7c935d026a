/* conn_policy.c - see conn_policy.h: retry decisions, backoffs, login-failure classes and the
 * wording of messages, with no I/O so that tests/unit/client/test_conn_policy.c pins them. */
#include "client/conn_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

#define ST_GOOD 0x00
#define ST_CHECK_CONDITION 0x02
#define ST_BUSY 0x08
#define ST_RESERVATION_CONFLICT 0x18
#define ST_TASK_SET_FULL 0x28
#define ST_TASK_ABORTED 0x40

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

/* Commands whose repetition after a partial execution could change the outcome: the caller
 * sees their ABORTED COMMAND / TASK ABORTED (clone falls back to the software datamover). */
static bool repeatable(uint8_t opcode)
{
	switch (opcode) {
	case 0x83:   /* EXTENDED COPY */
	case 0x89:   /* COMPARE AND WRITE */
	case 0x5f:   /* PERSISTENT RESERVE OUT */
	case 0x9c:   /* WRITE ATOMIC(16) */
		return false;
	default:
		return true;
	}
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
	case ST_BUSY:
		return waited(RETRY_BUSY, conn_busy_backoff_ns(t->busy), elapsed_ns, timeout_ns);
	case ST_TASK_SET_FULL:
		return waited(RETRY_TASK_SET_FULL, conn_busy_backoff_ns(t->task_set_full), elapsed_ns, timeout_ns);
	case ST_TASK_ABORTED:
		if (repeatable(opcode) && t->aborted < CONN_MAX_ABORTED_RETRIES)
			return (struct retry_decision){ RETRY_ABORTED, 0 };
		return none;
	case ST_CHECK_CONDITION:
		break;
	default:
		return none;
	}
	switch (key) {
	case 0x06:   /* UNIT ATTENTION: the command was not executed */
		if (t->unit_attention < CONN_MAX_UA_RETRIES)
			return (struct retry_decision){ RETRY_UNIT_ATTENTION, 0 };
		return none;
	case 0x02:   /* NOT READY: only the conditions that end by themselves */
		if (asc == 0x04 && (ascq == 0x01 || ascq == 0x07 || ascq == 0x0a))
			return waited(RETRY_NOT_READY, conn_not_ready_backoff_ns(t->not_ready), elapsed_ns, timeout_ns);
		return none;
	case 0x0b:   /* ABORTED COMMAND; 0B/10/xx are protection information errors: final */
		if (asc != 0x10 && repeatable(opcode) && t->aborted < CONN_MAX_ABORTED_RETRIES)
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
	static const struct { uint8_t op; const char *name; } names[] = {
		{ 0x00, "TEST UNIT READY" }, { 0x03, "REQUEST SENSE" }, { 0x12, "INQUIRY" },
		{ 0x1a, "MODE SENSE(6)" }, { 0x25, "READ CAPACITY(10)" }, { 0x35, "SYNCHRONIZE CACHE(10)" },
		{ 0x42, "UNMAP" }, { 0x4c, "LOG SELECT" }, { 0x4d, "LOG SENSE" }, { 0x5a, "MODE SENSE(10)" },
		{ 0x5e, "PERSISTENT RESERVE IN" }, { 0x5f, "PERSISTENT RESERVE OUT" },
		{ 0x83, "EXTENDED COPY" }, { 0x84, "RECEIVE COPY RESULTS" }, { 0x89, "COMPARE AND WRITE" },
		{ 0x93, "WRITE SAME(16)" }, { 0x9e, "SERVICE ACTION IN(16)" }, { 0xa0, "REPORT LUNS" },
		{ 0xa3, "MAINTENANCE IN" },
	};
	if (!outlen)
		return;
	if (!cdb || len < 1) {
		snprintf(out, outlen, "a command");
		return;
	}
	uint8_t op = cdb[0];
	/* READ/WRITE: the LBA says which one it was */
	const char *rw = NULL;
	int lba_off = 0, lba_len = 0, need = 0;
	switch (op) {
	case 0x28: rw = "READ(10)"; lba_off = 2; lba_len = 4; need = 10; break;
	case 0x2a: rw = "WRITE(10)"; lba_off = 2; lba_len = 4; need = 10; break;
	case 0xa8: rw = "READ(12)"; lba_off = 2; lba_len = 4; need = 12; break;
	case 0xaa: rw = "WRITE(12)"; lba_off = 2; lba_len = 4; need = 12; break;
	case 0x88: rw = "READ(16)"; lba_off = 2; lba_len = 8; need = 16; break;
	case 0x8a: rw = "WRITE(16)"; lba_off = 2; lba_len = 8; need = 16; break;
	default: break;
	}
	if (rw) {
		if (len >= need)
			snprintf(out, outlen, "%s at LBA %llu", rw, (unsigned long long)be(cdb + lba_off, lba_len));
		else
			snprintf(out, outlen, "%s", rw);
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].op != op)
			continue;
		if (op == 0x12 && len >= 3 && (cdb[1] & 1))
			snprintf(out, outlen, "INQUIRY (VPD 0x%02x)", cdb[2]);
		else if (op == 0x4d && len >= 3)
			snprintf(out, outlen, "LOG SENSE (page 0x%02x)", cdb[2] & 0x3f);
		else
			snprintf(out, outlen, "%s", names[i].name);
		return;
	}
	snprintf(out, outlen, "opcode 0x%02x", op);
}

/* The additional sense codes a user of lunlab-bench meets when the URL or the request is
 * wrong (SPC-4 table 51): named so that "05/25/00" says what it means.  A media or
 * transport error is said well enough by its sense key. */
static const char *asc_name(uint8_t asc, uint8_t ascq)
{
	static const struct { uint8_t asc, ascq; const char *name; } names[] = {
		{ 0x20, 0x00, "INVALID COMMAND OPERATION CODE" },
		{ 0x21, 0x00, "LOGICAL BLOCK ADDRESS OUT OF RANGE" },
		{ 0x24, 0x00, "INVALID FIELD IN CDB" },
		{ 0x25, 0x00, "LOGICAL UNIT NOT SUPPORTED" },
		{ 0x26, 0x00, "INVALID FIELD IN PARAMETER LIST" },
		{ 0x27, 0x00, "WRITE PROTECTED" },
		{ 0x3f, 0x0e, "REPORTED LUNS DATA HAS CHANGED" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].asc == asc && names[i].ascq == ascq)
			return names[i].name;
	return NULL;
}

void conn_describe_status(int status, uint8_t key, uint8_t asc, uint8_t ascq, char *out, size_t outlen)
{
	static const char *const keys[16] = {
		"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR",
		"ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
		"COPY ABORTED", "ABORTED COMMAND", "sense key 0Ch", "VOLUME OVERFLOW", "MISCOMPARE",
		"sense key 0Fh",
	};
	switch (status) {
	case ST_GOOD: snprintf(out, outlen, "GOOD"); break;
	case ST_CHECK_CONDITION:
		snprintf(out, outlen, "CHECK CONDITION, sense %02x/%02x/%02x (%s%s%s)", key, asc, ascq, keys[key & 0x0f],
			 asc_name(asc, ascq) ? ": " : "", asc_name(asc, ascq) ? asc_name(asc, ascq) : "");
		break;
	case ST_BUSY: snprintf(out, outlen, "BUSY"); break;
	case ST_RESERVATION_CONFLICT: snprintf(out, outlen, "RESERVATION CONFLICT"); break;
	case ST_TASK_SET_FULL: snprintf(out, outlen, "TASK SET FULL"); break;
	case ST_TASK_ABORTED: snprintf(out, outlen, "TASK ABORTED"); break;
	default: snprintf(out, outlen, "status 0x%02x", (unsigned)status & 0xff); break;
	}
}
