/* config_file.c — lunlab-target --config FILE (see config_file.h,
 * docs/config.md), read with libyaml's document API.
 *
 * Strict for the same reason as models/profile_parse.c: a misspelt key that
 * silently fell back to a default would run a target other than the one the
 * file describes.  So every key must be known, every value has one YAML type,
 * a key appears once, and every error is one line naming the file, the line
 * and the field.  The values themselves are checked by cli_set() and
 * cli_lun_key(), the command line's own code, so a value means the same
 * wherever it is written. */
#include "target/config_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "lunlab/read_file.h"
#include "target/cli.h"

#define FAULT_SPEC_TEXT_MAX 600 /* > FAULT_SPEC_MAX: the parser names the overlong rule */

struct ctx {
	const char *origin;
	yaml_document_t *doc;
	struct cli *c;
	char *err;
	size_t errlen;
};

/* Text from the file quoted in an error: at most 64 bytes, control bytes as
 * '?', so the message stays one short line whatever the file holds. */
static void quote(char *dst, size_t dlen, const char *s, size_t len)
{
	size_t n = len > 64 ? 64 : len, o = 0;

	for (size_t i = 0; i < n && o + 1 < dlen; i++)
		dst[o++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	if (len > n && o + 3 < dlen) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o < dlen ? o : dlen - 1] = '\0';
}

__attribute__((format(printf, 4, 5)))
static int fail(struct ctx *x, size_t line, const char *field, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s:%zu: %s: %s", x->origin, line, field, why);
	for (char *m = x->err; *m; m++) /* the origin and the field come from outside too */
		if ((unsigned char)*m < 0x20 || *m == 0x7f)
			*m = '?';
	return -1;
}

static size_t line_of(const yaml_node_t *n)
{
	return n->start_mark.line + 1;
}

static const char *type_name(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a sequence" : "a scalar";
}

static bool plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML's null: an empty or ~/null plain scalar ("iqn:" with nothing after) */
static bool is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	return plain(n) && (n->data.scalar.length == 0 || !strcmp(s, "~") || !strcmp(s, "null") ||
			    !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* A scalar value as a string owned by the cli; NULL after an error. */
static const char *scalar_text(struct ctx *x, const yaml_node_t *v, const char *field)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE) {
		fail(x, line_of(v), field, "expected a scalar, got %s", type_name(v));
		return NULL;
	}
	if (is_null(v)) {
		fail(x, line_of(v), field, "no value");
		return NULL;
	}
	if (memchr(v->data.scalar.value, '\0', v->data.scalar.length)) {
		fail(x, line_of(v), field, "contains a NUL byte");
		return NULL;
	}
	s = cli_keep(x->c, (const char *)v->data.scalar.value, v->data.scalar.length);
	if (!s)
		fail(x, line_of(v), field, "out of memory");
	return s;
}

static int bad_value(struct ctx *x, const yaml_node_t *v, const char *field, const char *why)
{
	char q[80];

	quote(q, sizeof(q), (const char *)v->data.scalar.value, v->data.scalar.length);
	return fail(x, line_of(v), field, "'%s': %s", q, why);
}

/* A duplicate key: yaml's document API keeps both, so look back for it. */
static const yaml_node_t *earlier_key(struct ctx *x, const yaml_node_t *map, const yaml_node_pair_t *upto,
				      const yaml_node_t *k)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < upto; p++) {
		const yaml_node_t *e = yaml_document_get_node(x->doc, p->key);
		if (e && e->type == YAML_SCALAR_NODE && e->data.scalar.length == k->data.scalar.length &&
		    memcmp(e->data.scalar.value, k->data.scalar.value, k->data.scalar.length) == 0)
			return e;
	}
	return NULL;
}

/* The key of a pair as a C string (checked: a scalar without NUL), or NULL
 * after an error naming where. */
