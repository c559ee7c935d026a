/* test_vsessions.c — one modeled host stream per initiator session (models/vsessions.c and
 * its driver in models/cost.c): the order commands are charged in (earliest free session,
 * ties by nexus id; a known session with nothing waiting holds the others back), barriers,
 * and each session's figures, counted exactly; the same figures whatever order the commands
 * reach the model in (what makes seed 002's fairness a CI figure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "models/cost.h"
#include "models/cost_virtual.h"
#include "models/profile.h"
#include "models/profile_parse.h"
#include "models/vsessions.h"

#define MS 1000000ull
#define MB 1000000ull

/* Only a front end of 1000 MB/s (1 ns per byte: 1 MB takes 1 ms) and 1 us of host
 * turnaround: no CPU, journal, back end or fixed latency, so every figure is by hand. */
static const char share_text[] =
	"name: share\ndescription: \"unit test\"\nmodeled: true\n"
	"data_reduction:\n  dedup_block: 4096\n  zlib_level: 1\n  zlib_window_bits: 12\n  alloc_unit: 512\n"
	"cost:\n  cores: 1\n  cpu_cmd_ns: 0\n  cpu_entry_ns: 0\n  cpu_segment_ns: 0\n"
	"  cpu_mib_ns: 0\n  journal_cmd_ns: 0\n  journal_entry_ns: 0\n  frontend_mb_s: 1000\n"
	"  backend_mb_s: 0\n  fixed_latency_ns: 0\n  host_turnaround_ns: 1000\n"
	"  host_turnaround_ns_per_mib: 0\n  xcopy_bucket: covered\n"
	"capacity:\n  usable_bytes: 1099511627776\n  soft_threshold_percent: 80\n";

static const struct cost_req rd1mb = { .kind = COST_READ, .bytes = MB };
static const struct cost_req look = { .kind = COST_OTHER };

static struct lunlab_profile *parse(const char *text)
{
	char *err = NULL;
	struct lunlab_profile *p = profile_parse(text, strlen(text), "test", &err);
	if (!p)
		fail_msg("%s", err);
	return p;
}

static struct cost_result done_at(uint64_t arrival, uint64_t completion, uint64_t next)
{
	struct cost_result r = { .arrival_ns = arrival, .completion_ns = completion, .next_arrival_ns = next };
	r.latency_ns = completion - arrival;
	return r;
}

/* The bookkeeping alone: who goes next, who holds whom back, barriers. */
static void order_and_holding_back(void **state)
{
	(void)state;
	struct vsessions *v = vsess_new();
	uint64_t at = 0;
	struct vsess_cmd c = { rd1mb, NULL, NULL }, out;
	int a = vsess_note(v, 20, 100), b = vsess_note(v, 10, 100);
	assert_true(a >= 0 && b >= 0 && a != b);
	assert_int_equal(vsess_note(v, 20, 999), a); /* known: found again, not moved */
	/* 20 has a command, but 10 (same time, lower id) could still send an earlier one */
	assert_int_equal(vsess_push(v, a, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), -1);
	assert_int_equal(vsess_waiting(v), 1);
	/* 10 sends: it goes first, at 100 */
	assert_int_equal(vsess_push(v, b, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), b);
	assert_int_equal(at, 100);
	vsess_pop(v, b, &out);
	assert_int_equal(out.req.bytes, MB);
	struct cost_result r = done_at(100, 1100, 1200);
	vsess_charged(v, b, MB, &r);
	/* now 20 (free at 100) is before 10 (free at 1200) */
	assert_int_equal(vsess_next(v, false, &at), a);
	assert_int_equal(at, 100);
	vsess_pop(v, a, &out);
	r = done_at(100, 2100, 2200);
	vsess_charged(v, a, MB, &r);
	/* 10 at 1200 has nothing waiting: 20's next command (2200) waits for it... */
	assert_int_equal(vsess_push(v, a, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), -1);
	/* ...unless forced (a flush): then 10 is done */
	assert_int_equal(vsess_next(v, true, &at), a);
	assert_int_equal(at, 2200);
	vsess_pop(v, a, &out);
	r = done_at(2200, 3100, 3200);
	vsess_charged(v, a, MB, &r);
	assert_int_equal(vsess_waiting(v), 0);
	/* figures, by nexus */
	struct vsess_stats st[4];
	uint64_t n = vsess_stats(v, st, 4);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].nexus, 10);
	assert_int_equal(st[0].commands, 1);
	assert_int_equal(st[0].first_completion_ns, 1100);
	assert_int_equal(st[0].last_completion_ns, 1100);
	assert_int_equal(st[1].nexus, 20);
	assert_int_equal(st[1].commands, 2);
	assert_int_equal(st[1].bytes, 2 * MB);
	assert_int_equal(st[1].first_bytes, MB);
	assert_int_equal(st[1].first_arrival_ns, 100);
	assert_int_equal(st[1].first_completion_ns, 2100);
	assert_int_equal(st[1].last_completion_ns, 3100);
	/* a barrier at 5000: both start again there; both sent since the last one: still waited */
	vsess_barrier(v, 5000);
	assert_int_equal(vsess_note(v, 20, 0), a); /* every command is noted, then waits */
	assert_int_equal(vsess_push(v, a, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), -1); /* 10 (5000, lower id) holds 20 back */
	assert_int_equal(vsess_next(v, true, &at), a);
	assert_int_equal(at, 5000);
	vsess_pop(v, a, &out);
	r = done_at(5000, 6000, 6100);
	vsess_charged(v, a, MB, &r);
	/* 10 sent nothing while data moved: after the next barrier it holds nobody back */
	vsess_barrier(v, 6000);
	assert_int_equal(vsess_note(v, 20, 0), a);
	assert_int_equal(vsess_push(v, a, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), a);
	assert_int_equal(at, 6100);
	vsess_pop(v, a, &out);
	/* a reset clears the figures, keeps the sessions */
	vsess_reset_stats(v);
	assert_int_equal(vsess_stats(v, st, 4), 0);
	assert_int_equal(vsess_overflows(v), 0);
	vsess_free(v);
}

