/* crash_client.c — the verifier of the crash test (tests/crash/crash.sh):
 * writes tagged data to two LUNs of one lunlab array kept in a state
 * directory while the target is killed with SIGKILL at random moments, and
 * after every restart checks that what became durable is there and that
 * nothing appears that was never written.
 *
 *   crash_client --port P --iqn IQN --status FILE [--threads N] [--blocks N]
 *                [--seed S] [--chunk-copies]
 *
 * LUN 0 keeps its write cache on (WCE=1); the client turns LUN 1's off
 * with MODE SELECT SP=1 (saved) at the start and checks after every restart
 * that it is still off.  Each thread owns --blocks 16 KiB blocks (one dedup
 * block: 32 sectors of 512 bytes) on both LUNs and runs one command at a
 * time through its own session: WRITE(16) with and without FUA, with unique
 * or shared (deduplicated) contents, SYNCHRONIZE CACHE, UNMAP, WRITE SAME,
 * COMPARE AND WRITE and EXTENDED COPY (same LUN and across LUNs), and reads
 * that must match what it wrote.  --chunk-copies: half the EXTENDED COPYs
 * move a 4 MiB map chunk's worth: half of them a whole aligned chunk, which
 * the array shares between the two places (volume_map.c), half from 100
 * blocks into a chunk onto a whole chunk of the other LUN, which the array
 * publishes by content and shares with an equal one made later
 * (map_dedup_chunk), so the other commands write, UNMAP and copy through
 * shared chunks of both kinds.
 *
 * Every sector says which content it belongs to (magic, content id, its
 * index in the block, a CRC), so a read names the write it came from.  Per
 * block the client keeps the content known durable and the contents written
 * since, in order.  A write becomes durable when it completes with FUA, when
 * it completes on LUN 1 (WCE=0), or when a SYNCHRONIZE CACHE sent after it
 * completed returns.  After a restart every block must read as its durable
 * content or one written after it (never an older one, a torn block, or
 * something never written), and every command whose blocks no later command
 * touched must show on all of them or on none (atomic across the crash).
 *
 * The status file gets a line "verified K" once every thread has checked
 * its blocks after restart K (0: the first start), so the kill loop knows
 * when to kill again.  SIGTERM ends the run after one more verification;
 * the last line on stdout is "crash-client: ... errors=N", exit 0 without
 * errors. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "client/xcopy_builder.h"

#define SECTOR 512u
#define BLK 16384u                /* one x2 dedup block */
#define SPB (BLK / SECTOR)        /* sectors per block */
#define MAXRUN 4u                 /* largest command, in blocks */
#define CHUNK 256u                /* a map chunk (4 MiB): --chunk-copies copy whole ones */
#define MAXOP CHUNK               /* largest op the model records, in blocks */
#define NSHARED 8u                /* contents shared by many blocks (dedup) */
#define WS_SECTOR 0xffffu         /* sector index of a WRITE SAME pattern */
static const char MAGIC[8] = "LLCRASH1";

static int g_port, g_threads = 4, g_blocks = 128;
static bool g_chunks;      /* --chunk-copies: half the EXTENDED COPYs move whole aligned map chunks */
static uint64_t g_seed = 1;
static const char *g_iqn, *g_status;
static atomic_bool g_stop;
static atomic_long g_errors;
static atomic_int g_verified_gen = -1; /* restarts whose verification all threads finished */
static atomic_int g_gen_done[64];      /* per thread: the generation it verified last */
static struct xcopy_lu g_lus[2];
static atomic_long g_ops[8];
enum { O_WRITE, O_FUA, O_SYNC, O_UNMAP, O_WS, O_CAW, O_XCOPY, O_READ };
static const char *op_names[8] = { "write", "write_fua", "sync", "unmap", "write_same", "caw", "xcopy", "read" };

