/* auth_login.c — see auth_login.h.  Every CHAP failure is "Authentication
 * failure" (02/01) as RFC 7143 section 12.1.3 requires; only the log line
 * says which step failed. */
#include "target/iscsi/auth_login.h"

#include <stdio.h>
#include <string.h>


#define LS_AUTH_FAILED 0x0201
#define LS_INITIATOR_ERROR 0x0200
#define LS_TARGET_ERROR 0x0300

bool auth_login_is_auth_key(const char *key)
{
	return strcmp(key, "AuthMethod") == 0 || strncmp(key, "CHAP_", 5) == 0;
}

static bool list_has(const char *list, const char *word)
{
	size_t wl = strlen(word);

	while (*list) {
		size_t n = strcspn(list, ",");
		if (n == wl && strncmp(list, word, n) == 0)
			return true;
		list += n;
		if (*list == ',')
			list++;
	}
	return false;
}

/* CHAP_I: a numerical value 0..255, decimal or 0x hex (RFC 7143 section
 * 6.1); strtoul's octal reading of a leading 0 would compute the wrong
 * response, so digits are taken one by one. */
static bool parse_chap_id(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = hex ? s + 2 : s;

	if (!*p)
		return false;
	for (; *p; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		v = v * (hex ? 16 : 10) + (uint32_t)d;
		if (v > 255)
			return false;
	}
	*out = v;
	return true;
}

/* A name from the wire, made safe for one log line. */
static void log_safe(char *dst, size_t cap, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < cap; i++) {
		unsigned char ch = (unsigned char)src[i];
		dst[i] = ch >= ' ' && ch < 0x7f && ch != '\'' ? (char)ch : '?';
	}
	dst[i] = '\0';
}

static unsigned fail(char *why, size_t whylen, const char *msg, const char *user)
{
	char u[64];

	if (user) {
		log_safe(u, sizeof(u), user);
		snprintf(why, whylen, "%s (user '%s')", msg, u);
	} else {
		snprintf(why, whylen, "%s", msg);
	}
	return LS_AUTH_FAILED;
}

static unsigned on_auth_method(struct auth_session *s, const struct auth_config *cfg,
			       const char *v, struct text_buf *out, char *why, size_t whylen)
{
	if (s->stage != AUTH_START) {
		snprintf(why, whylen, "AuthMethod sent again during the security stage");
		return LS_INITIATOR_ERROR;
	}
	if (auth_config_requires_chap(cfg)) {
		if (!list_has(v, "CHAP"))
			return fail(why, whylen, "CHAP required but AuthMethod does not offer CHAP", NULL);
		text_add(out, "AuthMethod", "CHAP");
		s->stage = AUTH_WAIT_A;
		return 0;
	}
	if (!list_has(v, "None"))
		return fail(why, whylen, "AuthMethod does not offer None, the only method configured "
			    "(no 'chap' users)", NULL);
	text_add(out, "AuthMethod", "None");
	s->stage = AUTH_DONE;
	return 0;
}

static unsigned send_challenge(struct auth_session *s, const char *alg, struct text_buf *out,
			       char *why, size_t whylen)
{
	char hex[2 * CHAP_CHALLENGE_LEN + 3];

	if (!list_has(alg, "5"))
		return fail(why, whylen, "CHAP_A does not offer MD5 (5), the only algorithm supported",
			    NULL);
	if (!auth_random(&s->id, 1) || !auth_random(s->challenge, sizeof(s->challenge)) ||
	    !chap_encode_hex(s->challenge, sizeof(s->challenge), hex, sizeof(hex))) {
		snprintf(why, whylen, "no random bytes for the CHAP challenge");
		return LS_TARGET_ERROR;
	}
	text_add(out, "CHAP_A", "5");
	text_add_u32(out, "CHAP_I", s->id);
	text_add(out, "CHAP_C", hex);
	s->stage = AUTH_WAIT_R;
	return 0;
}

/* the initiator's CHAP_I/CHAP_C: answer with our name and response */
static unsigned answer_mutual(struct auth_session *s, const struct auth_config *cfg,
			      const char *ci, const char *cc, const char *user, struct text_buf *out,
			      char *why, size_t whylen)
{
	uint8_t chal[CHAP_BIN_MAX], resp[AUTH_MD5_LEN];
	char hex[2 * AUTH_MD5_LEN + 3];
	uint32_t id;
	int clen;

	if (!ci || !cc)
		return fail(why, whylen, "mutual CHAP needs both CHAP_I and CHAP_C", user);
	if (!cfg->has_mutual)
		return fail(why, whylen, "initiator asks for mutual CHAP but the auth file has no "
			    "'mutual' line", user);
	if (!parse_chap_id(ci, &id))
		return fail(why, whylen, "CHAP_I is not a number 0..255", user);
	clen = chap_decode_binary(cc, chal, sizeof(chal));
	if (clen <= 0)
		return fail(why, whylen, "CHAP_C is not a 0x/0b binary value of 1..1024 bytes", user);
	/* the initiator replaying our own challenge would have us compute the
	 * answer it owes us (RFC 7143 section 12.1.3: reflection) */
	if ((size_t)clen == sizeof(s->challenge) && memcmp(chal, s->challenge, (size_t)clen) == 0)
		return fail(why, whylen, "CHAP_C reflects the target's own challenge", user);
	if (!chap_response((uint8_t)id, cfg->mutual.secret, cfg->mutual.secret_len, chal,
			   (size_t)clen, resp) ||
	    !chap_encode_hex(resp, sizeof(resp), hex, sizeof(hex))) {
		snprintf(why, whylen, "MD5 unavailable for the mutual CHAP response");
		return LS_TARGET_ERROR;
	}
	text_add(out, "CHAP_N", cfg->mutual.name);
	text_add(out, "CHAP_R", hex);
	s->mutual = true;
	return 0;
}

