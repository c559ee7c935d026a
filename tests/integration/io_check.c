/*
 * io_check: data-path checks of an iSCSI LUN through libiscsi, used by the integration suite
 * against lunlab-target (and runnable against any target, e.g. tgt).
 *
 *   io_check patterns URL    writes patterns of many sizes (512 B .. 8 MiB, odd block counts)
 *                            at many offsets with WRITE(10)/WRITE(16), reads each back with
 *                            READ(16)/READ(10) and compares against a shadow copy, including one
 *                            block either side (a write must not touch its neighbours); then
 *                            the last blocks of the LU and, past 2^32 blocks, across LBA 2^32
 *   io_check sessions URL N  N sessions logged in at the same time (threads, one session each),
 *                            each writing and verifying its own region; afterwards one session
 *                            re-reads every region (no session's data leaked into another's)
 *   io_check digests URL     the pattern check with HeaderDigest=CRC32C required, then None,
 *                            then each side's preference order
 *
 * Exit status: 0 all checks passed, 1 a check failed (the first mismatch is printed with its
 * LBA and byte), 2 usage or connection error.  Data is a function of (LBA, byte, generation) so
 * a block read from the wrong place or a stale generation never compares equal by accident.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "tests/lib/check_fail.h"

#define MIB (1024u * 1024u)

struct lun_info {
	uint64_t nblocks;    /* capacity in blocks */
	uint32_t bs;         /* logical block size */
	uint32_t max_xfer;   /* largest transfer in bytes we may send (VPD B0, capped at 8 MiB) */
};

struct session {
	struct iscsi_context *iscsi;
	int lun;
	char what[64];       /* for messages: which session */
};


/* Deterministic content: every 8-byte word differs by LBA, position and generation. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void fill_pattern(uint8_t *buf, uint64_t lba, uint32_t nblocks, uint32_t bs, uint32_t gen)
{
	for (uint32_t b = 0; b < nblocks; b++) {
		uint8_t *blk = buf + (size_t)b * bs;
		for (uint32_t w = 0; w < bs / 8; w++) {
			uint64_t v = mix64(((lba + b) << 20) ^ ((uint64_t)gen << 52) ^ w);
			memcpy(blk + (size_t)w * 8, &v, 8);
		}
	}
}

static bool connect_session(struct session *s, const char *url, const char *initiator,
			    enum iscsi_header_digest hd)
{
	struct iscsi_url *u;

	s->iscsi = iscsi_create_context(initiator);
	if (s->iscsi == NULL) {
		ll_check_fail("%s: iscsi_create_context failed", s->what);
		return false;
	}
	u = iscsi_parse_full_url(s->iscsi, url);
	if (u == NULL) {
		ll_check_fail("%s: bad URL '%s': %s", s->what, url, iscsi_get_error(s->iscsi));
		iscsi_destroy_context(s->iscsi);
		s->iscsi = NULL;
		return false;
	}
	iscsi_set_targetname(s->iscsi, u->target);
	iscsi_set_session_type(s->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(s->iscsi, hd);
	/* a target that stops answering fails the check instead of hanging it */
	iscsi_set_timeout(s->iscsi, 60);
	if (iscsi_full_connect_sync(s->iscsi, u->portal, u->lun) != 0) {
		ll_check_fail("%s: login to %s failed: %s", s->what, url, iscsi_get_error(s->iscsi));
		iscsi_destroy_url(u);
		iscsi_destroy_context(s->iscsi);
		s->iscsi = NULL;
		return false;
	}
	s->lun = u->lun;
	iscsi_destroy_url(u);
	return true;
}

static bool disconnect_session(struct session *s)
{
	bool ok = true;

	if (s->iscsi == NULL)
		return true;
	if (iscsi_logout_sync(s->iscsi) != 0) {
		ll_check_fail("%s: logout failed: %s", s->what, iscsi_get_error(s->iscsi));
		ok = false;
	}
	iscsi_destroy_context(s->iscsi);
	s->iscsi = NULL;
	return ok;
}

static bool task_good(struct session *s, struct scsi_task *t, const char *op, uint64_t lba,
		      uint32_t nblocks)
{
	if (t == NULL) {
		ll_check_fail("%s: %s lba %" PRIu64 " blocks %u: transport error: %s", s->what, op, lba,
		     nblocks, iscsi_get_error(s->iscsi));
		return false;
	}
	if (t->status != SCSI_STATUS_GOOD) {
		ll_check_fail("%s: %s lba %" PRIu64 " blocks %u: status 0x%02x sense %x/%02x/%02x", s->what,
		     op, lba, nblocks, t->status, t->sense.key, (t->sense.ascq >> 8) & 0xff,
		     t->sense.ascq & 0xff);
		scsi_free_scsi_task(t);
		return false;
	}
	return true;
}

