/* profile_parse.c — strict YAML profile parser (libyaml document API).
 *
 * Strict because a profile is the model: a typo that silently fell back to a default
 * would produce plausible but wrong figures.  Every key is known, typed and range
 * checked; every required key must be present; errors are one line naming the file,
 * the line and the field. */
#include "models/profile_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "models/cost_params.h"

/* The profile and its cost parameters are allocated together. */
struct parsed {
	struct lunlab_profile p;
	struct cost_params c;
};

enum ftype { T_NAME, T_TEXT, T_BOOL, T_U32, T_U64, T_INT, T_BUCKET, T_TPGS, T_SECTION };

struct field {
	const char *section; /* NULL: top level */
	const char *key;
	enum ftype type;
	uint64_t min, max;
	size_t off;
};

#define P(f) offsetof(struct parsed, p.f)
#define C(f) offsetof(struct parsed, c.f)
#define NS_MAX 10000000000ull /* 10 s: anything larger is a unit mistake */

static const struct field fields[] = {
	{ NULL, "name", T_NAME, 1, sizeof(((struct lunlab_profile *)0)->name) - 1, P(name) },
	{ NULL, "description", T_TEXT, 0, sizeof(((struct lunlab_profile *)0)->description) - 1, P(description) },
	{ NULL, "modeled", T_BOOL, 0, 1, P(modeled) },
	{ NULL, "tpgs", T_TPGS, 0, 3, P(tpgs) }, /* optional: off when absent */
	{ NULL, "data_reduction", T_SECTION, 0, 0, 0 },
	{ NULL, "cost", T_SECTION, 0, 0, 0 },
	{ NULL, "capacity", T_SECTION, 0, 0, 0 },
	{ "data_reduction", "dedup_block", T_U32, 512, PROFILE_DEDUP_BLOCK_MAX, P(dedup_block) },
	{ "data_reduction", "zlib_level", T_INT, 0, 9, P(zlib_level) },
	{ "data_reduction", "zlib_window_bits", T_INT, 9, 15, P(zlib_window_bits) },
	{ "data_reduction", "alloc_unit", T_U32, 1, 1u << 20, P(alloc_unit) },
	{ "cost", "cores", T_U32, 1, 4096, C(cores) },
	{ "cost", "cpu_cmd_ns", T_U64, 0, NS_MAX, C(cpu_cmd_ns) },
	{ "cost", "cpu_entry_ns", T_U64, 0, NS_MAX, C(cpu_entry_ns) },
	{ "cost", "cpu_segment_ns", T_U64, 0, NS_MAX, C(cpu_segment_ns) },
	{ "cost", "cpu_mib_ns", T_U64, 0, NS_MAX, C(cpu_mib_ns) },
	{ "cost", "journal_cmd_ns", T_U64, 0, NS_MAX, C(journal_cmd_ns) },
	{ "cost", "journal_entry_ns", T_U64, 0, NS_MAX, C(journal_entry_ns) },
	{ "cost", "frontend_mb_s", T_U64, 0, 1000000, C(frontend_mb_s) },
	{ "cost", "backend_mb_s", T_U64, 0, 1000000, C(backend_mb_s) },
	{ "cost", "fixed_latency_ns", T_U64, 0, NS_MAX, C(fixed_latency_ns) },
	{ "cost", "host_turnaround_ns", T_U64, 0, NS_MAX, C(host_turnaround_ns) },
	{ "cost", "host_turnaround_ns_per_mib", T_U64, 0, NS_MAX, C(host_turnaround_ns_per_mib) },
	{ "cost", "xcopy_bucket", T_BUCKET, 0, 0, C(xcopy_bucket) },
	/* usable physical capacity: 1 MiB .. 1 EiB */
	{ "capacity", "usable_bytes", T_U64, 1u << 20, 1ull << 60, P(capacity_bytes) },
	{ "capacity", "soft_threshold_percent", T_U32, 0, 100, P(soft_threshold_percent) },
	/* optional: the SSDs behind usable_bytes (XMS's num-of-ssds); 0 when absent */
	{ "capacity", "ssds", T_U32, 0, 4096, P(ssds) },
	/* optional: token copy offload (ODX); defaults in profile.h when absent */
	{ NULL, "odx", T_BOOL, 0, 1, P(odx) },
	{ NULL, "odx_max_ranges", T_U32, 1, PROFILE_ODX_RANGES_MAX, P(odx_max_ranges) },
	{ NULL, "odx_max_token_bytes", T_U64, 1u << 20, 1ull << 40, P(odx_max_token_bytes) },
	{ NULL, "odx_default_timeout_s", T_U32, 1, 86400, P(odx_default_timeout_s) },
	{ NULL, "odx_max_timeout_s", T_U32, 1, 86400, P(odx_max_timeout_s) },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct ctx {
	const char *origin;
	yaml_document_t *doc;
	struct parsed *out;
	bool seen[NFIELDS];
	size_t seen_line[NFIELDS];
	size_t section_line[3]; /* data_reduction, cost, capacity: where a missing key is reported */
	char **err;
};

__attribute__((format(printf, 5, 6)))
static int fail(struct ctx *c, size_t line, const char *section, const char *key, const char *fmt, ...)
{
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	char *msg = NULL;
	if (asprintf(&msg, "%s:%zu: %s%s%s: %s", c->origin, line, section ? section : "",
		     section ? "." : "", key, why) < 0)
		msg = NULL;
	/* keys and values quoted in the message come from the file and may hold
	 * newlines (quoted or multi-line scalars): keep the error one line */
	for (char *m = msg; m && *m; m++)
		if ((unsigned char)*m < 0x20 || *m == 0x7f)
			*m = '?';
	if (c->err)
		*c->err = msg;
	else
		free(msg);
	return -1;
}

static size_t line_of(const yaml_node_t *n)
{
	return n->start_mark.line + 1;
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* Unsigned decimal, plain (unquoted) scalar only: a quoted "16384" is a string. */
static int parse_uint(const yaml_node_t *n, uint64_t *v)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	const char *s = scalar(n);
	size_t len = n->data.scalar.length;
	if (len == 0 || len > 20)
		return -1;
	uint64_t x = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int set_value(struct ctx *c, const struct field *f, const yaml_node_t *v)
{
	char *base = (char *)c->out;
	size_t line = line_of(v);
	if (f->type == T_SECTION)
		return 0; /* handled by the caller */
	if (v->type != YAML_SCALAR_NODE)
		return fail(c, line, f->section, f->key, "expected a scalar, got a %s",
			    v->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
	switch (f->type) {
	case T_NAME:
	case T_TEXT: {
		size_t len = v->data.scalar.length;
		if (len < f->min || len > f->max)
			return fail(c, line, f->section, f->key, "length %zu out of range %llu..%llu", len,
				    (unsigned long long)f->min, (unsigned long long)f->max);
		if (memchr(scalar(v), '\0', len))
			return fail(c, line, f->section, f->key, "contains a NUL byte");
		if (f->type == T_NAME)
			for (size_t i = 0; i < len; i++) {
				char ch = scalar(v)[i];
				if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
				      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.'))
					return fail(c, line, f->section, f->key,
						    "'%s' is not a name (letters, digits, - _ .)", scalar(v));
			}
		memcpy(base + f->off, scalar(v), len);
		base[f->off + len] = '\0';
		return 0;
	}
	case T_BOOL: {
		const char *s = scalar(v);
		bool b;
		if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(s, "true"))
			b = true;
		else if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(s, "false"))
			b = false;
		else
			return fail(c, line, f->section, f->key, "'%s' is not a boolean (true or false)", s);
		*(bool *)(base + f->off) = b;
		return 0;
	}
	case T_BUCKET: {
		const char *s = scalar(v);
		enum xcopy_bucket_rule r;
		if (!strcmp(s, "covered"))
			r = XCOPY_BUCKET_COVERED;
		else if (!strcmp(s, "gt1mb"))
			r = XCOPY_BUCKET_GT1MB;
		else
			return fail(c, line, f->section, f->key, "'%s' is not one of covered, gt1mb", s);
		*(enum xcopy_bucket_rule *)(base + f->off) = r;
		return 0;
	}
	case T_TPGS: {
		static const char *const tpgs[] = { "off", "implicit", "explicit", "both" };
		const char *s = scalar(v);
		for (uint8_t i = 0; i < 4; i++) {
			if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !strcmp(s, tpgs[i])) {
				*(uint8_t *)(base + f->off) = i;
				return 0;
			}
		}
		return fail(c, line, f->section, f->key, "'%s' is not one of off, implicit, explicit, both", s);
	}
	case T_U32:
	case T_U64:
	case T_INT: {
		uint64_t x;
		if (parse_uint(v, &x))
			return fail(c, line, f->section, f->key, "'%s' is not an unsigned integer", scalar(v));
		if (x < f->min || x > f->max)
			return fail(c, line, f->section, f->key, "%llu out of range %llu..%llu",
				    (unsigned long long)x, (unsigned long long)f->min, (unsigned long long)f->max);
		if (f->type == T_U32)
			*(uint32_t *)(base + f->off) = (uint32_t)x;
		else if (f->type == T_INT)
			*(int *)(base + f->off) = (int)x;
		else
			*(uint64_t *)(base + f->off) = x;
		return 0;
	}
	case T_SECTION:
		break;
	}
	return 0;
}

