/* test_cost.c — cost model arithmetic on crafted sequences: the exact latency of a
 * command on an idle array, queueing behind earlier commands, the real-time deadline
 * under each time scale, the unmodeled profile, and telemetry (1-s windows, log2
 * histogram, block-size buckets, reset) counted exactly. */
#include <pthread.h>
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

#define S 1000000000ull

/* Round numbers: 4 cores, 1 core-ns per wire byte, 1 ns per byte on the front-end (1000 MB/s),
 * 2 ns per byte on the back-end (500 MB/s), 1 ns of host turnaround per covered XCOPY byte. */
static const char arith_text[] =
	"name: arith\ndescription: \"unit test\"\nmodeled: true\n"
	"data_reduction:\n  dedup_block: 4096\n  zlib_level: 1\n  zlib_window_bits: 12\n  alloc_unit: 512\n"
	"cost:\n  cores: 4\n  cpu_cmd_ns: 1000\n  cpu_entry_ns: 100\n  cpu_segment_ns: 50\n"
	"  cpu_mib_ns: 1048576\n  journal_cmd_ns: 300\n  journal_entry_ns: 30\n  frontend_mb_s: 1000\n"
	"  backend_mb_s: 500\n  fixed_latency_ns: 700\n  host_turnaround_ns: 5000\n"
	"  host_turnaround_ns_per_mib: 1048576\n  xcopy_bucket: covered\n"
	"capacity:\n  usable_bytes: 1099511627776\n  soft_threshold_percent: 80\n";

/* One core, 0.6 s of CPU per command and nothing else: easy 1-s window arithmetic. */
static const char window_text[] =
	"name: win\ndescription: \"unit test\"\nmodeled: true\n"
	"data_reduction:\n  dedup_block: 4096\n  zlib_level: 1\n  zlib_window_bits: 12\n  alloc_unit: 512\n"
	"cost:\n  cores: 1\n  cpu_cmd_ns: 600000000\n  cpu_entry_ns: 0\n  cpu_segment_ns: 0\n"
	"  cpu_mib_ns: 0\n  journal_cmd_ns: 0\n  journal_entry_ns: 0\n  frontend_mb_s: 0\n"
	"  backend_mb_s: 0\n  fixed_latency_ns: 0\n  host_turnaround_ns: 0\n"
	"  host_turnaround_ns_per_mib: 0\n  xcopy_bucket: covered\n"
	"capacity:\n  usable_bytes: 1099511627776\n  soft_threshold_percent: 80\n";

static struct lunlab_profile *parse(const char *text)
{
	char *err = NULL;
	struct lunlab_profile *p = profile_parse(text, strlen(text), "test", &err);
	if (!p)
		fail_msg("%s", err);
	return p;
}

static const struct cost_req xcopy64k = { .kind = COST_XCOPY, .bytes = 76, .xcopy_bytes = 65536,
					  .xcopy_segments = 1 };