/* Two reads of the telemetry back to back (pages 31h then 32h) drop nobody: only an
 * interval in which data moved tells an idle session from a live one. */
static void back_to_back_barriers_keep_sessions(void **state)
{
	(void)state;
	struct vsessions *v = vsess_new();
	uint64_t at;
	struct vsess_cmd c = { rd1mb, NULL, NULL };
	int a = vsess_note(v, 1, 0), b = vsess_note(v, 2, 0);
	vsess_barrier(v, 0);
	vsess_barrier(v, 0);
	assert_int_equal(vsess_push(v, b, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), -1); /* 1 is still waited for */
	assert_int_equal(vsess_push(v, a, &c), 0);
	assert_int_equal(vsess_next(v, false, &at), a);
	vsess_free(v);
}

/* Sessions past VSESS_MAX reuse one that is not waited for; when every one is, the command
 * is refused a place (charged unordered by the model). */
static void table_full(void **state)
{
	(void)state;
	struct vsessions *v = vsess_new();
	for (uint64_t n = 1; n <= VSESS_MAX; n++)
		assert_true(vsess_note(v, n, 0) >= 0);
	assert_int_equal(vsess_note(v, VSESS_MAX + 1, 0), -1);
	vsess_barrier(v, 0); /* no data moved: nobody is dropped */
	assert_int_equal(vsess_note(v, VSESS_MAX + 1, 0), -1);
	assert_int_equal(vsess_overflows(v), 2); /* both charged out of their turn */
	/* data moved, then a barrier: every session but nexus 7 was idle, so they are dropped */
	struct cost_result r = done_at(0, 10, 20);
	int seven = vsess_note(v, 7, 0);
	vsess_charged(v, seven, 1, &r);
	vsess_barrier(v, 0);
	int fresh = vsess_note(v, VSESS_MAX + 1, 50);
	assert_true(fresh >= 0 && fresh != seven);
	assert_int_equal(vsess_note(v, 7, 0), seven);     /* still found by its nexus */
	assert_int_equal(vsess_note(v, VSESS_MAX + 1, 0), fresh);
	vsess_free(v);
}

/* Six reads of 1 MB, two per session, reaching the model in the order of *order (nexus ids);
 * returns the sessions' figures. */
static unsigned run_order(const uint64_t *order, unsigned n, struct vsess_stats *st, bool idle_watcher)
{
	struct lunlab_profile *p = parse(share_text);
	struct cost_model *m = cost_model_new(p, cost_time_virtual(1));
	assert_int_equal(cost_model_use_sessions(m), 0);
	/* each VM logs in and looks (READ CAPACITY): known before any data moves */
	for (uint64_t s = 1; s <= 3; s++)
		cost_model_charge_session(m, &look, s, NULL, NULL);
	if (idle_watcher) /* a session that never moves data: everything waits for the flush */
		cost_model_charge_session(m, &look, 0, NULL, NULL);
	for (unsigned i = 0; i < n; i++)
		cost_model_charge_session(m, &rd1mb, order[i], NULL, NULL);
	uint64_t overflows = 1;
	unsigned k = cost_model_session_stats(m, st, 4, &overflows);
	assert_int_equal(overflows, 0);
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 6 + 3 + idle_watcher);
	assert_int_equal(t.modeled_elapsed_ns, 6 * MS); /* the front end never idles */
	cost_model_put(m);
	profile_free(p);
	return k;
}

