/* scn_parse.c - scenario file -> struct scn_model (docs/scenarios.md "Format").  libyaml
 * builds the node tree and keeps each node's mark; this file walks it once, checks every
 * key, type and reference, then checks the timeline as a whole.  The first refusal ends
 * the parse (longjmp back to scn_parse_text, which frees the document). */
#include "client/scn_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <yaml.h>

#include "client/cli.h"
#include "lunlab/read_file.h"
#include "lunlab/size_parse.h"

struct pctx {
	const char *file;
	yaml_document_t *doc;
	struct scn_model *m;
	char *err;
	size_t errlen;
	jmp_buf out;
};

__attribute__((format(printf, 5, 0)))
static _Noreturn void failv(struct pctx *p, unsigned line, unsigned col, const char *key, const char *fmt, va_list ap)
{
	char msg[SCN_TEXT];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(p->err, p->errlen, "%s:%u:%u: %s: %s", p->file, line, col, key, msg);
	longjmp(p->out, 1);
}

__attribute__((format(printf, 4, 5)))
static _Noreturn void fail(struct pctx *p, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	failv(p, (unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1, key, fmt, ap);
}

__attribute__((format(printf, 4, 5)))
static _Noreturn void fail_at(struct pctx *p, struct scn_mark mk, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	failv(p, mk.line, mk.col, key, fmt, ap);
}

static struct scn_mark mark_of(const yaml_node_t *n)
{
	return (struct scn_mark){ (unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1 };
}

static const char *type_name(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a sequence" : "a scalar";
}

static const char *str(struct pctx *p, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE)
		fail(p, n, key, "expected a string, got %s", type_name(n));
	return (const char *)n->data.scalar.value;
}

static void copy_str(struct pctx *p, const yaml_node_t *n, const char *key, char *dst, size_t len)
{
	const char *s = str(p, n, key);
	if (strlen(s) >= len)
		fail(p, n, key, "longer than %zu characters", len - 1);
	strcpy(dst, s);
}

static void check_mapping(struct pctx *p, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_MAPPING_NODE)
		fail(p, n, key, "expected a mapping, got %s", type_name(n));
}

static uint64_t get_uint(struct pctx *p, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max)
{
	const char *s = str(p, n, key);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || errno || *end)
		fail(p, n, key, "'%s': expected a whole number", s);
	if (v < min || v > max)
		fail(p, n, key, "%llu: out of range %llu..%llu", v, (unsigned long long)min, (unsigned long long)max);
	return v;
}

static double get_number(struct pctx *p, const yaml_node_t *n, const char *key)
{
	const char *s = str(p, n, key);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || errno || *end || !isfinite(v))
		fail(p, n, key, "'%s': expected a number", s);
	return v;
}

static bool get_bool(struct pctx *p, const yaml_node_t *n, const char *key)
{
	const char *s = str(p, n, key);
	if (!strcmp(s, "true") || !strcmp(s, "yes"))
		return true;
	if (!strcmp(s, "false") || !strcmp(s, "no"))
		return false;
	fail(p, n, key, "'%s': expected true or false", s);
}

int scn_parse_duration(const char *s, double *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (v > 86400)
		return -1;
	*out = v;
	return 0;
}

static double get_duration(struct pctx *p, const yaml_node_t *n, const char *key)
{
	double v;
	const char *s = str(p, n, key);
	if (scn_parse_duration(s, &v))
		fail(p, n, key, "'%s': expected a duration (2s, 500ms, 1.5m; at most a day)", s);
	return v;
}

/* "50" or "50%": a whole percentage 0..100 */
static int get_percent(struct pctx *p, const yaml_node_t *n, const char *key)
{
	const char *s = str(p, n, key);
	char buf[16];
	snprintf(buf, sizeof(buf), "%s", s);
	size_t l = strlen(buf);
	if (l && buf[l - 1] == '%')
		buf[l - 1] = 0;
	char *end;
	long t = strtol(buf, &end, 10);
	if (!*buf || *end || t < 0 || t > 100)
		fail(p, n, key, "'%s': expected a percentage 0..100", s);
	return (int)t;
}

static uint64_t get_size(struct pctx *p, const yaml_node_t *n, const char *key)
{
	uint64_t v;
	const char *s = str(p, n, key);
	if (!ll_size_parse(s, 0, &v) || v == 0)
		fail(p, n, key, "'%s': expected a size (64M, 4k, 1g)", s);
	return v;
}

int scn_parse_sense(const char *s, unsigned *out)
{
	unsigned k, a, q;
	char tail;
	if (!s || strlen(s) != 8 || s[2] != '/' || s[5] != '/' ||
	    sscanf(s, "%2x/%2x/%2x%c", &k, &a, &q, &tail) != 3 || k > 0xf)
		return -1;
	for (int i = 0; i < 8; i++)
		if (i != 2 && i != 5 && !isxdigit((unsigned char)s[i]))
			return -1;
	*out = k << 16 | a << 8 | q;
	return 0;
}

static void get_sense(struct pctx *p, const yaml_node_t *n, const char *key, char *dst)
{
	unsigned v;
	const char *s = str(p, n, key);
	if (scn_parse_sense(s, &v))
		fail(p, n, key, "'%s': expected a sense KK/AA/QQ in hex (07/27/07)", s);
	snprintf(dst, SCN_TEXT, "%02x/%02x/%02x", (v >> 16) & 0xf, (v >> 8) & 0xff, v & 0xff);
}

static bool name_ok(const char *s)
{
	return *s && strlen(s) < SCN_NAME && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s) &&
	       !isdigit((unsigned char)s[0]);
}