static const char *key_of(struct ctx *x, const yaml_node_t *map, const yaml_node_pair_t *pr, const char *where,
			  const yaml_node_t **kn)
{
	const yaml_node_t *k = yaml_document_get_node(x->doc, pr->key);
	const yaml_node_t *v = yaml_document_get_node(x->doc, pr->value);
	const yaml_node_t *e;
	char q[80];

	if (!k || !v)
		return fail(x, line_of(map), where, "malformed mapping"), NULL;
	if (k->type != YAML_SCALAR_NODE)
		return fail(x, line_of(k), where, "a key must be a scalar, got %s", type_name(k)), NULL;
	quote(q, sizeof(q), (const char *)k->data.scalar.value, k->data.scalar.length);
	if (memchr(k->data.scalar.value, '\0', k->data.scalar.length) || k->data.scalar.length == 0)
		return fail(x, line_of(k), where, "key '%s' is empty or holds a NUL byte", q), NULL;
	if ((e = earlier_key(x, map, pr, k))) {
		char field[160];
		if (strcmp(where, "(document)") == 0)
			snprintf(field, sizeof(field), "%s", q);
		else
			snprintf(field, sizeof(field), "%s.%s", where, q);
		return fail(x, line_of(k), field, "duplicate key (first at line %zu)", line_of(e)), NULL;
	}
	*kn = k;
	return (const char *)k->data.scalar.value;
}

/* an unknown top-level key: say what it probably meant */
static int unknown_key(struct ctx *x, const yaml_node_t *k, const char *key)
{
	char q[80], guess[48];
	size_t n = strlen(key);

	quote(q, sizeof(q), key, n);
	if (strstr(key, "secret") || strstr(key, "chap") || strstr(key, "CHAP") || strstr(key, "password"))
		return fail(x, line_of(k), q,
			    "unknown key; secrets never go in this file: name the 0600 CHAP file with auth-file");
	/* io_threads -> io-threads, luns -> lun, listens -> listen */
	if (n < sizeof(guess)) {
		for (size_t i = 0; i <= n; i++)
			guess[i] = key[i] == '_' ? '-' : key[i];
		const struct cli_optdef *d = cli_option(guess);
		if (!d && n > 1 && guess[n - 1] == 's') {
			guess[n - 1] = '\0';
			d = cli_option(guess);
		}
		if (d && d->id != CLI_CONFIG && d->id != CLI_CHECK_STATE)
			return fail(x, line_of(k), q, "unknown key (did you mean '%s'?)", d->name);
	}
	/* the known keys from the option table itself, so the list stays true */
	char known[512];
	size_t o = 0;
	for (const struct cli_optdef *d = cli_options; d->name; d++)
		if (d->id != CLI_CONFIG && o < sizeof(known))
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", o ? ", " : "", d->name);
	return fail(x, line_of(k), q, "unknown key (known: %s)", known);
}

static int keyline_add(struct ctx *x, int lun, const char *key, size_t line)
{
	struct cli *c = x->c;

	if (strlen(key) >= sizeof(c->keylines[0].key))
		return 0; /* longer than any key a handler knows: blamed on the LUN's line */
	if (c->nkeylines == c->capkeylines) {
		int cap = c->capkeylines ? 2 * c->capkeylines : 16;
		struct cli_keyline *n = realloc(c->keylines, (size_t)cap * sizeof(*n));
		if (!n)
			return -1;
		c->keylines = n;
		c->capkeylines = cap;
	}
	c->keylines[c->nkeylines].lun = lun;
	c->keylines[c->nkeylines].line = (unsigned)line;
	strcpy(c->keylines[c->nkeylines].key, key);
	c->nkeylines++;
	return 0;
}