static void single_command_formula(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text);
	struct cost_model *m = cost_model_new(p, 0);
	struct cost_service s;
	struct cost_result r;

	/* XCOPY of 64 KiB, 2 segments: 16 entries; cpu 1000 + 16x100 + 76 + 1x50 = 2726 core-ns,
	 * 682 ns on 4 cores; journal 300 + 16x30 = 780; front-end 76; latency 780 + 700. */
	struct cost_req x = xcopy64k;
	x.xcopy_segments = 2;
	cost_service_of(p, &x, &s);
	assert_int_equal(s.entries, 16);
	assert_int_equal(s.cpu_work_ns, 2726);
	assert_int_equal(s.cpu_ns, 682);
	assert_int_equal(s.journal_ns, 780);
	assert_int_equal(s.frontend_ns, 76);
	assert_int_equal(s.backend_ns, 0);
	assert_int_equal(s.host_turnaround_ns, 5000 + 65536);
	cost_model_charge_at(m, &x, 1000, &r);
	assert_int_equal(r.arrival_ns, 1000);
	assert_int_equal(r.latency_ns, 1480);
	assert_int_equal(r.completion_ns, 2480);
	assert_int_equal(r.next_arrival_ns, 2480 + 5000 + 65536);
	assert_int_equal(r.cpu_ns, 2726);

	/* READ of 8 KiB: no journal; back-end 16384 ns is the longest; no per-MiB turnaround. */
	struct cost_req rd = { .kind = COST_READ, .bytes = 8192 };
	cost_model_charge_at(m, &rd, 1 * S, &r);
	assert_int_equal(r.latency_ns, 16384 + 700);
	assert_int_equal(r.next_arrival_ns, 1 * S + 16384 + 700 + 5000);
	assert_int_equal(r.cpu_ns, 1000 + 200 + 8192);

	/* WRITE of 16 KiB, 2 of 4 blocks deduplicated: back-end moves only 8 KiB (16384 ns),
	 * front-end 16384 ns, journal 300 + 4x30. */
	struct cost_req wr = { .kind = COST_WRITE, .bytes = 16384, .dedup_hits = 2 };
	cost_service_of(p, &wr, &s);
	assert_int_equal(s.journal_ns, 420);
	assert_int_equal(s.backend_ns, 16384);
	assert_int_equal(s.frontend_ns, 16384);
	cost_model_charge_at(m, &wr, 2 * S, &r);
	assert_int_equal(r.latency_ns, 16384 + 700);

	/* Non-I/O command: only the per-command CPU (1000 / 4 cores) and fixed latency. */
	struct cost_req other = { .kind = COST_OTHER };
	cost_model_charge_at(m, &other, 3 * S, &r);
	assert_int_equal(r.latency_ns, 250 + 700);
	/* the host turnaround the model added, summed: XCOPY 5000 + 64 KiB x 1 ns/B, then the
	 * READ, WRITE and the other command 5000 each */
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 4);
	assert_int_equal(t.turnaround_ns, 5000 + 65536 + 3 * 5000);
	cost_model_put(m);
	profile_free(p);
}

static void queueing_under_load(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text);
	struct cost_model *m = cost_model_new(p, 0);
	struct cost_result r;
	/* Three XCOPYs at once: the journal (780 ns each) serves them in turn. */
	cost_model_charge_at(m, &xcopy64k, 0, &r);
	assert_int_equal(r.latency_ns, 780 + 700);
	cost_model_charge_at(m, &xcopy64k, 0, &r);
	assert_int_equal(r.latency_ns, 2 * 780 + 700);
	cost_model_charge_at(m, &xcopy64k, 100, &r);
	assert_int_equal(r.latency_ns, 3 * 780 - 100 + 700);
	/* the journal's busy time is their services, whatever the queueing */
	struct cost_telemetry bt;
	cost_model_telemetry(m, &bt);
	assert_int_equal(bt.journal_busy_ns, 3 * 780);
	/* Once the queue has drained, the idle latency again. */
	cost_model_charge_at(m, &xcopy64k, 10000, &r);
	assert_int_equal(r.latency_ns, 780 + 700);
	/* Reads queue on the back-end (16384 ns each) and on the front-end (8192 ns each). */
	struct cost_req rd = { .kind = COST_READ, .bytes = 8192 };
	cost_model_charge_at(m, &rd, 1 * S, &r);
	cost_model_charge_at(m, &rd, 1 * S, &r);
	assert_int_equal(r.latency_ns, 2 * 16384 + 700);
	/* An XCOPY's 76 parameter bytes queue on the front-end behind the reads' data... */
	cost_model_charge_at(m, &xcopy64k, 1 * S, &r);
	assert_int_equal(r.latency_ns, 2 * 8192 + 76 + 700);
	/* ...but not on the back-end, still busy with the second read until 1 s + 32768 ns. */
	cost_model_charge_at(m, &xcopy64k, 1 * S + 20000, &r);
	assert_int_equal(r.latency_ns, 780 + 700);
	/* CPU-bound: XCOPYs of 761 segments cost 2676 + 760 x 50 = 40676 core-ns, 10169 ns on
	 * 4 cores, more than their journal time: the second queues on the cores. */
	struct cost_req big = xcopy64k;
	big.xcopy_segments = 761;
	cost_model_charge_at(m, &big, 2 * S, &r);
	assert_int_equal(r.latency_ns, 10169 + 700);
	cost_model_charge_at(m, &big, 2 * S + 5000, &r);
	assert_int_equal(r.latency_ns, 2 * 10169 - 5000 + 700);
	cost_model_put(m);
	profile_free(p);
}