/* Iterate a mapping's pairs: key text, key node, value node.  Duplicate keys refused. */
#define EACH_PAIR(p, map, kname, knode, vnode)                                                        \
	for (yaml_node_pair_t *pr_##kname = (map)->data.mapping.pairs.start; pr_##kname < (map)->data.mapping.pairs.top; \
	     pr_##kname++)                                                                                   \
		for (yaml_node_t *knode = yaml_document_get_node((p)->doc, pr_##kname->key),                   \
				 *vnode = yaml_document_get_node((p)->doc, pr_##kname->value);                   \
		     knode; knode = NULL)                                                                    \
			for (const char *kname = key_text(p, map, pr_##kname, knode); kname; kname = NULL)

static const char *key_text(struct pctx *p, const yaml_node_t *map, const yaml_node_pair_t *pr, const yaml_node_t *k)
{
	if (k->type != YAML_SCALAR_NODE)
		fail(p, k, "key", "a key must be a string, got %s", type_name(k));
	const char *s = (const char *)k->data.scalar.value;
	for (const yaml_node_pair_t *q = map->data.mapping.pairs.start; q < pr; q++) {
		yaml_node_t *o = yaml_document_get_node(p->doc, q->key);
		if (o && o->type == YAML_SCALAR_NODE && !strcmp((const char *)o->data.scalar.value, s))
			fail(p, k, s, "duplicate key (first at line %u)", (unsigned)o->start_mark.line + 1);
	}
	return s;
}

static _Noreturn void unknown(struct pctx *p, const yaml_node_t *k, const char *path, const char *key, const char *known)
{
	char full[SCN_TEXT];
	snprintf(full, sizeof(full), "%s%s%s", path, *path ? "." : "", key);
	fail(p, k, full, "unknown key (known: %s)", known);
}

/* "path.key", cut to len (a key path only names things in messages) */
static void path_key(char *dst, size_t len, const char *path, const char *key)
{
	size_t pl = strnlen(path, len - 1), kl = strnlen(key, len - 1);
	if (pl + 1 + kl >= len)
		kl = pl + 1 < len - 1 ? len - 2 - pl : 0;
	memcpy(dst, path, pl);
	if (pl + 1 < len) {
		dst[pl] = '.';
		memcpy(dst + pl + 1, key, kl);
		dst[pl + 1 + kl] = 0;
	} else {
		dst[pl] = 0;
	}
}

static void get_regex(struct pctx *p, const yaml_node_t *n, const char *key, char *dst, size_t len)
{
	copy_str(p, n, key, dst, len);
	regex_t re;
	if (regcomp(&re, dst, REG_EXTENDED | REG_NOSUB))
		fail(p, n, key, "'%s': not a POSIX extended regular expression", dst);
	regfree(&re);
}

static void get_api_path(struct pctx *p, const yaml_node_t *n, const char *key, char *dst, size_t len)
{
	copy_str(p, n, key, dst, len);
	if (dst[0] != '/' || strpbrk(dst, " \t\r\n"))
		fail(p, n, key, "'%s': expected a path on the API (/api/..., /metrics.json), no spaces", dst);
}

/* ---- arrays ---- */

static bool array_has_alua(const struct scn_array *a)
{
	if (a->tpgs[0])
		return strcmp(a->tpgs, "off") != 0;
	return !strcmp(a->model, "fa420-ac");
}


/* luns: (--lun LUs) or volumes: (XMS volumes the runner makes through the API): one name
 * space, so a workload's lun: names either */
static void parse_luns(struct pctx *p, struct scn_array *a, const yaml_node_t *n, const char *path, bool volume)
{
	check_mapping(p, n, path);
	EACH_PAIR(p, n, name, k, v) {
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, name);
		if (!name_ok(name))
			fail(p, k, kp, "a %s name is 1..31 of a-z 0-9 _, not starting with a digit", volume ? "volume" : "LUN");
		for (unsigned i = 0; i < a->n_luns; i++)
			if (!strcmp(a->luns[i].name, name))
				fail(p, k, kp, "'%s' is already a %s of this array (LUNs and volumes share their names)", name,
				     a->luns[i].volume ? "volume" : "LUN");
		if (a->n_luns == SCN_MAX_LUNS)
			fail(p, k, kp, "at most %d LUNs and volumes per array", SCN_MAX_LUNS);
		struct scn_lun *l = &a->luns[a->n_luns++];
		strcpy(l->name, name);
		l->block = 512;
		l->volume = volume;
		check_mapping(p, v, kp);
		bool have_size = false;
		EACH_PAIR(p, v, key, k2, v2) {
			char vp[SCN_TEXT];
			path_key(vp, sizeof(vp), kp, key);
			if (!strcmp(key, "size")) {
				l->size = get_size(p, v2, vp);
				have_size = true;
			} else if (!strcmp(key, "block") && !volume) {
				l->block = (unsigned)get_uint(p, v2, vp, 512, 4096);
				if (l->block != 512 && l->block != 4096)
					fail(p, v2, vp, "%u: want 512 or 4096", l->block);
			} else {
				unknown(p, k2, kp, key, volume ? "size" : "size, block");
			}
		}
		if (!have_size)
			fail(p, v, kp, "missing size (every %s needs one)", volume ? "volume" : "LUN");
		if (volume && l->size % (1u << 20))
			fail(p, v, kp, "size %llu: a volume's size is a multiple of 1M", (unsigned long long)l->size);
		if (l->size % l->block)
			fail(p, v, kp, "size %llu is not a multiple of the %u-byte block", (unsigned long long)l->size, l->block);
	}
	if (!a->n_luns)
		fail(p, n, path, "an array needs at least one %s", volume ? "volume here" : "LUN");
}

static void parse_array(struct pctx *p, struct scn_array *a, const yaml_node_t *n, const char *path)
{
	static const char known[] = "url, api, api_user, model, profile, capacity, soft_threshold, time_scale, "
				    "host_streams, state_dir, portals, tpgs, luns, volumes, faults, alua";
	check_mapping(p, n, path);
	strcpy(a->model, "x2");
	strcpy(a->time_scale, "0");
	a->soft_threshold = -1;
	a->portals = 1;
	a->mark = mark_of(n);
	bool have_luns = false;
	const yaml_node_t *started_key = NULL;
	EACH_PAIR(p, n, key, k, v) {
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, key);
		if (!strcmp(key, "url")) {
			copy_str(p, v, kp, a->url, sizeof(a->url));
			if (strncmp(a->url, "iscsi://", 8))
				fail(p, v, kp, "'%s': expected iscsi://HOST[:PORT]/IQN", a->url);
			a->external = true;
			continue;
		} else if (!strcmp(key, "api")) {
			copy_str(p, v, kp, a->api_url, sizeof(a->api_url));
			if (strncmp(a->api_url, "https://", 8))
				fail(p, v, kp, "'%s': expected https://HOST:PORT", a->api_url);
			continue;
		} else if (!strcmp(key, "api_user")) {
			copy_str(p, v, kp, a->api_user, sizeof(a->api_user));
			continue;
		} else if (!strcmp(key, "luns")) {
			parse_luns(p, a, v, kp, false);
			have_luns = true;
			continue;
		}
		started_key = k;
		if (!strcmp(key, "volumes")) {
			parse_luns(p, a, v, kp, true);
			continue;
		}
		started_key = k;
		if (!strcmp(key, "model")) {
			copy_str(p, v, kp, a->model, sizeof(a->model));
		} else if (!strcmp(key, "profile")) {
			copy_str(p, v, kp, a->profile, sizeof(a->profile));
		} else if (!strcmp(key, "capacity")) {
			a->capacity = get_size(p, v, kp);
			if (a->capacity < (1u << 20))
				fail(p, v, kp, "%llu: at least 1M", (unsigned long long)a->capacity);
		} else if (!strcmp(key, "soft_threshold")) {
			a->soft_threshold = get_percent(p, v, kp);
		} else if (!strcmp(key, "time_scale")) {
			copy_str(p, v, kp, a->time_scale, sizeof(a->time_scale));
			if (strcmp(a->time_scale, "virtual")) {
				char *end;
				double t = strtod(a->time_scale, &end);
				if (*end || !*a->time_scale || !(t >= 0) || t > 1000)
					fail(p, v, kp, "'%s': expected virtual or a number 0..1000", a->time_scale);
			}
		} else if (!strcmp(key, "host_streams")) {
			const char *hs = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
			if (!strcmp(hs, "session"))
				a->host_sessions = true; /* one stream per initiator session (docs/models.md) */
			else if (v->type == YAML_SCALAR_NODE && (hs[0] < '0' || hs[0] > '9'))
				fail(p, v, kp, "'%s': expected 1..4096 or session", hs);
			else
				a->host_streams = (unsigned)get_uint(p, v, kp, 1, 4096);
		} else if (!strcmp(key, "state_dir")) {
			a->state_dir = get_bool(p, v, kp);
		} else if (!strcmp(key, "portals")) {
			a->portals = (unsigned)get_uint(p, v, kp, 1, SCN_MAX_PORTALS);
		} else if (!strcmp(key, "tpgs")) {
			copy_str(p, v, kp, a->tpgs, sizeof(a->tpgs));
			if (strcmp(a->tpgs, "off") && strcmp(a->tpgs, "implicit") && strcmp(a->tpgs, "explicit") &&
			    strcmp(a->tpgs, "both"))
				fail(p, v, kp, "'%s': expected off, implicit, explicit or both", a->tpgs);
		} else if (!strcmp(key, "faults") || !strcmp(key, "alua")) {
			bool fl = key[0] == 'f';
			unsigned *cnt = fl ? &a->n_faults : &a->n_alua;
			if (v->type != YAML_SEQUENCE_NODE)
				fail(p, v, kp, "expected a sequence of %s, got %s", fl ? "fault rules" : "ALUA SPEC strings",
				     type_name(v));
			for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
				yaml_node_t *f = yaml_document_get_node(p->doc, *it);
				if (*cnt == SCN_MAX_LIST)
					fail(p, f, kp, "at most %d here", SCN_MAX_LIST);
				copy_str(p, f, kp, fl ? a->faults[*cnt] : a->alua[*cnt], SCN_TEXT);
				(*cnt)++;
			}
		} else {
			unknown(p, k, path, key, known);
		}
	}
	if (a->external && started_key)
		fail(p, started_key, path, "'%s' describes an array the runner starts; this one has url: (an existing target)",
		     (const char *)started_key->data.scalar.value);
	if (!a->external && (a->api_url[0] || a->api_user[0]))
		fail(p, n, path, "api and api_user are for an existing target (url:); the runner gives its arrays an API");
	if (!have_luns)
		fail(p, n, path, "missing luns (name: {size: 64M} for each)");
	if (a->n_alua && !array_has_alua(a))
		fail(p, n, path, "alua: states at start need an array that reports ALUA (model: fa420-ac or tpgs: implicit)");
	if ((a->host_streams || a->host_sessions) && strcmp(a->time_scale, "virtual"))
		fail(p, n, path, "host_streams needs time_scale: virtual");
}

/* "array.lun", or "lun" when there is one array */
static struct scn_lunref get_lunref(struct pctx *p, const yaml_node_t *n, const char *key)
{
	const char *s = str(p, n, key);
	const char *dot = strchr(s, '.');
	struct scn_model *m = p->m;
	int ai = -1;
	if (dot) {
		for (unsigned i = 0; i < m->n_arrays; i++)
			if (strlen(m->arrays[i].name) == (size_t)(dot - s) && !strncmp(m->arrays[i].name, s, (size_t)(dot - s)))
				ai = (int)i;
		if (ai < 0)
			fail(p, n, key, "'%s': no array '%.*s'", s, (int)(dot - s), s);
		dot++;
	} else {
		if (m->n_arrays != 1)
			fail(p, n, key, "'%s': name the array too (ARRAY.LUN): there are %u arrays", s, m->n_arrays);
		ai = 0;
		dot = s;
	}
	const struct scn_array *a = &m->arrays[ai];
	for (unsigned l = 0; l < a->n_luns; l++)
		if (!strcmp(a->luns[l].name, dot))
			return (struct scn_lunref){ ai, (int)l };
	fail(p, n, key, "'%s': array %s has no LUN '%s'", s, a->name, dot);
}

static int find_array(struct pctx *p, const yaml_node_t *n, const char *key)
{
	const char *s = str(p, n, key);
	for (unsigned i = 0; i < p->m->n_arrays; i++)
		if (!strcmp(p->m->arrays[i].name, s))
			return (int)i;
	fail(p, n, key, "'%s': no such array", s);
}

static int find_work(struct pctx *p, const yaml_node_t *n, const char *key)
{
	const char *s = str(p, n, key);
	for (unsigned i = 0; i < p->m->n_work; i++)
		if (!strcmp(p->m->work[i].name, s))
			return (int)i;
	fail(p, n, key, "'%s': no such workload", s);
}

/* ---- workloads ---- */

static const char *const kind_keys[] = {
	[SCN_W_VERIFY] = "kind, start, lun, bs, size, offset, sync_every, reconnect, seed, read_only, reread_for",
	[SCN_W_CLONE] = "kind, start, lun, dest, array, template_size, chunk, clones, mode, job",
	[SCN_W_SCALE] = "kind, start, lun, vms, bs, qd, duration, warmup, commands, keep_going, write, random, data",
	[SCN_W_RUN] = "kind, start, command",
	[SCN_W_DRR] = "kind, start, lun, size, image",
};

static bool key_in(const char *key, const char *list)
{
	size_t kl = strlen(key);
	for (const char *s = list; *s;) {
		size_t l = strcspn(s, ",");
		if (l == kl && !strncmp(s, key, l))
			return true;
		s += l;
		s += strspn(s, ", ");
	}
	return false;
}

static const char *const kind_names[] = { "verify", "clone", "scale", "run", "drr" };

static void parse_work(struct pctx *p, struct scn_work *w, const yaml_node_t *n, const char *path)
{
	check_mapping(p, n, path);
	w->mark = mark_of(n);
	w->lun = w->dest = (struct scn_lunref){ -1, -1 };
	w->bs = 64 << 10;
	w->size = 4 << 20;
	w->reconnect_s = 30;
	w->sync_every = 16;
	w->template_size = 16 << 20;
	w->chunk = 1 << 20;
	w->clones = 2;
	strcpy(w->mode, "auto");
	w->vms = 1;
	w->qd = 1;
	w->duration_s = 2;
	strcpy(w->data, "unique");
	int kind = -1;
	EACH_PAIR(p, n, key, k, v) {
		if (strcmp(key, "kind"))
			continue;
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, key);
		const char *s = str(p, v, kp);
		for (int i = 0; i < 5; i++)
			if (!strcmp(s, kind_names[i]))
				kind = i;
		if (kind < 0)
			fail(p, v, kp, "'%s': expected verify, clone, scale, drr or run", s);
	}
	if (kind < 0)
		fail(p, n, path, "missing kind (verify, clone, scale, drr or run)");
	w->kind = (enum scn_work_kind)kind;
	bool have_lun = false, have_duration = false, have_warmup = false;
	const yaml_node_t *commands_mark = NULL, *reread_mark = NULL;
	int snap_array = -1;
	const yaml_node_t *snap_mark = NULL;
	EACH_PAIR(p, n, key, k, v) {
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, key);
		if (!key_in(key, kind_keys[kind])) {
			if (key_in(key, "start, lun, dest, array, bs, size, offset, sync_every, reconnect, template_size, chunk, clones, "
					"mode, job, vms, qd, duration, warmup, commands, keep_going, write, random, data, command, image, "
					"seed, read_only, reread_for"))
				fail(p, k, kp, "not a key of a %s workload (known: %s)", kind_names[kind], kind_keys[kind]);
			unknown(p, k, path, key, kind_keys[kind]);
		}
		if (!strcmp(key, "kind")) {
		} else if (!strcmp(key, "start")) {
			w->start_mark = mark_of(v);
			if (v->type == YAML_SCALAR_NODE && !strcmp((const char *)v->data.scalar.value, "event"))
				w->start_by_event = true;
			else
				w->start_s = get_duration(p, v, kp);
		} else if (!strcmp(key, "lun")) {
			w->lun = get_lunref(p, v, kp);
			have_lun = true;
		} else if (!strcmp(key, "dest")) {
			w->dest = get_lunref(p, v, kp);
		} else if (!strcmp(key, "array")) {
			snap_array = find_array(p, v, kp);
			snap_mark = v;
		} else if (!strcmp(key, "bs")) {
			w->bs = get_size(p, v, kp);
		} else if (!strcmp(key, "size")) {
			w->size = get_size(p, v, kp);
		} else if (!strcmp(key, "offset")) {
			const char *s = str(p, v, kp);
			if (strcmp(s, "0") && !ll_size_parse(s, 0, &w->offset))
				fail(p, v, kp, "'%s': expected a size", s);
		} else if (!strcmp(key, "sync_every")) {
			w->sync_every = (unsigned)get_uint(p, v, kp, 0, 1u << 20);
		} else if (!strcmp(key, "reconnect")) {
			w->reconnect_s = get_duration(p, v, kp);
		} else if (!strcmp(key, "seed")) {
			w->seed = get_uint(p, v, kp, 0, UINT64_MAX);
			w->own_seed = true;
		} else if (!strcmp(key, "read_only")) {
			w->read_only = get_bool(p, v, kp);
		} else if (!strcmp(key, "reread_for")) {
			w->reread_s = get_duration(p, v, kp);
			reread_mark = v;
		} else if (!strcmp(key, "template_size")) {
			w->template_size = get_size(p, v, kp);
		} else if (!strcmp(key, "chunk")) {
			w->chunk = get_size(p, v, kp);
		} else if (!strcmp(key, "job")) {
			w->job = get_size(p, v, kp);
		} else if (!strcmp(key, "clones")) {
			w->clones = (unsigned)get_uint(p, v, kp, 1, 10000);
		} else if (!strcmp(key, "mode")) {
			copy_str(p, v, kp, w->mode, sizeof(w->mode));
			if (strcmp(w->mode, "auto") && strcmp(w->mode, "xcopy") && strcmp(w->mode, "odx") &&
			    strcmp(w->mode, "software") && strcmp(w->mode, "snapshot"))
				fail(p, v, kp, "'%s': expected auto, xcopy, odx, software or snapshot", w->mode);
		} else if (!strcmp(key, "vms")) {
			w->vms = (unsigned)get_uint(p, v, kp, 1, 1000);
		} else if (!strcmp(key, "qd")) {
			w->qd = (unsigned)get_uint(p, v, kp, 1, 256);
		} else if (!strcmp(key, "duration")) {
			w->duration_s = get_duration(p, v, kp);
			have_duration = true;
			if (w->duration_s <= 0)
				fail(p, v, kp, "must be above 0");
		} else if (!strcmp(key, "warmup")) {
			w->warmup_s = get_duration(p, v, kp);
			have_warmup = true;
		} else if (!strcmp(key, "commands")) {
			w->commands = (unsigned)get_uint(p, v, kp, 1, 1000000);
			commands_mark = v;
		} else if (!strcmp(key, "keep_going")) {
			w->keep_going = get_bool(p, v, kp);
		} else if (!strcmp(key, "write")) {
			w->write = get_bool(p, v, kp);
		} else if (!strcmp(key, "random")) {
			w->random = get_bool(p, v, kp);
		} else if (!strcmp(key, "data")) {
			copy_str(p, v, kp, w->data, sizeof(w->data));
			if (strcmp(w->data, "unique") && strcmp(w->data, "repeat") && strcmp(w->data, "zero") &&
			    strcmp(w->data, "win10"))
				fail(p, v, kp, "'%s': expected unique, repeat, zero or win10", w->data);
		} else if (!strcmp(key, "image")) {
			copy_str(p, v, kp, w->image, sizeof(w->image));
		} else if (!strcmp(key, "command")) {
			copy_str(p, v, kp, w->command, sizeof(w->command));
			if (!w->command[0])
				fail(p, v, kp, "empty command");
		}
	}
	if (kind == SCN_W_CLONE && !strcmp(w->mode, "snapshot")) {
		/* clone by snapshot: the runner makes the template volume through the array's API
		 * (a volume, not one of its luns:), so the workload names the array only */
		if (have_lun || w->dest.array >= 0)
			fail(p, n, path, "mode: snapshot clones a volume the runner makes through the API: "
					 "name the array (array: NAME), not lun or dest");
		if (snap_array < 0 && p->m->n_arrays > 1)
			fail(p, n, path, "mode: snapshot: name the array (array: NAME)");
		if (snap_array < 0)
			snap_array = 0;
		const struct scn_array *a = &p->m->arrays[snap_array];
		if (a->external)
			fail(p, snap_mark ? snap_mark : n, path, "mode: snapshot needs an array the runner starts (array %s is url:)",
			     a->name);
		w->lun = (struct scn_lunref){ snap_array, -1 };
		return;
	}
	if (snap_array >= 0)
		fail(p, snap_mark, path, "array: is for mode: snapshot (other clones name their lun)");
	if (kind != SCN_W_RUN && !have_lun)
		fail(p, n, path, "missing lun (ARRAY.LUN)");
	if (kind == SCN_W_RUN && !w->command[0])
		fail(p, n, path, "missing command");
	/* a fixed number of commands per VM has no window: duration and warmup say nothing */
	if (commands_mark && (have_duration || have_warmup))
		fail(p, commands_mark, path, "commands replaces duration and warmup (a fixed number of commands per VM, "
					     "no time window): give one or the other");
	if (reread_mark && !w->read_only)
		fail(p, reread_mark, path, "reread_for is for a read_only stream (a writer reads back what it wrote, once)");
	if (kind == SCN_W_VERIFY) {
		const struct scn_lun *l = &p->m->arrays[w->lun.array].luns[w->lun.lun];
		if (w->bs % l->block || w->size % w->bs || w->offset % l->block)
			fail(p, n, path, "bs must be a multiple of the LUN's %u-byte block, size and offset of bs", l->block);
		if (w->offset + w->size > l->size)
			fail(p, n, path, "offset + size (%llu) is beyond LUN %s (%llu bytes)",
			     (unsigned long long)(w->offset + w->size), l->name, (unsigned long long)l->size);
	}
	if (kind == SCN_W_DRR && !w->image[0]) {
		const struct scn_lun *l = &p->m->arrays[w->lun.array].luns[w->lun.lun];
		if (w->size > l->size)
			fail(p, n, path, "size %llu is beyond LUN %s (%llu bytes)", (unsigned long long)w->size, l->name,
			     (unsigned long long)l->size);
	}
	if (kind == SCN_W_CLONE) {
		const struct scn_lun *src = &p->m->arrays[w->lun.array].luns[w->lun.lun];
		const struct scn_lun *dst = w->dest.array >= 0 ? &p->m->arrays[w->dest.array].luns[w->dest.lun] : src;
		uint64_t need = w->template_size * (w->clones + (w->dest.array < 0 ? 1 : 0));
		if (need > dst->size)
			fail(p, n, path, "%u clones of %llu bytes do not fit on LUN %s (%llu bytes)", w->clones,
			     (unsigned long long)w->template_size, dst->name, (unsigned long long)dst->size);
	}
}

