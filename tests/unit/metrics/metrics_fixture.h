/* metrics_fixture.h — one hand-made metrics snapshot (two LUs of array
 * "a1", one of them with an EXTENDED COPY history, and the array's figures)
 * shared by the renderers' tests, so both check the same numbers. */
#ifndef LUNLAB_TEST_METRICS_FIXTURE_H
#define LUNLAB_TEST_METRICS_FIXTURE_H

#include <string.h>

#include "target/metrics/metrics_snapshot.h"

static struct metrics_lu fixture_lu[2];
static struct metrics_array fixture_arr[1];

static void fixture_snapshot(struct metrics_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	memset(fixture_lu, 0, sizeof(fixture_lu));
	memset(fixture_arr, 0, sizeof(fixture_arr));
	s->time_s = 1764547200.5;
	s->rss_bytes = 91234304;
	s->cpu_seconds = 12.25;
	s->sessions[0] = 2;
	s->logins[LOGIN_RESULT_SUCCESS] = 5;
	s->logins[LOGIN_RESULT_AUTHENTICATION_FAILURE] = 1;
	s->auth_failures[LOGIN_THROTTLE_API] = 12;
	s->auth_failures[LOGIN_THROTTLE_CHAP] = 4;
	s->auth_refused[LOGIN_THROTTLE_API] = 7;
	s->auth_locked = 1;
	s->fault_hits[FAULT_ACT_SENSE] = 3;
	s->fault_hits[FAULT_ACT_DROP] = 1;
	static struct fault_rule_info rule = { .id = 7, .spec = "op=read,sense=medium-error", .matches = 9, .hits = 3 };
	s->rules = &rule;
	s->nrules = 1;
	for (int i = 0; i < 2; i++) {
		struct metrics_lu *u = &fixture_lu[i];

		u->lun = (uint64_t)i;
		u->global = true;
		u->have_array = true;
		strcpy(u->arr.array, "a1");
		strcpy(u->arr.volume, i ? "clone \"b\"" : "template");
		strcpy(u->arr.profile, "x2");
	}
	/* LU 0: 10 reads of 1 MiB, one failed; LU 1: 4 XCOPYs of 4 MiB each (76-byte lists) */
	fixture_lu[0].host[LU_KIND_READ] = (struct lu_kind_figures){ .commands = 10, .errors = 1, .bytes = 9u << 20,
		.latency_sum_ns = 10 * 700000, .latency_buckets = { [7] = 10 } };
	fixture_lu[0].arr.mapped_bytes = 16u << 20;
	fixture_lu[1].host[LU_KIND_XCOPY] = (struct lu_kind_figures){ .commands = 4, .bytes = 4 * 76,
		.latency_sum_ns = 4 * 30000, .latency_buckets = { [3] = 4 } };
	fixture_lu[1].arr.xcopy_covered_bytes = 16u << 20;
	fixture_lu[1].arr.mapped_bytes = 16u << 20;
	fixture_lu[1].arr.model = (struct lunlab_model_figures){ .commands = 4, .cpu_ns = 2000000,
		.latency_sum_ns = 4 * 23000, .latency_buckets = { [3] = 4 } };
	strcpy(fixture_arr[0].name, "a1");
	strcpy(fixture_arr[0].profile, "x2");
	fixture_arr[0].have_figures = true;
	fixture_arr[0].fig = (struct lunlab_array_figures){ .logical_bytes = 32u << 20, .unique_bytes = 16u << 20,
		.physical_bytes = 8u << 20, .compressed_bytes = 7u << 20, .capacity_bytes = 1ull << 40,
		.used_bytes = 8u << 20, .dedup_block = 16384, .volumes = 2, .provisioned_bytes = 2ull << 30 };
	fixture_arr[0].have_model = true;
	fixture_arr[0].model = (struct lunlab_model_figures){ .commands = 14, .cpu_ns = 3000000000ull,
		.latency_sum_ns = 123000, .latency_buckets = { [3] = 4, [7] = 10 }, .modeled_elapsed_ns = 2000000000ull,
		.cores = 16, .time_scale = 1 };
	s->nlu = 2;
	s->lu = fixture_lu;
	s->narr = 1;
	s->arr = fixture_arr;
}

#endif