__attribute__((format(printf, 1, 2)))
static void err(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&g_errors, 1);
	va_start(ap, fmt);
	fprintf(stderr, "crash-client: ERROR: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- contents: what a block holds, by id (0 = zeros) ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* one sector of content id at index idx (WS_SECTOR: a WRITE SAME pattern) */
static void make_sector(uint8_t *p, uint64_t id, uint16_t idx)
{
	uint64_t s = mix(id * 65537 + idx);

	memcpy(p, MAGIC, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &idx, 2);
	memset(p + 18, 0, 2);
	for (unsigned i = 24; i < SECTOR; i += 8) {
		s = mix(s + i);
		memcpy(p + i, &s, 8);
	}
	uint32_t c = (uint32_t)crc32(0, p + 24, SECTOR - 24) ^ (uint32_t)crc32(0, p, 20);
	memcpy(p + 20, &c, 4);
}

static void make_block(uint8_t *p, uint64_t id, bool same)
{
	if (!id) {
		memset(p, 0, BLK);
		return;
	}
	for (unsigned i = 0; i < SPB; i++)
		make_sector(p + i * SECTOR, id, same ? WS_SECTOR : (uint16_t)i);
}

/* the content a block read back holds: 0 zeros, the id, or -1 (torn or
 * garbage: sectors that belong to no single content) */
static int64_t read_id(const uint8_t *p, bool *same)
{
	uint64_t id = 0;
	bool zero = true;

	for (unsigned i = 0; i < BLK && zero; i++)
		zero = p[i] == 0;
	if (zero)
		return 0;
	for (unsigned i = 0; i < SPB; i++) {
		const uint8_t *s = p + i * SECTOR;
		uint8_t want[SECTOR];
		uint64_t sid;
		uint16_t idx;

		if (memcmp(s, MAGIC, 8))
			return -1;
		memcpy(&sid, s + 8, 8);
		memcpy(&idx, s + 16, 2);
		if (i == 0) {
			id = sid;
			*same = idx == WS_SECTOR;
		}
		if (sid != id || idx != (*same ? WS_SECTOR : i))
			return -1;
		make_sector(want, sid, idx);
		if (memcmp(want, s, SECTOR))
			return -1;
	}
	return (int64_t)id;
}

/* ---- the model of one thread's blocks ---- */

struct entry {
	uint64_t seq;        /* the op that wrote it */
	uint64_t id;         /* content */
	bool same;           /* a WRITE SAME pattern */
};

struct bmodel {
	struct entry durable;
	struct entry *pend;  /* written since, in order (acked or not) */
	size_t npend, cap;
	struct entry cur;    /* what a read returns now (last acked) */
};

/* an op not durable yet: where it wrote, for the atomicity check */
struct opinfo {
	uint64_t seq;
	int kind;
	unsigned nblk;
	uint8_t lun[MAXOP];
	uint32_t blk[MAXOP];
};

struct thr {
	int t;
	uint64_t rng;
	struct iscsi_context *is;
	struct bmodel *m[2];
	uint32_t base;       /* first block of its region */
	uint64_t seq, next_id;
	struct opinfo *ops;  /* ops not known durable */
	size_t nops, capops;
	uint64_t *acked_lun0; /* seqs of LUN 0 ops acked since the last sync */
	size_t nacked, capacked;
	uint8_t *buf, *buf2;
};

static uint32_t rnd(struct thr *th, uint32_t n)
{
	th->rng ^= th->rng << 13;
	th->rng ^= th->rng >> 7;
	th->rng ^= th->rng << 17;
	return (uint32_t)((th->rng >> 11) % n);
}

static void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	p = realloc(p, nc * elem);
	if (!p) {
		fprintf(stderr, "crash-client: out of memory\n");
		exit(2);
	}
	*cap = nc;
	return p;
}

static void pend_add(struct bmodel *b, struct entry e)
{
	b->pend = xgrow(b->pend, &b->cap, b->npend + 1, sizeof(*b->pend));
	b->pend[b->npend++] = e;
}

/* op seq is durable on block b: it and everything before it settle */
static void make_durable(struct bmodel *b, uint64_t seq)
{
	for (size_t i = 0; i < b->npend; i++)
		if (b->pend[i].seq == seq) {
			b->durable = b->pend[i];
			memmove(b->pend, b->pend + i + 1, (b->npend - i - 1) * sizeof(*b->pend));
			b->npend -= i + 1;
			return;
		}
}

static struct opinfo *op_find(struct thr *th, uint64_t seq)
{
	for (size_t i = 0; i < th->nops; i++)
		if (th->ops[i].seq == seq)
			return &th->ops[i];
	return NULL;
}

static void op_durable(struct thr *th, uint64_t seq)
{
	struct opinfo *o = op_find(th, seq);

	if (!o)
		return;
	for (unsigned i = 0; i < o->nblk; i++)
		make_durable(&th->m[o->lun[i]][o->blk[i]], seq);
	*o = th->ops[--th->nops];
}

/* ---- the session ---- */

static bool is_ua(struct scsi_task *t)
{
	return t && t->status == SCSI_STATUS_CHECK_CONDITION && t->sense.key == SCSI_SENSE_UNIT_ATTENTION;
}

/* libiscsi reports a connection that went away as a task with a status of
 * its own (SCSI_STATUS_CANCELLED, _ERROR, _TIMEOUT), not a SCSI status */
