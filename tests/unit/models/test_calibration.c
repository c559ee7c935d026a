/* test_calibration.c — the calibration's proof: the published figures of
 * ../shared/facts/seed-figures.md reproduced by the cost model alone, in virtual
 * time (no network, no sleeping).  Hosts are closed loops: each stream sends its
 * next command when the previous one's modeled completion plus the host turnaround
 * has passed, as a real host with that many commands outstanding does.
 * The host side (clones in parallel, commands outstanding per clone) is the one
 * documented in docs/models.md "Host side". */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <pthread.h>

#include "models/pacer.h"

#include "models/cost.h"
#include "models/cost_virtual.h"
#include "models/profile.h"

/* Host side, docs/models.md: 2 clones at a time, 2 XCOPY outstanding each. */
#define HOST_PARALLEL 2u
#define HOST_OUTSTANDING 2u
#define CLONES 100u
/* seed 000: the template of 11.89 GB logical; lunlab-bench's default 11.9 GiB rounded down
 * to its 64 KiB image extents (client/synthetic_image.h). */
#define TEMPLATE_BYTES ((12777527705ull / 65536) * 65536)

struct clone_result {
	double duration_s, peak_latency_ms, peak_cpu_pct;
	uint64_t commands, gt1mb_ops;
};

struct stream {
	uint64_t ready;  /* modeled ns at which it may send */
	unsigned slot;   /* which parallel clone slot it works for */
};

struct slot {
	unsigned clone;  /* clone being copied; >= CLONES: done */
	uint64_t offset; /* next byte of the template to send */
};

/* Extra host turnaround (modeled ns) on top of the profile's: what lunlab-bench's own real
 * turnaround adds in an end-to-end run, divided by the time scale. */
static uint64_t host_slack_ns;

static void run_clones(const char *profile, uint64_t chunk, struct clone_result *out)
{
	char *err = NULL;
	const struct lunlab_profile *p = profile_get(profile, &err);
	assert_non_null(p);
	struct cost_model *m = cost_model_new(p, 0);
	assert_non_null(m);

	struct slot slots[HOST_PARALLEL];
	struct stream streams[HOST_PARALLEL * HOST_OUTSTANDING];
	unsigned next_clone = HOST_PARALLEL;
	for (unsigned s = 0; s < HOST_PARALLEL; s++)
		slots[s] = (struct slot){ .clone = s, .offset = 0 };
	for (unsigned i = 0; i < HOST_PARALLEL * HOST_OUTSTANDING; i++)
		streams[i] = (struct stream){ .ready = 0, .slot = i / HOST_OUTSTANDING };

	for (;;) {
		/* The stream that can send first (arrivals in time order keep the queues FIFO). */
		int best = -1;
		for (unsigned i = 0; i < HOST_PARALLEL * HOST_OUTSTANDING; i++)
			if (slots[streams[i].slot].clone < CLONES &&
			    (best < 0 || streams[i].ready < streams[best].ready))
				best = (int)i;
		if (best < 0)
			break;
		struct slot *sl = &slots[streams[best].slot];
		uint64_t len = TEMPLATE_BYTES - sl->offset < chunk ? TEMPLATE_BYTES - sl->offset : chunk;
		struct cost_req r = { .kind = COST_XCOPY, .bytes = 32 + 28 + 16, .xcopy_bytes = len,
				      .xcopy_segments = 1 };
		struct cost_result res;
		cost_model_charge_at(m, &r, streams[best].ready, &res);
		streams[best].ready = res.next_arrival_ns + host_slack_ns;
		sl->offset += len;
		if (sl->offset == TEMPLATE_BYTES) {
			sl->offset = 0;
			sl->clone = next_clone++;
		}
	}
	struct cost_telemetry t;
	cost_model_telemetry(m, &t);
	out->duration_s = (double)t.modeled_elapsed_ns / 1e9;
	out->peak_latency_ms = (double)t.peak_latency_ns / 1e6;
	out->peak_cpu_pct = t.peak_cpu_permille / 10.0;
	out->commands = t.commands;
	out->gt1mb_ops = t.bucket_ops[COST_BUCKETS - 1];
	cost_model_put(m);
}

static void check_clone(const char *profile, uint64_t chunk, double dur, double lat_ms, double cpu_pct)
{
	struct clone_result r;
	run_clones(profile, chunk, &r);
	printf("  %-3s %5llu KiB: duration %6.1f s (published %5.0f), peak latency %.4f ms (%.3f), "
	       "peak CPU %4.1f%% (%2.0f%%), %llu commands\n",
	       profile, (unsigned long long)(chunk >> 10), r.duration_s, dur, r.peak_latency_ms, lat_ms,
	       r.peak_cpu_pct, cpu_pct, (unsigned long long)r.commands);
	uint64_t per_clone = (TEMPLATE_BYTES + chunk - 1) / chunk;
	assert_int_equal(r.commands, per_clone * CLONES);
	/* seed 000: all three runs report their I/O under ">1 MB" */
	assert_int_equal(r.gt1mb_ops, r.commands);
	assert_true(fabs(r.duration_s - dur) <= 0.05 * dur);
	assert_true(fabs(r.peak_latency_ms - lat_ms) <= 0.20 * lat_ms);
	assert_true(fabs(r.peak_cpu_pct - cpu_pct) <= 5.0);
}