/* ---- timeline ---- */

static void parse_when(struct pctx *p, struct scn_event *e, const yaml_node_t *n, const char *path)
{
	check_mapping(p, n, path);
	bool metric = false, work = false, have_min = false, fin = false, after = false, delay = false, api = false,
	     match = false;
	EACH_PAIR(p, n, key, k, v) {
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, key);
		if (!strcmp(key, "metric")) {
			copy_str(p, v, kp, e->metric, sizeof(e->metric));
			metric = true;
		} else if (!strcmp(key, "min")) {
			e->min = get_number(p, v, kp);
			have_min = true;
		} else if (!strcmp(key, "workload")) {
			e->work = find_work(p, v, kp);
			work = true;
		} else if (!strcmp(key, "progress")) {
			const char *s = str(p, v, kp);
			char *end;
			double f = strtod(s, &end);
			if (end == s || strcmp(end, "%") || f <= 0 || f > 100)
				fail(p, v, kp, "'%s': expected a percentage (50%%)", s);
			e->min = f / 100;
			have_min = true;
		} else if (!strcmp(key, "finished")) {
			if (!get_bool(p, v, kp))
				fail(p, v, kp, "only 'finished: true' is a condition");
			fin = true;
		} else if (!strcmp(key, "after")) {
			const char *s = str(p, v, kp);
			e->after = -1;
			for (int i = 0; i < (int)(e - p->m->events); i++)
				if (!strcmp(p->m->events[i].name, s))
					e->after = i;
			if (e->after < 0)
				fail(p, v, kp, "'%s': no event named so earlier in the timeline", s);
			after = true;
		} else if (!strcmp(key, "delay")) {
			e->delay_s = get_duration(p, v, kp);
			delay = true;
		} else if (!strcmp(key, "api")) {
			get_api_path(p, v, kp, e->metric, sizeof(e->metric));
			api = true;
		} else if (!strcmp(key, "match")) {
			get_regex(p, v, kp, e->match, sizeof(e->match));
			match = true;
		} else {
			unknown(p, k, path, key, "metric, min, workload, progress, finished, after, delay, api, match");
		}
	}
	if (api != match)
		fail(p, n, path, "api: PATH goes with match: REGEX (what its answer must contain)");
	if (api) {
		if (metric || work || have_min || fin || after || delay)
			fail(p, n, path, "api: is a condition of its own (with match:)");
		e->cond = SCN_C_API;
		return;
	}
	if (delay && !after)
		fail(p, n, path, "delay goes with after: EVENT");
	if (after) {
		if (metric || work || have_min || fin)
			fail(p, n, path, "after: is a condition of its own (with delay:), not with a metric or a workload");
		e->cond = SCN_C_AFTER;
		return;
	}
	if (metric == work)
		fail(p, n, path, "name either a metric (with min), a workload (with progress or finished) or an event (after)");
	if (metric) {
		if (!have_min)
			fail(p, n, path, "missing min (the value the metric must reach)");
		e->cond = SCN_C_METRIC;
	} else {
		if (have_min == fin)
			fail(p, n, path, "give progress: N%% or finished: true");
		e->cond = fin ? SCN_C_FINISHED : SCN_C_PROGRESS;
		if (!fin && p->m->work[e->work].kind != SCN_W_VERIFY)
			fail(p, n, path, "workload %s: progress is known for verify workloads only (use finished: true)",
			     p->m->work[e->work].name);
	}
}