static bool transport_lost(struct scsi_task *t)
{
	return !t || t->status > 0xff;
}

static void disconnect(struct thr *th)
{
	if (th->is) {
		iscsi_destroy_context(th->is);
		th->is = NULL;
	}
}

static bool connect_once(struct thr *th)
{
	char portal[64], ini[128];

	snprintf(portal, sizeof(portal), "127.0.0.1:%d", g_port);
	snprintf(ini, sizeof(ini), "iqn.2026-11.org.lunlab:crash-client-%d", th->t);
	th->is = iscsi_create_context(ini);
	if (!th->is)
		return false;
	iscsi_set_targetname(th->is, g_iqn);
	iscsi_set_session_type(th->is, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(th->is, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_noautoreconnect(th->is, 1);
	iscsi_set_timeout(th->is, 30);
	if (iscsi_full_connect_sync(th->is, portal, 0) != 0) {
		disconnect(th);
		return false;
	}
	return true;
}

/* A command; a unit attention (the power on after a restart) is taken and
 * the command sent again.  NULL: the connection is gone. */
static struct scsi_task *run(struct thr *th, struct scsi_task *(*fn)(struct thr *, void *), void *arg)
{
	for (int i = 0; i < 4; i++) {
		struct scsi_task *t = fn(th, arg);

		if (transport_lost(t)) {
			if (t)
				scsi_free_scsi_task(t);
			return NULL;
		}
		if (!is_ua(t))
			return t;
		scsi_free_scsi_task(t);
	}
	return NULL;
}

/* ---- commands (each fills in a struct and goes through run()) ---- */

struct io {
	int lun;
	uint64_t lba;
	uint32_t len;
	uint8_t *data;
	int fua;
	uint32_t nblocks;
	struct unmap_list ul;
	struct iscsi_data xd;
};

static struct scsi_task *do_write(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_write16_sync(th->is, io->lun, io->lba, io->data, io->len, SECTOR, 0, 0, io->fua, 0, 0);
}

static struct scsi_task *do_read(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_read16_sync(th->is, io->lun, io->lba, io->len, SECTOR, 0, 0, 0, 0, 0);
}

static struct scsi_task *do_sync(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_synchronizecache10_sync(th->is, io->lun, 0, 0, 0, 0);
}

static struct scsi_task *do_unmap(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_unmap_sync(th->is, io->lun, 0, 0, &io->ul, 1);
}

static struct scsi_task *do_ws(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_writesame16_sync(th->is, io->lun, io->lba, io->data, SECTOR, io->nblocks, 0, 0, 0, 0);
}

static struct scsi_task *do_caw(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_compareandwrite_sync(th->is, io->lun, io->lba, io->data, io->len, SECTOR, 0, 0, io->fua, 0, 0);
}

static struct scsi_task *do_xcopy(struct thr *th, void *a)
{
	struct io *io = a;
	return iscsi_extended_copy_sync(th->is, io->lun, &io->xd);
}

/* ---- ops: issue, settle the model ---- */

static uint64_t new_id(struct thr *th, bool allow_shared)
{
	if (allow_shared && rnd(th, 5) == 0)
		return 1 + rnd(th, NSHARED); /* a content other blocks have too */
	return ((uint64_t)(th->t + 1) << 48) | ++th->next_id;
}

/* record an op about to be sent: its blocks get the new contents pending */
static struct opinfo *begin_op(struct thr *th, int kind, int lun[], uint32_t blk[], const struct entry e[], unsigned n)
{
	th->ops = xgrow(th->ops, &th->capops, th->nops + 1, sizeof(*th->ops));
	struct opinfo *o = &th->ops[th->nops++];

	memset(o, 0, sizeof(*o));
	o->seq = e[0].seq;
	o->kind = kind;
	o->nblk = n;
	for (unsigned i = 0; i < n; i++) {
		struct bmodel *b = &th->m[lun[i]][blk[i]];

		o->lun[i] = (uint8_t)lun[i];
		o->blk[i] = blk[i];
		pend_add(b, e[i]);
	}
	return o;
}

/* the op completed GOOD: the blocks hold it now; durable at once when FUA or
 * on LUN 1 (write cache off), else at the next SYNCHRONIZE CACHE of LUN 0 */
static void ack_op(struct thr *th, uint64_t seq, bool durable_now)
{
	struct opinfo *o = op_find(th, seq);
	bool lun0 = false;

	if (!o)
		return;
	for (unsigned i = 0; i < o->nblk; i++) {
		struct bmodel *b = &th->m[o->lun[i]][o->blk[i]];

		for (size_t k = 0; k < b->npend; k++)
			if (b->pend[k].seq == seq)
				b->cur = b->pend[k];
		lun0 |= o->lun[i] == 0;
	}
	if (durable_now || !lun0) {
		op_durable(th, seq);
		return;
	}
	th->acked_lun0 = xgrow(th->acked_lun0, &th->capacked, th->nacked + 1, sizeof(*th->acked_lun0));
	th->acked_lun0[th->nacked++] = seq;
}

/* GOOD or CHECK CONDITION: counts an error when not GOOD; false when the
 * connection is gone (the op stays pending: it may or may not have landed) */
static bool settle(struct thr *th, struct scsi_task *t, const char *what, uint64_t seq, bool durable_now)
{
	if (transport_lost(t)) {
		if (t)
			scsi_free_scsi_task(t);
		return false;
	}
	if (t->status != SCSI_STATUS_GOOD) {
		err("thread %d: %s: status 0x%02x sense %x/%02x/%02x", th->t, what, t->status, t->sense.key,
		    t->sense.ascq >> 8, t->sense.ascq & 0xff);
		scsi_free_scsi_task(t);
		return true;
	}
	scsi_free_scsi_task(t);
	ack_op(th, seq, durable_now);
	return true;
}

static void pick(struct thr *th, int *lun, uint32_t *b0, unsigned *n)
{
	*lun = (int)rnd(th, 2);
	*n = 1 + rnd(th, MAXRUN);
	*b0 = rnd(th, (uint32_t)g_blocks - *n + 1);
}

static bool op_write(struct thr *th, bool fua)
{
	int lun, luns[MAXRUN];
	uint32_t b0, blks[MAXRUN];
	unsigned n;
	struct entry e[MAXRUN];

	pick(th, &lun, &b0, &n);
	uint64_t seq = ++th->seq;
	for (unsigned i = 0; i < n; i++) {
		e[i] = (struct entry){ seq, new_id(th, true), false };
		luns[i] = lun;
		blks[i] = b0 + i;
		make_block(th->buf + i * BLK, e[i].id, false);
	}
	begin_op(th, O_WRITE, luns, blks, e, n);
	struct io io = { .lun = lun, .lba = (uint64_t)(th->base + b0) * SPB, .len = n * BLK, .data = th->buf, .fua = fua };
	atomic_fetch_add(&g_ops[fua ? O_FUA : O_WRITE], 1);
	return settle(th, run(th, do_write, &io), "WRITE(16)", seq, fua);
}

static bool op_sync(struct thr *th)
{
	/* what completed before it is sent becomes durable when it returns */
	size_t n = th->nacked;
	uint64_t *covered = malloc((n ? n : 1) * sizeof(*covered));
	struct io io = { .lun = 0 };

	if (n)
		memcpy(covered, th->acked_lun0, n * sizeof(*covered));
	atomic_fetch_add(&g_ops[O_SYNC], 1);
	struct scsi_task *t = run(th, do_sync, &io);
	if (!t) {
		free(covered);
		return false;
	}
	if (t->status != SCSI_STATUS_GOOD) {
		err("thread %d: SYNCHRONIZE CACHE: status 0x%02x", th->t, t->status);
	} else {
		for (size_t i = 0; i < n; i++)
			op_durable(th, covered[i]);
		/* those stay off the list of acked-but-not-durable */
		size_t k = 0;
		for (size_t i = 0; i < th->nacked; i++) {
			bool was = false;
			for (size_t j = 0; j < n && !was; j++)
				was = covered[j] == th->acked_lun0[i];
			if (!was)
				th->acked_lun0[k++] = th->acked_lun0[i];
		}
		th->nacked = k;
	}
	scsi_free_scsi_task(t);
	free(covered);
	return true;
}

static bool op_unmap_or_ws(struct thr *th, bool ws)
{
	int lun, luns[MAXRUN];
	uint32_t b0, blks[MAXRUN];
	unsigned n;
	struct entry e[MAXRUN];
	uint8_t pattern[SECTOR];

	pick(th, &lun, &b0, &n);
	uint64_t seq = ++th->seq, id = ws ? new_id(th, false) : 0;
	if (ws)
		make_sector(pattern, id, WS_SECTOR);
	for (unsigned i = 0; i < n; i++) {
		e[i] = (struct entry){ seq, id, ws };
		luns[i] = lun;
		blks[i] = b0 + i;
	}
	begin_op(th, ws ? O_WS : O_UNMAP, luns, blks, e, n);
	struct io io = { .lun = lun, .lba = (uint64_t)(th->base + b0) * SPB, .data = pattern, .nblocks = n * SPB };
	io.ul.lba = io.lba;
	io.ul.num = n * SPB;
	atomic_fetch_add(&g_ops[ws ? O_WS : O_UNMAP], 1);
	return settle(th, run(th, ws ? do_ws : do_unmap, &io), ws ? "WRITE SAME(16)" : "UNMAP", seq, false);
}

static bool op_caw(struct thr *th)
{
	int lun = (int)rnd(th, 2);
	uint32_t b = rnd(th, (uint32_t)g_blocks);
	struct bmodel *m = &th->m[lun][b];
	uint64_t seq = ++th->seq;
	struct entry e = { seq, new_id(th, true), false };

	/* compare with what the block holds now (the model is exact: nothing of
	 * this thread is in flight), write a new content */
	make_block(th->buf, m->cur.id, m->cur.same);
	make_block(th->buf + BLK, e.id, false);
	begin_op(th, O_CAW, &lun, &b, &e, 1);
	struct io io = { .lun = lun, .lba = (uint64_t)(th->base + b) * SPB, .len = 2 * BLK, .data = th->buf,
			 .fua = (int)rnd(th, 2) };
	atomic_fetch_add(&g_ops[O_CAW], 1);
	return settle(th, run(th, do_caw, &io), "COMPARE AND WRITE", seq, io.fua);
}

static bool op_xcopy(struct thr *th)
{
	int sl = (int)rnd(th, 2), dl = (int)rnd(th, 2), luns[MAXOP];
	unsigned n = 1 + rnd(th, MAXRUN);
	uint32_t s0, d0, blks[MAXOP];
	struct entry e[MAXOP];
	uint8_t list[256];

	if (g_chunks && rnd(th, 2)) {
		/* a whole map chunk onto another (the array shares it, copy on
		 * write after: volume_map.c); regions start on a chunk */
		uint32_t nch = (uint32_t)g_blocks / CHUNK;
		n = CHUNK;
		s0 = rnd(th, nch) * CHUNK;
		do
			d0 = rnd(th, nch) * CHUNK;
		while (sl == dl && d0 == s0);
		if (rnd(th, 2)) {
			/* a chunk's worth from 100 blocks into a source chunk onto a
			 * whole chunk of the other LUN: offsets that differ within a
			 * chunk, so the array publishes the chunk it makes and an
			 * equal one made later shares it (map_dedup_chunk) */
			s0 = rnd(th, nch - 1) * CHUNK + 100;
			dl = 1 - sl;
		}
	} else {
		s0 = rnd(th, (uint32_t)g_blocks - n + 1);
		do
			d0 = rnd(th, (uint32_t)g_blocks - n + 1);
		while (sl == dl && d0 < s0 + n && s0 < d0 + n); /* no overlap on one LUN */
	}
	uint64_t seq = ++th->seq;
	for (unsigned i = 0; i < n; i++) {
		struct bmodel *s = &th->m[sl][s0 + i];

		e[i] = (struct entry){ seq, s->cur.id, s->cur.same };
		luns[i] = dl;
		blks[i] = d0 + i;
	}
	struct xcopy_segment seg = { .src_index = 0, .dst_index = (uint16_t)(sl == dl ? 0 : 1),
				     .blocks = (uint16_t)(n * SPB), .src_lba = (uint64_t)(th->base + s0) * SPB,
				     .dst_lba = (uint64_t)(th->base + d0) * SPB };
	struct xcopy_lu lus[2] = { g_lus[sl], g_lus[dl] };
	int len = xcopy_build(lus, sl == dl ? 1 : 2, &seg, 1, list, sizeof(list));
	if (len < 0) {
		err("thread %d: cannot build an EXTENDED COPY list", th->t);
		return true;
	}
	begin_op(th, O_XCOPY, luns, blks, e, n);
	struct io io = { .lun = sl, .xd = { .size = (size_t)len, .data = list } };
	atomic_fetch_add(&g_ops[O_XCOPY], 1);
	return settle(th, run(th, do_xcopy, &io), "EXTENDED COPY", seq, false);
}

/* a read of a few blocks must give what the model says they hold */
static bool op_read(struct thr *th)
{
	int lun;
	uint32_t b0;
	unsigned n;

	pick(th, &lun, &b0, &n);
	struct io io = { .lun = lun, .lba = (uint64_t)(th->base + b0) * SPB, .len = n * BLK };
	atomic_fetch_add(&g_ops[O_READ], 1);
	struct scsi_task *t = run(th, do_read, &io);
	if (!t)
		return false;
	if (t->status != SCSI_STATUS_GOOD || !t->datain.data || t->datain.size < (int)(n * BLK)) {
		err("thread %d: READ(16) LUN %d block %u: status 0x%02x", th->t, lun, b0, t->status);
	} else {
		for (unsigned i = 0; i < n; i++) {
			bool same = false;
			int64_t id = read_id(t->datain.data + i * BLK, &same);
			struct entry *c = &th->m[lun][b0 + i].cur;

			if (id < 0 || (uint64_t)id != c->id || (id && same != c->same))
				err("thread %d: LUN %d block %u reads content %" PRId64 ", wrote %" PRIu64, th->t, lun,
				    th->base + b0 + i, id, c->id);
		}
	}
	scsi_free_scsi_task(t);
	return true;
}

/* ---- after a restart ---- */

/* every block of the region read back: its durable content or a later one,
 * then the atomicity of each op not known durable; the model becomes what
 * was read (it is on disk now: a later crash cannot take it back) */
static bool verify(struct thr *th, int gen)
{
	uint8_t *got[2];
	int64_t *ids[2];
	bool *sames[2];

	for (int lun = 0; lun < 2; lun++) {
		got[lun] = malloc((size_t)g_blocks * BLK);
		ids[lun] = calloc((size_t)g_blocks, sizeof(int64_t));
		sames[lun] = calloc((size_t)g_blocks, sizeof(bool));
		for (uint32_t b = 0; b < (uint32_t)g_blocks; b += 64) {
			uint32_t n = (uint32_t)g_blocks - b < 64 ? (uint32_t)g_blocks - b : 64;
			struct io io = { .lun = lun, .lba = (uint64_t)(th->base + b) * SPB, .len = n * BLK };
			struct scsi_task *t = run(th, do_read, &io);

			if (!t) {
				for (int l = 0; l <= lun; l++) {
					free(got[l]);
					free(ids[l]);
					free(sames[l]);
				}
				return false;
			}
			if (t->status != SCSI_STATUS_GOOD || t->datain.size < (int)(n * BLK))
				err("thread %d: verify READ LUN %d block %u: status 0x%02x sense %x/%02x/%02x", th->t, lun,
				    b, t->status, t->sense.key, t->sense.ascq >> 8, t->sense.ascq & 0xff);
			else
				memcpy(got[lun] + (size_t)b * BLK, t->datain.data, (size_t)n * BLK);
			scsi_free_scsi_task(t);
		}
	}
	for (int lun = 0; lun < 2; lun++)
		for (uint32_t b = 0; b < (uint32_t)g_blocks; b++) {
			struct bmodel *m = &th->m[lun][b];
			bool same = false, ok = false;
			int64_t id = read_id(got[lun] + (size_t)b * BLK, &same);

			ids[lun][b] = id;
			sames[lun][b] = same;
			if (id < 0) {
				err("restart %d: LUN %d block %u is torn or holds what was never written", gen, lun,
				    th->base + b);
				continue;
			}
			ok = (uint64_t)id == m->durable.id && (!id || same == m->durable.same);
			for (size_t k = 0; k < m->npend && !ok; k++)
				ok = (uint64_t)id == m->pend[k].id && (!id || same == m->pend[k].same);
			if (!ok)
				err("restart %d: LUN %d block %u reads content %" PRId64 ": neither the durable %" PRIu64
				    " nor one written after it (%zu pending)",
				    gen, lun, th->base + b, id, m->durable.id, m->npend);
		}
	/* atomicity: an op not known durable whose blocks nobody wrote after
	 * it shows on all of them or on none.  A block tells only when the op's
	 * content is none of the block's earlier possible contents (else an
	 * older state would look the same). */
	for (size_t i = 0; i < th->nops; i++) {
		struct opinfo *o = &th->ops[i];
		unsigned seen = 0, telling = 0;

		for (unsigned k = 0; k < o->nblk; k++) {
			struct bmodel *m = &th->m[o->lun[k]][o->blk[k]];
			struct entry *mine = NULL;
			bool older = false;

			if (!m->npend || m->pend[m->npend - 1].seq != o->seq)
				goto next_op; /* a later op wrote this block */
			mine = &m->pend[m->npend - 1];
			older = mine->id == m->durable.id && mine->same == m->durable.same;
			for (size_t e = 0; e + 1 < m->npend && !older; e++)
				older = mine->id == m->pend[e].id && mine->same == m->pend[e].same;
			if (older)
				continue;
			telling++;
			if ((uint64_t)ids[o->lun[k]][o->blk[k]] == mine->id && sames[o->lun[k]][o->blk[k]] == mine->same)
				seen++;
		}
		if (seen && seen != telling)
			err("restart %d: %s (op %" PRIu64 ") shows on %u of its %u blocks: torn across the crash", gen,
			    op_names[o->kind], o->seq, seen, telling);
next_op:;
	}
	for (int lun = 0; lun < 2; lun++) {
		for (uint32_t b = 0; b < (uint32_t)g_blocks; b++) {
			struct bmodel *m = &th->m[lun][b];

			if (ids[lun][b] >= 0) {
				m->durable = (struct entry){ 0, (uint64_t)ids[lun][b], sames[lun][b] };
				m->cur = m->durable;
			}
			m->npend = 0;
		}
		free(got[lun]);
		free(ids[lun]);
		free(sames[lun]);
	}
	th->nops = 0;
	th->nacked = 0;
	return true;
}

/* MODE SENSE(10) caching page: current (pc 0) or saved (pc 2h<<6 = 3) WCE */
static int wce_of(struct thr *th, int lun, int pc)
{
	struct scsi_task *t = NULL;

	for (int i = 0; i < 4; i++) {
		t = iscsi_modesense10_sync(th->is, lun, 0, 1, pc, 0x08, 0, 255);
		if (transport_lost(t) || !is_ua(t))
			break;
		scsi_free_scsi_task(t);
		t = NULL;
	}
	if (transport_lost(t)) {
		if (t)
			scsi_free_scsi_task(t);
		return -1;
	}
	int wce = -2;
	if (t->status == SCSI_STATUS_GOOD && t->datain.size >= 8 + 3) {
		size_t bdl = (size_t)(t->datain.data[6] << 8 | t->datain.data[7]);
		if ((size_t)t->datain.size >= 8 + bdl + 3 && (t->datain.data[8 + bdl] & 0x3f) == 0x08)
			wce = (t->datain.data[8 + bdl + 2] & 0x04) != 0;
	}
	scsi_free_scsi_task(t);
	return wce;
}

/* LUN 1: write cache off, saved (MODE SELECT(10) PF=1 SP=1) */
static struct scsi_task *do_wce_off(struct thr *th, void *a)
{
	uint8_t *pl = a;
	struct scsi_task *t = scsi_cdb_modeselect10(1, 1, 8 + 20);
	struct iscsi_data d = { .size = 8 + 20, .data = pl };

	if (t && !iscsi_scsi_command_sync(th->is, 1, t, &d)) {
		scsi_free_scsi_task(t);
		return NULL;
	}
	return t;
}

static bool wce_off_saved(struct thr *th)
{
	uint8_t pl[8 + 20];
	struct scsi_task *t;

	memset(pl, 0, sizeof(pl));
	pl[8] = 0x08; /* caching page, WCE 0 */
	pl[9] = 18;
	t = run(th, do_wce_off, pl);
	if (!t)
		return false;
	if (t->status != SCSI_STATUS_GOOD) {
		err("MODE SELECT(10) SP=1 WCE=0 on LUN 1: status 0x%02x sense %x/%04x", t->status, t->sense.key,
		    t->sense.ascq);
		scsi_free_scsi_task(t);
		return false;
	}
	scsi_free_scsi_task(t);
	return true;
}

static bool naa_of(struct thr *th, int lun)
{
	struct scsi_task *t = iscsi_inquiry_sync(th->is, lun, 1, 0x83, 255);
	bool ok = !transport_lost(t) && t->status == SCSI_STATUS_GOOD &&
		  vpd83_find_naa(t->datain.data, (size_t)t->datain.size, &g_lus[lun]) == 0;

	if (t)
		scsi_free_scsi_task(t);
	g_lus[lun].block_size = SECTOR;
	return ok;
}

/* ---- threads ---- */

static void *worker(void *arg)
{
	struct thr *th = arg;
	int gen = -1;

	while (!atomic_load(&g_stop)) {
		/* (re)connect: the target may be down for a while */
		if (!th->is) {
			while (!connect_once(th)) {
				if (atomic_load(&g_stop))
					return NULL;
				usleep(100000);
			}
			gen++;
			if (gen == 0 && th->t == 0 && (!naa_of(th, 0) || !naa_of(th, 1) || !wce_off_saved(th))) {
				err("thread 0: setup on the first connection failed");
				atomic_store(&g_stop, true);
				break;
			}
			if (gen > 0) {
				/* the write cache setting of LUN 1 was saved: it survives */
				int cur = wce_of(th, 1, 0), saved = wce_of(th, 1, 3);
				if (cur < 0 || saved < 0) {
					disconnect(th);
					gen--;
					continue;
				}
				if (cur != 0 || saved != 0)
					err("restart %d: LUN 1 WCE current %d saved %d: the saved WCE=0 was not kept", gen,
					    cur, saved);
				if (!verify(th, gen)) {
					disconnect(th);
					gen--;
					continue;
				}
			}
			atomic_store(&g_gen_done[th->t], gen);
		}
		if (atomic_load(&g_stop))
			break;
		bool alive;
		switch (rnd(th, 16)) {
		case 0: case 1: case 2: case 3: alive = op_write(th, false); break;
		case 4: case 5: alive = op_write(th, true); break;
		case 6: case 7: alive = op_sync(th); break;
		case 8: alive = op_unmap_or_ws(th, false); break;
		case 9: alive = op_unmap_or_ws(th, true); break;
		case 10: case 11: alive = op_caw(th); break;
		case 12: case 13: alive = op_xcopy(th); break;
		default: alive = op_read(th); break;
		}
		if (!alive)
			disconnect(th); /* the target died: the op in flight stays pending */
	}
	disconnect(th);
	return NULL;
}

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&g_stop, true);
}

