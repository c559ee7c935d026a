/* metrics_view.c - rates and figures from two /metrics.json snapshots. */
#include "client/metrics_view.h"

#include <json-c/json.h>
#include <string.h>

const char *const mview_kinds[MVIEW_KINDS] = { "read", "write", "xcopy", "write_same", "unmap", "caw", "other" };

static json_object *get(const json_object *o, const char *k)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
		return NULL;
	return v;
}

static double num(const json_object *o, const char *k)
{
	json_object *v = get(o, k);

	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
		       ? json_object_get_double(v) : 0;
}

/* a double as a count: NaN and negatives 0, past 2^64 saturated (no UB cast) */
static uint64_t to_u64(double d)
{
	if (!(d > 0))
		return 0;
	return d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
}

static uint64_t u64(const json_object *o, const char *k)
{
	json_object *v = get(o, k);

	if (!v || !json_object_is_type(v, json_type_int))
		return v && json_object_is_type(v, json_type_double) ? to_u64(json_object_get_double(v)) : 0;
	int64_t x = json_object_get_int64(v);
	return x > 0 ? (uint64_t)x : 0;
}

static void str(const json_object *o, const char *k, char *out, size_t len)
{
	json_object *v = get(o, k);

	snprintf(out, len, "%s", v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "");
}

static size_t alen(const json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static json_object *find_by(const json_object *list, const char *key, const json_object *like)
{
	json_object *want = get(like, key);

	for (size_t i = 0; i < alen(list); i++) {
		json_object *e = json_object_array_get_idx(list, i), *v = get(e, key);

		if (v && want && json_object_equal(v, want))
			return e;
	}
	return NULL;
}

static uint64_t kind_sum(const json_object *lu, const char *field)
{
	json_object *kinds = get(lu, "kinds");
	double t = 0;

	for (int k = 0; k < MVIEW_KINDS; k++)
		t += num(get(kinds, mview_kinds[k]), field);
	return to_u64(t);
}

static double kind_sum_d(const json_object *lu, const char *field)
{
	json_object *kinds = get(lu, "kinds");
	double t = 0;

	for (int k = 0; k < MVIEW_KINDS; k++)
		t += num(get(kinds, mview_kinds[k]), field);
	return t;
}

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0; /* a counter that went back (a new target): no negative rate */
}

static void lu_figures(const json_object *p, const json_object *c, double dt, struct mview_lu *l)
{
	json_object *ck = get(c, "kinds"), *pk = get(p, "kinds");
	uint64_t cmds = 0, mc;
	double lat;

	memset(l, 0, sizeof(*l));
	l->lun = u64(c, "lun");
	str(c, "array", l->array, sizeof(l->array));
	str(c, "volume", l->volume, sizeof(l->volume));
	l->mapped_bytes = u64(c, "mapped_bytes");
	l->observed_latency_s = l->modeled_latency_s = -1;
	if (!p)
		return;
	for (int k = 0; k < MVIEW_KINDS; k++) {
		l->commands[k] = diff(u64(get(ck, mview_kinds[k]), "commands"), u64(get(pk, mview_kinds[k]), "commands"));
		l->wire_bytes[k] = diff(u64(get(ck, mview_kinds[k]), "wire_bytes"), u64(get(pk, mview_kinds[k]), "wire_bytes"));
		cmds += l->commands[k];
	}
	l->cloned_bytes = diff(u64(c, "xcopy_covered_bytes"), u64(p, "xcopy_covered_bytes"));
	lat = kind_sum_d(c, "latency_sum_seconds") - kind_sum_d(p, "latency_sum_seconds");
	if (cmds)
		l->observed_latency_s = lat / (double)cmds;
	mc = diff(u64(get(c, "model"), "commands"), u64(get(p, "model"), "commands"));
	if (mc)
		l->modeled_latency_s = (num(get(c, "model"), "latency_sum_seconds") -
					num(get(p, "model"), "latency_sum_seconds")) / (double)mc;
	if (dt > 0) {
		l->read_bps = (double)l->wire_bytes[0] / dt;
		l->write_bps = (double)l->wire_bytes[1] / dt;
		l->iops = (double)cmds / dt;
		l->cloned_bps = (double)l->cloned_bytes / dt;
		l->xcopy_wire_bps = (double)l->wire_bytes[2] / dt;
	}
}

