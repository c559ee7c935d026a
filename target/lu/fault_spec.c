/* fault_spec.c — --fault SPEC text <-> struct fault_spec (fault_spec.h).
 * Every value is checked whole (digits only, ranges, lengths) before it is
 * stored; a refusal is one line that starts with the offending key=value. */
#include "target/lu/fault_spec.h"
#include "lunlab/scsi_vocab.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The common sense codes by name (docs/faults.md lists them). */
static const struct {
	const char *name;
	uint8_t key;
	uint16_t asc_ascq;
} sense_names[] = {
	{ "medium-error", SCSI_SK_MEDIUM_ERROR, SCSI_ASC_UNRECOVERED_READ_ERROR },
	{ "write-error", SCSI_SK_MEDIUM_ERROR, SCSI_ASC_WRITE_ERROR },
	{ "not-ready", SCSI_SK_NOT_READY, SCSI_ASC_LU_BECOMING_READY },
	{ "transitioning", SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_TRANSITION },
	{ "standby", SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY },
	{ "unavailable", SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_UNAVAILABLE },
	{ "reset", SCSI_SK_UNIT_ATTENTION, SCSI_ASC_POWER_ON_OR_RESET },
	{ "capacity-changed", SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED },
	{ "soft-threshold", SCSI_SK_UNIT_ATTENTION, SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD },
	{ "space-exhausted", SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT },
	{ "write-protected", SCSI_SK_DATA_PROTECT, SCSI_ASC_WRITE_PROTECTED },
	{ "internal-target-failure", SCSI_SK_ABORTED_COMMAND, SCSI_ASC_INTERNAL_TARGET_FAILURE },
	{ "invalid-parameter", SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST },
	{ "third-party-device-failure", SCSI_SK_ABORTED_COMMAND, SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE },
	{ "copy-target-unreachable", SCSI_SK_COPY_ABORTED, SCSI_ASC_COPY_TARGET_NOT_REACHABLE },
	{ "lu-communication-failure", SCSI_SK_NOT_READY, SCSI_ASC_LU_COMMUNICATION_FAILURE },
};

static const struct {
	const char *name;
	enum fault_op op;
} op_names[] = {
	{ "any", FAULT_OP_ANY }, { "read", FAULT_OP_READ }, { "write", FAULT_OP_WRITE },
	{ "xcopy", FAULT_OP_XCOPY }, { "unmap", FAULT_OP_UNMAP }, { "caw", FAULT_OP_CAW },
	{ "tur", FAULT_OP_TUR }, { "sync", FAULT_OP_SYNC },
	{ "populate-token", FAULT_OP_POPULATE_TOKEN }, { "write-using-token", FAULT_OP_WRITE_USING_TOKEN },
	{ "rrti", FAULT_OP_RRTI }, { "copy-abort", FAULT_OP_COPY_ABORT },
};