/* index into ctx.section_line */
static unsigned section_index(const char *section)
{
	if (!strcmp(section, "cost"))
		return 1;
	return !strcmp(section, "capacity") ? 2 : 0;
}

static const struct field *find_field(const char *section, const char *key, size_t *idx)
{
	for (size_t i = 0; i < NFIELDS; i++) {
		bool same_section = section ? (fields[i].section && !strcmp(fields[i].section, section))
					    : fields[i].section == NULL;
		if (same_section && !strcmp(fields[i].key, key)) {
			*idx = i;
			return &fields[i];
		}
	}
	return NULL;
}

static int walk_mapping(struct ctx *c, const yaml_node_t *map, const char *section)
{
	for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
		if (!k || !v)
			return fail(c, line_of(map), section, "?", "malformed mapping");
		if (k->type != YAML_SCALAR_NODE)
			return fail(c, line_of(k), section, "?", "key is not a scalar");
		size_t idx;
		const struct field *f = find_field(section, scalar(k), &idx);
		if (!f)
			return fail(c, line_of(k), section, scalar(k), "unknown key");
		if (c->seen[idx])
			return fail(c, line_of(k), section, scalar(k), "duplicate key (first at line %zu)",
				    c->seen_line[idx]);
		c->seen[idx] = true;
		c->seen_line[idx] = line_of(k);
		if (f->type == T_SECTION) {
			if (v->type != YAML_MAPPING_NODE)
				return fail(c, line_of(v), NULL, f->key, "expected a mapping of parameters");
			c->section_line[section_index(f->key)] = line_of(k);
			if (walk_mapping(c, v, f->key))
				return -1;
		} else if (set_value(c, f, v)) {
			return -1;
		}
	}
	return 0;
}

