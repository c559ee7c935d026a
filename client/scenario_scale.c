/* scenario_scale.c - N "VMs", each its own iSCSI session reading (or writing) its own region
 * of the LU sequentially (or at random, --random) at a fixed queue depth; all sessions in one
 * poll loop.
 *
 * Reads land in one shared scratch buffer (the bytes are not looked at).  Writes send what
 * --data says (write_data.h): repeat and zero one shared buffer; unique and win10 a buffer per
 * command slot whose content each write sets (a 16-byte stamp per 4 KiB for unique), so the
 * client stays far from being the bottleneck it measures.
 *
 * Whether this machine rather than the array set the pace: the LU's model telemetry (LOG
 * SENSE 0x31, when it models) is read before and after each run, and its mean modeled latency
 * (+ modeled host turnaround) x time scale compared with the mean latency the client saw;
 * what the client saw beyond it is this machine's (docs/bench.md "Machine-limited runs"). */
#include "client/scenarios.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "client/conn.h"
#include "client/logpage.h"
#include "client/progress.h"
#include "client/scsi_query.h"
#include "client/session_rates.h"
#include "client/window.h"
#include "client/write_data.h"
#include "client/xfer_limit.h"

struct vm;

struct slot {
	struct vm *vm;
	struct scsi_iovec iov;
	double t_submit;
	uint8_t *buf;                    /* its own write buffer (unique, win10), else NULL */
};

struct vm {
	struct bench_conn *conn;
	uint64_t region_lba, region_blocks, next;   /* next: offset in blocks within the region */
	uint32_t io_blocks;
	unsigned inflight;
	double bytes_in_window;          /* pro-rata credit (fallback for VMs with < 3 completions) */
	uint64_t ios_in_window;          /* completions inside the window */
	double t_first, t_last;          /* first and last completion inside the window */
	struct slot *slots;
	int failed;
	uint64_t issued;                 /* --count: commands submitted so far */
	uint64_t bytes_done;             /* --count: bytes of the commands completed */
};

struct run_ctx {
	const struct bench_opts *o;
	uint8_t *buf;
	double t_start, t_measure, t_end;
	int stop;
	char err[1024];
	uint64_t write_seq;              /* writes issued: unique's stamp */
	uint64_t data_seed;              /* unique: differs per run, so runs never dedup each other */
	uint64_t rng;                    /* --random offsets */
	double lat_sum;                  /* every completed I/O's latency, s */
	uint64_t lat_n;
	uint64_t failed_ios;             /* --keep-going: commands that failed */
	char first_failure[512];         /* --keep-going: the first of them */
};

static struct run_ctx *g_run;

static int submit(struct vm *v, struct slot *s);

static void io_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	struct slot *s = priv;
	struct vm *v = s->vm;
	v->inflight--;
	if (status != SCSI_STATUS_GOOD && g_run->o->keep_going && status != SCSI_STATUS_ERROR) {
		/* --keep-going: the command is counted and the VM goes on, as a host whose
		 * application logs an I/O error and carries on (a session lost is still the end) */
		if (!g_run->failed_ios++) {
			char what[96], why[100];
			conn_describe_cdb(task->cdb, task->cdb_size, what, sizeof(what));
			conn_describe_answer(c, status, task, why, sizeof(why));
			snprintf(g_run->first_failure, sizeof(g_run->first_failure), "%.200s: %s failed: %s", c->url, what,
				 why);
		}
		scsi_free_scsi_task(task);
		if (!g_run->stop && now_s() < g_run->t_end && (!g_run->o->count || v->issued < g_run->o->count))
			submit(v, s);
		return;
	}
	if (status != SCSI_STATUS_GOOD) {
		if (!v->failed) {
			char what[96], why[100];
			v->failed = 1;
			conn_describe_cdb(task->cdb, task->cdb_size, what, sizeof(what));
			conn_describe_answer(c, status, task, why, sizeof(why));
			if (status == SCSI_STATUS_ERROR)
				snprintf(g_run->err, sizeof(g_run->err), "%s", conn_error(c));
			else
				snprintf(g_run->err, sizeof(g_run->err), "%s: %s failed: %s", c->url, what, why);
		}
		scsi_free_scsi_task(task);
		return;
	}
	scsi_free_scsi_task(task);
	double t = now_s();
	g_run->lat_sum += t - s->t_submit;
	g_run->lat_n++;
	/* Credit each I/O with the part of its bytes that falls inside the measurement window,
	 * pro rata to the overlap of [submit, completion] with it: with 100 VMs a VM completes
	 * only a few 4 MiB reads a second, and counting whole completions would quantise the
	 * per-VM figures (and the fairness) to +-1 I/O. */
	v->bytes_in_window += window_credit((double)v->io_blocks * v->conn->block_size, s->t_submit, t,
					    g_run->t_measure, g_run->t_end);
	if (t >= g_run->t_measure && t <= g_run->t_end) {
		if (!v->ios_in_window)
			v->t_first = t;
		v->t_last = t;
		v->ios_in_window++;
	}
	v->bytes_done += (uint64_t)v->io_blocks * v->conn->block_size;
	if (!g_run->stop && t < g_run->t_end && (!g_run->o->count || v->issued < g_run->o->count))
		submit(v, s);
}

