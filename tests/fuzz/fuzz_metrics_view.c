/* fuzz_metrics_view.c — libFuzzer target: any bytes as a target's
 * /metrics.json answer, read the way lunlab-bench's watch and --metrics-url
 * read it (client/metrics_view.c): parsed by json-c, then every figure looked
 * up with type checks.  The input is split at the first 0xff byte into two
 * snapshots (the earlier and the later reading), so rates between two
 * readings are computed from hostile data too; the view is printed and
 * rendered as JSON, and must never show a negative byte or command count. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/metrics_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_object *parse(const uint8_t *p, size_t n)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;

	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, (const char *)p, (int)(n > 1u << 20 ? 1u << 20 : n));
	json_tokener_free(tok);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mview v;
	const uint8_t *cut = memchr(data, 0xff, size);
	json_object *a = parse(data, cut ? (size_t)(cut - data) : size);
	json_object *b = cut ? parse(cut + 1, size - (size_t)(cut - data) - 1) : NULL;
	FILE *null = fopen("/dev/null", "w");

	mview_compute(NULL, a, &v);
	mview_compute(a, b ? b : a, &v);
	for (unsigned i = 0; i < v.nlu; i++)
		if (v.lu[i].read_bps < 0 || v.lu[i].iops < 0 || v.lu[i].cloned_bps < 0)
			abort();
	for (unsigned i = 0; i < v.narr; i++)
		if (v.arr[i].cloned_bps < 0 || v.arr[i].wire_bps < 0)
			abort();
	if (null) {
		mview_print(null, &v, "https://fuzz");
		fclose(null);
	}
	json_object_put(mview_json(&v));
	json_object_put(a);
	json_object_put(b);
	return 0;
}