static unsigned check_response(struct auth_session *s, const struct auth_config *cfg,
			       const struct text_list *kv, struct text_buf *out, char *why,
			       size_t whylen)
{
	const char *n = text_get(kv, "CHAP_N"), *r = text_get(kv, "CHAP_R");
	const struct auth_user *u;
	uint8_t got[CHAP_BIN_MAX], want[AUTH_MD5_LEN];
	int glen;
	bool ok;

	if (!n || !r)
		return fail(why, whylen, "CHAP_N or CHAP_R missing after the challenge", NULL);
	u = auth_config_find_user(cfg, n);
	glen = chap_decode_binary(r, got, sizeof(got));
	if (!u) {
		return fail(why, whylen, "CHAP authentication failed: unknown user", n);
	}
	if (!chap_response(s->id, u->secret, u->secret_len, s->challenge, sizeof(s->challenge), want)) {
		snprintf(why, whylen, "MD5 unavailable to check the CHAP response");
		return LS_TARGET_ERROR;
	}
	ok = glen > 0 && chap_response_ok(got, (size_t)glen, want);
	explicit_bzero(want, sizeof(want));
	if (!ok)
		return fail(why, whylen, "CHAP authentication failed", n);
	log_safe(s->user, sizeof(s->user), n);
	s->chap = true;
	if (text_get(kv, "CHAP_I") || text_get(kv, "CHAP_C")) {
		unsigned st = answer_mutual(s, cfg, text_get(kv, "CHAP_I"), text_get(kv, "CHAP_C"), n,
					    out, why, whylen);
		if (st)
			return st;
	}
	s->stage = AUTH_DONE;
	return 0;
}

unsigned auth_login_step(struct auth_session *s, const struct auth_config *cfg,
			 const struct text_list *kv, struct text_buf *out, char *why, size_t whylen)
{
	const char *am = text_get(kv, "AuthMethod"), *alg = text_get(kv, "CHAP_A");
	bool answer = text_get(kv, "CHAP_N") || text_get(kv, "CHAP_R") ||
		      text_get(kv, "CHAP_I") || text_get(kv, "CHAP_C");
	unsigned st;

	for (int i = 0; i < kv->n; i++) {
		const char *k = kv->kv[i].key;
		if (strncmp(k, "CHAP_", 5) == 0 && strcmp(k, "CHAP_A") != 0 && strcmp(k, "CHAP_N") != 0 &&
		    strcmp(k, "CHAP_R") != 0 && strcmp(k, "CHAP_I") != 0 && strcmp(k, "CHAP_C") != 0)
			return fail(why, whylen, "unknown CHAP key", NULL);
	}
	if (am) {
		st = on_auth_method(s, cfg, am, out, why, whylen);
		if (st)
			return st;
	}
	if (alg) {
		if (s->stage != AUTH_WAIT_A)
			return fail(why, whylen, "CHAP_A without AuthMethod=CHAP, or sent twice", NULL);
		if (answer) /* it cannot know the challenge we are only now sending */
			return fail(why, whylen, "CHAP_N/CHAP_R sent with CHAP_A", NULL);
		return send_challenge(s, alg, out, why, whylen);
	}
	if (answer) {
		if (s->stage != AUTH_WAIT_R)
			return fail(why, whylen, "CHAP_N/CHAP_R/CHAP_I/CHAP_C before a challenge", NULL);
		return check_response(s, cfg, kv, out, why, whylen);
	}
	return 0;
}

unsigned auth_login_may_leave(const struct auth_session *s, const struct auth_config *cfg,
			      const char **why)
{
	if (s->stage == AUTH_DONE)
		return 0;
	if (s->stage == AUTH_WAIT_A || s->stage == AUTH_WAIT_R)
		return AUTH_STAY;
	if (auth_config_requires_chap(cfg)) {
		*why = "CHAP required but the login leaves the security stage without AuthMethod";
		return LS_AUTH_FAILED;
	}
	return 0;
}