static uint64_t rng_next(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int submit(struct vm *v, struct slot *s)
{
	const struct bench_opts *o = g_run->o;
	uint64_t lba;
	if (o->random) {
		/* uniform over the VM's region, aligned to the I/O size */
		lba = v->region_lba + rng_next(&g_run->rng) % (v->region_blocks / v->io_blocks) * v->io_blocks;
	} else {
		lba = v->region_lba + v->next;
		v->next += v->io_blocks;
		if (v->next + v->io_blocks > v->region_blocks)
			v->next = 0;        /* sequential, wrapping inside the VM's own region */
	}
	uint32_t len = v->io_blocks * v->conn->block_size;
	s->iov.iov_base = g_run->buf;
	if (o->write && s->buf) {
		write_data_fill(o->data, s->buf, len, lba * v->conn->block_size, g_run->write_seq++,
				o->data == DATA_UNIQUE ? g_run->data_seed : o->seed);
		s->iov.iov_base = s->buf;
	}
	s->t_submit = now_s();
	s->iov.iov_len = len;
	v->inflight++;
	v->issued++;
	int rc = g_run->o->write ? conn_write16(v->conn, lba, len, &s->iov, 1, io_cb, s)
				 : conn_read16(v->conn, lba, len, &s->iov, 1, io_cb, s);
	if (rc) {
		v->inflight--;
		v->failed = 1;
		snprintf(g_run->err, sizeof(g_run->err), "%s",
			 conn_failed(v->conn) ? conn_error(v->conn) : "cannot queue I/O");
		return -1;
	}
	return 0;
}

/* --count: the model's throughput, its own bytes over its own clock - the bytes the model
 * charged between t0 and t1 (page 0x31's per-size buckets) over how far its modeled time
 * moved (first arrival .. last modeled completion, 0x0002).  A fixed number of commands
 * has no window whose edges cut commands, so on a virtual-clock array (docs/models.md)
 * the figure depends on the model, the profile and the count only, never on this machine. */
void scale_modeled_rate(const struct model_telemetry *t0, const struct model_telemetry *t1, struct scale_run *out)
{
	uint64_t bytes = 0;

	for (unsigned b = 0; b < 13; b++)
		bytes += t1->bucket_bytes[b] - t0->bucket_bytes[b];
	if (!t1->have_elapsed || t1->modeled_elapsed_ns <= t0->modeled_elapsed_ns || !bytes)
		return;
	out->have_modeled_rate = true;
	out->modeled_bytes = bytes;
	out->modeled_seconds = (double)(t1->modeled_elapsed_ns - t0->modeled_elapsed_ns) / 1e9;
	out->modeled_mbps = (double)bytes / out->modeled_seconds / 1e6;
}

/* Page 0x32 into *pg; -1 when the LU does not answer it or it does not parse. */
static int read_sessions(struct bench_conn *c, struct session_page *pg)
{
	static uint8_t buf[65535];
	char err[200];
	int n = q_log_sense(c, 0x32, buf, sizeof(buf));
	return n < 0 || session_page_parse(buf, (size_t)n, pg, err, sizeof(err)) ? -1 : 0;
}

/* --count on a virtual clock whose host is one stream per session (page 0x31 0x0010): each
 * VM's modeled rate from page 0x32 read before and after the run (session_rates.h). */
void scale_session_rates(const struct session_page *p0, const struct session_page *p1, struct scale_run *out)
{
	struct session_fairness f;
	if (!session_fairness_of(p0, p1, &f))
		return;
	out->have_session_rates = true;
	out->modeled_sessions = f.sessions;
	out->modeled_vm_min_mbps = f.min_mbps;
	out->modeled_vm_max_mbps = f.max_mbps;
	out->modeled_fairness = f.fairness;
}

/* The run's model telemetry (deltas of page 0x31 across it) against the mean latency the
 * client saw.  Each VM slot is a closed loop: had the array alone set the pace, a command
 * would take (modeled latency + modeled host turnaround) x time scale; what the client saw
 * beyond that is this machine's (target and client CPU, loopback, scheduling), and its share
 * of the client's latency is the share of throughput the run lost to the machine - unless
 * the array was saturated: when its busiest resource (page 0x31 0x000B..0x000D, and the CPU
 * pool) was busy all the time, the figure is the array's capacity and extra host time only
 * shortened its queue.  Slow motion shrinks the share as 1 / scale, hence the scale that
 * brings it under 2%.  Time a fault rule injected (delay=, page 0x31 0x000F) is neither the
 * array's nor the machine's: it leaves the client's latency before the comparison. */
void scale_machine_check(const struct model_telemetry *t0, const struct model_telemetry *t1, double host_mean_s,
			 double client_cpu_pct, struct scale_run *out)
{
	uint64_t ops = 0, lat = 0;
	for (unsigned b = 0; b < 13; b++) {
		ops += t1->bucket_ops[b] - t0->bucket_ops[b];
		lat += t1->bucket_latency_ns[b] - t0->bucket_latency_ns[b];
	}
	uint64_t cmds = t1->commands - t0->commands;
	/* an unmodeled profile charges nothing: no model to compare with */
	if (!ops || t1->modeled_busy_ns == t0->modeled_busy_ns)
		return;
	out->have_modeled = true;
	out->time_scale = (double)t1->time_scale_x1000 / 1000.0;
	out->virtual_streams = (unsigned)t1->virtual_streams;
	out->host_mean_latency_ms = host_mean_s * 1e3;
	out->modeled_mean_latency_ms = (double)lat / (double)ops / 1e6;
	double turn_ms = t1->have_turnaround && cmds ? (double)(t1->turnaround_ns - t0->turnaround_ns) / (double)cmds / 1e6 : 0;
	out->machine_share_exact = t1->have_turnaround;
	/* how busy the busiest modeled resource was over the run */
	double elapsed = (double)(t1->modeled_elapsed_ns - t0->modeled_elapsed_ns);
	if (elapsed > 0) {
		double busy[4] = { 0, 0, 0, 0 };
		if (t1->cores)
			busy[0] = (double)(t1->modeled_busy_ns - t0->modeled_busy_ns) / (double)t1->cores;
		if (t1->have_busy) {
			busy[1] = (double)(t1->frontend_busy_ns - t0->frontend_busy_ns);
			busy[2] = (double)(t1->backend_busy_ns - t0->backend_busy_ns);
			busy[3] = (double)(t1->journal_busy_ns - t0->journal_busy_ns);
		}
		for (unsigned i = 0; i < 4; i++)
			if (busy[i] / elapsed > out->array_utilization)
				out->array_utilization = busy[i] / elapsed;
	}
	if (out->virtual_streams) {
		/* modeled time comes from the modeled host, not from this machine's clock */
		out->machine_share_exact = true;
		return;
	}
	double scale = out->time_scale > 0 ? out->time_scale : 1;
	double modeled_ms = (out->modeled_mean_latency_ms + turn_ms) * scale;
	double injected_ms = cmds && t1->fault_delay_ns >= t0->fault_delay_ns
				     ? (double)(t1->fault_delay_ns - t0->fault_delay_ns) / (double)cmds / 1e6 : 0;
	out->injected_latency_ms = injected_ms;
	double host_ms = out->host_mean_latency_ms - injected_ms; /* what the array and the machine took */
	double extra = host_ms - modeled_ms;
	out->machine_share = extra > 0 && host_ms > 0 ? extra / host_ms : 0;
	if (out->array_utilization >= SCALE_SATURATED)
		out->machine_share = 0; /* the array set the pace: its queue absorbed the rest */
	out->machine_limited = (out->machine_share_exact && out->machine_share > 0.05) || client_cpu_pct > 90;
	out->suggested_time_scale = out->machine_share > 0.02 ? scale * out->machine_share / 0.02 : scale;
	if (out->machine_share > 0.98)
		out->suggested_time_scale = scale * 50; /* the figures say nothing: at least 50x more */
}

static int run_one(const struct bench_opts *o, unsigned n, struct scale_run *out, char *err, size_t errlen)
{
	struct bench_conn *conns = calloc(n, sizeof(*conns));
	struct vm *vms = calloc(n, sizeof(*vms));
	struct slot *slots = calloc((size_t)n * o->qd, sizeof(*slots));
	int ret = -1;
	if (!conns || !vms || !slots) {
		snprintf(err, errlen, "out of memory for %u VMs", n);
		goto out_free;
	}
	if (conn_open_many(o->url, o->initiator, n, conns, err, errlen))
		goto out_free;
	uint32_t bsz = conns[0].block_size;
	if (o->bs % bsz) {
		snprintf(err, errlen, "--bs %llu is not a multiple of the LU's %u-byte blocks",
			 (unsigned long long)o->bs, bsz);
		goto out_close;
	}
	uint32_t io_blocks = (uint32_t)(o->bs / bsz);
	/* scale measures one request size: splitting --bs would measure another, so a --bs above
	 * the LU's MAXIMUM TRANSFER LENGTH is refused with the limit instead. */
	if (xfer_limit_query(&conns[0], err, errlen))
		goto out_close;
	if (conns[0].max_xfer_blocks && io_blocks > conns[0].max_xfer_blocks) {
		snprintf(err, errlen, "--bs %llu is above the LU's MAXIMUM TRANSFER LENGTH (VPD B0h): %u blocks of %u bytes",
			 (unsigned long long)o->bs, conns[0].max_xfer_blocks, bsz);
		goto out_close;
	}
	uint64_t region = conns[0].num_blocks / n;
	region -= region % io_blocks;
	if (region < io_blocks) {
		snprintf(err, errlen, "the LU (%llu blocks) is too small for %u VMs of %llu-byte I/Os",
			 (unsigned long long)conns[0].num_blocks, n, (unsigned long long)o->bs);
		goto out_close;
	}
	bool own_bufs = o->write && write_data_per_write(o->data);
	if (own_bufs && (uint64_t)n * o->qd * o->bs > SCALE_MAX_WRITE_BUFFERS) {
		snprintf(err, errlen, "--data %s needs a buffer per command in flight: %u VMs x QD%u x %llu bytes "
			 "is more than %llu MiB", write_data_name(o->data), n, o->qd, (unsigned long long)o->bs,
			 (unsigned long long)(SCALE_MAX_WRITE_BUFFERS >> 20));
		goto out_close;
	}
	for (unsigned i = 0; i < n; i++) {
		vms[i].conn = &conns[i];
		vms[i].region_lba = region * i;
		vms[i].region_blocks = region;
		vms[i].io_blocks = io_blocks;
		vms[i].slots = &slots[(size_t)i * o->qd];
		for (unsigned q = 0; q < o->qd; q++) {
			struct slot *sl = &vms[i].slots[q];
			sl->vm = &vms[i];
			if (own_bufs) {
				if (posix_memalign((void **)&sl->buf, 4096, o->bs)) {
					sl->buf = NULL;
					snprintf(err, errlen, "out of memory for the write buffers of %u VMs", n);
					goto out_close;
				}
				write_data_init(o->data, sl->buf, o->bs, g_run->data_seed + i * 256 + q);
			}
		}
	}
	/* the model's view of the run, when the LU reports one (page 0x31) */
	struct model_telemetry tel0, tel1;
	char terr[200];
	bool have_tel = q_log_supported(&conns[0], 0x31) && q_telemetry(&conns[0], &tel0, terr, sizeof(terr)) == 0;
	/* (static: 56 KiB each; one run at a time) */
	static struct session_page sess0, sess1;
	bool have_sess = o->count && have_tel && tel0.sessions && read_sessions(&conns[0], &sess0) == 0;
	g_run->lat_sum = 0;
	g_run->lat_n = 0;
	g_run->stop = 0;
	g_run->err[0] = 0;
	double cpu0 = cpu_seconds();
	g_run->t_start = now_s();
	g_run->failed_ios = 0;
	g_run->first_failure[0] = 0;
	if (o->count) { /* N commands per VM: no window, every command counts */
		g_run->t_measure = g_run->t_start;
		g_run->t_end = 1e300;
	} else {
		g_run->t_measure = g_run->t_start + o->warmup_s;
		g_run->t_end = g_run->t_measure + o->duration_s;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned q = 0; q < o->qd && (!o->count || vms[i].issued < o->count); q++)
			if (submit(&vms[i], &vms[i].slots[q]))
				g_run->stop = 1;
	char label[32];
	snprintf(label, sizeof(label), "scale %u VMs", n);
	struct progress pb;
	progress_start(&pb, label, o->count ? (uint64_t)o->count * n : (uint64_t)((o->warmup_s + o->duration_s) * 1000),
		       o->quiet);
	for (;;) {
		unsigned inflight = 0;
		for (unsigned i = 0; i < n; i++) {
			inflight += vms[i].inflight;
			if (vms[i].failed)
				g_run->stop = 1;
		}
		if (inflight == 0)
			break;
		/* no deadline of its own: every command completes, is retried or fails within the
		 * connection layer's --timeout bounds (conn.h); a session that fails for good fails its I/Os back through io_cb (g_run->err) */
		conn_poll_many(conns, n, 100, err, errlen);
		if (o->count) {
			uint64_t done = 0;
			for (unsigned i = 0; i < n; i++)
				done += vms[i].issued - vms[i].inflight;
			progress_update(&pb, done);
		} else {
			progress_update(&pb, (uint64_t)((now_s() - g_run->t_start) * 1000));
		}
	}
	progress_end(&pb);
	double run_wall = now_s() - g_run->t_start;
	double run_cpu = cpu_seconds() - cpu0;
	if (g_run->err[0]) {
		snprintf(err, errlen, "%s", g_run->err);
		goto out_close;
	}
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < n; i++)
		conn_stats_add(&out->conn, &conns[i].stats);
	/* A run the connection layer had to step into (a re-login, retried BUSY...) gets no
	 * machine check: its latencies hold the outage or the backoffs, which the model does not
	 * charge, and a target that restarted has counters that started again from zero
	 * (conn_stats_disturbed: a retried UNIT ATTENTION alone is not that). */
	bool have_tel1 = have_tel && q_telemetry(&conns[0], &tel1, terr, sizeof(terr)) == 0;
	if (have_tel1 && !conn_stats_disturbed(&out->conn))
		scale_machine_check(&tel0, &tel1, g_run->lat_n ? g_run->lat_sum / (double)g_run->lat_n : 0,
				    run_wall > 0 ? 100.0 * run_cpu / run_wall : 0, out);
	double secs = o->count ? run_wall : o->duration_s;
	out->vms = n;
	out->seconds = secs;
	out->count = o->count;
	out->failed_ios = g_run->failed_ios;
	snprintf(out->first_failure, sizeof(out->first_failure), "%s", g_run->first_failure);
	if (have_tel1 && o->count)
		scale_modeled_rate(&tel0, &tel1, out);
	if (have_tel1 && have_sess && read_sessions(&conns[0], &sess1) == 0) {
		scale_session_rates(&sess0, &sess1, out);
		/* read after page 0x32, whose read charged what still waited */
		struct model_telemetry tel2;
		out->modeled_order_exact = q_telemetry(&conns[0], &tel2, terr, sizeof(terr)) == 0 &&
					   tel2.session_overflows == tel0.session_overflows;
	}
	out->min_mbps = 1e300;
	for (unsigned i = 0; i < n; i++) {
		/* --count: the VM's bytes over its own time from the run's start to its last completion */
		double mbps = o->count ? (vms[i].t_last > g_run->t_start
						  ? (double)vms[i].bytes_done / (vms[i].t_last - g_run->t_start) / 1e6
						  : 0)
				       : window_rate((unsigned)vms[i].ios_in_window,
						     (double)vms[i].io_blocks * vms[i].conn->block_size, vms[i].t_first,
						     vms[i].t_last, vms[i].bytes_in_window, secs) / 1e6;
		out->total_mbps += mbps;
		out->ios += vms[i].ios_in_window;
		if (mbps < out->min_mbps) out->min_mbps = mbps;
		if (mbps > out->max_mbps) out->max_mbps = mbps;
	}
	out->avg_mbps = out->total_mbps / n;
	out->client_cpu_pct = run_wall > 0 ? 100.0 * run_cpu / run_wall : 0;
	/* A VM that completed nothing in the window makes fairness infinite: report 0 = undefined. */
	out->fairness = out->min_mbps > 0 ? out->max_mbps / out->min_mbps : 0;
	ret = 0;
out_close:
	for (unsigned i = 0; i < n; i++)
		conn_close(&conns[i]);
out_free:
	if (slots)
		for (size_t k = 0; k < (size_t)n * o->qd; k++)
			free(slots[k].buf);
	free(slots);
	free(vms);
	free(conns);
	return ret;
}