static void array_figures(const json_object *p, const json_object *c, const json_object *pl,
			  const json_object *cl, double dt, struct mview_array *a)
{
	json_object *cap = get(c, "capacity"), *cm = get(c, "model"), *pm = get(p, "model");
	double lat = 0;
	uint64_t cmds = 0;

	memset(a, 0, sizeof(*a));
	str(c, "name", a->name, sizeof(a->name));
	str(c, "profile", a->profile, sizeof(a->profile));
	a->cpu_pct = a->modeled_latency_s = a->observed_latency_s = -1;
	if (cap) {
		a->have_capacity = true;
		a->logical_bytes = u64(cap, "logical_bytes");
		a->unique_bytes = u64(cap, "unique_bytes");
		a->physical_bytes = u64(cap, "physical_bytes");
		a->used_bytes = u64(cap, "used_bytes");
		a->capacity_bytes = u64(cap, "capacity_bytes");
		a->soft_threshold_bytes = u64(cap, "soft_threshold_bytes");
		a->pending_blocks = u64(cap, "pending_blocks");
		a->dedup_ratio = num(cap, "dedup_ratio");
		a->compression_ratio = num(cap, "compression_ratio");
		a->data_reduction_ratio = num(cap, "data_reduction_ratio");
	}
	a->have_model = cm != NULL;
	if (!p)
		return;
	if (cm && pm) {
		double de = num(cm, "elapsed_seconds") - num(pm, "elapsed_seconds");
		double dc = num(cm, "cpu_seconds") - num(pm, "cpu_seconds");
		double cores = num(cm, "cores");
		uint64_t dn = diff(u64(cm, "commands"), u64(pm, "commands"));

		a->cpu_pct = de > 0 && cores > 0 ? 100.0 * dc / (de * cores) : 0;
		if (a->cpu_pct > 100)
			a->cpu_pct = 100;
		if (dn)
			a->modeled_latency_s = (num(cm, "latency_sum_seconds") - num(pm, "latency_sum_seconds")) / (double)dn;
	}
	for (size_t i = 0; i < alen(cl); i++) {
		json_object *lu = json_object_array_get_idx(cl, i), *plu;
		char arr[64];

		str(lu, "array", arr, sizeof(arr));
		if (strcmp(arr, a->name) || !(plu = find_by(pl, "lun", lu)))
			continue;
		a->cloned_bytes += diff(u64(lu, "xcopy_covered_bytes"), u64(plu, "xcopy_covered_bytes"));
		a->wire_bytes += diff(kind_sum(lu, "wire_bytes"), kind_sum(plu, "wire_bytes"));
		lat += kind_sum_d(lu, "latency_sum_seconds") - kind_sum_d(plu, "latency_sum_seconds");
		cmds += diff(kind_sum(lu, "commands"), kind_sum(plu, "commands"));
	}
	if (cmds)
		a->observed_latency_s = lat / (double)cmds;
	if (dt > 0) {
		a->cloned_bps = (double)a->cloned_bytes / dt;
		a->wire_bps = (double)a->wire_bytes / dt;
	}
}

void mview_compute(const json_object *prev, const json_object *cur, struct mview *v)
{
	json_object *ca = get(cur, "arrays"), *pa = get(prev, "arrays");
	json_object *cl = get(cur, "luns"), *pl = get(prev, "luns");

	memset(v, 0, sizeof(*v));
	v->t = num(cur, "time");
	v->dt = prev ? v->t - num(prev, "time") : 0;
	if (v->dt < 0)
		v->dt = 0;
	v->sessions = u64(get(get(cur, "iscsi"), "sessions"), "normal");
	v->rss_bytes = u64(get(cur, "process"), "rss_bytes");
	for (size_t i = 0; i < alen(ca) && v->narr < MVIEW_MAX; i++) {
		json_object *a = json_object_array_get_idx(ca, i);
		json_object *p = prev ? find_by(pa, "name", a) : NULL;

		array_figures(p, a, pl, cl, v->dt, &v->arr[v->narr++]);
	}
	for (size_t i = 0; i < alen(cl) && v->nlu < MVIEW_MAX; i++) {
		json_object *l = json_object_array_get_idx(cl, i);
		json_object *p = prev ? find_by(pl, "lun", l) : NULL;

		lu_figures(p, l, v->dt, &v->lu[v->nlu++]);
	}
}

static const char *human(double n, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int i = 0;

	while (n >= 1024 && i < 5) {
		n /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", n, u[i]);
	return buf;
}

static const char *lat(double s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "-");
	else if (s < 1e-3)
		snprintf(buf, len, "%.1f us", s * 1e6);
	else
		snprintf(buf, len, "%.2f ms", s * 1e3);
	return buf;
}