static void deadlines_and_time_scale(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text);
	struct cost_result r;
	uint64_t hold = 1480 + 5000 + 65536; /* latency + host turnaround of xcopy64k */

	struct cost_model *real = cost_model_new(p, 1.0);
	assert_int_equal(cost_model_charge_ex(real, &xcopy64k, 7 * S, &r), 7 * S + hold);
	assert_int_equal(r.arrival_ns, 0);
	/* 1 ms of real time later = 1 ms of modeled time later; the queue has drained. */
	assert_int_equal(cost_model_charge_ex(real, &xcopy64k, 7 * S + 1000000, &r), 7 * S + 1000000 + hold);
	assert_int_equal(r.arrival_ns, 1000000);
	cost_model_put(real);

	struct cost_model *slow = cost_model_new(p, 2.5);
	assert_int_equal(cost_model_charge(slow, &xcopy64k, 3 * S), 3 * S + hold * 5 / 2);
	/* 1 ms of real time is 0.4 ms of modeled time in slow motion */
	cost_model_charge_ex(slow, &xcopy64k, 3 * S + 1000000, &r);
	assert_int_equal(r.arrival_ns, 400000);
	cost_model_put(slow);

	struct cost_model *unpaced = cost_model_new(p, 0);
	assert_int_equal(cost_model_charge_ex(unpaced, &xcopy64k, 5 * S, &r), 5 * S);
	assert_int_equal(r.latency_ns, 1480); /* still modeled, just not waited for */
	assert_int_equal(cost_model_charge(unpaced, &xcopy64k, 5 * S), 5 * S);
	cost_model_put(unpaced);
	profile_free(p);
}

static void unlimited_costs_nothing(void **state)
{
	(void)state;
	const struct lunlab_profile *u = profile_get("unlimited", NULL);
	assert_non_null(u);
	struct cost_model *m = cost_model_new(u, 1.0);
	struct cost_result r;
	assert_int_equal(cost_model_charge_ex(m, &xcopy64k, 12345, &r), 12345);
	assert_int_equal(r.latency_ns, 0);
	assert_int_equal(r.cpu_ns, 0);
	struct cost_req rd = { .kind = COST_READ, .bytes = 1 << 20 };
	assert_int_equal(cost_model_charge(m, &rd, 99999), 99999);
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 2);
	assert_int_equal(t.cores, 0);
	assert_int_equal(t.modeled_busy_ns, 0);
	assert_int_equal(t.peak_cpu_permille, 0);
	assert_int_equal(t.max_latency_ns, 0);
	assert_int_equal(t.latency_hist[0], 2);
	assert_int_equal(t.bucket_ops[7], 1);  /* 64 KiB covered */
	assert_int_equal(t.bucket_ops[11], 1); /* 1 MiB read */
	assert_int_equal(t.bucket_bytes[11], 1 << 20);
	assert_int_equal(t.modeled_elapsed_ns, 99999 - 12345); /* real time since the first command */
	cost_model_reset_telemetry(m);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 0);
	assert_int_equal(t.bucket_ops[11], 0);
	cost_model_put(m);
}

/* An unmodeled model counts without its lock (atomics): commands charged from
 * several threads at once are all counted, by size. */