/* One LUN: a mapping of --lun's keys, built by cli_lun_key() as --lun is. */
static int one_lun(struct ctx *x, const yaml_node_t *m)
{
	struct cli *c = x->c;
	int i = c->nluns;
	char field[96], err[256];
	struct cli_lun_build b;

	snprintf(field, sizeof(field), "lun[%d]", i);
	if (m->type != YAML_MAPPING_NODE)
		return fail(x, line_of(m), field, "expected a mapping of LUN keys (size, block, model, ...), got %s",
			    type_name(m));
	if (i == CLI_MAX_LUNS)
		return fail(x, line_of(m), field, "more than %d LUNs", CLI_MAX_LUNS);
	cli_lun_begin(&b, &c->luns[i]);
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		const yaml_node_t *kn, *v;
		const char *k = key_of(x, m, pr, field, &kn), *val;

		if (!k)
			return -1;
		v = yaml_document_get_node(x->doc, pr->value);
		snprintf(field, sizeof(field), "lun[%d].%.64s", i, k);
		if (!cli_lun_key_name_ok(k))
			return fail(x, line_of(kn), field, CLI_LUN_KEY_NAME_RULE);
		if (v->type == YAML_SCALAR_NODE && plain(v) && !strcmp((const char *)v->data.scalar.value, "true"))
			val = "1"; /* YAML booleans as --lun's 0/1 (readonly: true) */
		else if (v->type == YAML_SCALAR_NODE && plain(v) && !strcmp((const char *)v->data.scalar.value, "false"))
			val = "0";
		else if (!(val = scalar_text(x, v, field)))
			return -1;
		if (!cli_lun_key(&b, k, val, err, sizeof(err)))
			return bad_value(x, v, field, err);
		if (keyline_add(x, i, k, line_of(kn)) < 0)
			return fail(x, line_of(kn), field, "out of memory");
		snprintf(field, sizeof(field), "lun[%d]", i);
	}
	if (!b.have_size) {
		snprintf(field, sizeof(field), "lun[%d].size", i);
		return fail(x, line_of(m), field, "missing (every LUN needs a size)");
	}
	if (!cli_lun_end(&b, err, sizeof(err)))
		return fail(x, line_of(m), field, "%s", err);
	c->luns[i].line = (unsigned)line_of(m);
	c->nluns++;
	return 0;
}

/* A fault rule or an ALUA state written as a mapping of SPEC keys ({lun:
 * 0, op: read, sense: 03/11/00}, hold: true): joined into the SPEC text,
 * which cli_set() checks as it checks --fault / --alua. */
static const char *spec_mapping(struct ctx *x, const yaml_node_t *m, const char *field)
{
	char spec[FAULT_SPEC_TEXT_MAX];
	size_t o = 0;

	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		const yaml_node_t *kn, *v;
		const char *k = key_of(x, m, pr, field, &kn);
		int n;

		if (!k)
			return NULL;
		v = yaml_document_get_node(x->doc, pr->value);
		if (!v || v->type != YAML_SCALAR_NODE || is_null(v) ||
		    memchr(v->data.scalar.value, '\0', v->data.scalar.length) ||
		    memchr(v->data.scalar.value, ',', v->data.scalar.length)) {
			fail(x, line_of(kn), field, "%.32s: want a scalar value without ','", k);
			return NULL;
		}
		if (plain(v) && strcmp((const char *)v->data.scalar.value, "true") == 0)
			n = snprintf(spec + o, sizeof(spec) - o, "%s%s", o ? "," : "", k); /* hold: true */
		else
			n = snprintf(spec + o, sizeof(spec) - o, "%s%s=%s", o ? "," : "", k,
				     (const char *)v->data.scalar.value);
		if (n < 0 || (size_t)n >= sizeof(spec) - o) {
			fail(x, line_of(kn), field, "rule too long");
			return NULL;
		}
		o += (size_t)n;
	}
	const char *s = cli_keep(x->c, spec, o);
	if (!s)
		fail(x, line_of(m), field, "out of memory");
	return s;
}

