/* soak_client.c — many libiscsi sessions hammer two LUNs of one lunlab array
 * with a verified mix of READ, WRITE, UNMAP, COMPARE AND WRITE and EXTENDED
 * COPY (same-LUN and cross-LUN), for tests/soak/soak.sh.
 *
 *   soak_client PORT IQN [--seconds N] [--sessions N] [--threads N]
 *
 * Each session owns REGION blocks at the same offset on LUN 0 and LUN 1 and
 * keeps a shadow of both: every READ is compared with it, UNMAPped ranges
 * must read zeros, a COMPARE AND WRITE with the right compare data must
 * succeed and one with deliberately wrong data must miscompare (both counted
 * exactly), an XCOPY moves shadow bytes the same way.  At the end every
 * region is read whole and compared.  Prints "soak-client:" key=value lines;
 * exit 1 on any error or mismatch. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "client/xcopy_builder.h"

#define BS 512u
#define REGION 256u        /* blocks per session per LUN */
#define MAX_EXT 32u        /* largest READ/WRITE extent */
#define MAX_COPY 16u       /* largest XCOPY segment */

enum { OP_WRITE, OP_READ, OP_UNMAP, OP_CAW_OK, OP_CAW_MISCOMPARE, OP_XCOPY_SAME, OP_XCOPY_CROSS,
       OP_VERIFY, NOPS };
static const char *op_names[NOPS] = { "write", "read", "unmap", "caw_match", "caw_miscompare",
				      "xcopy_same_lun", "xcopy_cross_lun", "final_verify_reads" };

static atomic_long op_count[NOPS];
static atomic_long errors, mismatches, caw_unexpected, sessions_up;
static atomic_bool stop;
static const char *g_iqn;
static int g_port;
static struct xcopy_lu g_lus[2];

struct sess {
	struct iscsi_context *is;
	uint32_t base;          /* first LBA of its region on both LUNs */
	uint8_t *shadow[2];
	uint64_t rng;
	bool dead;
	int id;
};

static uint32_t rnd(struct sess *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint32_t)(s->rng >> 11);
}

static void fill(struct sess *s, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = rnd(s);
		memcpy(p + i, &v, n - i < 4 ? n - i : 4);
	}
}

static void fail(struct sess *s, const char *what, struct scsi_task *t)
{
	atomic_fetch_add(&errors, 1);
	if (!t) {
		fprintf(stderr, "soak-client: session %d: %s: transport error: %s\n", s->id, what,
			iscsi_get_error(s->is));
		s->dead = true; /* the context is unusable now */
	} else {
		fprintf(stderr, "soak-client: session %d: %s: status 0x%02x sense %x/%02x/%02x\n", s->id, what,
			t->status, t->sense.key, t->sense.ascq >> 8, t->sense.ascq & 0xff);
	}
}

static bool good(struct sess *s, const char *what, struct scsi_task *t)
{
	if (t && t->status == SCSI_STATUS_GOOD)
		return true;
	fail(s, what, t);
	if (t)
		scsi_free_scsi_task(t);
	return false;
}

static void check_read(struct sess *s, int lun, uint32_t off, uint32_t n, int op)
{
	struct scsi_task *t = iscsi_read16_sync(s->is, lun, s->base + off, n * BS, BS, 0, 0, 0, 0, 0);

	if (!good(s, "READ(16)", t))
		return;
	if (t->datain.size != (int)(n * BS) || memcmp(t->datain.data, s->shadow[lun] + (size_t)off * BS, n * BS)) {
		atomic_fetch_add(&mismatches, 1);
		fprintf(stderr, "soak-client: session %d: data mismatch LUN %d LBA %u + %u blocks\n", s->id, lun,
			s->base + off, n);
	}
	atomic_fetch_add(&op_count[op], 1);
	scsi_free_scsi_task(t);
}

static void do_write(struct sess *s, int lun, uint32_t off, uint32_t n)
{
	uint8_t buf[MAX_EXT * BS];
	struct scsi_task *t;

	fill(s, buf, n * BS);
	t = iscsi_write16_sync(s->is, lun, s->base + off, buf, n * BS, BS, 0, 0, 0, 0, 0);
	if (!good(s, "WRITE(16)", t))
		return;
	memcpy(s->shadow[lun] + (size_t)off * BS, buf, n * BS);
	atomic_fetch_add(&op_count[OP_WRITE], 1);
	scsi_free_scsi_task(t);
}

static void do_unmap(struct sess *s, int lun)
{
	/* whole 4 KiB units (the array's allocation unit): those read zeros */
	uint32_t off = (rnd(s) % (REGION / 8)) * 8, n = 8 * (1 + rnd(s) % 4);
	struct unmap_list ul;
	struct scsi_task *t;

	if (off + n > REGION)
		n = REGION - off;
	ul.lba = s->base + off;
	ul.num = n;
	t = iscsi_unmap_sync(s->is, lun, 0, 0, &ul, 1);
	if (!good(s, "UNMAP", t))
		return;
	memset(s->shadow[lun] + (size_t)off * BS, 0, n * BS);
	atomic_fetch_add(&op_count[OP_UNMAP], 1);
	scsi_free_scsi_task(t);
}

