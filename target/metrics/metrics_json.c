/* metrics_json.c — the snapshot as JSON (metrics_json.h), with json-c. */
#include "target/metrics/metrics_json.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define NS 1e-9

static void put_u64(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v));
}

static void put_d(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void put_s(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static json_object *buckets(const uint64_t *b)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < LUNLAB_LAT_BUCKETS; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)b[i]));
	return a;
}

static json_object *model(const struct lunlab_model_figures *m, bool array)
{
	json_object *o = json_object_new_object();

	put_u64(o, "commands", m->commands);
	put_d(o, "cpu_seconds", (double)m->cpu_ns * NS);
	put_d(o, "latency_sum_seconds", (double)m->latency_sum_ns * NS);
	json_object_object_add(o, "latency_buckets", buckets(m->latency_buckets));
	if (array) {
		put_d(o, "elapsed_seconds", (double)m->modeled_elapsed_ns * NS);
		put_u64(o, "cores", m->cores);
		put_d(o, "time_scale", m->time_scale);
		put_u64(o, "virtual_streams", m->virtual_streams);
	}
	return o;
}

static json_object *array_obj(const struct metrics_array *a)
{
	json_object *o = json_object_new_object();
	const struct lunlab_array_figures *f = &a->fig;

	put_s(o, "name", a->name);
	put_s(o, "profile", a->profile);
	if (a->have_figures) {
		json_object *c = json_object_new_object();

		put_u64(c, "logical_bytes", f->logical_bytes);
		put_u64(c, "unique_bytes", f->unique_bytes);
		put_u64(c, "physical_bytes", f->physical_bytes);
		put_u64(c, "compressed_bytes", f->compressed_bytes);
		put_u64(c, "pending_blocks", f->pending_blocks);
		put_u64(c, "used_bytes", f->used_bytes);
		put_u64(c, "capacity_bytes", f->capacity_bytes);
		put_u64(c, "soft_threshold_bytes", f->soft_threshold_bytes);
		put_u64(c, "provisioned_bytes", f->provisioned_bytes);
		put_u64(c, "volumes", f->volumes);
		put_u64(c, "dedup_block_bytes", f->dedup_block);
		put_d(c, "dedup_ratio", metrics_ratio(f->logical_bytes, f->unique_bytes));
		put_d(c, "compression_ratio", metrics_ratio(f->unique_bytes, f->physical_bytes));
		put_d(c, "data_reduction_ratio", metrics_ratio(f->logical_bytes, f->physical_bytes));
		json_object_object_add(o, "capacity", c);
	}
	if (a->have_model)
		json_object_object_add(o, "model", model(&a->model, true));
	return o;
}

static json_object *lu_obj(const struct metrics_lu *u)
{
	json_object *o = json_object_new_object(), *kinds = json_object_new_object();

	if (u->global)
		put_u64(o, "lun", u->lun);
	else
		json_object_object_add(o, "lun", NULL); /* an API volume: LUNs per initiator */
	put_s(o, "array", u->arr.array);
	put_s(o, "volume", u->arr.volume);
	put_s(o, "profile", u->arr.profile);
	for (unsigned k = 0; k < LU_KINDS; k++) {
		const struct lu_kind_figures *f = &u->host[k];
		json_object *ko = json_object_new_object();

		put_u64(ko, "commands", f->commands);
		put_u64(ko, "errors", f->errors);
		put_u64(ko, "wire_bytes", f->bytes);
		put_d(ko, "latency_sum_seconds", (double)f->latency_sum_ns * NS);
		json_object_object_add(ko, "latency_buckets", buckets(f->latency_buckets));
		json_object_object_add(kinds, lu_kind_name((enum lu_kind)k), ko);
	}
	json_object_object_add(o, "kinds", kinds);
	if (u->have_array) {
		put_u64(o, "mapped_bytes", u->arr.mapped_bytes);
		put_u64(o, "xcopy_covered_bytes", u->arr.xcopy_covered_bytes);
		put_u64(o, "write_same_covered_bytes", u->arr.write_same_covered_bytes);
		put_u64(o, "unmap_covered_bytes", u->arr.unmap_covered_bytes);
		json_object_object_add(o, "model", model(&u->arr.model, false));
	}
	return o;
}

char *metrics_json_render(const struct metrics_snapshot *s, size_t *len)
{
	json_object *root = json_object_new_object(), *a, *x;
	const char *text;
	char *out = NULL;

	if (!root)
		return NULL;
	put_d(root, "time", s->time_s);
	a = json_object_new_array();
	for (unsigned i = 0; i < LUNLAB_LAT_BOUNDS; i++)
		json_object_array_add(a, json_object_new_double(metrics_lat_bounds_s[i]));
	json_object_object_add(root, "latency_bounds_seconds", a);
	x = json_object_new_object();
	put_u64(x, "rss_bytes", s->rss_bytes);
	put_d(x, "cpu_seconds", s->cpu_seconds);
	json_object_object_add(root, "process", x);
	x = json_object_new_object();
	json_object *ss = json_object_new_object(), *lg = json_object_new_object();
	put_u64(ss, "normal", s->sessions[0]);
	put_u64(ss, "discovery", s->sessions[1]);
	for (unsigned r = 0; r < LOGIN_RESULTS; r++)
		put_u64(lg, login_result_name((enum login_result)r), s->logins[r]);
	json_object_object_add(x, "sessions", ss);
	json_object_object_add(x, "logins", lg);
	json_object_object_add(root, "iscsi", x);
	a = json_object_new_array();
	for (size_t i = 0; i < s->narr; i++)
		json_object_array_add(a, array_obj(&s->arr[i]));
	json_object_object_add(root, "arrays", a);
	a = json_object_new_array();
	for (size_t i = 0; i < s->nlu; i++)
		json_object_array_add(a, lu_obj(&s->lu[i]));
	json_object_object_add(root, "luns", a);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (text && (out = strdup(text)))
		*len = strlen(out);
	json_object_put(root);
	return out;
}
