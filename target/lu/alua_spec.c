/* alua_spec.c — ALUA state names and the --alua SPEC (alua.h), apart from
 * the states themselves so the command line (and its fuzz target) can check
 * a value without the LU table. */
#include "target/lu/alua.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/lu/lu_table.h"

static const struct {
	const char *name, *alias;
	enum alua_state s;
} names[] = {
	{ "active/optimized", "ao", ALUA_AO },
	{ "active/non-optimized", "ano", ALUA_ANO },
	{ "standby", "s", ALUA_STANDBY },
	{ "unavailable", "u", ALUA_UNAVAILABLE },
	{ "transitioning", "t", ALUA_TRANSITIONING },
};

bool alua_state_parse(const char *s, enum alua_state *out)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0 || strcmp(s, names[i].alias) == 0) {
			*out = names[i].s;
			return true;
		}
	}
	return false;
}

const char *alua_state_name(enum alua_state s)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].s == s)
			return names[i].name;
	return "?";
}

static bool spec_uint(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	if (!v || *v < '0' || *v > '9' || strlen(v) > 10)
		return false;
	*out = strtoul(v, &end, 10);
	return !*end && *out <= max;
}

static bool parse(const char *text, struct alua_spec *o, char *err, size_t errlen);

bool alua_spec_parse(const char *text, struct alua_spec *o, char *err, size_t errlen)
{
	if (parse(text, o, err, errlen))
		return true;
	/* the refusal quotes the value: one printable line whatever it holds */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return false;
}

static bool parse(const char *text, struct alua_spec *o, char *err, size_t errlen)
{
	char buf[256], *save = NULL, *tok;
	bool has_tpg = false, has_state = false;
	unsigned seen = 0;
	unsigned long v;

	memset(o, 0, sizeof(*o));
	o->pref = -1;
	if (!text || !*text || strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "want lun=N,tpg=N,state=STATE[,pref=0|1][,transition=MS] (at most 255 bytes)");
		return false;
	}
	strcpy(buf, text);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		static const char *const keys[] = { "lun", "tpg", "state", "pref", "transition" };
		char *eq = strchr(tok, '=');
		const char *val = eq ? eq + 1 : NULL;
		int k = -1;

		if (eq)
			*eq = '\0';
		for (int i = 0; i < 5; i++)
			if (strcmp(tok, keys[i]) == 0)
				k = i;
		if (k < 0) {
			snprintf(err, errlen, "%.32s: unknown key (lun, tpg, state, pref, transition)", tok);
			return false;
		}
		if (seen & (1u << k)) {
			snprintf(err, errlen, "%s: given twice", keys[k]);
			return false;
		}
		seen |= 1u << k;
		switch (k) {
		case 0:
			if (!spec_uint(val, LU_TABLE_MAX - 1, &v)) {
				snprintf(err, errlen, "lun=%.32s: want a LUN 0..%d", val ? val : "", LU_TABLE_MAX - 1);
				return false;
			}
			o->has_lun = true;
			o->lun = (uint32_t)v;
			break;
		case 1:
			if (!spec_uint(val, 65535, &v) || v == 0) {
				snprintf(err, errlen, "tpg=%.32s: want a portal group tag 1..65535", val ? val : "");
				return false;
			}
			o->tpg = (uint16_t)v;
			has_tpg = true;
			break;
		case 2:
			if (!val || !alua_state_parse(val, &o->state)) {
				snprintf(err, errlen, "state=%.32s: want ao, ano, standby, unavailable or transitioning",
					 val ? val : "");
				return false;
			}
			has_state = true;
			break;
		case 3:
			if (!val || (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)) {
				snprintf(err, errlen, "pref=%.32s: want 0 or 1", val ? val : "");
				return false;
			}
			o->pref = val[0] == '1';
			break;
		case 4:
			if (!spec_uint(val, 600000, &v)) {
				snprintf(err, errlen, "transition=%.32s: want milliseconds 0..600000", val ? val : "");
				return false;
			}
			o->transition_ms = (unsigned)v;
			break;
		}
	}
	if (!has_tpg || !has_state) {
		snprintf(err, errlen, "%s missing (want lun=N,tpg=N,state=STATE)", !has_tpg ? "tpg=" : "state=");
		return false;
	}
	return true;
}
