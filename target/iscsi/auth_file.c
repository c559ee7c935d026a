/* auth_file.c — see auth_file.h.  Secrets never appear in a message: errors
 * name the file, line and field, and at most the secret's length. */
#include "target/iscsi/auth_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/read_file.h"

#define MAX_FIELDS 4

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Splits line (NUL-terminated, writable) into at most MAX_FIELDS words;
 * returns the count, or MAX_FIELDS + 1 when there are more. */
static int split(char *line, char *f[MAX_FIELDS])
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (!*p)
			return n;
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		f[n++] = p;
		while (*p && !is_blank(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int parse_line(char *line, struct auth_config *cfg, char *why, size_t whylen)
{
	char *f[MAX_FIELDS];
	int n = split(line, f);

	if (n == 0 || f[0][0] == '#')
		return 0;
	if (strcmp(f[0], "chap") == 0 || strcmp(f[0], "mutual") == 0) {
		if (n < 3) {
			snprintf(why, whylen, "field %d (%s): missing; want '%s USER SECRET'", n + 1,
				 n == 1 ? "user name" : "secret", f[0]);
			return -1;
		}
		if (n > 3) {
			snprintf(why, whylen, "field 4: unexpected; want '%s USER SECRET' (no spaces in "
				 "a secret)", f[0]);
			return -1;
		}
		return auth_config_add_user(cfg, f[0][0] == 'm', f[1], f[2], why, whylen) ? 0 : -1;
	}
	if (strcmp(f[0], "api") == 0) {
		if (n != 3) {
			snprintf(why, whylen, "field %d: %s; want 'api USER SECRET' (no spaces in a secret)",
				 n < 3 ? n + 1 : 4, n < 3 ? "missing" : "unexpected");
			return -1;
		}
		return auth_config_add_api_user(cfg, f[1], f[2], why, whylen) ? 0 : -1;
	}
	if (strcmp(f[0], "allow") == 0) {
		if (n != 2) {
			snprintf(why, whylen, "field %d: want 'allow IQN'", n < 2 ? 2 : 3);
			return -1;
		}
		const char *bad = auth_check_iqn(f[1]);
		if (bad) {
			snprintf(why, whylen, "field 2 (initiator name): %s", bad);
			return -1;
		}
		return auth_config_add_allow(cfg, f[1], why, whylen) ? 0 : -1;
	}
	snprintf(why, whylen, "field 1: unknown keyword '%.32s' (want chap, mutual, allow or api)", f[0]);
	return -1;
}

int auth_file_parse(const char *text, size_t len, const char *name, struct auth_config *cfg,
		    char *err, size_t errlen)
{
	char line[AUTH_LINE_MAX + 1], why[320];
	size_t pos = 0;
	unsigned lineno = 0;
	int rc = 0;

	while (pos < len && rc == 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;

		lineno++;
		if (ll > AUTH_LINE_MAX) {
			snprintf(err, errlen, "%s line %u: longer than %u bytes", name, lineno,
				 AUTH_LINE_MAX);
			rc = -1;
			break;
		}
		memcpy(line, text + pos, ll);
		line[ll] = '\0';
		if (strlen(line) != ll) {
			snprintf(err, errlen, "%s line %u: contains a NUL byte", name, lineno);
			rc = -1;
		} else if (parse_line(line, cfg, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s line %u: %s", name, lineno, why);
			rc = -1;
		}
		pos += ll + 1;
	}
	explicit_bzero(line, sizeof(line));
	if (rc == 0 && cfg->has_mutual && cfg->nusers == 0) {
		snprintf(err, errlen, "%s: a 'mutual' line without any 'chap' line (mutual CHAP needs "
			 "the initiator to authenticate first)", name);
		rc = -1;
	}
	return rc;
}

int auth_file_load(const char *path, struct auth_config *cfg, char *err, size_t errlen)
{
	/* it holds secrets: ours alone, checked on the open descriptor */
	const struct ll_read_rules rules = { .max = AUTH_FILE_MAX, .secret = true, .holds = "secrets" };
	size_t got;
	char *buf = ll_read_file(path, &rules, &got, err, errlen);
	int rc;

	if (!buf)
		return -1;
	rc = auth_file_parse(buf, got, path, cfg, err, errlen);
	explicit_bzero(buf, got + 1);
	free(buf);
	return rc;
}