/* The optional odx_* keys: their defaults, and a default timeout above the maximum refused. */
static int odx_defaults(struct ctx *c)
{
	struct lunlab_profile *p = &c->out->p;
	size_t i = 0;

	if (!p->odx_max_ranges)
		p->odx_max_ranges = PROFILE_ODX_DEF_RANGES;
	if (!p->odx_max_token_bytes)
		p->odx_max_token_bytes = PROFILE_ODX_DEF_TOKEN_BYTES;
	if (!p->odx_default_timeout_s)
		p->odx_default_timeout_s = PROFILE_ODX_DEF_TIMEOUT_S;
	if (!p->odx_max_timeout_s)
		p->odx_max_timeout_s = PROFILE_ODX_DEF_MAX_TIMEOUT_S;
	if (p->odx_default_timeout_s > p->odx_max_timeout_s) {
		find_field(NULL, "odx_default_timeout_s", &i);
		return fail(c, c->seen[i] ? c->seen_line[i] : 1, NULL, "odx_default_timeout_s",
			    "%u is above odx_max_timeout_s %u", p->odx_default_timeout_s, p->odx_max_timeout_s);
	}
	return 0;
}

static int check_complete(struct ctx *c)
{
	struct parsed *o = c->out;
	size_t idx_cost = 0, idx_modeled = 0;
	find_field(NULL, "cost", &idx_cost);
	find_field(NULL, "modeled", &idx_modeled);
	bool want_cost = c->seen[idx_modeled] && o->p.modeled;
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		bool in_cost = f->section && !strcmp(f->section, "cost");
		bool is_cost_section = !f->section && !strcmp(f->key, "cost");
		if (c->seen[i] || ((in_cost || is_cost_section) && !want_cost) || f->type == T_TPGS ||
		    (f->section && !strcmp(f->key, "ssds")) || !strncmp(f->key, "odx", 3))
			continue;
		size_t line = f->section ? c->section_line[section_index(f->section)] : 1;
		size_t idx_section = 0;
		if (f->section && (find_field(NULL, f->section, &idx_section), !c->seen[idx_section]))
			line = 1;
		return fail(c, line ? line : 1, f->section, f->key, "missing");
	}
	if (!want_cost && c->seen[idx_cost])
		return fail(c, c->seen_line[idx_cost], NULL, "cost", "not allowed when modeled is false");
	/* Cross-field rules. */
	size_t i = 0; /* find_field sets it for a known field; 0 keeps -O3 from seeing it unset */
	uint32_t b = o->p.dedup_block;
	if (b & (b - 1)) {
		find_field("data_reduction", "dedup_block", &i);
		return fail(c, c->seen_line[i], "data_reduction", "dedup_block", "%u is not a power of two", b);
	}
	if (o->p.alloc_unit > b) {
		find_field("data_reduction", "alloc_unit", &i);
		return fail(c, c->seen_line[i], "data_reduction", "alloc_unit",
			    "%u is larger than dedup_block %u", o->p.alloc_unit, b);
	}
	return odx_defaults(c);
}