static void x1_256k(void **state)
{
	(void)state;
	check_clone("x1", 256u << 10, 180, 0.1, 81);
}

static void x2_256k(void **state)
{
	(void)state;
	check_clone("x2", 256u << 10, 80, 0.023, 70);
}

static void x2_4m(void **state)
{
	(void)state;
	check_clone("x2", 4u << 20, 75, 0.5, 55);
}

/* The X2 ordering the seed's text draws: 256 KiB is 2.25x faster on X2 than X1; 4 MiB saves
 * ~5 s on X2 at a higher latency and a lower CPU peak. */
static void x2_relations(void **state)
{
	(void)state;
	struct clone_result a, b, c;
	run_clones("x1", 256u << 10, &a);
	run_clones("x2", 256u << 10, &b);
	run_clones("x2", 4u << 20, &c);
	double speedup = a.duration_s / b.duration_s;
	assert_true(speedup > 2.25 * 0.9 && speedup < 2.25 * 1.1);
	assert_true(b.duration_s - c.duration_s > 2.0 && b.duration_s - c.duration_s < 8.0);
	assert_true(c.peak_latency_ms > b.peak_latency_ms);
	assert_true(b.peak_latency_ms < a.peak_latency_ms);
	assert_true(c.peak_cpu_pct < b.peak_cpu_pct);
}

/* Total service demand of the whole job on one resource (no queueing): what the run would
 * last if that resource alone set the pace. */
static void job_demand(const char *profile, uint64_t chunk, double *journal_s, double *cpu_s)
{
	const struct lunlab_profile *p = profile_get(profile, NULL);
	assert_non_null(p);
	uint64_t j = 0, c = 0;
	for (uint64_t off = 0; off < TEMPLATE_BYTES; off += chunk) {
		uint64_t len = TEMPLATE_BYTES - off < chunk ? TEMPLATE_BYTES - off : chunk;
		struct cost_req r = { .kind = COST_XCOPY, .bytes = 76, .xcopy_bytes = len, .xcopy_segments = 1 };
		struct cost_service sv;
		cost_service_of(p, &r, &sv);
		j += sv.journal_ns;
		c += sv.cpu_ns;
	}
	*journal_s = (double)j * CLONES / 1e9;
	*cpu_s = (double)c * CLONES / 1e9;
}

/* Side checks of docs/models.md, not fitted: x2 at 64 KiB chunks takes 126 s at 81.9% CPU,
 * and neither the cores (103 s of work) nor the journal (96 s) set that pace: the host does.
 * Each of its 4 streams waits latency + turnaround (13.2 us + 117.9 us x 1/16 MiB = 20.6 us)
 * per command, so 19.5 M commands / 4 streams x ~25.9 us = 126 s.  At 16 MiB the journal
 * stays the limit: ~75 s at ~2 ms. */
static void x2_side_checks(void **state)
{
	(void)state;
	struct clone_result r;
	double journal_s, cpu_s;
	run_clones("x2", 64u << 10, &r);
	job_demand("x2", 64u << 10, &journal_s, &cpu_s);
	printf("  x2   64 KiB: duration %.1f s, peak latency %.4f ms, peak CPU %.1f%%; demand: journal %.1f s, "
	       "cores %.1f s (host-bound)\n", r.duration_s, r.peak_latency_ms, r.peak_cpu_pct, journal_s, cpu_s);
	assert_true(fabs(r.duration_s - 126.0) <= 0.01 * 126.0);
	assert_true(fabs(r.peak_cpu_pct - 81.9) <= 0.2);
	assert_true(fabs(cpu_s - 103.3) <= 0.01 * 103.3);
	assert_true(fabs(journal_s - 96.0) <= 0.01 * 96.0);
	assert_true(r.duration_s > 1.2 * cpu_s && r.duration_s > 1.2 * journal_s);
	run_clones("x2", 16u << 20, &r);
	job_demand("x2", 16u << 20, &journal_s, &cpu_s);
	printf("  x2 16384 KiB: duration %.1f s, peak latency %.4f ms, peak CPU %.1f%%; journal demand %.1f s\n",
	       r.duration_s, r.peak_latency_ms, r.peak_cpu_pct, journal_s);
	assert_true(fabs(r.duration_s - 75.0) <= 0.02 * 75.0);
	assert_true(fabs(r.duration_s - journal_s) <= 0.01 * journal_s);
	assert_true(fabs(r.peak_latency_ms - 2.0) <= 0.1 * 2.0);
}

