/* portal_spec.c — the options of a --listen value (portal.h): where the
 * address ends, advertise=HOST[:PORT] and tpg=N, checked whole before use.
 * Apart from portal.c so the command line (and its fuzz target) can check a
 * value without the listeners. */
#include "target/iscsi/portal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HOST[:PORT] or [V6][:PORT]; host names allowed (SendTargets may carry them) */
static bool parse_adv(const char *v, struct portal_spec *o)
{
	const char *port = NULL, *hs = v, *he;
	unsigned long p;
	char *end;

	if (v[0] == '[') {
		he = strchr(v, ']');
		if (!he || he == v + 1)
			return false;
		hs = v + 1;
		if (he[1] == ':')
			port = he + 2;
		else if (he[1])
			return false;
		o->adv_v6 = true;
		for (const char *c = hs; c < he; c++)
			if (!strchr("0123456789abcdefABCDEF:.", *c))
				return false;
	} else {
		he = strchr(v, ':');
		if (he && strchr(he + 1, ':'))
			return false; /* IPv6 goes in brackets */
		port = he ? he + 1 : NULL;
		if (!he)
			he = v + strlen(v);
		if (he == v)
			return false;
		for (const char *c = hs; c < he; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", *c))
				return false;
	}
	if ((size_t)(he - hs) >= sizeof(o->adv_host))
		return false;
	memcpy(o->adv_host, hs, (size_t)(he - hs));
	o->adv_host[he - hs] = '\0';
	if (port) {
		if (*port < '0' || *port > '9' || strlen(port) > 5)
			return false;
		errno = 0;
		p = strtoul(port, &end, 10);
		if (errno || *end || p == 0 || p > 65535)
			return false;
		o->adv_port = (unsigned)p;
	}
	return true;
}

static bool parse(const char *text, struct portal_spec *o, char *err, size_t errlen);

bool portal_spec_parse(const char *text, struct portal_spec *o, char *err, size_t errlen)
{
	if (parse(text, o, err, errlen))
		return true;
	/* the refusal quotes the value: one printable line whatever it holds */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return false;
}

static bool parse(const char *text, struct portal_spec *o, char *err, size_t errlen)
{
	const char *comma = strchr(text, ',');
	size_t al = comma ? (size_t)(comma - text) : strlen(text);
	char opts[400], *save = NULL, *tok;
	bool seen_adv = false, seen_tpg = false;

	memset(o, 0, sizeof(*o));
	if (al >= sizeof(o->listen)) {
		snprintf(err, errlen, "address too long");
		return false;
	}
	memcpy(o->listen, text, al);
	o->listen[al] = '\0';
	if (!comma)
		return true;
	if (strlen(comma + 1) >= sizeof(opts)) {
		snprintf(err, errlen, "options too long");
		return false;
	}
	strcpy(opts, comma + 1);
	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			snprintf(err, errlen, "'%.40s' is not key=value (advertise=HOST[:PORT], tpg=N)", tok);
			return false;
		}
		*eq = '\0';
		if (strcmp(tok, "advertise") == 0 && !seen_adv) {
			seen_adv = true;
			if (!parse_adv(eq + 1, o)) {
				snprintf(err, errlen, "advertise=%.64s: want HOST[:PORT] or [IPv6][:PORT] "
					 "(what SendTargets reports for this portal)", eq + 1);
				return false;
			}
		} else if (strcmp(tok, "tpg") == 0 && !seen_tpg) {
			char *end;
			unsigned long t;
			seen_tpg = true;
			errno = 0;
			t = strtoul(eq + 1, &end, 10);
			if (eq[1] < '0' || eq[1] > '9' || errno || *end || t < 1 || t > 65535) {
				snprintf(err, errlen, "tpg=%.16s: want a portal group tag 1..65535", eq + 1);
				return false;
			}
			o->tpgt = (unsigned)t;
		} else {
			snprintf(err, errlen, "%.32s: %s", tok,
				 (strcmp(tok, "advertise") == 0 || strcmp(tok, "tpg") == 0) ? "given twice"
				 : "unknown key (advertise=HOST[:PORT], tpg=N)");
			return false;
		}
	}
	return true;
}