struct charger {
	struct cost_model *m;
	int n;
};

static void *charge_many(void *arg)
{
	struct charger *c = arg;
	struct cost_req rd = { .kind = COST_READ, .bytes = 4096 }, wr = { .kind = COST_WRITE, .bytes = 1 << 20 };
	for (int i = 0; i < c->n; i++)
		cost_model_charge(c->m, i % 4 ? &rd : &wr, (uint64_t)i + 1000);
	return NULL;
}

static void unlimited_counts_from_many_threads(void **state)
{
	(void)state;
	struct cost_model *m = cost_model_new(profile_get("unlimited", NULL), 0);
	struct charger c = { m, 20000 };
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, charge_many, &c);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 80000);
	assert_int_equal(t.latency_hist[0], 80000);
	assert_int_equal(t.bucket_ops[3], 60000);   /* 4 KiB */
	assert_int_equal(t.bucket_ops[11], 20000);  /* 1 MiB */
	assert_int_equal(t.bucket_bytes[3], 60000ull * 4096);
	cost_model_put(m);
}

/* cost_model_totals (/metrics): the same four commands as telemetry_windows, counted in
 * the shared latency buckets; LOG SELECT's reset leaves them alone. */
static void totals_survive_reset(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(window_text);
	struct cost_model *m = cost_model_new(p, 0);
	struct cost_result r;
	struct cost_req a = { .kind = COST_READ, .bytes = 512 };
	struct cost_totals t;

	cost_model_charge_at(m, &a, 0, &r);
	cost_model_charge_at(m, &a, 800000000, &r);
	cost_model_charge_at(m, &a, 1500000000, &r);
	cost_model_reset_telemetry(m);
	cost_model_charge_at(m, &a, 1600000000, &r);
	cost_model_totals(m, &t);
	assert_int_equal(t.commands, 4);
	assert_int_equal(t.cpu_ns, 4 * 600000000ull);
	assert_int_equal(t.latency_sum_ns, 3 * 600000000ull + 1100000000ull);
	assert_int_equal(t.modeled_elapsed_ns, 2700000000ull);
	assert_int_equal(t.cores, 1);
	/* 0.6 s: le=1s (bucket 16); 1.1 s: le=2s (bucket 17) */
	assert_int_equal(t.latency_buckets[16], 3);
	assert_int_equal(t.latency_buckets[17], 1);
	struct cost_telemetry tel;
	cost_model_telemetry(m, &tel);
	assert_int_equal(tel.commands, 1); /* the telemetry was reset, the totals were not */
	cost_model_put(m);
	profile_free(p);
}