static void do_caw(struct sess *s, int lun)
{
	uint32_t off = rnd(s) % REGION;
	bool wrong = rnd(s) % 4 == 0;
	uint8_t buf[2 * BS], *cur = s->shadow[lun] + (size_t)off * BS;
	struct scsi_task *t;

	memcpy(buf, cur, BS);
	if (wrong)
		buf[rnd(s) % BS] ^= 0x5a;
	fill(s, buf + BS, BS);
	t = iscsi_compareandwrite_sync(s->is, lun, s->base + off, buf, 2 * BS, BS, 0, 0, 0, 0, 0);
	if (!t) {
		fail(s, "COMPARE AND WRITE", t);
		return;
	}
	if (t->status == SCSI_STATUS_GOOD && !wrong) {
		memcpy(cur, buf + BS, BS);
		atomic_fetch_add(&op_count[OP_CAW_OK], 1);
	} else if (t->status == SCSI_STATUS_CHECK_CONDITION && t->sense.key == SCSI_SENSE_MISCOMPARE && wrong) {
		atomic_fetch_add(&op_count[OP_CAW_MISCOMPARE], 1);
	} else if (t->status == SCSI_STATUS_GOOD || t->sense.key == SCSI_SENSE_MISCOMPARE) {
		atomic_fetch_add(&caw_unexpected, 1);
		fprintf(stderr, "soak-client: session %d: COMPARE AND WRITE %s, expected %s\n", s->id,
			t->status == SCSI_STATUS_GOOD ? "succeeded" : "miscompared", wrong ? "a miscompare" : "success");
		if (t->status == SCSI_STATUS_GOOD)
			memcpy(cur, buf + BS, BS);
	} else {
		fail(s, "COMPARE AND WRITE", t);
	}
	scsi_free_scsi_task(t);
}

static void do_xcopy(struct sess *s, bool cross)
{
	uint32_t n = 1 + rnd(s) % MAX_COPY, src, dst;
	int sl = (int)(rnd(s) % 2), dl = cross ? 1 - sl : sl;
	struct xcopy_segment seg;
	uint8_t list[XCOPY_HDR_LEN + 2 * XCOPY_TGT_DESC_LEN + XCOPY_SEG_DESC_LEN];
	struct iscsi_data d;
	struct scsi_task *t;
	int len;

	src = rnd(s) % (REGION - n + 1);
	do {
		dst = rnd(s) % (REGION - n + 1);
	} while (!cross && (dst + n > src && src + n > dst)); /* no overlap on one LUN */
	seg.src_index = (uint16_t)sl;
	seg.dst_index = (uint16_t)dl;
	seg.blocks = (uint16_t)n;
	seg.src_lba = s->base + src;
	seg.dst_lba = s->base + dst;
	len = xcopy_build(g_lus, 2, &seg, 1, list, sizeof(list));
	if (len < 0) {
		atomic_fetch_add(&errors, 1);
		fprintf(stderr, "soak-client: xcopy_build failed\n");
		return;
	}
	d.data = list;
	d.size = (size_t)len;
	t = iscsi_extended_copy_sync(s->is, sl, &d);
	if (!good(s, cross ? "EXTENDED COPY cross-LUN" : "EXTENDED COPY", t))
		return;
	memmove(s->shadow[dl] + (size_t)dst * BS, s->shadow[sl] + (size_t)src * BS, n * BS);
	atomic_fetch_add(&op_count[cross ? OP_XCOPY_CROSS : OP_XCOPY_SAME], 1);
	scsi_free_scsi_task(t);
}

static void one_op(struct sess *s)
{
	uint32_t pick = rnd(s) % 100, n = 1 + rnd(s) % MAX_EXT, off = rnd(s) % (REGION - n + 1);
	int lun = (int)(rnd(s) % 2);

	if (pick < 32)
		do_write(s, lun, off, n);
	else if (pick < 64)
		check_read(s, lun, off, n, OP_READ);
	else if (pick < 72)
		do_unmap(s, lun);
	else if (pick < 84)
		do_caw(s, lun);
	else if (pick < 92)
		do_xcopy(s, false);
	else
		do_xcopy(s, true);
}

static struct iscsi_context *login(int id)
{
	char name[96], portal[64];
	struct iscsi_context *is;