/* End-to-end margin (docs/models.md "Host side"): X2 256 KiB, the tightest run, still meets
 * every tolerance with 4 us of modeled host slack per command; 20 us is out of tolerance,
 * which is why end-to-end runs need slow motion. */
static void x2_256k_host_slack(void **state)
{
	(void)state;
	struct clone_result r;
	host_slack_ns = 4000;
	check_clone("x2", 256u << 10, 80, 0.023, 70);
	host_slack_ns = 20000;
	run_clones("x2", 256u << 10, &r);
	host_slack_ns = 0;
	printf("  x2  256 KiB with 20 us host slack: %.1f s, %.4f ms, %.1f%%\n", r.duration_s,
	       r.peak_latency_ms, r.peak_cpu_pct);
	assert_true(r.duration_s > 80 * 1.05);
}

/* The same loop in real time: cost_model_charge + the pacer, each completion callback sending
 * that stream's next command (its real turnaround is the pacer's wake-up delay).  x2, 4 MiB,
 * 2 clones at time scale 4: 1.5 s of modeled time, ~6 s of wall time.  Bounds are generous
 * (a busy machine wakes late), but a wrong time mapping or deadline fails them. */
struct paced_run {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct cost_model *m;
	uint64_t offset[HOST_PARALLEL];
	unsigned active;
	uint64_t late; /* callbacks run more than LATE_NS after their deadline */
	uint64_t late_excess_ns; /* the sum of those callbacks' lateness beyond LATE_NS */
};

/* Half the X2 4 MiB journal margin (253 us modeled) at time scale 4, in real ns: a callback
 * later than this can idle the modeled journal, i.e. the machine, not the model, limits. */
#define LATE_NS 500000ull

struct paced_stream {
	struct paced_run *run;
	unsigned slot;
	uint64_t deadline;
};

static void paced_send(struct paced_stream *s);

static void paced_done(void *arg)
{
	struct paced_stream *s = arg;
	uint64_t now = pacer_now_ns();
	if (now > s->deadline + LATE_NS) {
		pthread_mutex_lock(&s->run->mu);
		s->run->late++;
		s->run->late_excess_ns += now - (s->deadline + LATE_NS);
		pthread_mutex_unlock(&s->run->mu);
	}
	paced_send(s);
}

static void paced_send(struct paced_stream *s)
{
	struct paced_run *run = s->run;
	pthread_mutex_lock(&run->mu);
	uint64_t off = run->offset[s->slot];
	if (off >= TEMPLATE_BYTES) {
		if (--run->active == 0)
			pthread_cond_signal(&run->cv);
		pthread_mutex_unlock(&run->mu);
		return;
	}
	uint64_t len = TEMPLATE_BYTES - off < (4u << 20) ? TEMPLATE_BYTES - off : (4u << 20);
	run->offset[s->slot] = off + len;
	pthread_mutex_unlock(&run->mu);
	struct cost_req r = { .kind = COST_XCOPY, .bytes = 76, .xcopy_bytes = len, .xcopy_segments = 1 };
	s->deadline = cost_model_charge(run->m, &r, pacer_now_ns());
	pacer_schedule(s->deadline, paced_done, s);
}