static void telemetry_windows(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(window_text);
	struct cost_model *m = cost_model_new(p, 0);
	struct cost_result r;
	/* One core, 0.6 s per command:
	 *   A at 0.0: cpu [0.0,0.6)  latency 0.6  completes in window 0
	 *   B at 0.8: cpu [0.8,1.4)  latency 0.6  window 1
	 *   C at 1.5: cpu [1.5,2.1)  latency 0.6  window 2
	 *   D at 1.6: cpu [2.1,2.7)  latency 1.1  window 2
	 * busy: w0 0.6+0.2 = 0.8 s, w1 0.4+0.5 = 0.9 s, w2 0.1+0.6 = 0.7 s -> peak CPU 90.0%;
	 * mean latency: w0 0.6, w1 0.6, w2 (0.6+1.1)/2 = 0.85 s -> peak latency 0.85 s. */
	struct cost_req a = { .kind = COST_READ, .bytes = 512 };
	struct cost_req b = { .kind = COST_READ, .bytes = 4096 };
	struct cost_req c = { .kind = COST_WRITE, .bytes = 1 << 20 };
	struct cost_req d = { .kind = COST_READ, .bytes = (1 << 20) + 1 };
	cost_model_charge_at(m, &a, 0, &r);
	cost_model_charge_at(m, &b, 800000000, &r);
	cost_model_charge_at(m, &c, 1500000000, &r);
	cost_model_charge_at(m, &d, 1600000000, &r);
	assert_int_equal(r.latency_ns, 1100000000);
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 4);
	assert_int_equal(t.modeled_elapsed_ns, 2700000000ull);
	assert_int_equal(t.modeled_busy_ns, 2400000000ull);
	assert_int_equal(t.cores, 1);
	assert_int_equal(t.peak_latency_ns, 850000000);
	assert_int_equal(t.max_latency_ns, 1100000000);
	assert_int_equal(t.peak_cpu_permille, 900);
	/* log2 us: 600000 us -> [19] (2^19-1 .. 2^20-1), 1100000 us -> [20] */
	assert_int_equal(t.latency_hist[19], 3);
	assert_int_equal(t.latency_hist[20], 1);
	/* buckets: 512 -> 512b [0], 4096 -> 4kb [3], 1 MiB -> 1mb [11], 1 MiB + 1 -> gt1mb [12] */
	assert_int_equal(t.bucket_ops[0], 1);
	assert_int_equal(t.bucket_ops[3], 1);
	assert_int_equal(t.bucket_ops[11], 1);
	assert_int_equal(t.bucket_ops[12], 1);
	assert_int_equal(t.bucket_bytes[12], (1 << 20) + 1);
	assert_int_equal(t.bucket_latency_ns[12], 1100000000);
	assert_int_equal(t.bucket_latency_ns[11], 600000000);
	uint64_t ops = 0;
	for (unsigned i = 0; i < COST_BUCKETS; i++)
		ops += t.bucket_ops[i];
	assert_int_equal(ops, 4);

	/* Windows far later reuse the ring's slots; the closed windows' peaks remain. */
	cost_model_charge_at(m, &a, 64 * S, &r);  /* slot of window 0 */
	cost_model_charge_at(m, &a, 65 * S, &r);  /* slot of window 1 */
	cost_model_charge_at(m, &a, 130 * S, &r); /* slot of window 2 */
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 7);
	assert_int_equal(t.peak_latency_ns, 850000000);
	assert_int_equal(t.peak_cpu_permille, 900);
	assert_int_equal(t.modeled_elapsed_ns, 130 * S + 600000000 - 0);

	/* Reset: everything zero; the next command starts a new first window. */
	cost_model_reset_telemetry(m);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 0);
	assert_int_equal(t.peak_latency_ns, 0);
	assert_int_equal(t.latency_hist[19], 0);
	assert_int_equal(t.bucket_ops[0], 0);
	assert_int_equal(t.modeled_elapsed_ns, 0);
	/* A run shorter than a window is judged over its own length: 0.6 s busy in 0.6 s. */
	cost_model_charge_at(m, &a, 200 * S, &r);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 1);
	assert_int_equal(t.modeled_elapsed_ns, 600000000);
	assert_int_equal(t.peak_cpu_permille, 1000);
	cost_model_put(m);
	profile_free(p);
}

static void xcopy_buckets(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text); /* xcopy_bucket: covered */
	struct cost_model *m = cost_model_new(p, 0);
	struct cost_req x = { .kind = COST_XCOPY, .bytes = 76, .xcopy_bytes = 256 << 10, .xcopy_segments = 1 };
	struct cost_req inq = { .kind = COST_OTHER, .bytes = 36 };
	cost_model_charge_at(m, &x, 0, NULL);
	cost_model_charge_at(m, &inq, 0, NULL);
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 2);
	assert_int_equal(t.bucket_ops[9], 1); /* 256kb: the bytes covered */
	assert_int_equal(t.bucket_bytes[9], 256 << 10);
	assert_int_equal(t.bucket_ops[0], 0); /* INQUIRY is not I/O */
	cost_model_put(m);

	m = cost_model_new(profile_get("x2", NULL), 0); /* xcopy_bucket: gt1mb (seed 000) */
	cost_model_charge_at(m, &x, 0, NULL);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.bucket_ops[9], 0);
	assert_int_equal(t.bucket_ops[12], 1);
	assert_int_equal(t.bucket_bytes[12], 256 << 10);
	cost_model_put(m);
	assert_int_equal(cost_bucket_of(0), 0);
	assert_int_equal(cost_bucket_of(513), 1);
	assert_int_equal(cost_bucket_of(256 << 10), 9);
	assert_int_equal(cost_bucket_of((256 << 10) + 1), 10);
	assert_int_equal(cost_bucket_of(64ull << 30), 12);
	profile_free(p);
}