static bool lun_query(struct session *s, struct lun_info *li)
{
	struct scsi_task *t = iscsi_readcapacity16_sync(s->iscsi, s->lun);
	struct scsi_readcapacity16 *rc;

	if (!task_good(s, t, "READ CAPACITY(16)", 0, 0))
		return false;
	rc = scsi_datain_unmarshall(t);
	if (rc == NULL || rc->block_length == 0 || rc->block_length % 512 != 0) {
		ll_check_fail("%s: READ CAPACITY(16) returned unusable data", s->what);
		scsi_free_scsi_task(t);
		return false;
	}
	li->nblocks = rc->returned_lba + 1;
	li->bs = rc->block_length;
	scsi_free_scsi_task(t);

	li->max_xfer = 8 * MIB;
	t = iscsi_inquiry_sync(s->iscsi, s->lun, 1, SCSI_INQUIRY_PAGECODE_BLOCK_LIMITS, 64);
	if (t != NULL && t->status == SCSI_STATUS_GOOD) {
		struct scsi_inquiry_block_limits *bl = scsi_datain_unmarshall(t);
		/* 0 = no limit reported; otherwise never send more than the LU advertises */
		if (bl != NULL && bl->max_xfer_len != 0 &&
		    (uint64_t)bl->max_xfer_len * li->bs < li->max_xfer) {
			li->max_xfer = bl->max_xfer_len * li->bs;
			printf("note: LU limits transfers to %u bytes (VPD B0)\n", li->max_xfer);
		}
	}
	if (t != NULL)
		scsi_free_scsi_task(t);
	return true;
}

/* One WRITE of nblocks at lba: WRITE(10) when use16 is false (needs lba < 2^32). */
static bool do_write(struct session *s, const struct lun_info *li, uint64_t lba, uint8_t *data,
		     uint32_t nblocks, bool use16)
{
	uint32_t len = nblocks * li->bs;
	struct scsi_task *t;

	if (use16)
		t = iscsi_write16_sync(s->iscsi, s->lun, lba, data, len, (int)li->bs, 0, 0, 0, 0, 0);
	else
		t = iscsi_write10_sync(s->iscsi, s->lun, (uint32_t)lba, data, len, (int)li->bs, 0, 0,
				       0, 0, 0);
	if (!task_good(s, t, use16 ? "WRITE(16)" : "WRITE(10)", lba, nblocks))
		return false;
	scsi_free_scsi_task(t);
	return true;
}

/* READ nblocks at lba and compare with expect; reports the first differing byte. */
static bool do_read_compare(struct session *s, const struct lun_info *li, uint64_t lba,
			    const uint8_t *expect, uint32_t nblocks, bool use16)
{
	uint32_t len = nblocks * li->bs;
	const char *op = use16 ? "READ(16)" : "READ(10)";
	struct scsi_task *t;

	if (use16)
		t = iscsi_read16_sync(s->iscsi, s->lun, lba, len, (int)li->bs, 0, 0, 0, 0, 0);
	else
		t = iscsi_read10_sync(s->iscsi, s->lun, (uint32_t)lba, len, (int)li->bs, 0, 0, 0, 0,
				      0);
	if (!task_good(s, t, op, lba, nblocks))
		return false;
	if (t->datain.size != (int)len) {
		ll_check_fail("%s: %s lba %" PRIu64 " blocks %u: got %d bytes, want %u", s->what, op, lba,
		     nblocks, t->datain.size, len);
		scsi_free_scsi_task(t);
		return false;
	}
	if (memcmp(t->datain.data, expect, len) != 0) {
		uint32_t i = 0;
		while (i < len && t->datain.data[i] == expect[i])
			i++;
		ll_check_fail("%s: %s lba %" PRIu64 " blocks %u: data differs at byte %u (lba %" PRIu64
		     " + %u): got 0x%02x want 0x%02x", s->what, op, lba, nblocks, i,
		     lba + i / li->bs, i % li->bs, t->datain.data[i], expect[i]);
		scsi_free_scsi_task(t);
		return false;
	}
	scsi_free_scsi_task(t);
	return true;
}

