/* volume_early.c — a WRITE's whole blocks stored while its data arrives.
 *
 * An initiator sends a large WRITE's data in bursts, each after its own R2T
 * round trip (libiscsi and ESXi offer MaxBurstLength 256 KiB and
 * MaxOutstandingR2T 1: 16 bursts for 4 MiB).  Storing every block only
 * after the last burst put the whole store (fingerprint, lookup, copy: 2 ms
 * of a 4 MiB write of unique data on this project's 2-core machines) after
 * the whole transfer (3 ms), where the fa420 model leaves 6.7 ms for both.
 * Here each burst's blocks go to the helper threads (split_work.h) as soon
 * as the burst has landed, so the store overlaps the transfer; the WRITE
 * itself (volume_write_early) stores only what is left and installs them
 * all under its range locks, so nothing is visible any earlier.
 *
 * The references taken here are the write's, like prestore's (volume_io.c):
 * a write that never runs (aborted, refused) drops them in vio_early_free.
 * Only a store that is not persistent takes part (volume.h says why). */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "handlers/array/split_work.h"
#include "handlers/array/volume_internal.h"

/* Writes below this are one or two bursts: nothing to overlap. */
#define EARLY_MIN_BYTES (512u << 10)
/* A job is posted once this much more whole data has arrived; its pieces
 * are this size too (one helper per core takes them). */
#define EARLY_PIECE (128u << 10)
/* 64 MiB of data in pieces posted as it arrives; the rest is stored by the
 * write itself. */
#define EARLY_MAX_JOBS 64u

struct early_job {
	struct vio_early *e;
	uint64_t from, to; /* whole blocks, indexes into e->ids */
	unsigned pieces;
	struct split_job sj;
};

struct vio_early {
	struct block_store *bs;
	unsigned bshift;
	uint64_t off, len, first_full, nfull;
	uint32_t *ids;         /* nfull references; NULL once a write took them */
	struct iovec iov;      /* the write's buffer, as the first feed gave it */
	uint64_t posted;       /* ids [0, posted) are handed to jobs */
	atomic_bool failed;    /* a piece could not store its blocks */
	bool joined;
	unsigned njobs;
	struct early_job jobs[EARLY_MAX_JOBS];
};

struct vio_early *vio_early_new(struct volume *v, uint64_t off, uint64_t len)
{
	uint64_t B = v->bs->block;
	if (v->bs->gated || len < EARLY_MIN_BYTES || vio_check_range(v, off, len))
		return NULL;
	uint64_t first_full = (off + B - 1) >> v->bshift, end_full = (off + len) >> v->bshift;
	if (end_full <= first_full)
		return NULL;
	struct vio_early *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->nfull = end_full - first_full;
	if (!(e->ids = calloc(e->nfull, sizeof(*e->ids)))) {
		free(e);
		return NULL;
	}
	e->bs = v->bs;
	e->bshift = v->bshift;
	e->off = off;
	e->len = len;
	e->first_full = first_full;
	return e;
}

static void early_piece(void *arg, unsigned piece)
{
	struct early_job *j = arg;
	struct vio_early *e = j->e;
	uint64_t n = j->to - j->from;
	uint64_t a = j->from + n * piece / j->pieces, b = j->from + n * (piece + 1) / j->pieces;
	if (atomic_load_explicit(&e->failed, memory_order_relaxed))
		return; /* (the write stores them, or finds the same error) */
	if (vio_store_range(e->bs, e->bshift, e->off, &e->iov, 1, e->ids, e->first_full, a, b)) {
		for (uint64_t i = a; i < b; i++)
			e->ids[i] = 0; /* released by vio_store_range */
		atomic_store(&e->failed, true);
	}
}

void vio_early_feed(struct vio_early *e, const struct iovec *iov, size_t iovcnt, uint64_t bytes)
{
	if (!e || e->joined || iovcnt != 1 || iov[0].iov_len < e->len || e->njobs >= EARLY_MAX_JOBS)
		return;
	if (!e->iov.iov_base)
		e->iov = iov[0];
	else if (e->iov.iov_base != iov[0].iov_base)
		return; /* not the buffer the earlier jobs read */
	if (bytes > e->len)
		bytes = e->len;
	uint64_t end_full = (e->off + bytes) >> e->bshift;
	uint64_t done = end_full > e->first_full ? end_full - e->first_full : 0;
	if (done > e->nfull)
		done = e->nfull;
	uint64_t piece_blocks = (EARLY_PIECE >> e->bshift) ? (EARLY_PIECE >> e->bshift) : 1;
	if (done < e->posted + piece_blocks)
		return; /* wait for a piece's worth */
	struct early_job *j = &e->jobs[e->njobs++];
	j->e = e;
	j->from = e->posted;
	j->to = done;
	j->pieces = (unsigned)((done - e->posted) / piece_blocks);
	e->posted = done;
	split_post(&j->sj, j->pieces, early_piece, j);
}

static void early_join(struct vio_early *e)
{
	if (e->joined)
		return;
	for (unsigned i = 0; i < e->njobs; i++)
		split_join(&e->jobs[i].sj);
	e->joined = true;
}

uint64_t vio_early_take(struct vio_early *e, struct block_store *bs, uint64_t off, uint64_t len, uint64_t nfull,
			uint32_t **ids)
{
	early_join(e);
	if (!e->ids || e->bs != bs || e->off != off || e->len != len || e->nfull != nfull ||
	    atomic_load(&e->failed))
		return 0;
	*ids = e->ids;
	e->ids = NULL;
	return e->posted;
}

void vio_early_free(struct vio_early *e)
{
	if (!e)
		return;
	early_join(e);
	if (e->ids) {
		for (uint64_t i = 0; i < e->posted; i++)
			if (e->ids[i])
				bs_unref(e->bs, e->ids[i]);
		free(e->ids);
	}
	free(e);
}