static void x2_4m_paced_real_time(void **state)
{
	(void)state;
	static struct paced_run run;
	static struct paced_stream streams[HOST_PARALLEL * HOST_OUTSTANDING];
	run = (struct paced_run){ .active = HOST_PARALLEL * HOST_OUTSTANDING };
	pthread_mutex_init(&run.mu, NULL);
	pthread_cond_init(&run.cv, NULL);
	run.m = cost_model_new(profile_get("x2", NULL), 4.0);
	uint64_t t0 = pacer_now_ns();
	for (unsigned i = 0; i < HOST_PARALLEL * HOST_OUTSTANDING; i++) {
		streams[i] = (struct paced_stream){ .run = &run, .slot = i / HOST_OUTSTANDING };
		paced_send(&streams[i]);
	}
	pthread_mutex_lock(&run.mu);
	while (run.active)
		pthread_cond_wait(&run.cv, &run.mu);
	pthread_mutex_unlock(&run.mu);
	double wall = (double)(pacer_now_ns() - t0) / 1e9;
	struct cost_telemetry t;
	cost_model_telemetry(run.m, &t);
	double dur = (double)t.modeled_elapsed_ns / 1e9, lat = (double)t.peak_latency_ns / 1e6;
	double late = (double)run.late / (double)t.commands;
	/* A callback later than LATE_NS idles the modeled journal by at most its lateness beyond
	 * that, over the time scale (4): the modeled time the machine could have added.  A count
	 * of late callbacks does not bound it (one stall of 0.5 s is 4 late callbacks, 0.07% of
	 * them, and 0.125 s of modeled time: it failed "within 5%" on a punctual-looking run). */
	double machine_s = (double)run.late_excess_ns / 4.0 / 1e9;
	printf("  x2 4 MiB, 2 clones, paced at scale 4: wall %.2f s, modeled %.3f s (expected 1.50), "
	       "peak latency %.3f ms, peak CPU %.1f%%; %.1f%% of completions > 0.5 ms late, adding up to "
	       "%.3f s of modeled time%s\n", wall, dur, lat, t.peak_cpu_permille / 10.0, late * 100, machine_s,
	       late > 0.01 ? ": the machine, not the model, limited this run" : "");
	assert_int_equal(t.commands, HOST_PARALLEL * ((TEMPLATE_BYTES + (4u << 20) - 1) / (4u << 20)));
	assert_true(wall >= 4 * dur * 0.99);          /* held: real time = modeled x scale */
	assert_true(dur >= 1.50 * 0.97);              /* never faster than the model */
	assert_true(lat <= 0.5 * 1.2);                /* host lateness only lowers latency */
	assert_true(dur <= 1.50 * 1.05 + machine_s);  /* the model's figure, plus what the machine added */
	if (late <= 0.01)                             /* a punctual machine: the calibrated latency */
		assert_true(lat >= 0.5 * 0.8);
	cost_model_put(run.m);
}

/* The host path of lunlab-bench over loopback between a completion and the next
 * READ of the same VM (the fa420 profile's fixed latency leaves it out: see
 * models/profiles/fa420.yaml). */
#define FA420_SIM_HOST_PATH_NS 250000u

/* seed 002: N VMs, each 4 MiB sequential reads at QD1, for `secs` of modeled time. */
static void run_scale(unsigned vms, double secs, double *total_mb_s, double *fairness)
{
	char *err = NULL;
	const struct lunlab_profile *p = profile_get("fa420", &err);
	assert_non_null(p);
	struct cost_model *m = cost_model_new(p, 0);
	uint64_t end = (uint64_t)(secs * 1e9);
	uint64_t ready[100] = { 0 }, done_bytes[100] = { 0 };
	assert_true(vms <= 100);
	for (;;) {
		unsigned best = 0;
		for (unsigned i = 1; i < vms; i++)
			if (ready[i] < ready[best])
				best = i;
		if (ready[best] >= end)
			break;
		struct cost_req r = { .kind = COST_READ, .bytes = 4u << 20 };
		struct cost_result res;
		cost_model_charge_at(m, &r, ready[best], &res);
		if (res.completion_ns <= end)
			done_bytes[best] += r.bytes;
		ready[best] = res.next_arrival_ns + FA420_SIM_HOST_PATH_NS;
	}
	double total = 0, lo = 1e300, hi = 0;
	for (unsigned i = 0; i < vms; i++) {
		double mbs = (double)done_bytes[i] / secs / 1e6;
		total += mbs;
		lo = mbs < lo ? mbs : lo;
		hi = mbs > hi ? mbs : hi;
	}
	*total_mb_s = total;
	*fairness = lo > 0 ? hi / lo : 1e300;
	cost_model_put(m);
}

static void fa420_scale(void **state)
{
	(void)state;
	static const unsigned ns[] = { 1, 2, 3, 4, 8, 20, 50, 100 };
	double total[8], fair[8];
	for (unsigned i = 0; i < 8; i++) {
		run_scale(ns[i], 60.0, &total[i], &fair[i]);
		printf("  fa420 %3u VMs: %6.1f MB/s total, fairness %.4f\n", ns[i], total[i], fair[i]);
	}
	assert_true(fabs(total[0] - 600) <= 0.05 * 600);      /* 1 VM: 600 MB/s */
	for (unsigned i = 3; i < 8; i++)                       /* 4..100 VMs: 820 MB/s */
		assert_true(fabs(total[i] - 820) <= 0.03 * 820);
	assert_true(fair[7] <= 1.02);                          /* 100 VMs: max/min <= 1.02 */
	for (unsigned i = 1; i < 8; i++)                       /* the total never falls (6.5 curve) */
		assert_true(total[i] >= total[i - 1] * 0.99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(x1_256k),
		cmocka_unit_test(x2_256k),
		cmocka_unit_test(x2_4m),
		cmocka_unit_test(x2_relations),
		cmocka_unit_test(x2_256k_host_slack),
		cmocka_unit_test(x2_side_checks),
		cmocka_unit_test(fa420_scale),
		cmocka_unit_test(x2_4m_paced_real_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