/* Transfer sizes in bytes: powers of two, and each +-one 512-byte sector (odd block counts). */
static const uint32_t pattern_sizes[] = {
	512, 1024, 1536, 3584, 4096, 4608, 7680, 8192, 8704, 15872, 16384, 16896,
	65024, 65536, 66048, 132608, 262144, 523776, 1048064, 1048576, 1049088,
	2100736, 4194304, 8388096, 8388608,
};

/* Sequential write + verify of [lba, lba+nblocks) from shadow, in chunks of max_xfer. */
static bool bulk(struct session *s, const struct lun_info *li, uint64_t lba, uint8_t *shadow,
		 uint64_t nblocks, bool write, int *n_ops)
{
	uint64_t chunk = li->max_xfer / li->bs, done = 0;

	while (done < nblocks) {
		uint32_t n = (uint32_t)(nblocks - done < chunk ? nblocks - done : chunk);
		bool use16 = (*n_ops)++ % 2;
		uint8_t *p = shadow + done * li->bs;
		if (write ? !do_write(s, li, lba + done, p, n, use16)
			  : !do_read_compare(s, li, lba + done, p, n, use16))
			return false;
		done += n;
	}
	return true;
}

/*
 * The pattern check on one session.  region_mib: size of the shadowed region; full: all sizes
 * (false: every third size, for the repeated digest runs).
 */
static bool pattern_check(struct session *s, uint32_t region_mib, bool full, uint32_t gen0)
{
	struct lun_info li;
	uint64_t base, rblocks;
	uint8_t *shadow;
	int n_ops = 0, cases = 0;
	uint32_t gen = gen0;
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ gen0;
	bool ok = false;

	if (!lun_query(s, &li))
		return false;
	rblocks = (uint64_t)region_mib * MIB / li.bs;
	/* an odd start LBA so writes straddle any internal block/chunk boundary of the LU */
	base = 4097 % li.nblocks;
	if (base + rblocks + 8 > li.nblocks || base + rblocks > UINT32_MAX) {
		ll_check_fail("%s: LU of %" PRIu64 " blocks too small for a %u MiB region", s->what,
		     li.nblocks, region_mib);
		return false;
	}
	printf("%s: LU %" PRIu64 " blocks of %u bytes; region %u MiB at lba %" PRIu64 "\n",
	       s->what, li.nblocks, li.bs, region_mib, base);
	shadow = malloc(rblocks * li.bs);
	if (shadow == NULL) {
		ll_check_fail("out of memory");
		return false;
	}

	/* 1. lay down a known generation over the whole region, then verify it */
	fill_pattern(shadow, base, (uint32_t)rblocks, li.bs, gen);
	if (!bulk(s, &li, base, shadow, rblocks, true, &n_ops) ||
	    !bulk(s, &li, base, shadow, rblocks, false, &n_ops))
		goto out;

	/* 2. every size at pseudo-random offsets; reread with one neighbour block either side */
	for (size_t i = 0; i < sizeof(pattern_sizes) / sizeof(pattern_sizes[0]); i++) {
		uint32_t bytes = pattern_sizes[i];
		uint32_t n = (bytes + li.bs - 1) / li.bs;
		if (!full && i % 3 != 0)
			continue;
		if ((uint64_t)n * li.bs > li.max_xfer)
			n = li.max_xfer / li.bs;
		if (n + 2 > rblocks)
			continue;
		for (int rep = 0; rep < 3; rep++) {
			uint64_t off, lo, hi;
			bool use16 = (cases % 2) != 0;
			rng = mix64(rng + 1);
			/* rep 0: region start, rep 1: region end, rep 2: anywhere */
			off = rep == 0 ? 0 : rep == 1 ? rblocks - n : rng % (rblocks - n + 1);
			gen++;
			fill_pattern(shadow + off * li.bs, base + off, n, li.bs, gen);
			if (!do_write(s, &li, base + off, shadow + off * li.bs, n, use16))
				goto out;
			lo = off > 0 ? off - 1 : 0;
			hi = off + n < rblocks ? off + n + 1 : rblocks;
			/* the window may exceed max_xfer by 2 blocks: read it in pieces */
			if (!bulk(s, &li, base + lo, shadow + lo * li.bs, hi - lo, false, &n_ops))
				goto out;
			cases++;
		}
	}

	/* 3. the whole region once more: earlier writes were not disturbed by later ones */
	if (!bulk(s, &li, base, shadow, rblocks, false, &n_ops))
		goto out;

	/* 4. the very last blocks of the LU (READ/WRITE(16) address them at any capacity) */
	{
		uint32_t n = 3;
		uint64_t lba = li.nblocks - n;
		uint8_t *tail = malloc((size_t)n * li.bs);
		if (tail == NULL)
			goto out;
		fill_pattern(tail, lba, n, li.bs, ++gen);
		ok = do_write(s, &li, lba, tail, n, true) &&
		     do_read_compare(s, &li, lba, tail, n, true);
		free(tail);
		if (!ok)
			goto out;
	}
	/* 5. on LUs past 2^32 blocks: a transfer straddling LBA 2^32 (only 16-byte CDBs reach it;
	 * a target truncating the LBA to 32 bits would write at LBA 0..1 instead) */
	if (li.nblocks > (1ULL << 32) + 2) {
		uint32_t n = 4;
		uint64_t lba = (1ULL << 32) - 2;
		uint8_t *mid = malloc((size_t)n * li.bs);
		if (mid == NULL)
			goto out;
		fill_pattern(mid, lba, n, li.bs, ++gen);
		ok = do_write(s, &li, lba, mid, n, true) &&
		     do_read_compare(s, &li, lba, mid, n, true);
		free(mid);
		if (!ok)
			goto out;
		ok = false;
		/* and the region at the start of the LU still holds what step 3 verified */
		if (!bulk(s, &li, base, shadow, rblocks < 64 ? rblocks : 64, false, &n_ops))
			goto out;
		printf("%s: READ/WRITE(16) across LBA 2^32 matched\n", s->what);
	}
	printf("%s: %d write/read-back cases of %zu sizes, %d bulk ops: all data matched\n",
	       s->what, cases, sizeof(pattern_sizes) / sizeof(pattern_sizes[0]), n_ops);
	ok = true;
out:
	free(shadow);
	return ok;
}