	snprintf(name, sizeof(name), "iqn.2026-11.org.lunlab:soak-%d", id);
	snprintf(portal, sizeof(portal), "127.0.0.1:%d", g_port);
	is = iscsi_create_context(name);
	if (!is)
		return NULL;
	iscsi_set_targetname(is, g_iqn);
	iscsi_set_session_type(is, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(is, ISCSI_HEADER_DIGEST_NONE);
	if (iscsi_full_connect_sync(is, portal, 0) != 0) {
		fprintf(stderr, "soak-client: session %d: login: %s\n", id, iscsi_get_error(is));
		iscsi_destroy_context(is);
		return NULL;
	}
	iscsi_set_timeout(is, 120);
	return is;
}

struct worker {
	pthread_t tid;
	struct sess *s;
	int n;
	long deadline;
};

static long now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < w->n; i++) {
		w->s[i].is = login(w->s[i].id);
		if (!w->s[i].is) {
			atomic_fetch_add(&errors, 1);
			w->s[i].dead = true;
			continue;
		}
		atomic_fetch_add(&sessions_up, 1);
	}
	while (!atomic_load(&stop) && now_s() < w->deadline)
		for (int i = 0; i < w->n; i++)
			if (!w->s[i].dead)
				one_op(&w->s[i]);
	/* every byte of every region, once more */
	for (int i = 0; i < w->n; i++) {
		struct sess *s = &w->s[i];
		for (int lun = 0; lun < 2 && !s->dead; lun++)
			for (uint32_t off = 0; off < REGION && !s->dead; off += MAX_EXT)
				check_read(s, lun, off, MAX_EXT, OP_VERIFY);
		if (s->is) {
			iscsi_logout_sync(s->is);
			iscsi_destroy_context(s->is);
		}
	}
	return NULL;
}

/* binary NAA designator of a LUN from VPD 0x83, for the XCOPY CSCDs */
static int lu_identity(int lun, struct xcopy_lu *lu)
{
	struct iscsi_context *is = login(9999 - lun);
	struct scsi_task *t;
	int rc = -1;

	if (!is)
		return -1;
	t = iscsi_inquiry_sync(is, lun, 1, 0x83, 255);
	if (t && t->status == SCSI_STATUS_GOOD && vpd83_find_naa(t->datain.data, (size_t)t->datain.size, lu) == 0) {
		lu->block_size = BS;
		lu->peripheral_type = 0;
		rc = 0;
	}
	if (t)
		scsi_free_scsi_task(t);
	iscsi_logout_sync(is);
	iscsi_destroy_context(is);
	return rc;
}

int main(int argc, char **argv)
{
	long seconds = 600, nsess = 256, nthreads = 16, t0, last = 0;
	struct worker *ws;
	struct sess *ss;

	if (argc < 3) {
		fprintf(stderr, "usage: %s PORT IQN [--seconds N] [--sessions N] [--threads N]\n", argv[0]);
		return 2;
	}
	g_port = atoi(argv[1]);
	g_iqn = argv[2];
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--sessions"))
			nsess = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--threads"))
			nthreads = atol(argv[i + 1]);
		else {
			fprintf(stderr, "soak-client: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (nsess < 1 || nthreads < 1 || seconds < 1)
		return 2;
	if (nthreads > nsess)
		nthreads = nsess;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (lu_identity(0, &g_lus[0]) < 0 || lu_identity(1, &g_lus[1]) < 0) {
		fprintf(stderr, "soak-client: no NAA designator for LUN 0/1 (VPD 0x83)\n");
		return 1;
	}
	ss = calloc((size_t)nsess, sizeof(*ss));
	ws = calloc((size_t)nthreads, sizeof(*ws));
	t0 = now_s();
	for (long i = 0; i < nsess; i++) {
		ss[i].id = (int)i;
		ss[i].base = (uint32_t)i * REGION;
		ss[i].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		/* the LUNs start unwritten: zeros (thin, LBPRZ) */
		ss[i].shadow[0] = calloc(REGION, BS);
		ss[i].shadow[1] = calloc(REGION, BS);
	}
	for (long k = 0; k < nthreads; k++) {
		long a = nsess * k / nthreads, b = nsess * (k + 1) / nthreads;
		ws[k].s = ss + a;
		ws[k].n = (int)(b - a);
		ws[k].deadline = t0 + seconds;
		pthread_create(&ws[k].tid, NULL, worker_main, &ws[k]);
	}
	/* progress every 10 s, for the log */
	while (now_s() < t0 + seconds) {
		sleep(1);
		if (now_s() - last >= 10) {
			long tot = 0;
			last = now_s();
			for (int o = 0; o < NOPS; o++)
				tot += atomic_load(&op_count[o]);
			printf("soak-client: t=%lds sessions=%ld commands=%ld errors=%ld mismatches=%ld\n", last - t0,
			       atomic_load(&sessions_up), tot, atomic_load(&errors), atomic_load(&mismatches));
		}
	}
	for (long k = 0; k < nthreads; k++)
		pthread_join(ws[k].tid, NULL);
	printf("soak-client: sessions=%ld/%ld seconds=%ld\n", atomic_load(&sessions_up), nsess, now_s() - t0);
	for (int o = 0; o < NOPS; o++)
		printf("soak-client: %s=%ld\n", op_names[o], atomic_load(&op_count[o]));
	printf("soak-client: errors=%ld\n", atomic_load(&errors));
	printf("soak-client: mismatches=%ld\n", atomic_load(&mismatches));
	printf("soak-client: caw_unexpected=%ld\n", atomic_load(&caw_unexpected));
	for (long i = 0; i < nsess; i++) {
		free(ss[i].shadow[0]);
		free(ss[i].shadow[1]);
	}
	free(ss);
	free(ws);
	return atomic_load(&errors) || atomic_load(&mismatches) || atomic_load(&caw_unexpected) ||
	       atomic_load(&sessions_up) != nsess ? 1 : 0;
}