static const struct {
	const char *name;
	uint8_t status;
} status_names[] = {
	{ "busy", SCSI_STAT_BUSY }, { "task-set-full", SCSI_STAT_TASK_SET_FULL },
	{ "reservation-conflict", SCSI_STAT_RESERVATION_CONFLICT },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

bool fault_sense_by_name(const char *name, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	for (size_t i = 0; i < N_OF(sense_names); i++) {
		if (strcmp(name, sense_names[i].name) == 0) {
			*key = sense_names[i].key;
			*asc = scsi_asc(sense_names[i].asc_ascq);
			*ascq = scsi_ascq(sense_names[i].asc_ascq);
			return true;
		}
	}
	return false;
}

void fault_spec_init(struct fault_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->op = FAULT_OP_ANY;
	s->every = 1;
	s->p = 1.0;
	s->seed = 1;
	s->action = (enum fault_action)-1; /* none yet: fault_spec_finish insists on one */
}

/* Decimal digits only (no sign, no spaces, no hex), lo..hi. */
static bool parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t x = 0;

	if (!v || !*v || strlen(v) > 20)
		return false;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/* "N" or "N.ddd" (at most 3 decimals) in units, scaled by 1000: "1.5" ms
 * -> 1500 us, "2" s -> 2000 ms. */
static bool parse_milli(const char *v, uint64_t max_scaled, uint64_t *out)
{
	char whole[24];
	const char *dot = v ? strchr(v, '.') : NULL;
	size_t wl = dot ? (size_t)(dot - v) : (v ? strlen(v) : 0);
	uint64_t w, frac = 0;

	if (!v || wl == 0 || wl >= sizeof(whole))
		return false;
	memcpy(whole, v, wl);
	whole[wl] = '\0';
	if (!parse_u64(whole, 0, max_scaled / 1000, &w))
		return false;
	if (dot) {
		size_t fl = strlen(dot + 1);
		if (fl == 0 || fl > 3)
			return false;
		for (size_t i = 0; i < 3; i++) {
			char ch = i < fl ? dot[1 + i] : '0';
			if (ch < '0' || ch > '9')
				return false;
			frac = frac * 10 + (uint64_t)(ch - '0');
		}
	}
	if (w * 1000 + frac > max_scaled)
		return false;
	*out = w * 1000 + frac;
	return true;
}

/* FIRST-LAST of parse_milli values (a window) or of plain numbers. */
static bool split_range(const char *v, char *a, char *b, size_t cap)
{
	const char *dash = strchr(v, '-');
	size_t al;

	if (!dash || strchr(dash + 1, '-'))
		return false;
	al = (size_t)(dash - v);
	if (al == 0 || al >= cap || strlen(dash + 1) == 0 || strlen(dash + 1) >= cap)
		return false;
	memcpy(a, v, al);
	a[al] = '\0';
	strcpy(b, dash + 1);
	return true;
}

/* one or two hex digits */
static bool parse_hex8(const char *v, size_t n, uint8_t *out)
{
	unsigned x = 0;

	if (n == 0 || n > 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		unsigned d;
		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			return false;
		x = x * 16 + d;
	}
	*out = (uint8_t)x;
	return true;
}

static bool parse_sense(const char *v, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	const char *s1 = strchr(v, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;

	if (!s1)
		return fault_sense_by_name(v, key, asc, ascq);
	if (!s2 || strchr(s2 + 1, '/'))
		return false;
	if (!parse_hex8(v, (size_t)(s1 - v), key) || !parse_hex8(s1 + 1, (size_t)(s2 - s1 - 1), asc) ||
	    !parse_hex8(s2 + 1, strlen(s2 + 1), ascq))
		return false;
	return *key <= 0x0f;
}

/* printable ASCII, no spaces (IQNs, HOST:PORT) */
static bool printable_word(const char *v, size_t max)
{
	size_t n = strlen(v);

	if (n == 0 || n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
			return false;
	return true;
}

static bool set_action(struct fault_spec *s, enum fault_action a, const char *key, char *err, size_t errlen)
{
	/* sense= may qualify xcopy-fail-after and odx-fail-after, in either order */
	bool fail_after = a == FAULT_ACT_XCOPY_FAIL || a == FAULT_ACT_ODX_FAIL;
	bool was_fail_after = s->action == FAULT_ACT_XCOPY_FAIL || s->action == FAULT_ACT_ODX_FAIL;
	bool pair = (fail_after && s->action == FAULT_ACT_SENSE) || (a == FAULT_ACT_SENSE && was_fail_after);

	if (s->action != (enum fault_action)-1 && !pair) {
		snprintf(err, errlen, "%s: a rule takes one action (sense, status, delay, hold, drop, "
			 "xcopy-fail-after, corrupt)", key);
		return false;
	}
	if (!was_fail_after)
		s->action = a;
	return true;
}

/* quoted value in messages: at most 64 bytes, non-printable shown as '?' */
static void shown(char *dst, size_t cap, const char *v)
{
	size_t o = 0;

	for (size_t i = 0; v && v[i] && o + 4 < cap && i < 64; i++)
		dst[o++] = ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] >= 0x7f) ? '?' : v[i];
	if (v && strlen(v) > 64 && o + 3 < cap) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

__attribute__((format(printf, 5, 6)))
static bool bad(char *err, size_t errlen, const char *key, const char *val, const char *fmt, ...)
{
	char why[256], v[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	shown(v, sizeof(v), val);
	if (val)
		snprintf(err, errlen, "%s=%s: %s", key, v, why);
	else
		snprintf(err, errlen, "%s: %s", key, why);
	return false;
}

static bool key_delay(struct fault_spec *s, const char *v, char *err, size_t errlen)
{
	char a[32], b[32];
	const char *want = "want MS, MIN-MAX or exp:MEAN in milliseconds (up to 3 decimals, at most 600000)";

	if (!v)
		return bad(err, errlen, "delay", v, "%s", want);
	if (strncmp(v, "exp:", 4) == 0) {
		s->delay_kind = FAULT_DELAY_EXP;
		if (!parse_milli(v + 4, FAULT_DELAY_MAX_US, &s->delay_a_us) || s->delay_a_us == 0)
			return bad(err, errlen, "delay", v, "%s", want);
	} else if (strchr(v, '-')) {
		s->delay_kind = FAULT_DELAY_UNIFORM;
		if (!split_range(v, a, b, sizeof(a)) || !parse_milli(a, FAULT_DELAY_MAX_US, &s->delay_a_us) ||
		    !parse_milli(b, FAULT_DELAY_MAX_US, &s->delay_b_us))
			return bad(err, errlen, "delay", v, "%s", want);
		if (s->delay_b_us < s->delay_a_us)
			return bad(err, errlen, "delay", v, "MIN is above MAX");
	} else {
		s->delay_kind = FAULT_DELAY_FIXED;
		if (!parse_milli(v, FAULT_DELAY_MAX_US, &s->delay_a_us))
			return bad(err, errlen, "delay", v, "%s", want);
	}
	return set_action(s, FAULT_ACT_DELAY, "delay", err, errlen);
}

static bool key_match(struct fault_spec *s, const char *k, const char *v, char *err, size_t errlen, bool *done)
{
	uint64_t x;
	char a[32], b[32];

	*done = true;
	if (strcmp(k, "lun") == 0) {
		if (!parse_u64(v, 0, FAULT_LUN_MAX, &x))
			return bad(err, errlen, k, v, "want a LUN 0..%u", FAULT_LUN_MAX);
		s->has_lun = true;
		s->lun = (uint32_t)x;
	} else if (strcmp(k, "op") == 0) {
		if (!v)
			return bad(err, errlen, k, v, "want a command kind");
		for (size_t i = 0; i < N_OF(op_names); i++) {
			if (strcmp(v, op_names[i].name) == 0) {
				s->op = op_names[i].op;
				return true;
			}
		}
		const char *h = strncmp(v, "0x", 2) == 0 || strncmp(v, "0X", 2) == 0 ? v + 2 : v;
		if (strlen(h) != 2 || !parse_hex8(h, 2, &s->opcode))
			return bad(err, errlen, k, v,
				   "unknown command kind (read, write, xcopy, unmap, caw, tur, sync, any, "
				   "or an opcode in hex such as 0x28)");
		s->op = FAULT_OP_OPCODE;
	} else if (strcmp(k, "lba") == 0) {
		if (v && strchr(v, '-')) {
			if (!split_range(v, a, b, sizeof(a)) || !parse_u64(a, 0, UINT64_MAX, &s->lba_first) ||
			    !parse_u64(b, 0, UINT64_MAX, &s->lba_last))
				return bad(err, errlen, k, v, "want FIRST-LAST (decimal LBAs) or one LBA");
			if (s->lba_last < s->lba_first)
				return bad(err, errlen, k, v, "FIRST is above LAST");
		} else {
			if (!parse_u64(v, 0, UINT64_MAX, &s->lba_first))
				return bad(err, errlen, k, v, "want FIRST-LAST (decimal LBAs) or one LBA");
			s->lba_last = s->lba_first;
		}
		s->has_lba = true;
	} else if (strcmp(k, "initiator") == 0) {
		if (!v || !printable_word(v, sizeof(s->initiator)))
			return bad(err, errlen, k, v, "want an iSCSI name (printable, no spaces, at most 223 bytes)");
		strcpy(s->initiator, v);
	} else if (strcmp(k, "portal") == 0) {
		if (!v || !printable_word(v, sizeof(s->portal)) || !strchr(v, ':'))
			return bad(err, errlen, k, v, "want HOST:PORT of a --listen portal (or its advertise= address)");
		strcpy(s->portal, v);
	} else {
		*done = false;
	}
	return true;
}

static bool key_trigger(struct fault_spec *s, const char *k, const char *v, char *err, size_t errlen, bool *done)
{
	char a[32], b[32];

	*done = true;
	if (strcmp(k, "every") == 0) {
		if (!parse_u64(v, 1, UINT32_MAX, &s->every))
			return bad(err, errlen, k, v, "want a number 1..%u", UINT32_MAX);
	} else if (strcmp(k, "count") == 0) {
		if (!parse_u64(v, 1, UINT32_MAX, &s->count))
			return bad(err, errlen, k, v, "want a number 1..%u", UINT32_MAX);
	} else if (strcmp(k, "seed") == 0) {
		if (!parse_u64(v, 0, UINT64_MAX, &s->seed))
			return bad(err, errlen, k, v, "want a decimal number 0..2^64-1");
		s->has_seed = true;
	} else if (strcmp(k, "p") == 0) {
		char *end;
		double d;

		if (!v || !*v || strlen(v) > 24 || strspn(v, "0123456789.eE-+") != strlen(v))
			return bad(err, errlen, k, v, "want a probability 0 < p <= 1 (e.g. 0.01)");
		errno = 0;
		d = strtod(v, &end);
		if (errno || *end || !isfinite(d) || !(d > 0.0) || d > 1.0)
			return bad(err, errlen, k, v, "want a probability 0 < p <= 1 (e.g. 0.01)");
		s->p = d;
		s->has_p = true;
	} else if (strcmp(k, "window") == 0) {
		if (!v || !split_range(v, a, b, sizeof(a)) || !parse_milli(a, FAULT_WINDOW_MAX_MS, &s->window_start_ms) ||
		    !parse_milli(b, FAULT_WINDOW_MAX_MS, &s->window_end_ms))
			return bad(err, errlen, k, v, "want START-END in seconds after the rule is added (e.g. 10-70)");
		if (s->window_end_ms <= s->window_start_ms)
			return bad(err, errlen, k, v, "END must be after START");
		s->has_window = true;
	} else {
		*done = false;
	}
	return true;
}

static bool key_action(struct fault_spec *s, const char *k, const char *v, char *err, size_t errlen)
{
	uint64_t x;

	if (strcmp(k, "sense") == 0) {
		if (!v || !parse_sense(v, &s->key, &s->asc, &s->ascq))
			return bad(err, errlen, k, v, "want KK/AA/QQ in hex (key 0..F), or a name such as medium-error, "
				   "not-ready, reset (docs/faults.md)");
		s->has_sense = true;
		return set_action(s, FAULT_ACT_SENSE, k, err, errlen);
	}
	if (strcmp(k, "status") == 0) {
		for (size_t i = 0; v && i < N_OF(status_names); i++) {
			if (strcmp(v, status_names[i].name) == 0) {
				s->status = status_names[i].status;
				return set_action(s, FAULT_ACT_STATUS, k, err, errlen);
			}
		}
		return bad(err, errlen, k, v, "want busy, task-set-full or reservation-conflict");
	}
	if (strcmp(k, "delay") == 0)
		return key_delay(s, v, err, errlen);
	if (strcmp(k, "hold") == 0 || strcmp(k, "corrupt") == 0) {
		if (v)
			return bad(err, errlen, k, v, "takes no value");
		return set_action(s, k[0] == 'h' ? FAULT_ACT_HOLD : FAULT_ACT_CORRUPT, k, err, errlen);
	}
	if (strcmp(k, "drop") == 0) {
		if (v && strcmp(v, "before") != 0 && strcmp(v, "after") != 0)
			return bad(err, errlen, k, v, "want drop, drop=before or drop=after");
		s->drop_after = v && strcmp(v, "after") == 0;
		return set_action(s, FAULT_ACT_DROP, k, err, errlen);
	}
	if (strcmp(k, "xcopy-fail-after") == 0) {
		if (!parse_u64(v, 0, 65535, &x))
			return bad(err, errlen, k, v, "want a number of segments 0..65535");
		s->xcopy_segments = (uint32_t)x;
		return set_action(s, FAULT_ACT_XCOPY_FAIL, k, err, errlen);
	}
	if (strcmp(k, "odx-fail-after") == 0) {
		if (!parse_u64(v, 0, UINT32_MAX, &x))
			return bad(err, errlen, k, v, "want a number of blocks 0..4294967295");
		s->xcopy_segments = (uint32_t)x;
		return set_action(s, FAULT_ACT_ODX_FAIL, k, err, errlen);
	}
	return bad(err, errlen, k, NULL,
		   "unknown key (match: lun op lba initiator portal; trigger: every p seed count window; "
		   "action: sense status delay hold drop xcopy-fail-after odx-fail-after corrupt)");
}

bool fault_spec_key(struct fault_spec *s, const char *k, const char *v, char *err, size_t errlen)
{
	bool done;

	if (!key_match(s, k, v, err, errlen, &done))
		return false;
	if (done)
		return true;
	if (!key_trigger(s, k, v, err, errlen, &done))
		return false;
	if (done)
		return true;
	return key_action(s, k, v, err, errlen);
}

bool fault_spec_finish(struct fault_spec *s, char *err, size_t errlen)
{
	if (s->action == (enum fault_action)-1) {
		snprintf(err, errlen, "no action: give one of sense=, status=, delay=, hold, drop, "
			 "xcopy-fail-after=, corrupt");
		return false;
	}
	if (s->action == FAULT_ACT_XCOPY_FAIL && s->op != FAULT_OP_XCOPY && s->op != FAULT_OP_ANY &&
	    !(s->op == FAULT_OP_OPCODE && s->opcode == SCSI_OP_THIRD_PARTY_COPY_OUT)) {
		snprintf(err, errlen, "xcopy-fail-after: only EXTENDED COPY has segments (use op=xcopy)");
		return false;
	}
	if (s->action == FAULT_ACT_XCOPY_FAIL && s->op == FAULT_OP_ANY)
		s->op = FAULT_OP_XCOPY;
	if (s->action == FAULT_ACT_ODX_FAIL && s->op != FAULT_OP_WRITE_USING_TOKEN && s->op != FAULT_OP_ANY) {
		snprintf(err, errlen, "odx-fail-after: only WRITE USING TOKEN writes blocks from a token "
			 "(use op=write-using-token)");
		return false;
	}
	if (s->action == FAULT_ACT_ODX_FAIL)
		s->op = FAULT_OP_WRITE_USING_TOKEN;
	if (s->has_seed && !s->has_p) {
		snprintf(err, errlen, "seed: only means something with p=");
		return false;
	}
	return true;
}

static bool parse(const char *text, struct fault_spec *out, char *err, size_t errlen);

bool fault_spec_parse(const char *text, struct fault_spec *out, char *err, size_t errlen)
{
	if (parse(text, out, err, errlen))
		return true;
	/* the refusal quotes keys and values: one printable line whatever they hold */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return false;
}

static bool parse(const char *text, struct fault_spec *out, char *err, size_t errlen)
{
	char buf[FAULT_SPEC_MAX + 1], *save = NULL, *tok;
	char seen[32][24];
	int nseen = 0;

	fault_spec_init(out);
	if (!text || !*text) {
		snprintf(err, errlen, "empty fault rule");
		return false;
	}
	if (strlen(text) > FAULT_SPEC_MAX) {
		snprintf(err, errlen, "longer than %d bytes", FAULT_SPEC_MAX);
		return false;
	}
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *val = NULL;

		if (eq) {
			*eq = '\0';
			val = eq + 1;
		}
		if (!*tok) {
			snprintf(err, errlen, "'=%.64s': a value without a key", val ? val : "");
			return false;
		}
		if (strlen(tok) >= sizeof(seen[0]) || !strchr("abcdefghijklmnopqrstuvwxyz", tok[0])) {
			char k[80];
			shown(k, sizeof(k), tok);
			snprintf(err, errlen, "'%s': not a key (keys are lower case: lun, op, lba, ...)", k);
			return false;
		}
		for (int i = 0; i < nseen; i++)
			if (strcmp(seen[i], tok) == 0)
				return bad(err, errlen, tok, NULL, "given twice");
		if (nseen < (int)N_OF(seen))
			strcpy(seen[nseen++], tok);
		if (!fault_spec_key(out, tok, val, err, errlen))
			return false;
	}
	if (nseen == 0) {
		snprintf(err, errlen, "empty fault rule");
		return false;
	}
	return fault_spec_finish(out, err, errlen);
}

static const char *op_name(const struct fault_spec *s, char *hex)
{
	for (size_t i = 0; i < N_OF(op_names); i++)
		if (op_names[i].op == s->op && s->op != FAULT_OP_OPCODE)
			return op_names[i].name;
	snprintf(hex, 8, "0x%02x", s->opcode);
	return hex;
}

/* "1500" us -> "1.5" */
static void milli_text(char *out, size_t cap, uint64_t scaled)
{
	uint64_t frac = scaled % 1000;

	if (!frac)
		snprintf(out, cap, "%llu", (unsigned long long)(scaled / 1000));
	else if (frac % 100 == 0)
		snprintf(out, cap, "%llu.%llu", (unsigned long long)(scaled / 1000), (unsigned long long)(frac / 100));
	else if (frac % 10 == 0)
		snprintf(out, cap, "%llu.%02llu", (unsigned long long)(scaled / 1000), (unsigned long long)(frac / 10));
	else
		snprintf(out, cap, "%llu.%03llu", (unsigned long long)(scaled / 1000), (unsigned long long)frac);
}

#define APPEND(...)                                                                    \
	do {                                                                           \
		int n_ = snprintf(buf + (o < len ? o : len), o < len ? len - o : 0, __VA_ARGS__); \
		if (n_ > 0)                                                            \
			o += (size_t)n_;                                               \
	} while (0)

int fault_spec_format(const struct fault_spec *s, char *buf, size_t len)
{
	size_t o = 0;
	char hex[8], a[32], b[32];
	const char *sep = "";

	if (len)
		buf[0] = '\0';
	if (s->has_lun) {
		APPEND("lun=%u", s->lun);
		sep = ",";
	}
	if (s->op != FAULT_OP_ANY) {
		APPEND("%sop=%s", sep, op_name(s, hex));
		sep = ",";
	}
	if (s->has_lba) {
		APPEND("%slba=%llu-%llu", sep, (unsigned long long)s->lba_first, (unsigned long long)s->lba_last);
		sep = ",";
	}
	if (s->initiator[0]) {
		APPEND("%sinitiator=%s", sep, s->initiator);
		sep = ",";
	}
	if (s->portal[0]) {
		APPEND("%sportal=%s", sep, s->portal);
		sep = ",";
	}
	if (s->every > 1) {
		APPEND("%severy=%llu", sep, (unsigned long long)s->every);
		sep = ",";
	}
	if (s->has_p) {
		char pt[32];
		/* the shortest text that reads back as the same double */
		snprintf(pt, sizeof(pt), "%.15g", s->p);
		if (strtod(pt, NULL) != s->p)
			snprintf(pt, sizeof(pt), "%.17g", s->p);
		APPEND("%sp=%s,seed=%llu", sep, pt, (unsigned long long)s->seed);
		sep = ",";
	}
	if (s->count) {
		APPEND("%scount=%llu", sep, (unsigned long long)s->count);
		sep = ",";
	}
	if (s->has_window) {
		milli_text(a, sizeof(a), s->window_start_ms);
		milli_text(b, sizeof(b), s->window_end_ms);
		APPEND("%swindow=%s-%s", sep, a, b);
		sep = ",";
	}
	switch (s->action) {
	case FAULT_ACT_SENSE:
		APPEND("%ssense=%02x/%02x/%02x", sep, s->key, s->asc, s->ascq);
		break;
	case FAULT_ACT_STATUS:
		for (size_t i = 0; i < N_OF(status_names); i++)
			if (status_names[i].status == s->status)
				APPEND("%sstatus=%s", sep, status_names[i].name);
		break;
	case FAULT_ACT_DELAY:
		milli_text(a, sizeof(a), s->delay_a_us);
		milli_text(b, sizeof(b), s->delay_b_us);
		if (s->delay_kind == FAULT_DELAY_FIXED)
			APPEND("%sdelay=%s", sep, a);
		else if (s->delay_kind == FAULT_DELAY_UNIFORM)
			APPEND("%sdelay=%s-%s", sep, a, b);
		else
			APPEND("%sdelay=exp:%s", sep, a);
		break;
	case FAULT_ACT_HOLD:
		APPEND("%shold", sep);
		break;
	case FAULT_ACT_DROP:
		APPEND("%sdrop=%s", sep, s->drop_after ? "after" : "before");
		break;
	case FAULT_ACT_XCOPY_FAIL:
		APPEND("%sxcopy-fail-after=%u", sep, s->xcopy_segments);
		if (s->has_sense)
			APPEND(",sense=%02x/%02x/%02x", s->key, s->asc, s->ascq);
		break;
	case FAULT_ACT_ODX_FAIL:
		APPEND("%sodx-fail-after=%u", sep, s->xcopy_segments);
		if (s->has_sense)
			APPEND(",sense=%02x/%02x/%02x", s->key, s->asc, s->ascq);
		break;
	case FAULT_ACT_CORRUPT:
		APPEND("%scorrupt", sep);
		break;
	}
	return (int)o;
}

const char *fault_action_name(enum fault_action a)
{
	static const char *const names[FAULT_ACTIONS] = {
		[FAULT_ACT_SENSE] = "sense", [FAULT_ACT_STATUS] = "status", [FAULT_ACT_DELAY] = "delay",
		[FAULT_ACT_HOLD] = "hold", [FAULT_ACT_DROP] = "drop",
		[FAULT_ACT_XCOPY_FAIL] = "xcopy-fail-after", [FAULT_ACT_CORRUPT] = "corrupt",
		[FAULT_ACT_ODX_FAIL] = "odx-fail-after",
	};

	return (unsigned)a < FAULT_ACTIONS ? names[a] : "unknown";
}