static int run_patterns(const char *url)
{
	struct session s = { .what = "patterns" };
	bool ok;

	if (!connect_session(&s, url, "iqn.2026-11.org.lunlab:io-check", ISCSI_HEADER_DIGEST_NONE))
		return 2;
	ok = pattern_check(&s, 48, true, 1);
	ok = disconnect_session(&s) && ok;
	printf("patterns: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}

static int run_digests(const char *url)
{
	static const struct {
		enum iscsi_header_digest hd;
		const char *name;
	} modes[] = {
		{ ISCSI_HEADER_DIGEST_CRC32C, "HeaderDigest=CRC32C" },
		{ ISCSI_HEADER_DIGEST_NONE, "HeaderDigest=None" },
		{ ISCSI_HEADER_DIGEST_CRC32C_NONE, "HeaderDigest=CRC32C,None" },
		{ ISCSI_HEADER_DIGEST_NONE_CRC32C, "HeaderDigest=None,CRC32C" },
	};
	int failed = 0;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct session s;
		bool ok;
		memset(&s, 0, sizeof(s));
		snprintf(s.what, sizeof(s.what), "%s", modes[i].name);
		if (!connect_session(&s, url, "iqn.2026-11.org.lunlab:io-check-digest", modes[i].hd)) {
			failed++;
			continue;
		}
		ok = pattern_check(&s, 16, false, 1000 * (uint32_t)(i + 1));
		ok = disconnect_session(&s) && ok;
		printf("%s: %s\n", modes[i].name, ok ? "PASS" : "FAIL");
		failed += !ok;
	}
	return failed ? 1 : 0;
}

/* ---- many sessions at once ---- */

struct worker {
	pthread_t tid;
	int idx;
	const char *url;
	pthread_barrier_t *all_in;   /* everyone logged in before anyone does I/O */
	pthread_barrier_t *all_done; /* everyone finished I/O before anyone logs out */
	struct lun_info li;
	uint64_t base;               /* first LBA of this session's region */
	uint32_t nblocks;            /* region size in blocks */
	uint8_t *shadow;             /* what the region must hold at the end */
	bool ok;
};

#define SESSION_REGION (512u * 1024u)

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct session s;
	char iqn[96];
	bool connected;

	memset(&s, 0, sizeof(s));
	snprintf(s.what, sizeof(s.what), "session %d", w->idx);
	snprintf(iqn, sizeof(iqn), "iqn.2026-11.org.lunlab:io-check-s%d", w->idx);
	connected = connect_session(&s, w->url, iqn, ISCSI_HEADER_DIGEST_NONE);
	w->ok = connected;
	pthread_barrier_wait(w->all_in);

	if (w->ok)
		w->ok = lun_query(&s, &w->li);
	if (w->ok) {
		/* each session writes its region in pieces of different sizes, twice (two
		 * generations), verifying after each round */
		static const uint32_t piece_bytes[] = { 4096, 65536, 1536, 131072, 7680 };
		w->nblocks = SESSION_REGION / w->li.bs;
		w->base = 8192 + (uint64_t)w->idx * w->nblocks;
		w->shadow = malloc(SESSION_REGION);
		for (uint32_t gen = 1; w->ok && w->shadow != NULL && gen <= 2; gen++) {
			uint32_t done = 0, p = 0;
			fill_pattern(w->shadow, w->base, w->nblocks, w->li.bs, gen * 100000u + (uint32_t)w->idx);
			while (w->ok && done < w->nblocks) {
				uint32_t n = (piece_bytes[p++ % 5] + w->li.bs - 1) / w->li.bs;
				if (n > w->nblocks - done)
					n = w->nblocks - done;
				w->ok = do_write(&s, &w->li, w->base + done,
						 w->shadow + (size_t)done * w->li.bs, n, p % 2);
				done += n;
			}
			if (w->ok)
				w->ok = do_read_compare(&s, &w->li, w->base, w->shadow, w->nblocks,
							gen % 2);
		}
		if (w->shadow == NULL)
			w->ok = false;
	}
	pthread_barrier_wait(w->all_done);
	if (connected && !disconnect_session(&s))
		w->ok = false;
	return NULL;
}