/* volume: {name, size}, snapshot: {volume, name, readonly}, resize: {volume, size}: the
 * array's XMS API (docs/api.md) said in a line; each becomes the api: request it stands for,
 * so the run, its timeline and its errors are the api: action's.  The array name fills in
 * cluster-id later (e->array may still be unknown here). */
static void parse_volume_action(struct pctx *p, struct scn_event *e, const char *key, const yaml_node_t *v,
				const char *kp)
{
	char vol[64] = "", name[64] = "";
	uint64_t size = 0;
	int readonly = 0;
	const char *known = !strcmp(key, "volume") ? "name, size" : !strcmp(key, "snapshot") ? "volume, name, readonly"
											     : "volume, size";
	check_mapping(p, v, kp);
	EACH_PAIR(p, v, ak, k2, v2) {
		char ap[SCN_TEXT];
		path_key(ap, sizeof(ap), kp, ak);
		if (!key_in(ak, known))
			unknown(p, k2, kp, ak, known);
		if (!strcmp(ak, "size")) {
			size = get_size(p, v2, ap);
			if (size % 1024)
				fail(p, v2, ap, "must be a multiple of 1k");
		} else if (!strcmp(ak, "readonly")) {
			readonly = get_bool(p, v2, ap);
		} else {
			char *dst = !strcmp(ak, "volume") ? vol : name;
			copy_str(p, v2, ap, dst, 64);
			/* no quote or escape can reach the request body */
			if (!dst[0] || strspn(dst, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(dst))
				fail(p, v2, ap, "'%s': a volume or snapshot name here is 1..63 of a-z 0-9 _", dst);
		}
	}
	e->kind = SCN_E_API;
	if (!strcmp(key, "volume")) {
		if (!name[0] || !size)
			fail(p, v, kp, "needs name and size");
		strcpy(e->method, "POST");
		strcpy(e->path, "/api/json/v2/types/volumes");
		snprintf(e->body, sizeof(e->body), "{\"vol-name\": \"%s\", \"vol-size\": \"%lluk\", \"cluster-id\": \"%%ARRAY%%\"}",
			 name, (unsigned long long)(size / 1024));
	} else if (!strcmp(key, "snapshot")) {
		if (!vol[0] || !name[0])
			fail(p, v, kp, "needs volume and name");
		strcpy(e->method, "POST");
		strcpy(e->path, "/api/json/v2/types/snapshots");
		/* one snapshot set named NAME; the snapshot itself is VOLUME.NAME */
		snprintf(e->body, sizeof(e->body), "{\"volume-list\": [\"%s\"], \"snapshot-set-name\": \"%s\", "
			 "\"snap-suffix\": \"%s\", \"snapshot-type\": \"%s\"}", vol, name, name, readonly ? "readonly" : "regular");
	} else {
		if (!vol[0] || !size)
			fail(p, v, kp, "needs volume and size");
		strcpy(e->method, "PUT");
		snprintf(e->path, sizeof(e->path), "/api/json/v2/types/volumes?name=%s", vol);
		snprintf(e->body, sizeof(e->body), "{\"vol-size\": \"%lluk\"}", (unsigned long long)(size / 1024));
	}
}

/* refresh: {volume: V, from: SOURCE, backup: B}: XMS's snapshot refresh (docs/api.md
 * "Snapshot refresh and restore"), V's data replaced in place by SOURCE's (a volume or a
 * snapshot: `snapshot:` makes VOLUME.NAME, so a dot is allowed there); backup (default
 * true, as XMS) keeps V's data first as the snapshot V.backup.TIME.N. */
static void parse_refresh_action(struct pctx *p, struct scn_event *e, const yaml_node_t *v, const char *kp)
{
	char vol[64] = "", from[130] = "";
	int backup = 1;

	check_mapping(p, v, kp);
	EACH_PAIR(p, v, ak, k2, v2) {
		char ap[SCN_TEXT];
		path_key(ap, sizeof(ap), kp, ak);
		if (!strcmp(ak, "backup")) {
			backup = get_bool(p, v2, ap);
		} else if (!strcmp(ak, "volume") || !strcmp(ak, "from")) {
			bool is_from = !strcmp(ak, "from");
			char *dst = is_from ? from : vol;
			copy_str(p, v2, ap, dst, is_from ? sizeof(from) : sizeof(vol));
			/* no quote or escape can reach the request body */
			if (!dst[0] || strspn(dst, is_from ? "abcdefghijklmnopqrstuvwxyz0123456789_."
							   : "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(dst))
				fail(p, v2, ap, "'%s': a volume name here is 1..63 of a-z 0-9 _%s", dst,
				     is_from ? " (and . in a snapshot's VOLUME.NAME)" : "");
		} else {
			unknown(p, k2, kp, ak, "volume, from, backup");
		}
	}
	if (!vol[0] || !from[0])
		fail(p, v, kp, "needs volume and from");
	e->kind = SCN_E_API;
	strcpy(e->method, "POST");
	strcpy(e->path, "/api/json/v2/types/snapshots");
	snprintf(e->body, sizeof(e->body), "{\"from-volume-id\": \"%s\", \"to-volume-id\": \"%s\", \"no-backup\": %s}",
		 from, vol, backup ? "false" : "true");
}

/* capacity: {size: SIZE, soft_threshold: P}: the array's physical capacity changes during
 * the run (PUT /api/lunlab/arrays/NAME, docs/api.md); without soft_threshold the
 * threshold keeps its share of the capacity. */
static void parse_capacity_action(struct pctx *p, struct scn_event *e, const yaml_node_t *v, const char *kp)
{
	uint64_t size = 0;
	int soft = -1;

	check_mapping(p, v, kp);
	EACH_PAIR(p, v, ak, k2, v2) {
		char ap[SCN_TEXT];
		path_key(ap, sizeof(ap), kp, ak);
		if (!strcmp(ak, "size")) {
			size = get_size(p, v2, ap);
			if (size < (1u << 20))
				fail(p, v2, ap, "%llu: at least 1M", (unsigned long long)size);
		} else if (!strcmp(ak, "soft_threshold")) {
			soft = get_percent(p, v2, ap);
		} else {
			unknown(p, k2, kp, ak, "size, soft_threshold");
		}
	}
	if (!size && soft < 0)
		fail(p, v, kp, "needs size, soft_threshold or both");
	e->kind = SCN_E_API;
	strcpy(e->method, "PUT");
	strcpy(e->path, "/api/lunlab/arrays/%ARRAY%");
	int n = snprintf(e->body, sizeof(e->body), "{");
	if (size)
		n += snprintf(e->body + n, sizeof(e->body) - (size_t)n, "\"capacity\": %llu", (unsigned long long)size);
	if (soft >= 0)
		snprintf(e->body + n, sizeof(e->body) - (size_t)n, "%s\"soft-threshold\": %d", size ? ", " : "", soft);
	strcat(e->body, "}");
}

/* Whether a fault SPEC has the hold action (a key "hold" among its comma-separated ones):
 * only such a rule holds commands a release could let go. */
static bool spec_holds(const char *spec)
{
	for (const char *k = spec; k && *k; k = strchr(k, ',') ? strchr(k, ',') + 1 : NULL) {
		size_t n = strcspn(k, ",");
		while (n && k[n - 1] == ' ')
			n--;
		while (n && *k == ' ')
			k++, n--;
		if (n == 4 && !strncmp(k, "hold", 4))
			return true;
	}
	return false;
}

static void parse_event(struct pctx *p, struct scn_event *e, const yaml_node_t *n, const char *path)
{
	static const char actions[] = "fault, fault_off, release, faults_clear, portal_down, portal_up, alua, kill, restart, pause, "
				      "start_workload, api, volume, snapshot, resize, refresh, capacity";
	struct scn_model *m = p->m;
	check_mapping(p, n, path);
	e->mark = mark_of(n);
	e->array = m->n_arrays == 1 ? 0 : -1;
	e->lun = -1;
	e->pref = -1;
	e->ref = -1;
	e->start = -1;
	int nconds = 0, nacts = 0;
	const yaml_node_t *act = NULL;
	EACH_PAIR(p, n, key, k, v) {
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, key);
		if (!strcmp(key, "at")) {
			e->cond = SCN_C_TIME;
			e->at_s = get_duration(p, v, kp);
			nconds++;
		} else if (!strcmp(key, "when")) {
			parse_when(p, e, v, kp);
			nconds++;
		} else if (!strcmp(key, "array")) {
			e->array = find_array(p, v, kp);
		} else if (!strcmp(key, "name")) {
			copy_str(p, v, kp, e->name, sizeof(e->name));
		} else if (key_in(key, actions)) {
			if (nacts++)
				fail(p, k, kp, "one action per event (this one has %s too)",
				     (const char *)act->data.scalar.value);
			act = k;
			if (!strcmp(key, "fault")) {
				e->kind = SCN_E_FAULT;
				copy_str(p, v, kp, e->spec, sizeof(e->spec));
			} else if (!strcmp(key, "fault_off") || !strcmp(key, "release")) {
				e->kind = key[0] == 'f' ? SCN_E_FAULT_OFF : SCN_E_RELEASE;
				const char *s = str(p, v, kp);
				for (int i = (int)(e - m->events) - 1; i >= 0; i--)
					if (!strcmp(m->events[i].name, s))
						e->ref = i;
				if (e->ref < 0 || m->events[e->ref].kind != SCN_E_FAULT)
					fail(p, v, kp, "'%s': no fault named so earlier in the timeline", s);
				if (e->kind == SCN_E_RELEASE && !spec_holds(m->events[e->ref].spec))
					fail(p, v, kp, "'%s': its rule holds nothing (no hold in '%s'): release lets held commands go",
					     s, m->events[e->ref].spec);
			} else if (!strcmp(key, "faults_clear")) {
				e->kind = SCN_E_FAULTS_CLEAR;
				if (!get_bool(p, v, kp))
					fail(p, v, kp, "only 'faults_clear: true' is an action");
			} else if (!strcmp(key, "portal_down") || !strcmp(key, "portal_up")) {
				e->kind = SCN_E_PORTAL;
				e->up = !strcmp(key, "portal_up");
				e->portal = (unsigned)get_uint(p, v, kp, 1, SCN_MAX_PORTALS);
			} else if (!strcmp(key, "alua")) {
				e->kind = SCN_E_ALUA;
				check_mapping(p, v, kp);
				bool have_tpg = false, have_state = false;
				EACH_PAIR(p, v, ak, k2, v2) {
					char ap[SCN_TEXT];
					path_key(ap, sizeof(ap), kp, ak);
					if (!strcmp(ak, "lun")) {
						e->lun = (int)get_uint(p, v2, ap, 0, 16383);
					} else if (!strcmp(ak, "tpg")) {
						e->tpg = (unsigned)get_uint(p, v2, ap, 1, SCN_MAX_PORTALS);
						have_tpg = true;
					} else if (!strcmp(ak, "state")) {
						copy_str(p, v2, ap, e->state, sizeof(e->state));
						if (!key_in(e->state, "active/optimized, active/non-optimized, standby, unavailable, ao, ano"))
							fail(p, v2, ap, "'%s': expected ao, ano, standby or unavailable", e->state);
						have_state = true;
					} else if (!strcmp(ak, "pref")) {
						e->pref = get_bool(p, v2, ap);
					} else if (!strcmp(ak, "transition")) {
						e->transition_ms = (unsigned)(get_duration(p, v2, ap) * 1000 + 0.5);
					} else {
						unknown(p, k2, kp, ak, "lun, tpg, state, pref, transition");
					}
				}
				if (!have_tpg || !have_state)
					fail(p, v, kp, "needs tpg and state");
			} else if (!strcmp(key, "kill")) {
				e->kind = SCN_E_KILL;
				if (!get_bool(p, v, kp))
					fail(p, v, kp, "only 'kill: true' is an action");
			} else if (!strcmp(key, "restart")) {
				e->kind = SCN_E_RESTART;
				if (!get_bool(p, v, kp))
					fail(p, v, kp, "only 'restart: true' is an action");
			} else if (!strcmp(key, "api")) {
				e->kind = SCN_E_API;
				check_mapping(p, v, kp);
				EACH_PAIR(p, v, ak, k2, v2) {
					char ap[SCN_TEXT];
					path_key(ap, sizeof(ap), kp, ak);
					if (!strcmp(ak, "method")) {
						copy_str(p, v2, ap, e->method, sizeof(e->method));
						if (!key_in(e->method, "GET, POST, PUT, DELETE"))
							fail(p, v2, ap, "'%s': expected GET, POST, PUT or DELETE", e->method);
					} else if (!strcmp(ak, "path")) {
						get_api_path(p, v2, ap, e->path, sizeof(e->path));
					} else if (!strcmp(ak, "body")) {
						copy_str(p, v2, ap, e->body, sizeof(e->body));
						json_object *j = json_tokener_parse(e->body);
						if (!j)
							fail(p, v2, ap, "not JSON");
						json_object_put(j);
					} else {
						unknown(p, k2, kp, ak, "method, path, body");
					}
				}
				if (!e->method[0] || !e->path[0])
					fail(p, v, kp, "needs method and path");
			} else if (!strcmp(key, "volume") || !strcmp(key, "snapshot") || !strcmp(key, "resize")) {
				parse_volume_action(p, e, key, v, kp);
			} else if (!strcmp(key, "refresh")) {
				parse_refresh_action(p, e, v, kp);
			} else if (!strcmp(key, "capacity")) {
				parse_capacity_action(p, e, v, kp);
			} else if (!strcmp(key, "start_workload")) {
				e->kind = SCN_E_START;
				e->start = find_work(p, v, kp);
				if (!m->work[e->start].start_by_event)
					fail(p, v, kp, "workload %s starts at a time; write start: event in it", m->work[e->start].name);
				for (unsigned i = 0; i < (unsigned)(e - m->events); i++)
					if (m->events[i].kind == SCN_E_START && m->events[i].start == e->start)
						fail(p, v, kp, "workload %s is started by timeline[%u] already", m->work[e->start].name, i);
			} else if (!strcmp(key, "pause")) {
				e->kind = SCN_E_PAUSE;
				e->pause_s = get_duration(p, v, kp);
				if (e->pause_s <= 0)
					fail(p, v, kp, "must be above 0");
			}
		} else {
			unknown(p, k, path, key, "at, when, array, name, fault, fault_off, release, faults_clear, portal_down, portal_up, "
						 "alua, kill, restart, pause, start_workload, api, volume, snapshot, resize, "
						 "refresh, capacity");
		}
	}
	if (nconds != 1)
		fail(p, n, path, nconds ? "give at: or when:, not both" : "missing at: (a time) or when: (a condition)");
	if (!nacts)
		fail(p, n, path, "missing the action (one of %s)", actions);
	if (e->cond == SCN_C_TIME && e->at_s >= m->timeout_s)
		fail(p, n, path, "at %.3gs is not before the scenario's timeout (%.3gs)", e->at_s, m->timeout_s);
	for (unsigned i = 0; e->name[0] && i < (unsigned)(e - m->events); i++)
		if (!strcmp(m->events[i].name, e->name))
			fail(p, n, path, "name %s is timeline[%u]'s already", e->name, i);
	if (e->kind == SCN_E_START && e->cond != SCN_C_METRIC)
		return; /* no array in it */
	if (e->array < 0)
		fail(p, n, path, "name the array (array: NAME): there are %u", m->n_arrays);
	const struct scn_array *a = &m->arrays[e->array];
	const char *an = (const char *)act->data.scalar.value;
	if (e->kind == SCN_E_START)
		return;
	char *slot = e->kind == SCN_E_API ? strstr(e->body, "%ARRAY%") : NULL;
	if (slot) { /* volume: the runner's arrays are their API's cluster of the same name */
		char tail[SCN_TEXT * 2];
		snprintf(tail, sizeof(tail), "%s", slot + 7);
		snprintf(slot, sizeof(e->body) - (size_t)(slot - e->body), "%s%s", a->external ? "" : a->name, tail);
		if (a->external) { /* an existing target: its first cluster (no cluster-id) */
			char *c = strstr(e->body, ", \"cluster-id\": \"\"");
			if (c)
				memmove(c, c + 18, strlen(c + 18) + 1);
		}
	}
	char *pslot = e->kind == SCN_E_API ? strstr(e->path, "%ARRAY%") : NULL;
	if (pslot) { /* capacity: the runner's array NAME is the handler's array NAME */
		if (a->external)
			fail(p, act, an, "array %s is an existing target (url:): its array's name is not known here; "
			     "use an api: action (PUT /api/lunlab/arrays/NAME)", a->name);
		char tail[SCN_TEXT];
		snprintf(tail, sizeof(tail), "%s", pslot + 7);
		snprintf(pslot, sizeof(e->path) - (size_t)(pslot - e->path), "%s%s", a->name, tail);
	}
	if (a->external && (e->kind == SCN_E_KILL || e->kind == SCN_E_RESTART || e->kind == SCN_E_PAUSE))
		fail(p, act, an, "array %s is an existing target (url:): the runner cannot kill, restart or pause it", a->name);
	if (a->external && !a->api_url[0] && e->kind != SCN_E_KILL)
		fail(p, act, an, "array %s has no api: (the runner changes faults, portals and ALUA through it)", a->name);
	if (e->kind == SCN_E_PORTAL && !a->external && e->portal > a->portals)
		fail(p, act, an, "array %s has %u portal(s)", a->name, a->portals);
	if (e->kind == SCN_E_ALUA && !a->external && !array_has_alua(a))
		fail(p, act, an, "array %s reports no ALUA (model: fa420-ac or tpgs: implicit)", a->name);
	if (e->kind == SCN_E_ALUA && !a->external && e->tpg > a->portals)
		fail(p, act, an, "array %s has %u portal group(s)", a->name, a->portals);
	if (e->kind == SCN_E_ALUA && e->lun >= 0 && !a->external && (unsigned)e->lun >= a->n_luns)
		fail(p, act, an, "array %s has no LUN %d", a->name, e->lun);
	if (e->kind == SCN_E_RESTART && !a->state_dir)
		fail(p, act, an, "array %s has no state_dir: a restart would find it empty", a->name);
	if ((e->cond == SCN_C_METRIC || e->cond == SCN_C_API) && a->external && !a->api_url[0])
		fail(p, n, path, "array %s has no api: to read its metrics from", a->name);
}

/* Kill and restart must alternate per array in time order: timed events are ordered by
 * time, conditional ones by their place in the file (they fire after the time ones only
 * if the file says so; a restart before any kill cannot happen). */
static void check_timeline(struct pctx *p)
{
	struct scn_model *m = p->m;
	for (unsigned ai = 0; ai < m->n_arrays; ai++) {
		int order[SCN_MAX_EVENTS], n = 0;
		for (unsigned i = 0; i < m->n_events; i++)
			if ((int)ai == m->events[i].array &&
			    (m->events[i].kind == SCN_E_KILL || m->events[i].kind == SCN_E_RESTART))
				order[n++] = (int)i;
		/* timed ones by time (stable), conditional ones keep their file position */
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0; j--) {
				struct scn_event *x = &m->events[order[j - 1]], *y = &m->events[order[j]];
				if (x->cond == SCN_C_TIME && y->cond == SCN_C_TIME && y->at_s < x->at_s) {
					int t = order[j];
					order[j] = order[j - 1];
					order[j - 1] = t;
				}
			}
		bool down = false;
		for (int i = 0; i < n; i++) {
			struct scn_event *e = &m->events[order[i]];
			char key[32];
			snprintf(key, sizeof(key), "timeline[%d]", order[i]);
			if (e->kind == SCN_E_RESTART && !down)
				fail_at(p, e->mark, key, "restart of array %s with no kill before it", m->arrays[ai].name);
			if (e->kind == SCN_E_KILL && down)
				fail_at(p, e->mark, key, "kill of array %s while it is already killed (no restart between)",
					m->arrays[ai].name);
			down = e->kind == SCN_E_KILL;
		}
	}
	for (unsigned i = 0; i < m->n_work; i++) {
		bool started = false;
		for (unsigned e = 0; e < m->n_events; e++)
			started |= m->events[e].kind == SCN_E_START && m->events[e].start == (int)i;
		char key[64];
		snprintf(key, sizeof(key), "workloads.%s.start", m->work[i].name);
		if (m->work[i].start_by_event && !started)
			fail_at(p, m->work[i].start_mark, key, "no start_workload: %s event in the timeline", m->work[i].name);
	}
	for (unsigned i = 0; i < m->n_work; i++)
		if (m->work[i].start_s >= m->timeout_s) {
			char key[64];
			snprintf(key, sizeof(key), "workloads.%s.start", m->work[i].name);
			fail_at(p, m->work[i].start_mark, key, "%.3gs is not before the scenario's timeout (%.3gs)",
				m->work[i].start_s, m->timeout_s);
		}
}

/* ---- expectations ---- */

__attribute__((format(printf, 2, 3)))
static void set_name(struct scn_expect *x, const char *fmt, ...)
{
	char b[SCN_TEXT];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	memcpy(x->name, b, sizeof(b));
}

static void parse_expect(struct pctx *p, struct scn_expect *x, const yaml_node_t *n, const char *path)
{
	struct scn_model *m = p->m;
	static const char checks[] = "finished, fails_with, verified, saw_sense, duration, json, exit, output, metric, api";
	check_mapping(p, n, path);
	x->mark = mark_of(n);
	x->work = x->array = x->over_work = -1;
	const yaml_node_t *over_mark = NULL;
	int nk = 0;
	const yaml_node_t *ck = NULL, *cv = NULL;
	char label[SCN_TEXT] = "";
	EACH_PAIR(p, n, key, k, v) {
		char kp[SCN_TEXT];
		path_key(kp, sizeof(kp), path, key);
		if (!strcmp(key, "workload")) {
			x->work = find_work(p, v, kp);
		} else if (!strcmp(key, "array")) {
			x->array = find_array(p, v, kp);
		} else if (!strcmp(key, "name")) {
			copy_str(p, v, kp, label, sizeof(label));
		} else if (!strcmp(key, "match")) {
			get_regex(p, v, kp, x->match, sizeof(x->match));
		} else if (!strcmp(key, "skip_if")) {
			copy_str(p, v, kp, x->skip_if, sizeof(x->skip_if));
			if (!x->skip_if[0])
				fail(p, v, kp, "empty path (a dot path of the workload's JSON report: runs.0.machine_limited)");
		} else if (!strcmp(key, "over")) {
			/* over: {workload: W, json: PATH}: the figure divided by another workload's */
			over_mark = k;
			check_mapping(p, v, kp);
			EACH_PAIR(p, v, ok_, k2, v2) {
				char op[SCN_TEXT];
				path_key(op, sizeof(op), kp, ok_);
				if (!strcmp(ok_, "workload"))
					x->over_work = find_work(p, v2, op);
				else if (!strcmp(ok_, "json"))
					copy_str(p, v2, op, x->over_path, sizeof(x->over_path));
				else
					unknown(p, k2, kp, ok_, "workload, json");
			}
			if (x->over_work < 0 || !x->over_path[0])
				fail(p, v, kp, "needs workload and json (the figure to divide by)");
			if (m->work[x->over_work].kind == SCN_W_RUN)
				fail(p, v, kp, "workload %s is a run: workload (no JSON report)", m->work[x->over_work].name);
		} else if (!strcmp(key, "min") || !strcmp(key, "max")) {
			double d = get_number(p, v, kp);
			if (key[1] == 'i')
				x->have_min = true, x->min = d;
			else
				x->have_max = true, x->max = d;
		} else if (key_in(key, checks)) {
			if (nk++)
				fail(p, k, kp, "one check per expectation (this one has %s too)",
				     (const char *)ck->data.scalar.value);
			ck = k;
			cv = v;
		} else {
			unknown(p, k, path, key, "workload, array, name, min, max, match, skip_if, over, finished, fails_with, "
						 "verified, saw_sense, duration, json, exit, output, metric, api");
		}
	}
	if (!ck)
		fail(p, n, path, "missing the check (one of %s)", checks);
	const char *c = (const char *)ck->data.scalar.value;
	char kp[SCN_TEXT];
	path_key(kp, sizeof(kp), path, c);
	bool is_metric = !strcmp(c, "metric") || !strcmp(c, "api");
	if (is_metric) {
		if (x->array < 0 && m->n_arrays == 1)
			x->array = 0;
		if (x->array < 0)
			fail(p, n, path, "name the array (array: NAME)");
		if (x->work >= 0)
			fail(p, n, path, "%s is the array's, not a workload's", c);
	} else {
		if (x->work < 0)
			fail(p, n, path, "name the workload (workload: NAME)");
		if (x->array >= 0)
			fail(p, n, path, "array: is for metric checks");
	}
	bool bounds = !strcmp(c, "metric") || !strcmp(c, "duration") || !strcmp(c, "json");
	if ((!strcmp(c, "api")) != (x->match[0] != 0))
		fail(p, n, path, "match: REGEX goes with api: PATH, and api: needs it");
	if (bounds && !x->have_min && !x->have_max)
		fail(p, n, path, "%s needs min:, max: or both", c);
	if (!bounds && (x->have_min || x->have_max))
		fail(p, n, path, "min/max go with duration, json or metric, not %s", c);
	if (over_mark && strcmp(c, "json"))
		fail(p, over_mark, path, "over: divides a json: figure (not %s)", c);
	const struct scn_work *w = x->work >= 0 ? &m->work[x->work] : NULL;
	if (x->skip_if[0] && (!w || w->kind == SCN_W_RUN))
		fail(p, n, path, "skip_if reads a workload's JSON report (clone, scale, drr, verify)");
	if (!strcmp(c, "finished")) {
		x->kind = SCN_X_STATUS;
		x->want_finished = get_bool(p, cv, kp);
		set_name(x, "workload %s %s", w->name, x->want_finished ? "finishes" : "fails");
	} else if (!strcmp(c, "fails_with") || !strcmp(c, "saw_sense")) {
		x->kind = c[0] == 'f' ? SCN_X_SENSE : SCN_X_SAW_SENSE;
		get_sense(p, cv, kp, x->text);
		if (x->kind == SCN_X_SAW_SENSE && w->kind != SCN_W_VERIFY)
			fail(p, ck, kp, "workload %s: the senses met are known for verify workloads only", w->name);
		set_name(x, x->kind == SCN_X_SENSE ? "workload %s fails with %s" : "workload %s sees %s",
			 w->name, x->text);
	} else if (!strcmp(c, "verified")) {
		x->kind = SCN_X_VERIFIED;
		if (!get_bool(p, cv, kp))
			fail(p, cv, kp, "only 'verified: true' is a check (a corruption expected: fails_with or finished: false)");
		if (w->kind != SCN_W_VERIFY)
			fail(p, ck, kp, "workload %s is a %s workload; verified is for verify workloads", w->name, kind_names[w->kind]);
		set_name(x, w->read_only ? "workload %s: the region holds the seed's data" : "workload %s: acknowledged data verified", w->name);
	} else if (!strcmp(c, "duration")) {
		x->kind = SCN_X_DURATION;
		if (strcmp(str(p, cv, kp), "s"))
			fail(p, cv, kp, "write duration: s (seconds) with min:/max:");
		set_name(x, "workload %s duration", w->name);
	} else if (!strcmp(c, "json")) {
		x->kind = SCN_X_JSON;
		copy_str(p, cv, kp, x->text, sizeof(x->text));
		if (w->kind == SCN_W_RUN)
			fail(p, ck, kp, "workload %s is a run: workload (no JSON report; use output:)", w->name);
		if (x->over_work >= 0)
			set_name(x, "workload %s %s / workload %s %s", w->name, x->text, m->work[x->over_work].name,
				 x->over_path);
		else
			set_name(x, "workload %s %s", w->name, x->text);
	} else if (!strcmp(c, "exit")) {
		x->kind = SCN_X_EXIT;
		x->exit_code = (int)get_uint(p, cv, kp, 0, 255);
		set_name(x, "workload %s exits %d", w->name, x->exit_code);
	} else if (!strcmp(c, "output")) {
		x->kind = SCN_X_OUTPUT;
		copy_str(p, cv, kp, x->text, sizeof(x->text));
		regex_t re;
		if (regcomp(&re, x->text, REG_EXTENDED | REG_NOSUB))
			fail(p, cv, kp, "'%s': not a POSIX extended regular expression", x->text);
		regfree(&re);
		set_name(x, "workload %s output matches /%s/", w->name, x->text);
	} else if (!strcmp(c, "api")) {
		x->kind = SCN_X_API;
		get_api_path(p, cv, kp, x->text, sizeof(x->text));
		set_name(x, "array %s GET %s matches /%s/", m->arrays[x->array].name, x->text, x->match);
		if (m->arrays[x->array].external && !m->arrays[x->array].api_url[0])
			fail(p, ck, kp, "array %s has no api: to ask", m->arrays[x->array].name);
	} else {
		x->kind = SCN_X_METRIC;
		copy_str(p, cv, kp, x->text, sizeof(x->text));
		set_name(x, "array %s %s", m->arrays[x->array].name, x->text);
		if (m->arrays[x->array].external && !m->arrays[x->array].api_url[0])
			fail(p, ck, kp, "array %s has no api: to read its metrics from", m->arrays[x->array].name);
	}
	if (label[0])
		set_name(x, "%s", label);
}

/* ---- the document ---- */

static void parse_root(struct pctx *p, const yaml_node_t *root)
{
	struct scn_model *m = p->m;
	if (!root)
		fail_at(p, (struct scn_mark){ 1, 1 }, "file", "empty: a scenario needs arrays, workloads and expect");
	check_mapping(p, root, "file");
	/* the order of the sections in the file does not matter: names first */
	static const char *const names[] = { "name", "seed", "timeout", "arrays", "workloads", "timeline", "expect" };
	const yaml_node_t *secs[7] = { 0 };
	EACH_PAIR(p, root, key, k, v) {
		int i;
		for (i = 0; i < 7 && strcmp(key, names[i]); i++)
			;
		if (i == 7)
			unknown(p, k, "", key, "name, seed, timeout, arrays, workloads, timeline, expect");
		secs[i] = v;
	}
	const char *base = strrchr(m->file, '/');
	base = base ? base + 1 : m->file;
	memcpy(m->name, base, strlen(base) + 1); /* same size as file */
	char *dot = strrchr(m->name, '.');
	if (dot)
		*dot = 0;
	m->seed = 1;
	m->timeout_s = 120;
	if (secs[0])
		copy_str(p, secs[0], "name", m->name, sizeof(m->name));
	if (secs[1])
		m->seed = get_uint(p, secs[1], "seed", 0, UINT64_MAX);
	if (secs[2]) {
		m->timeout_s = get_duration(p, secs[2], "timeout");
		if (m->timeout_s <= 0)
			fail(p, secs[2], "timeout", "must be above 0");
	}
	if (!secs[3])
		fail(p, root, "arrays", "missing (at least one array)");
	check_mapping(p, secs[3], "arrays");
	EACH_PAIR(p, secs[3], name, k, v) {
		char kp[SCN_TEXT];
		snprintf(kp, sizeof(kp), "arrays.%s", name);
		if (!name_ok(name))
			fail(p, k, kp, "an array name is 1..31 of a-z 0-9 _, not starting with a digit");
		if (m->n_arrays == SCN_MAX_ARRAYS)
			fail(p, k, kp, "at most %d arrays", SCN_MAX_ARRAYS);
		struct scn_array *a = &m->arrays[m->n_arrays++];
		strcpy(a->name, name);
		parse_array(p, a, v, kp);
	}
	if (!m->n_arrays)
		fail(p, secs[3], "arrays", "at least one array");
	if (secs[4]) {
		check_mapping(p, secs[4], "workloads");
		EACH_PAIR(p, secs[4], name, k, v) {
			char kp[SCN_TEXT];
			snprintf(kp, sizeof(kp), "workloads.%s", name);
			if (!name_ok(name))
				fail(p, k, kp, "a workload name is 1..31 of a-z 0-9 _, not starting with a digit");
			if (m->n_work == SCN_MAX_WORK)
				fail(p, k, kp, "at most %d workloads", SCN_MAX_WORK);
			struct scn_work *w = &m->work[m->n_work++];
			strcpy(w->name, name);
			parse_work(p, w, v, kp);
		}
	}
	if (secs[5]) {
		if (secs[5]->type != YAML_SEQUENCE_NODE)
			fail(p, secs[5], "timeline", "expected a sequence of events, got %s", type_name(secs[5]));
		for (yaml_node_item_t *it = secs[5]->data.sequence.items.start; it < secs[5]->data.sequence.items.top; it++) {
			yaml_node_t *e = yaml_document_get_node(p->doc, *it);
			char kp[32];
			snprintf(kp, sizeof(kp), "timeline[%u]", m->n_events);
			if (m->n_events == SCN_MAX_EVENTS)
				fail(p, e, kp, "at most %d events", SCN_MAX_EVENTS);
			parse_event(p, &m->events[m->n_events++], e, kp);
		}
	}
	check_timeline(p);
	if (!secs[6])
		fail(p, root, "expect", "missing (a scenario without expectations proves nothing)");
	if (secs[6]->type != YAML_SEQUENCE_NODE)
		fail(p, secs[6], "expect", "expected a sequence of expectations, got %s", type_name(secs[6]));
	for (yaml_node_item_t *it = secs[6]->data.sequence.items.start; it < secs[6]->data.sequence.items.top; it++) {
		yaml_node_t *x = yaml_document_get_node(p->doc, *it);
		char kp[32];
		snprintf(kp, sizeof(kp), "expect[%u]", m->n_expect);
		if (m->n_expect == SCN_MAX_EXPECT)
			fail(p, x, kp, "at most %d expectations", SCN_MAX_EXPECT);
		parse_expect(p, &m->expect[m->n_expect++], x, kp);
	}
	if (!m->n_expect)
		fail(p, secs[6], "expect", "at least one expectation");
}

int scn_parse_text(const char *name, const char *text, size_t len, struct scn_model *m, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct pctx p = { .file = name, .doc = &doc, .m = m, .err = err, .errlen = errlen };

	memset(m, 0, sizeof(*m));
	snprintf(m->file, sizeof(m->file), "%s", name);
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "%s:%zu:%zu: yaml: %s%s%s", name, parser.problem_mark.line + 1,
			 parser.problem_mark.column + 1, parser.problem ? parser.problem : "syntax error",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	int rc = 0;
	if (setjmp(p.out))
		rc = -1;
	else
		parse_root(&p, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int scn_parse_file(const char *path, struct scn_model *m, char *err, size_t errlen)
{
	const struct ll_read_rules rules = { .max = 1u << 20 };
	char why[512];
	size_t n;
	char *buf = ll_read_file(path, &rules, &n, why, sizeof(why));
	if (!buf) {
		/* why is "PATH: reason": the file's position goes after the path */
		size_t pl = strlen(path);
		snprintf(err, errlen, "%s:1:1: file:%s", path, strncmp(why, path, pl) == 0 ? why + pl + 1 : why);
		return -1;
	}
	int rc = scn_parse_text(path, buf, n, m, err, errlen);
	free(buf);
	return rc;
}