static void shared_by_array_name(void **state)
{
	(void)state;
	const struct lunlab_profile *x1 = profile_get("x1", NULL), *x2 = profile_get("x2", NULL);
	struct cost_model *a = cost_model_get("test-array", x2, 1.0);
	struct cost_model *b = cost_model_get("test-array", x1, 5.0); /* first LU fixed it */
	struct cost_model *c = cost_model_get("other-array", x1, 1.0);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	/* find: the same model with a reference of its own, never a new one */
	struct cost_model *f = cost_model_find("test-array");
	assert_ptr_equal(f, a);
	cost_model_put(f);
	assert_null(cost_model_find("no-such-array"));
	cost_model_charge_at(a, &xcopy64k, 0, NULL);
	struct cost_telemetry t;
	cost_model_telemetry(b, &t);
	assert_int_equal(t.commands, 1);
	assert_int_equal(t.cores, 48);
	assert_true(t.time_scale == 1.0);
	cost_model_put(a);
	cost_model_telemetry(b, &t); /* still alive: b holds a reference */
	assert_int_equal(t.commands, 1);
	cost_model_put(b);
	cost_model_put(c);
}

struct hammer { struct cost_model *m; };

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;
	for (unsigned i = 0; i < 5000; i++)
		cost_model_charge(h->m, &xcopy64k, 1000000ull * i);
	return NULL;
}

static void thread_safe(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text);
	struct hammer h = { cost_model_new(p, 0) };
	pthread_t th[4];
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer_main, &h), 0);
	for (unsigned i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	struct cost_telemetry t;
	cost_model_telemetry(h.m, &t);
	assert_int_equal(t.commands, 20000);
	assert_int_equal(t.modeled_busy_ns, 20000ull * 2676);
	assert_int_equal(t.bucket_ops[7], 20000);
	cost_model_put(h.m);
	profile_free(p);
}

/* Virtual clock: N closed-loop host streams driven through cost_model_charge_ex, one command
 * after the other at real times that say nothing (as a target sees a host whose completions
 * come back at once), give exactly the figures of the same N streams simulated by hand in
 * modeled time with cost_model_charge_at: the stream free earliest sends the next command at
 * its previous command's next_arrival_ns. */