static int run_sessions(const char *url, int n)
{
	struct worker *ws = calloc((size_t)n, sizeof(*ws));
	pthread_barrier_t all_in, all_done;
	int failed = 0, started = 0;
	struct session check = { .what = "cross-check" };

	if (ws == NULL)
		return 2;
	pthread_barrier_init(&all_in, NULL, (unsigned)n);
	pthread_barrier_init(&all_done, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		ws[i].idx = i;
		ws[i].url = url;
		ws[i].all_in = &all_in;
		ws[i].all_done = &all_done;
		if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0) {
			ll_check_fail("pthread_create: %s", strerror(errno));
			/* the barriers count n threads: without all of them nobody would pass */
			exit(2);
		}
		started++;
	}
	for (int i = 0; i < started; i++)
		pthread_join(ws[i].tid, NULL);
	for (int i = 0; i < n; i++)
		failed += !ws[i].ok;
	printf("sessions: %d of %d sessions logged in together and verified their region\n",
	       n - failed, n);

	/* afterwards one session reads every region: each holds its own session's last data */
	if (failed == 0 && connect_session(&check, url, "iqn.2026-11.org.lunlab:io-check-x",
					   ISCSI_HEADER_DIGEST_NONE)) {
		for (int i = 0; i < n; i++)
			if (!do_read_compare(&check, &ws[i].li, ws[i].base, ws[i].shadow,
					     ws[i].nblocks, true)) {
				failed++;
				break;
			}
		if (!disconnect_session(&check))
			failed++;
	} else if (failed == 0) {
		failed++;
	}
	for (int i = 0; i < n; i++)
		free(ws[i].shadow);
	free(ws);
	pthread_barrier_destroy(&all_in);
	pthread_barrier_destroy(&all_done);
	printf("sessions: %s\n", failed ? "FAIL" : "PASS");
	return failed ? 1 : 0;
}

static void usage(const char *me)
{
	fprintf(stderr,
		"usage: %s patterns URL\n"
		"       %s sessions URL [N]   (default 64)\n"
		"       %s digests URL\n"
		"URL: iscsi://127.0.0.1:PORT/IQN/LUN\n", me, me, me);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		usage(argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "patterns") == 0 && argc == 3)
		return run_patterns(argv[2]);
	if (strcmp(argv[1], "digests") == 0 && argc == 3)
		return run_digests(argv[2]);
	if (strcmp(argv[1], "sessions") == 0 && argc <= 4) {
		char *end = NULL;
		long n = argc == 4 ? strtol(argv[3], &end, 10) : 64;
		if (argc == 4 && (end == argv[3] || *end != '\0' || n < 1 || n > 1024)) {
			fprintf(stderr, "sessions: N must be 1..1024, got '%s'\n", argv[3]);
			return 2;
		}
		return run_sessions(argv[2], (int)n);
	}
	usage(argv[0]);
	return 2;
}