/* The sharing rule, by hand: three sessions free at 0 are served in nexus order, 1 ms each
 * (1 ms, 2 ms, 3 ms); each sends its second read 1 us after its completion and queues
 * behind the others: 4, 5, 6 ms.  Each moved its second MB in 3 ms: 333 MB/s each, fair.
 * The same figures whatever order the machine delivered the commands in. */
static void same_figures_in_any_order(void **state)
{
	(void)state;
	const uint64_t orders[][6] = {
		{ 1, 1, 2, 2, 3, 3 }, /* each VM's second read before the next VM's first */
		{ 3, 2, 1, 1, 2, 3 },
		{ 3, 3, 1, 2, 2, 1 },
	};
	for (unsigned o = 0; o < 3; o++)
		for (int idle = 0; idle < 2; idle++) {
			struct vsess_stats st[4];
			assert_int_equal(run_order(orders[o], 6, st, idle), 3);
			for (unsigned s = 0; s < 3; s++) {
				assert_int_equal(st[s].nexus, s + 1);
				assert_int_equal(st[s].commands, 2);
				assert_int_equal(st[s].bytes, 2 * MB);
				assert_int_equal(st[s].first_bytes, MB);
				assert_int_equal(st[s].first_arrival_ns, 0);
				assert_int_equal(st[s].first_completion_ns, (s + 1) * MS);
				assert_int_equal(st[s].last_completion_ns, (s + 4) * MS);
			}
		}
}

struct heard {
	uint64_t lat[4];
	unsigned n;
};

static void sink(void *ctx, const struct cost_req *r, const struct cost_result *res)
{
	struct heard *h = ctx;
	assert_int_equal(r->bytes, MB);
	h->lat[h->n++] = res->latency_ns;
}

/* A sink hears each command's figures once it is charged (the handler's per-LU latency),
 * and a flush charges what waits. */
static void sink_and_flush(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(share_text);
	struct cost_model *m = cost_model_new(p, cost_time_virtual(1));
	assert_int_equal(cost_model_use_sessions(m), 0);
	assert_true(cost_model_sessions(m));
	assert_true(cost_model_virtual_streams_pinned(m)); /* LOG SELECT 000Ah is refused */
	assert_int_equal(cost_model_set_virtual_streams(m, 4), -2);
	struct heard ctx = { { 0 }, 0 };
	cost_model_charge_session(m, &look, 1, NULL, NULL);
	cost_model_charge_session(m, &look, 2, NULL, NULL);
	cost_model_charge_session(m, &rd1mb, 2, sink, &ctx); /* 1 is earlier: 2's read waits */
	assert_int_equal(ctx.n, 0);
	cost_model_flush(m);                                  /* 1 sent nothing: 2's read goes */
	assert_int_equal(ctx.n, 1);
	assert_int_equal(ctx.lat[0], MS);
	/* both sent a command before that flush: 1 still holds 2's next read back */
	cost_model_charge_session(m, &rd1mb, 2, sink, &ctx);
	assert_int_equal(ctx.n, 1);
	cost_model_flush(m);
	assert_int_equal(ctx.n, 2);
	assert_int_equal(ctx.lat[1], MS); /* 2 arrives at 1 ms + 1 us; the front end is free */
	/* 1 sent nothing while data moved: from that barrier on it holds nobody back */
	cost_model_charge_session(m, &rd1mb, 2, sink, &ctx);
	assert_int_equal(ctx.n, 3);
	assert_int_equal(ctx.lat[2], MS);
	cost_model_put(m);
	/* only a virtual clock has a modeled host to split */
	m = cost_model_new(p, 1.0);
	assert_int_equal(cost_model_use_sessions(m), -1);
	assert_false(cost_model_sessions(m));
	cost_model_put(m);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_and_holding_back),
		cmocka_unit_test(back_to_back_barriers_keep_sessions),
		cmocka_unit_test(table_full),
		cmocka_unit_test(same_figures_in_any_order),
		cmocka_unit_test(sink_and_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