static void virtual_clock_is_a_closed_loop(void **state)
{
	(void)state;
	const struct lunlab_profile *x2 = profile_get("x2", NULL);
	const struct cost_req xc = { .kind = COST_XCOPY, .bytes = 76, .xcopy_bytes = 256 << 10,
				     .xcopy_segments = 1 };
	enum { STREAMS = 4, CMDS = 3000 };
	struct cost_model *virt = cost_model_new(x2, cost_time_virtual(STREAMS));
	struct cost_model *ref = cost_model_new(x2, 0);
	uint64_t free_at[STREAMS] = { 0 };
	for (unsigned i = 0; i < CMDS; i++) {
		unsigned s = 0;
		for (unsigned k = 1; k < STREAMS; k++)
			if (free_at[k] < free_at[s])
				s = k;
		struct cost_result rr, rv;
		cost_model_charge_at(ref, &xc, free_at[s], &rr);
		free_at[s] = rr.next_arrival_ns;
		uint64_t real = 5 * S + 1000ull * i;
		assert_int_equal(cost_model_charge_ex(virt, &xc, real, &rv), real); /* never held */
		assert_int_equal(rv.arrival_ns, rr.arrival_ns);
		assert_int_equal(rv.completion_ns, rr.completion_ns);
	}
	struct cost_telemetry tv, tr;
	cost_model_telemetry(virt, &tv);
	cost_model_telemetry(ref, &tr);
	assert_int_equal(tv.virtual_streams, STREAMS);
	assert_int_equal(tr.virtual_streams, 0);
	assert_true(tv.time_scale == 0.0);
	assert_int_equal(tv.commands, CMDS);
	assert_int_equal(tv.modeled_elapsed_ns, tr.modeled_elapsed_ns);
	assert_int_equal(tv.peak_latency_ns, tr.peak_latency_ns);
	assert_int_equal(tv.peak_cpu_permille, tr.peak_cpu_permille);
	assert_int_equal(tv.turnaround_ns, tr.turnaround_ns);
	/* 4 streams saturate X2's journal at 256 KiB (docs/models.md "Host side"): after the
	 * first commands it never idles, so the elapsed time is the journal's work */
	struct cost_service sv;
	cost_service_of(x2, &xc, &sv);
	assert_true(tv.modeled_elapsed_ns >= (uint64_t)CMDS * sv.journal_ns);
	assert_true(tv.modeled_elapsed_ns <= (uint64_t)CMDS * sv.journal_ns + sv.journal_ns + sv.host_turnaround_ns);
	cost_model_put(virt);
	cost_model_put(ref);
}

/* Which commands hold a stream, and what a telemetry reset does to the clock. */
static void virtual_clock_streams(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text);
	struct cost_model *m = cost_model_new(p, cost_time_virtual(2));
	const struct cost_req inq = { .kind = COST_OTHER };
	struct cost_result a, b, c, d, e;
	/* 64 KiB XCOPY on the idle arith array: cpu (1000 + 16 x 100 + 76) / 4 = 669 ns,
	 * journal 300 + 16 x 30 = 780 ns, + 700 fixed: latency 1480; turnaround 5000 + 65536 */
	cost_model_charge_ex(m, &xcopy64k, 1 * S, &a);
	assert_int_equal(a.arrival_ns, 0);
	assert_int_equal(a.latency_ns, 1480);
	assert_int_equal(a.next_arrival_ns, 1480 + 5000 + 65536);
	/* the second stream is still free at 0: it queues behind a on the journal */
	cost_model_charge_ex(m, &xcopy64k, 1 * S + 10, &b);
	assert_int_equal(b.arrival_ns, 0);
	assert_int_equal(b.latency_ns, 780 + 780 + 700);
	/* an INQUIRY is the host looking: at the front (0), and it holds no stream */
	cost_model_charge_ex(m, &inq, 1 * S + 20, &c);
	assert_int_equal(c.arrival_ns, 0);
	/* both streams are busy until their turnaround ends: a's stream is free first */
	cost_model_charge_ex(m, &xcopy64k, 1 * S + 30, &d);
	assert_int_equal(d.arrival_ns, a.next_arrival_ns);
	cost_model_charge_ex(m, &xcopy64k, 1 * S + 40, &e);
	assert_int_equal(e.arrival_ns, b.next_arrival_ns);
	/* a reset starts from an idle array and an idle host: the front moves past the queued
	 * work (e's journal work ends last), and every stream is free there */
	cost_model_reset_telemetry(m);
	struct cost_result f, g;
	cost_model_charge_ex(m, &xcopy64k, 2 * S, &f);
	cost_model_charge_ex(m, &xcopy64k, 2 * S + 10, &g);
	assert_int_equal(f.arrival_ns, e.arrival_ns + 780);
	assert_int_equal(g.arrival_ns, f.arrival_ns);
	assert_int_equal(f.latency_ns, 1480);
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	assert_int_equal(t.commands, 2);
	assert_int_equal(t.modeled_elapsed_ns, 780 + 780 + 700);
	cost_model_put(m);
	profile_free(p);
	/* a time scale that is not virtual, and the bounds of N */
	assert_int_equal(cost_time_virtual_streams(1.0), 0);
	assert_int_equal(cost_time_virtual_streams(0.0), 0);
	assert_int_equal(cost_time_virtual_streams(cost_time_virtual(1)), 1);
	assert_int_equal(cost_time_virtual_streams(cost_time_virtual(COST_VIRTUAL_STREAMS_MAX)), COST_VIRTUAL_STREAMS_MAX);
}