static int one_option(struct ctx *x, const struct cli_optdef *d, const yaml_node_t *v)
{
	char err[256], field[96];
	const char *s;

	switch (d->kind) {
	case CLI_K_LIST:
	case CLI_K_LUN: {
		if (v->type != YAML_SEQUENCE_NODE)
			return fail(x, line_of(v), d->name, "expected a sequence (- item per line), got %s",
				    type_name(v));
		int n = 0;
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, n++) {
			const yaml_node_t *e = yaml_document_get_node(x->doc, *it);
			if (!e)
				return fail(x, line_of(v), d->name, "malformed sequence");
			if (d->kind == CLI_K_LUN) {
				if (one_lun(x, e) < 0)
					return -1;
				continue;
			}
			snprintf(field, sizeof(field), "%s[%d]", d->name, n);
			if ((d->id == CLI_FAULT || d->id == CLI_ALUA) && e->type == YAML_MAPPING_NODE) {
				if (!(s = spec_mapping(x, e, field)))
					return -1;
				if (!cli_set(x->c, d->id, s, err, sizeof(err)))
					return fail(x, line_of(e), field, "%s", err);
				continue;
			}
			if (!(s = scalar_text(x, e, field)))
				return -1;
			if (!cli_set(x->c, d->id, s, err, sizeof(err)))
				return bad_value(x, e, field, err);
		}
		x->c->given |= 1u << d->id; /* an empty list is given too: it means none */
		return 0;
	}
	case CLI_K_UINT:
	case CLI_K_FLAG:
		if (v->type != YAML_SCALAR_NODE)
			return fail(x, line_of(v), d->name, "expected a scalar, got %s", type_name(v));
		/* "4" in quotes is a string in YAML: a number or a boolean is plain */
		if (!plain(v) || is_null(v))
			return bad_value(x, v, d->name,
					 d->kind == CLI_K_UINT ? "want an unquoted number" : "want true or false, unquoted");
		break;
	case CLI_K_TEXT:
		break;
	}
	if (!(s = scalar_text(x, v, d->name)))
		return -1;
	if (!cli_set(x->c, d->id, s, err, sizeof(err)))
		return bad_value(x, v, d->name, err);
	return 0;
}

static int walk(struct ctx *x, const yaml_node_t *root)
{
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		const yaml_node_t *kn;
		const char *k = key_of(x, root, pr, "(document)", &kn);
		const struct cli_optdef *d;

		if (!k)
			return -1;
		d = cli_option(k);
		if (!d)
			return unknown_key(x, kn, k);
		if (d->id == CLI_CONFIG)
			return fail(x, line_of(kn), k, "a config file cannot name another one");
		if (d->id == CLI_CHECK_STATE)
			return fail(x, line_of(kn), k, "--check-state is a command, not a setting: give it on the "
							 "command line");
		if (one_option(x, d, yaml_document_get_node(x->doc, pr->value)) < 0)
			return -1;
		x->c->line[d->id] = (unsigned)line_of(kn);
	}
	return 0;
}

int config_file_parse(const char *text, size_t len, const char *origin, struct cli *c, char *err,
		      size_t errlen)
{
	struct ctx x = { .origin = origin ? origin : "(config)", .c = c, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	int rc = -1;

	err[0] = '\0';
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", x.origin);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		fail(&x, parser.problem_mark.line + 1, "(syntax)", "%s",
		     parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -1;
	}
	x.doc = &doc;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		fail(&x, 1, "(document)", "empty: want a mapping of options");
	} else if (root->type != YAML_MAPPING_NODE) {
		fail(&x, line_of(root), "(document)", "expected a mapping of options, got %s", type_name(root));
	} else if (walk(&x, root) == 0) {
		/* a second "---" document would be ignored silently: refuse it */
		if (!yaml_parser_load(&parser, &extra)) {
			fail(&x, parser.problem_mark.line + 1, "(syntax)", "%s",
			     parser.problem ? parser.problem : "not YAML");
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&extra);
			if (r2)
				fail(&x, line_of(r2), "(document)", "a second YAML document; want one");
			else
				rc = 0;
			yaml_document_delete(&extra);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int config_file_load(const char *path, struct cli *c, char *err, size_t errlen)
{
	const struct ll_read_rules rules = { .max = CONFIG_FILE_MAX };
	size_t got;
	char *text = ll_read_file(path, &rules, &got, err, errlen);
	int rc;

	if (!text)
		return -1;
	rc = config_file_parse(text, got, path, c, err, errlen);
	free(text);
	return rc;
}