int scenario_scale(const struct bench_opts *o, struct scale_result *r, char *err, size_t errlen)
{
	struct run_ctx ctx = { .o = o };
	memset(r, 0, sizeof(*r));
	r->write = o->write;
	r->random = o->random;
	r->data = o->data;
	r->bs = o->bs;
	r->qd = o->qd;
	if (posix_memalign((void **)&ctx.buf, 4096, o->bs)) {
		snprintf(err, errlen, "out of memory for a %llu-byte buffer", (unsigned long long)o->bs);
		return -1;
	}
	/* the shared buffer: what repeat and zero write (and where reads land) */
	write_data_init(o->write && o->data == DATA_ZERO ? DATA_ZERO : DATA_REPEAT, ctx.buf, o->bs, 0);
	/* unique: a seed of this run's own, so two runs never write the same block */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ctx.data_seed = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + ((uint64_t)getpid() << 48);
	ctx.rng = o->seed * 0x9e3779b97f4a7c15ull + 1;
	g_run = &ctx;
	int ret = 0;
	for (unsigned i = 0; i < o->n_vms && i < 32; i++) {
		if (o->vms_list[i] > SCALE_MAX_VMS) {
			snprintf(err, errlen, "--vms %u: at most %d sessions", o->vms_list[i], SCALE_MAX_VMS);
			ret = -1;
			break;
		}
		if (run_one(o, o->vms_list[i], &r->runs[r->n], err, errlen)) {
			ret = -1;
			break;
		}
		r->n++;
	}
	g_run = NULL;
	free(ctx.buf);
	return ret;
}