/* A client may resize the modeled host of a virtual clock (lunlab-bench clone sends its
 * --parallel x --outstanding), unless the LU pinned it; a real clock has no modeled host. */
static void virtual_clock_set_streams(void **state)
{
	(void)state;
	struct lunlab_profile *p = parse(arith_text);
	struct cost_model *m = cost_model_new(p, cost_time_virtual(4));
	struct cost_result a, b, c;
	struct cost_telemetry t;
	/* 1 stream: the second command waits for the first one's completion + turnaround */
	assert_int_equal(cost_model_set_virtual_streams(m, 1), 0);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.virtual_streams, 1);
	cost_model_charge_ex(m, &xcopy64k, 1 * S, &a);
	cost_model_charge_ex(m, &xcopy64k, 1 * S + 10, &b);
	assert_int_equal(a.arrival_ns, 0);
	assert_int_equal(b.arrival_ns, a.next_arrival_ns);
	assert_int_equal(b.latency_ns, 1480);            /* alone on the array again */
	/* 3 streams, fresh from idle: the work queued so far (b's journal) ends at the new front */
	assert_int_equal(cost_model_set_virtual_streams(m, 3), 0);
	cost_model_charge_ex(m, &xcopy64k, 2 * S, &c);
	assert_int_equal(c.arrival_ns, b.arrival_ns + 780);
	for (unsigned i = 0; i < 2; i++) {
		struct cost_result r;
		cost_model_charge_ex(m, &xcopy64k, 2 * S + 1 + i, &r);
		assert_int_equal(r.arrival_ns, c.arrival_ns); /* two more streams free at the front */
	}
	cost_model_telemetry(m, &t);
	assert_int_equal(t.virtual_streams, 3);
	/* bounds, then pinned: refused and unchanged */
	assert_int_equal(cost_model_set_virtual_streams(m, 0), -1);
	assert_int_equal(cost_model_set_virtual_streams(m, COST_VIRTUAL_STREAMS_MAX + 1), -1);
	assert_false(cost_model_virtual_streams_pinned(m));
	cost_model_pin_virtual_streams(m);
	assert_true(cost_model_virtual_streams_pinned(m));
	assert_int_equal(cost_model_set_virtual_streams(m, 8), -2);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.virtual_streams, 3);
	cost_model_put(m);
	/* a real clock (and an unpaced one) has no modeled host to resize */
	m = cost_model_new(p, 1.0);
	assert_int_equal(cost_model_set_virtual_streams(m, 2), -1);
	cost_model_telemetry(m, &t);
	assert_int_equal(t.virtual_streams, 0);
	cost_model_put(m);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_command_formula),
		cmocka_unit_test(queueing_under_load),
		cmocka_unit_test(deadlines_and_time_scale),
		cmocka_unit_test(unlimited_costs_nothing),
		cmocka_unit_test(unlimited_counts_from_many_threads),
		cmocka_unit_test(telemetry_windows),
		cmocka_unit_test(totals_survive_reset),
		cmocka_unit_test(xcopy_buckets),
		cmocka_unit_test(shared_by_array_name),
		cmocka_unit_test(thread_safe),
		cmocka_unit_test(virtual_clock_is_a_closed_loop),
		cmocka_unit_test(virtual_clock_streams),
		cmocka_unit_test(virtual_clock_set_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