void mview_print(FILE *f, const struct mview *v, const char *url)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	fprintf(f, "lunlab watch %s  sessions %llu  target RSS %s%s\n", url, (unsigned long long)v->sessions,
		human((double)v->rss_bytes, b1, sizeof(b1)), v->dt > 0 ? "" : "  (rates from the next reading on)");
	for (unsigned i = 0; i < v->narr; i++) {
		const struct mview_array *a = &v->arr[i];

		fprintf(f, "\narray %s (%s)\n", a->name, a->profile);
		if (a->have_capacity) {
			fprintf(f, "  logical %s  unique %s  physical %s  dedup %.3f:1  compression %.3f:1  "
				   "data reduction %.3f:1%s\n",
				human((double)a->logical_bytes, b1, sizeof(b1)), human((double)a->unique_bytes, b2, sizeof(b2)),
				human((double)a->physical_bytes, b3, sizeof(b3)), a->dedup_ratio, a->compression_ratio,
				a->data_reduction_ratio, a->pending_blocks ? "  (accounting pending)" : "");
			fprintf(f, "  used %s of %s", human((double)a->used_bytes, b1, sizeof(b1)),
				a->capacity_bytes ? human((double)a->capacity_bytes, b2, sizeof(b2)) : "unlimited");
			if (a->capacity_bytes)
				fprintf(f, " (%.2f%%)", 100.0 * (double)a->used_bytes / (double)a->capacity_bytes);
			if (a->soft_threshold_bytes)
				fprintf(f, ", soft threshold %s", human((double)a->soft_threshold_bytes, b3, sizeof(b3)));
			fputc('\n', f);
		}
		if (v->dt > 0) {
			fprintf(f, "  modeled CPU %s  modeled latency %s  observed latency %s\n",
				a->cpu_pct < 0 ? "-" : (snprintf(b1, sizeof(b1), "%.1f%%", a->cpu_pct), b1),
				lat(a->modeled_latency_s, b2, sizeof(b2)), lat(a->observed_latency_s, b3, sizeof(b3)));
			fprintf(f, "  cloned %s/s inside the array, %s/s over the wire\n",
				human(a->cloned_bps, b1, sizeof(b1)), human(a->wire_bps, b2, sizeof(b2)));
		}
	}
	fprintf(f, "\n%5s %-10s %-24s %12s %12s %9s %12s %10s %10s\n", "LUN", "array", "volume", "read/s",
		"write/s", "IOPS", "cloned/s", "latency", "modeled");
	for (unsigned i = 0; i < v->nlu; i++) {
		const struct mview_lu *l = &v->lu[i];

		fprintf(f, "%5llu %-10.10s %-24.24s %12s %12s %9.0f %12s %10s %10s\n", (unsigned long long)l->lun,
			l->array, l->volume, human(l->read_bps, b1, sizeof(b1)), human(l->write_bps, b2, sizeof(b2)),
			l->iops, human(l->cloned_bps, b3, sizeof(b3)), lat(l->observed_latency_s, b4, sizeof(b4)),
			lat(l->modeled_latency_s, b5, sizeof(b5)));
	}
	fflush(f);
}

static void put_d(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void put_i(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v));
}

json_object *mview_json(const struct mview *v)
{
	json_object *o = json_object_new_object(), *arrs = json_object_new_array(), *lus = json_object_new_array();

	put_d(o, "time", v->t);
	put_d(o, "interval_s", v->dt);
	for (unsigned i = 0; i < v->narr; i++) {
		const struct mview_array *a = &v->arr[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(a->name));
		json_object_object_add(x, "profile", json_object_new_string(a->profile));
		if (a->have_capacity) {
			put_i(x, "logical_bytes", a->logical_bytes);
			put_i(x, "unique_bytes", a->unique_bytes);
			put_i(x, "physical_bytes", a->physical_bytes);
			put_i(x, "used_bytes", a->used_bytes);
			put_i(x, "pending_blocks", a->pending_blocks);
			put_d(x, "data_reduction_ratio", a->data_reduction_ratio);
		}
		put_d(x, "modeled_cpu_pct", a->cpu_pct);
		put_d(x, "modeled_latency_s", a->modeled_latency_s);
		put_d(x, "observed_latency_s", a->observed_latency_s);
		put_i(x, "cloned_bytes", a->cloned_bytes);
		put_i(x, "wire_bytes", a->wire_bytes);
		put_d(x, "cloned_bytes_per_s", a->cloned_bps);
		put_d(x, "wire_bytes_per_s", a->wire_bps);
		json_object_array_add(arrs, x);
	}
	for (unsigned i = 0; i < v->nlu; i++) {
		const struct mview_lu *l = &v->lu[i];
		json_object *x = json_object_new_object(), *c = json_object_new_object(), *w = json_object_new_object();

		put_i(x, "lun", l->lun);
		json_object_object_add(x, "array", json_object_new_string(l->array));
		json_object_object_add(x, "volume", json_object_new_string(l->volume));
		for (int k = 0; k < MVIEW_KINDS; k++) {
			put_i(c, mview_kinds[k], l->commands[k]);
			put_i(w, mview_kinds[k], l->wire_bytes[k]);
		}
		json_object_object_add(x, "commands", c);
		json_object_object_add(x, "wire_bytes", w);
		put_i(x, "cloned_bytes", l->cloned_bytes);
		put_d(x, "iops", l->iops);
		put_d(x, "read_bytes_per_s", l->read_bps);
		put_d(x, "write_bytes_per_s", l->write_bps);
		put_d(x, "observed_latency_s", l->observed_latency_s);
		put_d(x, "modeled_latency_s", l->modeled_latency_s);
		put_i(x, "mapped_bytes", l->mapped_bytes);
		json_object_array_add(lus, x);
	}
	json_object_object_add(o, "arrays", arrs);
	json_object_object_add(o, "luns", lus);
	return o;
}