static void status_line(int gen)
{
	FILE *f = fopen(g_status, "a");

	if (f) {
		fprintf(f, "verified %d\n", gen);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "--chunk-copies")) {
			g_chunks = true;
			i--; /* no value */
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "crash_client: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--port"))
			g_port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--iqn"))
			g_iqn = argv[i + 1];
		else if (!strcmp(argv[i], "--status"))
			g_status = argv[i + 1];
		else if (!strcmp(argv[i], "--threads"))
			g_threads = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--blocks"))
			g_blocks = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seed"))
			g_seed = strtoull(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "crash_client: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (g_chunks && (g_blocks < 2 * (int)CHUNK || g_blocks % (int)CHUNK)) {
		fprintf(stderr, "crash_client: --chunk-copies needs --blocks a multiple of %u, at least %u\n", CHUNK,
			2 * CHUNK);
		return 2;
	}
	if (!g_port || !g_iqn || !g_status || g_threads < 1 || g_threads > 64 || g_blocks < (int)MAXRUN) {
		fprintf(stderr, "usage: crash_client --port P --iqn IQN --status FILE [--threads 1..64] [--blocks N] "
				"[--seed S]\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);

	struct thr *ths = calloc((size_t)g_threads, sizeof(*ths));
	pthread_t *tids = calloc((size_t)g_threads, sizeof(*tids));
	for (int t = 0; t < g_threads; t++) {
		ths[t].t = t;
		ths[t].rng = mix(g_seed * 1000003 + (uint64_t)t + 1) | 1;
		ths[t].base = (uint32_t)(t * g_blocks);
		ths[t].buf = malloc(2 * MAXRUN * BLK);
		for (int l = 0; l < 2; l++)
			ths[t].m[l] = calloc((size_t)g_blocks, sizeof(struct bmodel));
		atomic_store(&g_gen_done[t], -1);
	}
	/* thread 0 sets the LUNs up first; the others start once it has */
	pthread_create(&tids[0], NULL, worker, &ths[0]);
	while (atomic_load(&g_gen_done[0]) < 0 && !atomic_load(&g_stop))
		usleep(10000);
	for (int t = 1; t < g_threads; t++)
		pthread_create(&tids[t], NULL, worker, &ths[t]);

	/* the status file: a line for every restart all threads verified */
	while (!atomic_load(&g_stop)) {
		int min = 1 << 30;
		for (int t = 0; t < g_threads; t++) {
			int g = atomic_load(&g_gen_done[t]);
			if (g < min)
				min = g;
		}
		while (atomic_load(&g_verified_gen) < min) {
			int g = atomic_fetch_add(&g_verified_gen, 1) + 1;
			status_line(g);
		}
		usleep(20000);
	}
	for (int t = 0; t < g_threads; t++)
		pthread_join(tids[t], NULL);

	long total = 0;
	printf("crash-client: restarts verified=%d", atomic_load(&g_verified_gen));
	for (int i = 0; i < 8; i++) {
		printf(" %s=%ld", op_names[i], atomic_load(&g_ops[i]));
		total += atomic_load(&g_ops[i]);
	}
	printf(" commands=%ld errors=%ld\n", total, atomic_load(&g_errors));
	for (int t = 0; t < g_threads; t++) {
		for (int l = 0; l < 2; l++) {
			for (int b = 0; b < g_blocks; b++)
				free(ths[t].m[l][b].pend);
			free(ths[t].m[l]);
		}
		free(ths[t].ops);
		free(ths[t].acked_lun0);
		free(ths[t].buf);
	}
	free(ths);
	free(tids);
	return atomic_load(&g_errors) ? 1 : 0;
}