struct lunlab_profile *profile_parse(const char *text, size_t len, const char *origin, char **err)
{
	if (err)
		*err = NULL;
	struct parsed *out = calloc(1, sizeof(*out));
	struct ctx c = { .origin = origin ? origin : "(profile)", .out = out, .err = err };
	if (!out) {
		if (err)
			*err = strdup("out of memory");
		return NULL;
	}
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		free(out);
		if (err)
			*err = strdup("yaml_parser_initialize failed");
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int rc = -1;
	if (!yaml_parser_load(&parser, &doc)) {
		fail(&c, parser.problem_mark.line + 1, NULL, "(syntax)", "%s",
		     parser.problem ? parser.problem : "YAML error");
		yaml_parser_delete(&parser);
		free(out);
		return NULL;
	}
	c.doc = &doc;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root)
		fail(&c, 1, NULL, "(document)", "empty");
	else if (root->type != YAML_MAPPING_NODE)
		fail(&c, line_of(root), NULL, "(document)", "expected a mapping of keys");
	else if (walk_mapping(&c, root, NULL) == 0 && check_complete(&c) == 0)
		rc = 0;
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc) {
		free(out);
		return NULL;
	}
	out->p.cost_params = out->p.modeled ? &out->c : NULL;
	return &out->p;
}

void profile_free(struct lunlab_profile *p)
{
	/* p is the first member of struct parsed. */
	free(p);
}
