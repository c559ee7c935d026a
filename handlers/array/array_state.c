/* array_state.c — an array kept in a state directory (array_state.h):
 * loading it, committing what changed, syncing, checking it offline. */
#include "handlers/array/array_state.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handlers/array/array_internal.h"
#include "handlers/array/payload.h"
#include "handlers/array/payload_file.h"
#include "handlers/array/store_db.h"
#include "lunlab/errf.h"
#include "state/state_dir.h"

_Static_assert(VOL_PCHUNK == STORE_CHUNK, "a volume's persisted chunk is a store_db chunk");

/* Every volume of a persistent array is in the state (its list is the
 * array's, a->vols: named volumes, a LU's own volume with its key, and
 * anonymous ones); what the state adds to a volume lives in struct volume
 * (pvid, pkey, pflags, pcommitted), under a->vol_mu. */
struct array_state {
	struct array *a;
	char dir[STATE_PATH_MAX];
	int lock_fd;
	struct store_db *db;
	struct payload_store *ps;       /* the block store owns it */

	/* under a->vol_mu: */
	uint64_t next_vid;
	uint64_t *gone;                 /* vids of deleted volumes, not committed yet */
	size_t ngone, capgone;

	pthread_mutex_t commit_mu;      /* one commit at a time */
	uint64_t epoch;                 /* commits so far */
	/* under commit_mu: shared map chunks (volume_map.c) */
	uint64_t next_cid;              /* the last cid given to a shared chunk */
	uint64_t *gone_cids;            /* freed shared chunks whose rows are not deleted yet */
	size_t ngone_cids, capgone_cids;
	bool shared_resync;             /* a commit failed: rewrite the shared chunks it had */
	uint64_t holds_dropped;         /* ODX holds a crash left in the state, dropped at open */
	/* LUNLAB_ARRAY_STATE_CHECK=1: every cut also formats the record of
	 * each volume that is not marked and fails the commit when it differs
	 * from the committed one (a change nobody marked: the proof that the
	 * marks are complete, run by the unit and crash tests) */
	bool check_marks;
	/* under a->vol_mu: the batch of the commit in flight (its cut taken,
	 * not settled), whose volume pointers vol_left clears */
	struct batch *inflight;

	pthread_mutex_t mu;             /* requests and their outcome */
	pthread_cond_t cv;
	uint64_t requested, done_seq, failed_seq;
	int failed_err;
	bool stop, running;
	pthread_t thread;
};

static char *dup_err(const char *e)
{
	char *s = strdup(e);

	return s ? s : strdup("out of memory");
}

/* ---- commit ---- */

struct chunk_copy {
	uint64_t vid, idx;
	uint64_t cid;                   /* 0: the ids inline; else a reference to this shared chunk */
	uint32_t ids[STORE_CHUNK];
};

struct shared_copy {
	uint64_t cid;
	uint32_t ids[STORE_CHUNK];
};

struct batch {
	struct store_blk_rec *blk;      /* live blocks to write */
	size_t nblk, capblk;
	uint32_t *gone;                 /* freed blocks to delete */
	size_t ngone, capgone;
	struct chunk_copy *chk;
	size_t nchk, capchk;
	struct shared_copy *shr;        /* shared chunks to write */
	size_t nshr, capshr;
	/* runs rows to write: groups of STORE_GROUP slots where a marked slot
	 * lies, each with its runs (from runs[first], n of them; none: the
	 * row goes) */
	struct { uint64_t vid, grp; size_t first; unsigned n; } *grp;
	size_t ngrp, capgrp;
	size_t vol_grp0;                /* grp[vol_grp0 ..]: the current volume's */
	struct store_run *runs;
	size_t nruns, capruns;
	size_t ngone_cids;              /* st->gone_cids[0 .. this) are deleted by this batch */
	struct store_vol_rec *vol;      /* volume records to write */
	struct volume **volp;           /* vol[i]'s volume (NULL: it left the list since) */
	size_t nvol, capvol, capvolp;
	struct { uint64_t vid, from; } *trunc; /* chunks to drop past a shrunk end */
	size_t ntrunc, captrunc;
	uint64_t *dropvid;              /* volumes deleted */
	size_t ndrop, capdrop;
	struct volume *cur;             /* the volume being collected */
	struct array_state *st;
	struct store_summary sum;
};

#define GROW(arr, n, cap)                                                                   \
	((n) < (cap) ? 0 : grow_arr((void **)&(arr), &(cap), sizeof(*(arr))))

static int grow_arr(void **p, size_t *cap, size_t elem)
{
	size_t nc = *cap ? *cap * 2 : 64;
	void *q = realloc(*p, nc * elem);

	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static void batch_free(struct batch *b)
{
	free(b->blk);
	free(b->gone);
	free(b->chk);
	free(b->shr);
	free(b->grp);
	free(b->runs);
	free(b->vol);
	free(b->volp);
	free(b->trunc);
	free(b->dropvid);
}

static int take_block(void *ctx, const struct bs_rec_state *s)
{
	struct batch *b = ctx;

	if (!s->live) {
		if (GROW(b->gone, b->ngone, b->capgone))
			return -ENOMEM;
		b->gone[b->ngone++] = s->id;
		return 0;
	}
	if (GROW(b->blk, b->nblk, b->capblk))
		return -ENOMEM;
	b->blk[b->nblk++] = (struct store_blk_rec){
		.id = s->id,
		.fp = s->fp,
		.refs = s->refs,
		.csize = s->csize,
		.dcrc = payload_file_crc(b->st->ps, s->id),
	};
	return 0;
}

/* slot group grp of the current volume has a marked slot (groups come in
 * ascending order per volume, but for a shrunk one's last) */
static int mark_group(struct batch *b, uint64_t grp)
{
	if (b->ngrp > b->vol_grp0 && b->grp[b->ngrp - 1].grp == grp)
		return 0;
	if (GROW(b->grp, b->ngrp, b->capgrp))
		return -ENOMEM;
	b->grp[b->ngrp].vid = b->cur->pvid;
	b->grp[b->ngrp].grp = grp;
	b->grp[b->ngrp].first = 0;
	b->grp[b->ngrp++].n = 0;
	return 0;
}

/* The runs of the current volume's marked groups, from its map as it is at
 * the cut (every slot of those groups, marked or not: the row is the
 * group's whole). */
static int take_runs(struct batch *b)
{
	uint16_t off[STORE_GROUP];
	uint64_t cid[STORE_GROUP];

	for (size_t g = b->vol_grp0; g < b->ngrp; g++) {
		unsigned k = map_persist_refs(b->cur, b->grp[g].grp * STORE_GROUP, STORE_GROUP, off, cid), n = 0;

		while (b->nruns + STORE_GROUP > b->capruns)
			if (grow_arr((void **)&b->runs, &b->capruns, sizeof(*b->runs)))
				return -ENOMEM;
		for (unsigned i = 0; i < k; i++)
			store_run_add(b->runs + b->nruns, &n, off[i], cid[i]);
		b->grp[g].first = b->nruns;
		b->grp[g].n = n;
		b->nruns += n;
	}
	return 0;
}

static int take_chunk(void *ctx, uint64_t idx)
{
	struct batch *b = ctx;
	bool content = false;

	if (GROW(b->chk, b->nchk, b->capchk) || GROW(b->shr, b->nshr, b->capshr) ||
	    mark_group(b, idx / STORE_GROUP))
		return -ENOMEM;
	struct chunk_copy *c = &b->chk[b->nchk];
	c->vid = b->cur->pvid;
	c->idx = idx;
	c->cid = 0;
	if (map_persist_chunk(b->cur, idx, b->shr[b->nshr].ids, &c->cid, &content, &b->st->next_cid,
			      b->st->shared_resync) == 0)
		memcpy(c->ids, b->shr[b->nshr].ids, sizeof(c->ids));
	else if (content)
		b->shr[b->nshr++].cid = c->cid;
	b->nchk++;
	return 0;
}

static int take_gone_cid(void *ctx, uint64_t cid)
{
	struct array_state *st = ctx;

	if (GROW(st->gone_cids, st->ngone_cids, st->capgone_cids))
		return -ENOMEM;
	st->gone_cids[st->ngone_cids++] = cid;
	return 0;
}

static int drop_cid(void *ctx, uint64_t cid)
{
	(void)ctx;
	(void)cid;
	return 0;
}

/* The record of v as it is now (caller: a->vol_mu). */
static void vol_rec(const struct volume *v, struct store_vol_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->vid = v->pvid;
	if (v->name)
		snprintf(r->key, sizeof(r->key), "vol:%s", v->name);
	else if (v->pkey)
		snprintf(r->key, sizeof(r->key), "%s", v->pkey);
	else
		snprintf(r->key, sizeof(r->key), "anon:%llu", (unsigned long long)v->pvid);
	r->size = volume_size(v);
	r->lba_size = v->lba_size;
	r->flags = v->pflags | (v->name ? STORE_VOL_NAMED : 0) | (v->readonly ? STORE_VOL_READONLY : 0) |
		   (v->hidden ? STORE_VOL_HOLD : 0);
	snprintf(r->info, sizeof(r->info), "%s", v->snapshot_of ? v->snapshot_of : "");
}

static struct volume *vol_of_vid(struct array *a, uint64_t vid)
{
	for (struct volume *v = a->vols; v; v = v->next)
		if (v->pvid == vid)
			return v;
	return NULL;
}

/* check_marks: v is not marked, so its record must be the committed one */
static int check_unmarked(struct array_state *st, const struct volume *v, char *err, size_t errlen)
{
	struct store_vol_rec r;
	const struct store_vol_rec *c = v->pcommitted;

	vol_rec(v, &r);
	if (!memcmp(&r, c, sizeof(r)))
		return 0;
	ll_errf(err, errlen,
		"%s: volume %llu ('%s'): its record changed without a mark (%s differs from the committed one)",
		st->dir, (unsigned long long)v->pvid, r.key,
		strcmp(r.key, c->key) ? "key" : r.size != c->size ? "size" : r.lba_size != c->lba_size ? "block size"
		: r.flags != c->flags ? "flags" : strcmp(r.info, c->info) ? "snapshot_of" : "vid");
	return -EPROTO;
}

/* Under the freeze: everything that changed since the last cut into b.  A
 * volume's record is formatted only when it is marked (vol_record_mark) or
 * was never committed: a commit's cost follows the change, not the number
 * of volumes.  -ENOMEM, or -EPROTO with err (check_marks). */
static int cut(struct array_state *st, struct batch *b, char *err, size_t errlen)
{
	struct array *a = st->a;
	struct block_store *bs = a->bs;
	int rc = 0;

	pthread_mutex_lock(&a->vol_mu);
	/* every mark is set inside the gate or under vol_mu: none comes
	 * between this and the walk */
	atomic_store(&bs->recs_marked, false);
	for (struct volume *v = a->vols; v && !rc; v = v->next) {
		struct store_vol_rec r;
		uint64_t shrunk_to = 0;        /* slots from here on went (0: none) */
		/* (a load first: most volumes are not marked, and their line is
		 * then only read) */
		bool marked = atomic_load_explicit(&v->precmark, memory_order_relaxed) &&
			      atomic_exchange(&v->precmark, false);
		bool changed = false;

		if (marked || !v->pcommitted) {
			vol_rec(v, &r);
			changed = !v->pcommitted || memcmp(&r, v->pcommitted, sizeof(r)) != 0;
		} else if (st->check_marks && (rc = check_unmarked(st, v, err, errlen)) != 0) {
			break;
		}
		if (changed) {
			/* (out of memory: marked again, for the next commit) */
			if ((rc = GROW(b->vol, b->nvol, b->capvol)) != 0 ||
			    (rc = GROW(b->volp, b->nvol, b->capvolp)) != 0) {
				vol_record_mark(v);
				break;
			}
			b->volp[b->nvol] = v;
			b->vol[b->nvol++] = r;
			if (v->pcommitted && r.size < v->pcommitted->size) {
				if ((rc = GROW(b->trunc, b->ntrunc, b->captrunc)) != 0) {
					b->nvol--;
					vol_record_mark(v);
					break;
				}
				b->trunc[b->ntrunc].vid = v->pvid;
				b->trunc[b->ntrunc++].from = shrunk_to = (v->nblocks + STORE_CHUNK - 1) / STORE_CHUNK;
			}
		}
		b->cur = v;
		b->vol_grp0 = b->ngrp;
		rc = map_persist_collect(v, take_chunk, b);
		/* the group the new end falls in loses its runs past the end */
		if (!rc && shrunk_to % STORE_GROUP)
			rc = mark_group(b, shrunk_to / STORE_GROUP);
		if (!rc)
			rc = take_runs(b);
		b->sum.mapped_blocks += atomic_load(&v->mapped);
	}
	for (size_t i = 0; i < st->ngone && !rc; i++) {
		if ((rc = GROW(b->dropvid, b->ndrop, b->capdrop)) != 0)
			break;
		b->dropvid[b->ndrop++] = st->gone[i];
	}
	st->inflight = b;
	pthread_mutex_unlock(&a->vol_mu);
	if (!rc)
		rc = map_persist_gone(bs, take_gone_cid, st);
	b->ngone_cids = st->ngone_cids;
	if (!rc)
		rc = bs_persist_collect(bs, take_block, b);
	if (!rc) {
		struct bs_figures f;

		bs_persist_seal(bs);
		bs_figures(bs, &f);
		b->sum.unique_blocks = f.unique_blocks;
		b->sum.pending_blocks = f.pending_blocks;
		b->sum.physical_bytes = f.physical_bytes;
		b->sum.compressed_bytes = f.compressed_bytes;
		/* at a cut every reference is a map chunk's (volume_map.c) */
		b->sum.refs_total = b->sum.mapped_blocks - atomic_load(&bs->map_excess);
	}
	return rc;
}

/* The batch could not be written: mark everything in it again (deleted
 * volumes simply stay on the list for the next one; a volume whose record
 * went but that left the list since is in st->gone). */
static void remark(struct array_state *st, struct batch *b)
{
	struct array *a = st->a;

	for (size_t i = 0; i < b->nblk; i++)
		bs_persist_remark(a->bs, b->blk[i].id);
	for (size_t i = 0; i < b->ngone; i++)
		bs_persist_remark(a->bs, b->gone[i]);
	pthread_mutex_lock(&a->vol_mu);
	for (size_t i = 0; i < b->nchk; i++) {
		struct volume *v = vol_of_vid(a, b->chk[i].vid);

		if (v)
			map_persist_remark(v, b->chk[i].idx);
	}
	for (size_t i = 0; i < b->nvol; i++)
		if (b->volp[i])
			vol_record_mark(b->volp[i]);
	st->inflight = NULL;
	/* a cut that stopped early left marks it cleared the store's flag of */
	atomic_store(&a->bs->recs_marked, true);
	pthread_mutex_unlock(&a->vol_mu);
	/* the shared chunks' rows of this batch were marked written: the slots
	 * naming them are marked again above, and the next cut writes the
	 * content of every shared chunk it meets */
	st->shared_resync = true;
}

/* The batch is durable: the volumes' committed records are the batch's,
 * and the deleted volumes it recorded are off the list. */
static void settle(struct array_state *st, struct batch *b)
{
	struct array *a = st->a;

	pthread_mutex_lock(&a->vol_mu);
	st->inflight = NULL;
	for (size_t i = 0; i < b->nvol; i++) {
		struct volume *v = b->volp[i];

		if (!v)
			continue;
		if (!v->pcommitted)
			v->pcommitted = malloc(sizeof(*v->pcommitted));
		if (v->pcommitted)
			*v->pcommitted = b->vol[i];
	}
	for (size_t i = 0; i < b->ndrop; i++)
		for (size_t j = 0; j < st->ngone; j++)
			if (st->gone[j] == b->dropvid[i]) {
				st->gone[j] = st->gone[--st->ngone];
				break;
			}
	pthread_mutex_unlock(&a->vol_mu);
	/* (commit_mu held: nothing added cids since the cut) */
	if (b->ngone_cids) {
		memmove(st->gone_cids, st->gone_cids + b->ngone_cids,
			(st->ngone_cids - b->ngone_cids) * sizeof(uint64_t));
		st->ngone_cids -= b->ngone_cids;
	}
	st->shared_resync = false;
}

/* The commit's rows in an open transaction (not committed: until the
 * commit record a crash leaves the last commit's state, SQLite's WAL
 * ignores frames without one).  0, or -1 with err and the transaction
 * rolled back. */
static int write_rows(struct array_state *st, struct batch *b, char *err, size_t errlen)
{
	struct store_db *db = st->db;

	if (store_db_begin(db, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < b->ndrop; i++)
		if (store_db_del_volume(db, b->dropvid[i], err, errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->nvol; i++)
		if (store_db_put_volume(db, &b->vol[i], err, errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->ntrunc; i++)
		if (store_db_del_chunks_from(db, b->trunc[i].vid, b->trunc[i].from, err, errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->nshr; i++)
		if (store_db_put_shared(db, b->shr[i].cid, b->shr[i].ids, err, errlen) < 0)
			goto fail;
	/* a slot naming a shared chunk is in its group's runs row: a chunks row
	 * it had (inline before) goes */
	for (size_t i = 0; i < b->nchk; i++)
		if (b->chk[i].cid ? store_db_del_chunk(db, b->chk[i].vid, b->chk[i].idx, err, errlen) < 0
				  : store_db_put_chunk(db, b->chk[i].vid, b->chk[i].idx, b->chk[i].ids, err, errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->ngrp; i++)
		if (store_db_put_runs(db, b->grp[i].vid, b->grp[i].grp, b->runs + b->grp[i].first, b->grp[i].n, err,
				      errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->ngone_cids; i++)
		if (store_db_del_shared(db, b->st->gone_cids[i], err, errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->nblk; i++)
		if (store_db_put_block(db, &b->blk[i], err, errlen) < 0)
			goto fail;
	for (size_t i = 0; i < b->ngone; i++)
		if (store_db_del_block(db, b->gone[i], err, errlen) < 0)
			goto fail;
	b->sum.epoch = st->epoch + 1;
	if (store_db_put_summary(db, &b->sum, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	store_db_rollback(db);
	return -1;
}

/* blocks.dat's fdatasync, in a thread of its own while the rows are written */
struct sync_job {
	struct payload_store *ps;
	int rc;
};

static void *sync_payloads(void *arg)
{
	struct sync_job *j = arg;

	j->rc = payload_file_sync(j->ps);
	return NULL;
}

static bool start_sync(pthread_t *th, struct sync_job *j)
{
	sigset_t all, old;
	bool ok;

	sigfillset(&all); /* no signals in our thread: the host's */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = pthread_create(th, NULL, sync_payloads, j) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

/* One commit: a cut between commands, the payloads it references on disk,
 * then its metadata in one transaction.  0, or -errno with err. */
static int commit(struct array_state *st, char *err, size_t errlen)
{
	struct block_store *bs = st->a->bs;
	struct batch b;
	int rc;

	memset(&b, 0, sizeof(b));
	b.st = st;
	pthread_mutex_lock(&st->commit_mu);
	bs_persist_freeze(bs);
	rc = cut(st, &b, err, errlen);
	bs_persist_thaw(bs);
	if (rc) {
		if (rc != -EPROTO)
			ll_errf(err, errlen, "%s: out of memory collecting a commit", st->dir);
		remark(st, &b);
		bs_persist_sealed_done(bs, false);
		goto out;
	}
	/* the payloads first: the metadata may only reference slots that are
	 * on disk (a new block's slot was written before its block existed).
	 * Their fdatasync runs while the rows go into the transaction; the
	 * commit record follows only once it succeeded. */
	struct sync_job job = { st->ps, 0 };
	pthread_t th;
	bool threaded = start_sync(&th, &job);
	if (!threaded)
		job.rc = payload_file_sync(st->ps);
	int rows = write_rows(st, &b, err, errlen);
	if (threaded)
		pthread_join(th, NULL);
	if ((rc = job.rc) != 0) {
		if (rows == 0)
			store_db_rollback(st->db);
		ll_errf(err, errlen, "%s/blocks.dat: fdatasync: %s", st->dir, strerror(-rc));
	} else if (rows < 0) {
		rc = -EIO;
	} else if (store_db_commit(st->db, err, errlen) < 0) {
		store_db_rollback(st->db);
		rc = -EIO;
	}
	if (rc) {
		remark(st, &b);
		bs_persist_sealed_done(bs, false);
		goto out;
	}
	/* durable: freed slots may be reused, the records are what disk has */
	bs_persist_sealed_done(bs, true);
	st->epoch++;
	settle(st, &b);
out:
	pthread_mutex_unlock(&st->commit_mu);
	batch_free(&b);
	return rc;
}

static bool nothing_changed(struct array_state *st)
{
	bool vc;

	pthread_mutex_lock(&st->a->vol_mu);
	vc = atomic_load(&st->a->bs->recs_marked) || st->ngone;
	pthread_mutex_unlock(&st->a->vol_mu);
	return !vc && bs_persist_dirty(st->a->bs) == 0;
}

static void *committer(void *arg)
{
	struct array_state *st = arg;
	char err[1024];

	pthread_mutex_lock(&st->mu);
	while (!st->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)(ARRAY_STATE_COMMIT_MS % 1000) * 1000000L;
		ts.tv_sec += ARRAY_STATE_COMMIT_MS / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		/* wait for a request, enough changes, or the period; after a
		 * failure, for the period before trying again (a full disk) */
		if ((st->requested == st->done_seq && bs_persist_dirty(st->a->bs) < ARRAY_STATE_COMMIT_BLOCKS) ||
		    st->requested == st->failed_seq)
			pthread_cond_timedwait(&st->cv, &st->mu, &ts);
		if (st->stop)
			break;
		uint64_t target = st->requested;
		pthread_mutex_unlock(&st->mu);
		int rc = nothing_changed(st) ? 0 : commit(st, err, sizeof(err));
		pthread_mutex_lock(&st->mu);
		if (rc == 0) {
			if (target > st->done_seq)
				st->done_seq = target;
		} else {
			fprintf(stderr, "lunlab: array state: commit failed: %s\n", err);
			st->failed_seq = target;
			st->failed_err = rc;
		}
		pthread_cond_broadcast(&st->cv);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

int array_sync(struct array *a)
{
	struct array_state *st = a ? a->state : NULL;
	uint64_t my;
	int rc = 0;

	if (!st)
		return 0;
	/* the commit waits for every mutation to leave the gate: a caller
	 * inside one would wait for itself */
	if (bs_gate_held == a->bs)
		return -EDEADLK;
	pthread_mutex_lock(&st->mu);
	my = ++st->requested;
	pthread_cond_broadcast(&st->cv);
	while (st->done_seq < my && !(st->failed_seq >= my) && st->running)
		pthread_cond_wait(&st->cv, &st->mu);
	if (st->done_seq < my)
		rc = st->running ? st->failed_err : -EIO;
	pthread_mutex_unlock(&st->mu);
	return rc;
}

/* ---- loading ---- */

struct loader {
	struct array_state *st;
	struct array *a;
	uint32_t limit;                 /* highest block id + 1 */
	uint32_t *counts;               /* references found in the maps, per id */
	struct volume **byvid;          /* in vid order (volumes come in vid order) */
	size_t nvols, capvols;
	char *err;
	size_t errlen;
	uint64_t live_blocks;
	uint64_t map_entries;
	uint64_t refs;                  /* references the maps hold */
	struct map_chunk **shared;      /* shared chunks in cid order */
	size_t nshared, capshared;
	/* the last volume and shared chunk a map row named: rows come in
	 * (vid, idx) order and a clone's slots name consecutive chunks, so
	 * most rows skip both binary searches (millions of rows for
	 * thousands of clones) */
	struct volume *last_v;
	size_t last_shared;
};

static int load_block(void *arg, const struct store_blk_rec *r)
{
	struct loader *l = arg;
	char why[512];
	void *data = payload_file_attach(l->st->ps, r->id, r->dcrc, why, sizeof(why));
	int rc;

	if (!data)
		return ll_errf(l->err, l->errlen, "%s", why);
	rc = bs_load_block(l->a->bs, r->id, r->fp, r->refs, r->csize, data);
	if (rc)
		return ll_errf(l->err, l->errlen, "%s: block %u: %s", store_db_path(l->st->db), r->id,
			    rc == -EINVAL ? "a block with no reference is recorded"
			    : rc == -EEXIST ? "recorded twice" : rc == -ERANGE ? "id out of range" : strerror(-rc));
	if (r->id + 1 > l->limit)
		l->limit = r->id + 1;
	l->live_blocks++;
	return 0;
}

static int load_volume(void *arg, const struct store_vol_rec *r)
{
	struct loader *l = arg;
	struct array *a = l->a;
	struct volume *v;
	bool named = r->flags & STORE_VOL_NAMED;

	if ((r->lba_size != 512 && r->lba_size != 4096) || r->size % r->lba_size || !r->key[0] ||
	    (named && (strncmp(r->key, "vol:", 4) != 0 || !r->key[4])) || r->vid == 0)
		return ll_errf(l->err, l->errlen, "%s: volume %llu ('%s'): size %llu, block size %u or key is impossible",
			    store_db_path(l->st->db), (unsigned long long)r->vid, r->key, (unsigned long long)r->size,
			    r->lba_size);
	if (l->nvols && l->byvid[l->nvols - 1]->pvid >= r->vid)
		return ll_errf(l->err, l->errlen, "%s: volume %llu comes twice", store_db_path(l->st->db),
			    (unsigned long long)r->vid);
	v = array_vol_alloc(a, r->size, r->lba_size);
	if (!v || GROW(l->byvid, l->nvols, l->capvols) || !(v->pcommitted = malloc(sizeof(*v->pcommitted))) ||
	    (named && !(v->name = strdup(r->key + 4))) || (!named && !strncmp(r->key, "lu:", 3) && !(v->pkey = strdup(r->key))) ||
	    (r->info[0] && !(v->snapshot_of = strdup(r->info)))) {
		if (v)
			volume_destroy(v);
		return ll_errf(l->err, l->errlen, "out of memory loading volume '%s'", r->key);
	}
	v->pvid = r->vid;
	v->pflags = r->flags & (STORE_VOL_WCE_OFF | STORE_VOL_SWP);
	v->readonly = r->flags & STORE_VOL_READONLY;
	v->hidden = r->flags & STORE_VOL_HOLD;
	v->attached = false;
	*v->pcommitted = *r;
	pthread_mutex_lock(&a->vol_mu);
	array_vol_link(a, v);
	pthread_mutex_unlock(&a->vol_mu);
	/* a name keeps its array alive (volume_names.h); the registry lock is
	 * the caller's (array_get_state), or the array is in no registry */
	if (named)
		a->users++;
	l->byvid[l->nvols++] = v;
	if (r->vid >= l->st->next_vid)
		l->st->next_vid = r->vid + 1;
	return 0;
}

static struct volume *find_vid(struct loader *l, uint64_t vid)
{
	size_t lo = 0, hi = l->nvols;

	if (l->last_v && l->last_v->pvid == vid)
		return l->last_v;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->byvid[mid]->pvid == vid)
			return l->last_v = l->byvid[mid];
		if (l->byvid[mid]->pvid < vid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *vname(const struct volume *v)
{
	return v->name ? v->name : v->pkey ? v->pkey : "(anonymous)";
}

static int load_chunk(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK])
{
	struct loader *l = arg;
	struct volume *v = find_vid(l, vid);
	int rc;

	if (!v)
		return ll_errf(l->err, l->errlen, "%s: map chunk %llu belongs to volume %llu, which does not exist", store_db_path(l->st->db),
			    (unsigned long long)idx, (unsigned long long)vid);
	for (unsigned i = 0; i < STORE_CHUNK; i++) {
		uint32_t id = ids[i];

		if (!id)
			continue;
		if (id >= l->limit || bs_rec(l->a->bs, id)->acct == BLK_FREE)
			return ll_errf(l->err, l->errlen,
				    "%s: volume '%s' block %llu maps to block %u, which does not exist", store_db_path(l->st->db), vname(v),
				    (unsigned long long)(idx * STORE_CHUNK + i), id);
		if (l->counts[id] == UINT32_MAX)
			return ll_errf(l->err, l->errlen, "%s: block %u: too many references", store_db_path(l->st->db), id);
		l->counts[id]++;
		l->map_entries++;
		l->refs++;
	}
	rc = map_load_chunk(v, idx, ids);
	if (rc == -ERANGE)
		return ll_errf(l->err, l->errlen, "%s: volume '%s' has map entries past its end (chunk %llu)", store_db_path(l->st->db),
			    vname(v), (unsigned long long)idx);
	if (rc)
		return ll_errf(l->err, l->errlen, "out of memory loading the map of '%s'", vname(v));
	return 0;
}

/* a shared chunk's entries must name live blocks, as an inline chunk's */
static int check_ids(struct loader *l, const uint32_t *ids, const char *what, unsigned long long n)
{
	for (unsigned i = 0; i < STORE_CHUNK; i++)
		if (ids[i] && (ids[i] >= l->limit || bs_rec(l->a->bs, ids[i])->acct == BLK_FREE))
			return ll_errf(l->err, l->errlen, "%s: %s %llu maps to block %u, which does not exist",
				    store_db_path(l->st->db), what, n, ids[i]);
	return 0;
}

static int load_shared(void *arg, uint64_t cid, const uint32_t ids[STORE_CHUNK])
{
	struct loader *l = arg;
	struct map_chunk *c;

	if (check_ids(l, ids, "shared map chunk", (unsigned long long)cid))
		return -1;
	if (GROW(l->shared, l->nshared, l->capshared) || !(c = map_load_shared(l->a->bs, cid, ids)))
		return ll_errf(l->err, l->errlen, "out of memory loading shared map chunks");
	l->shared[l->nshared++] = c;
	if (cid > l->st->next_cid)
		l->st->next_cid = cid;
	return 0;
}

/* slot idx of v names shared chunk cid */
static int load_ref_of(struct loader *l, struct volume *v, uint64_t idx, uint64_t cid)
{
	size_t lo = 0, hi = l->nshared, next = l->last_shared + 1;

	/* a run's slots name consecutive cids: the next one, most often */
	if (next < l->nshared && l->shared[next]->pcid == cid)
		lo = hi = next;
	else if (l->last_shared < l->nshared && l->shared[l->last_shared]->pcid == cid)
		lo = hi = l->last_shared;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->shared[mid]->pcid < cid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* (the path only for a message: sqlite3_db_filename searches by name,
	 * a tenth of a restart's time when it ran for each of 3 million slots) */
	if (lo == l->nshared || l->shared[lo]->pcid != cid)
		return ll_errf(l->err, l->errlen, "%s: volume '%s' chunk %llu names shared map chunk %llu, which does not exist",
			    store_db_path(l->st->db), vname(v), (unsigned long long)idx, (unsigned long long)cid);
	l->last_shared = lo;
	int rc = map_load_ref(v, idx, l->shared[lo]);
	if (rc == -ERANGE)
		return ll_errf(l->err, l->errlen, "%s: volume '%s' has map entries past its end (chunk %llu)",
			    store_db_path(l->st->db), vname(v), (unsigned long long)idx);
	if (rc == -EEXIST)
		return ll_errf(l->err, l->errlen, "%s: volume '%s' chunk %llu is recorded twice", store_db_path(l->st->db),
			    vname(v), (unsigned long long)idx);
	if (rc)
		return ll_errf(l->err, l->errlen, "out of memory loading the map of '%s'", vname(v));
	l->map_entries += l->shared[lo]->pmapped;
	return 0;
}

static struct volume *row_vol(struct loader *l, uint64_t vid, uint64_t idx)
{
	struct volume *v = find_vid(l, vid);

	if (!v)
		ll_errf(l->err, l->errlen, "%s: map chunk %llu belongs to volume %llu, which does not exist",
			store_db_path(l->st->db), (unsigned long long)idx, (unsigned long long)vid);
	return v;
}

/* a chunks row naming a shared chunk (a state not yet moved to runs rows) */
static int load_ref(void *arg, uint64_t vid, uint64_t idx, uint64_t cid)
{
	struct loader *l = arg;
	struct volume *v = row_vol(l, vid, idx);

	return v ? load_ref_of(l, v, idx, cid) : -1;
}

static int load_runs(void *arg, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n)
{
	struct loader *l = arg;
	struct volume *v = row_vol(l, vid, grp * STORE_GROUP);
	int rc = 0;

	if (!v)
		return -1;
	for (unsigned i = 0; i < n && !rc; i++)
		for (unsigned k = 0; k < runs[i].count && !rc; k++)
			rc = load_ref_of(l, v, grp * STORE_GROUP + runs[i].off + k,
					 runs[i].cid + (uint64_t)((int64_t)runs[i].step * k));
	return rc;
}

/* Each shared chunk holds a reference per entry, one more while two or
 * more slots name it (volume_map.c); one named by none is damage. */
static int shared_done(struct loader *l)
{
	int rc = 0;

	for (size_t i = 0; i < l->nshared; i++) {
		struct map_chunk *c = l->shared[i];
		uint32_t holders = atomic_load(&c->shares);
		uint64_t cid = c->pcid;

		if (!map_load_shared_done(l->a->bs, c)) {
			if (!rc)
				rc = ll_errf(l->err, l->errlen, "%s: shared map chunk %llu is named by no volume",
					  store_db_path(l->st->db), (unsigned long long)cid);
			continue;
		}
		for (unsigned k = 0; k < STORE_CHUNK && !rc; k++) {
			uint32_t id = c->ids[k], add = holders >= 2 ? 2 : 1;

			if (!id)
				continue;
			if (l->counts[id] > UINT32_MAX - add)
				rc = ll_errf(l->err, l->errlen, "%s: block %u: too many references", store_db_path(l->st->db), id);
			else
				l->counts[id] += add;
			l->refs += add;
		}
	}
	return rc;
}

/* every block's recorded count equals the map entries that reference it */
static int check_refs(struct loader *l)
{
	for (uint32_t id = 1; id < l->limit; id++) {
		struct blk *r = bs_rec(l->a->bs, id);
		uint32_t rec;

		if (r->acct == BLK_FREE)
			continue;
		rec = atomic_load(&r->ref);
		if (rec != l->counts[id])
			return ll_errf(l->err, l->errlen,
				    "%s: block %u records %u reference(s), the volume maps hold %u",
				    store_db_path(l->st->db), id, rec, l->counts[id]);
	}
	return 0;
}

/* the figures recorded by the last commit equal what the records add up to */
static int check_summary(struct loader *l)
{
	struct store_summary s;
	struct bs_figures f;
	const char *path = store_db_path(l->st->db);
	int r = store_db_summary(l->st->db, &s, l->err, l->errlen);

	if (r < 0)
		return -1;
	l->st->epoch = r ? s.epoch : 0;
	bs_figures(l->a->bs, &f);
	if (!r) {
		if (l->live_blocks || l->map_entries)
			return ll_errf(l->err, l->errlen, "%s: blocks and maps without a summary (the file is damaged)", path);
		return 0;
	}
#define SAME(what, have, want)                                                                                    \
	if ((have) != (want))                                                                                      \
	return ll_errf(l->err, l->errlen, "%s: %s recomputes to %llu, the last commit recorded %llu", path, what,      \
		    (unsigned long long)(have), (unsigned long long)(want))
	SAME("unique blocks", f.unique_blocks, s.unique_blocks);
	SAME("mapped blocks", l->map_entries, s.mapped_blocks);
	SAME("references", l->refs, s.refs_total);
	/* pending blocks are re-accounted after a restart: the sums that do not
	 * depend on them are compared, the others only for accounted blocks */
	SAME("pending blocks", f.pending_blocks, s.pending_blocks);
	SAME("physical bytes (accounted blocks)", f.physical_bytes, s.physical_bytes);
	SAME("compressed bytes (accounted blocks)", f.compressed_bytes, s.compressed_bytes);
	/* the physical space the loaded blocks claim (space.h): accounted ones
	 * at their size, pending ones at their worst case; nothing reserved */
	struct array_space sp;
	array_get_space(l->a, &sp);
#undef SAME
	uint64_t want = f.physical_bytes + f.pending_blocks * (uint64_t)l->a->p.dedup_block;
	if (sp.used_bytes != want || sp.reserved_bytes)
		return ll_errf(l->err, l->errlen,
			    "%s: physical space in use %llu bytes (%llu reserved), its blocks add up to %llu", path,
			    (unsigned long long)sp.used_bytes, (unsigned long long)sp.reserved_bytes,
			    (unsigned long long)want);
	return 0;
}

static int load(struct array_state *st, char *err, size_t errlen)
{
	struct loader l = { .st = st, .a = st->a, .limit = 1, .err = err, .errlen = errlen };
	int rc;

	if (store_db_each_block(st->db, load_block, &l, err, errlen) != 0)
		return -1;
	if ((rc = bs_load_done(st->a->bs, l.limit)) != 0)
		return ll_errf(err, errlen, "loading blocks: %s", strerror(-rc));
	l.counts = calloc(l.limit, sizeof(*l.counts));
	if (!l.counts)
		return ll_errf(err, errlen, "out of memory counting references");
	st->next_vid = 1;
	rc = store_db_each_volume(st->db, load_volume, &l, err, errlen);
	/* volumes came in ascending vid order: byvid is sorted */
	if (!rc)
		rc = store_db_each_shared(st->db, load_shared, &l, err, errlen);
	if (!rc)
		rc = store_db_each_chunk_any(st->db, load_chunk, load_ref, &l, err, errlen);
	if (!rc)
		rc = store_db_each_runs(st->db, load_runs, &l, err, errlen);
	if (!rc)
		rc = shared_done(&l);
	else /* chunks no volume holds yet are the loader's */
		for (size_t i = 0; i < l.nshared; i++)
			if (!atomic_load(&l.shared[i]->shares))
				map_load_shared_done(st->a->bs, l.shared[i]);
	if (!rc)
		rc = check_refs(&l);
	if (!rc)
		rc = check_summary(&l);
	free(l.counts);
	free(l.byvid);
	free(l.shared);
	return rc ? -1 : 0;
}

/* ---- open / close ---- */

static void stamp_of(const struct array *a, const char *profile, char vals[5][32], struct state_stamp st[6])
{
	snprintf(vals[0], 32, "%u", a->p.dedup_block);
	snprintf(vals[1], 32, "%d", a->p.zlib_level);
	snprintf(vals[2], 32, "%d", a->p.zlib_window_bits);
	snprintf(vals[3], 32, "%u", a->p.alloc_unit);
	st[0] = (struct state_stamp){ "array", a->name };
	st[1] = (struct state_stamp){ "profile", profile && *profile ? profile : "(none)" };
	st[2] = (struct state_stamp){ "dedup_block", vals[0] };
	st[3] = (struct state_stamp){ "zlib_level", vals[1] };
	st[4] = (struct state_stamp){ "zlib_window_bits", vals[2] };
	st[5] = (struct state_stamp){ "alloc_unit", vals[3] };
}

static void state_free(struct array_state *st)
{
	free(st->gone);
	free(st->gone_cids);
	store_db_close(st->db);
	state_dir_unlock(st->lock_fd);
	pthread_mutex_destroy(&st->commit_mu);
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->cv);
	free(st);
}

/* ODX holds do not survive a restart (vol_hold.c): the hidden volumes a
 * crash left in the state were loaded with the rest (so the references
 * they held were checked like any volume's) and go now; the next commit
 * deletes their rows and records their blocks' counts, or frees the blocks
 * only they held. */
static void drop_holds(struct array_state *st)
{
	struct array *a = st->a;

	for (;;) {
		struct volume *v;

		pthread_mutex_lock(&a->vol_mu);
		for (v = a->vols; v && !v->hidden; v = v->next)
			;
		/* the volume list's hooks are not installed yet: its row goes
		 * here (out of memory: it stays, and goes at the next start) */
		if (v && !a->vol_hooks && GROW(st->gone, st->ngone, st->capgone) == 0)
			st->gone[st->ngone++] = v->pvid;
		pthread_mutex_unlock(&a->vol_mu);
		if (!v)
			return;
		volume_destroy(v);
		st->holds_dropped++;
	}
}

/* Open the state of a (new, empty, not yet used) array in its directory of
 * state_dir, load it.  For check: no committer, nothing written. */
static struct array_state *state_open(struct array *a, const char *adir, const char *profile, bool create,
				      char *err, size_t errlen)
{
	struct array_state *st = calloc(1, sizeof(*st));
	char path[STATE_PATH_MAX + 32], vals[5][32];
	struct state_stamp stamp[6];

	if (!st) {
		ll_errf(err, errlen, "out of memory");
		return NULL;
	}
	st->a = a;
	st->lock_fd = -1;
	pthread_mutex_init(&st->commit_mu, NULL);
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->cv, NULL);
	snprintf(st->dir, sizeof(st->dir), "%s", adir);
	if (state_dir_lock(adir, create, &st->lock_fd, err, errlen) < 0)
		goto fail;
	stamp_of(a, profile, vals, stamp);
	snprintf(path, sizeof(path), "%s/meta.db", adir);
	/* a check (no profile) takes the state as it is stamped */
	st->db = store_db_open(path, create, stamp, profile ? 6 : 0, err, errlen);
	if (!st->db)
		goto fail;
	snprintf(path, sizeof(path), "%s/blocks.dat", adir);
	/* a new state makes its slot file; an existing one must have it */
	st->ps = payload_file_open(path, a->p.dedup_block, store_db_is_new(st->db), err, errlen);
	if (!st->ps)
		goto fail;
	if (bs_persist_enable(a->bs) < 0) {
		payload_close(st->ps);
		st->ps = NULL;
		ll_errf(err, errlen, "out of memory");
		goto fail;
	}
	bs_use_payloads(a->bs, st->ps);
	if (load(st, err, errlen) < 0)
		goto fail;
	drop_holds(st);
	/* from here on every change of a loaded volume is recorded */
	for (struct volume *v = a->vols; v; v = v->next) {
		struct store_vol_rec r;

		if (map_persist_enable(v) < 0) {
			ll_errf(err, errlen, "out of memory");
			goto fail;
		}
		/* a row this build would write otherwise (a key or flag bits it
		 * does not know) is rewritten at the first commit, as when every
		 * commit compared every record */
		vol_rec(v, &r);
		if (memcmp(&r, v->pcommitted, sizeof(r)))
			vol_record_mark(v);
	}
	const char *chk = getenv("LUNLAB_ARRAY_STATE_CHECK");
	st->check_marks = chk && !strcmp(chk, "1");
	return st;
fail:
	/* the volumes loaded so far go with the array; the payload store with
	 * its block store */
	state_free(st);
	return NULL;
}

/* ---- the volume list's hooks ---- */

static void vol_joined(struct array *a, struct volume *v)
{
	if (!a->state || v->pvid)
		return;
	v->pvid = a->state->next_vid++;
	vol_record_mark(v); /* a new record (and its name, snapshot_of, flags: set before the link) */
}

static void vol_left(struct array *a, struct volume *v)
{
	struct array_state *st = a->state;

	if (!st || !v->pvid)
		return;
	/* out of memory: the row stays and comes back as a volume at the next
	 * start; never worse than that */
	if (GROW(st->gone, st->ngone, st->capgone) == 0)
		st->gone[st->ngone++] = v->pvid;
	/* the commit in flight no longer settles or remarks it (freed next) */
	if (st->inflight)
		for (size_t i = 0; i < st->inflight->nvol; i++)
			if (st->inflight->volp[i] == v)
				st->inflight->volp[i] = NULL;
}

/* array_core.c calls them under a->vol_mu (array_internal.h) */
static const struct array_vol_hooks vol_hooks = { vol_joined, vol_left };

int array_state_attach(struct array *a, const char *state_dir, const char *profile, char **err)
{
	char adir[STATE_PATH_MAX], e[1024];
	struct array_state *st;

	if (state_array_dir(state_dir, a->name, adir, sizeof(adir)) < 0) {
		*err = dup_err("state directory path too long");
		return -1;
	}
	st = state_open(a, adir, profile, true, e, sizeof(e));
	if (!st) {
		*err = dup_err(e);
		return -1;
	}
	st->running = pthread_create(&st->thread, NULL, committer, st) == 0;
	if (!st->running) {
		state_free(st);
		*err = dup_err("cannot start the committer thread");
		return -1;
	}
	/* the hooks look at a->state themselves: installed once, they stay */
	a->vol_hooks = &vol_hooks;
	a->state = st;
	return 0;
}

void array_state_detach(struct array *a)
{
	struct array_state *st = a->state;
	char err[1024];

	if (!st)
		return;
	/* the last commit: everything the array did is on disk */
	if (commit(st, err, sizeof(err)) != 0)
		fprintf(stderr, "lunlab: array '%s': the last commit failed: %s\n", a->name, err);
	pthread_mutex_lock(&st->mu);
	st->stop = true;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	pthread_mutex_lock(&st->mu);
	st->running = false;
	pthread_cond_broadcast(&st->cv);
	pthread_mutex_unlock(&st->mu);
	/* what follows (the volumes' maps freed) is not a change of the state */
	bs_persist_detach(a->bs);
	map_persist_gone(a->bs, drop_cid, NULL); /* freed after the last commit */
	a->state = NULL;
	state_free(st);
}

void array_cmd_begin(struct array *a)
{
	if (a)
		bs_mutation_begin(a->bs);
}

void array_cmd_end(struct array *a)
{
	if (a)
		bs_mutation_end(a->bs);
}

const char *array_state_dir(const struct array *a)
{
	return a->state ? a->state->dir : NULL;
}

bool array_persistent(const struct array *a)
{
	return a && a->state;
}

uint32_t array_volume_flags(struct volume *v)
{
	struct array *a = v->owner;
	uint32_t f;

	pthread_mutex_lock(&a->vol_mu);
	f = a->state ? v->pflags : 0;
	pthread_mutex_unlock(&a->vol_mu);
	return f;
}

int array_volume_set_flags(struct volume *v, uint32_t mask, uint32_t val)
{
	struct array *a = v->owner;
	bool changed = false;

	pthread_mutex_lock(&a->vol_mu);
	if (a->state) {
		uint32_t nf = (v->pflags & ~mask) | (val & mask);

		changed = nf != v->pflags;
		v->pflags = nf;
		if (changed)
			vol_record_mark(v);
	}
	pthread_mutex_unlock(&a->vol_mu);
	return changed ? array_sync(a) : 0;
}

int array_state_usage(struct array *a, struct array_state_usage *out)
{
	struct array_state *st = a->state;
	char path[STATE_PATH_MAX + 32];
	struct stat sb;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -ENOENT;
	out->commits = st->epoch;
	payload_file_usage(st->ps, &out->blocks_file_bytes, &out->blocks_disk_bytes);
	snprintf(path, sizeof(path), "%s/meta.db", st->dir);
	if (stat(path, &sb) == 0)
		out->meta_bytes += (uint64_t)sb.st_blocks * 512;
	snprintf(path, sizeof(path), "%s/meta.db-wal", st->dir);
	if (stat(path, &sb) == 0)
		out->meta_bytes += (uint64_t)sb.st_blocks * 512;
	return 0;
}

/* ---- --check-state ---- */

/* the stamp's parameters, to build the array the state describes */
static int stamp_params(const char *adir, struct array_params *p, char *name, size_t namelen, char *err,
			size_t errlen)
{
	char path[STATE_PATH_MAX + 32], v[64];
	sqlite3 *db;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/meta.db", adir);
	if (state_db_open(path, false, &db, err, errlen) < 0)
		return -1;
	if (state_db_stamp_check(db, "array", NULL, 0, err, errlen) == 0) {
		rc = 0;
		state_db_stamp_get(db, "dedup_block", v, sizeof(v));
		p->dedup_block = (uint32_t)strtoul(v, NULL, 10);
		state_db_stamp_get(db, "zlib_level", v, sizeof(v));
		p->zlib_level = atoi(v);
		state_db_stamp_get(db, "zlib_window_bits", v, sizeof(v));
		p->zlib_window_bits = atoi(v);
		state_db_stamp_get(db, "alloc_unit", v, sizeof(v));
		p->alloc_unit = (uint32_t)strtoul(v, NULL, 10);
		state_db_stamp_get(db, "array", name, namelen);
	}
	state_db_close(db);
	return rc;
}

struct payload_walk {
	struct array_state *st;
	uint64_t checked;
	char *err;
	size_t errlen;
};

static int check_payload(void *arg, const struct store_blk_rec *r)
{
	struct payload_walk *w = arg;
	int rc = payload_file_check(w->st->ps, r->id, r->dcrc);

	if (rc == -ERANGE)
		return ll_errf(w->err, w->errlen, "%s/blocks.dat: block %u lies past the end of the file (the file was cut)",
			    w->st->dir, r->id);
	if (rc)
		return ll_errf(w->err, w->errlen, "%s/blocks.dat: block %u's data fails its checksum", w->st->dir, r->id);
	w->checked++;
	return 0;
}

int array_state_check(const char *adir, char *out, size_t outlen, char *err, size_t errlen)
{
	struct array_params p;
	char name[256], *e = NULL;
	struct array *a;
	struct array_state *st;
	struct bs_figures f;
	struct payload_walk w = { .err = err, .errlen = errlen };
	uint64_t vols = 0, named = 0, own = 0, mapped = 0;
	int rc;

	if (stamp_params(adir, &p, name, sizeof(name), err, errlen) < 0)
		return -1;
	a = array_new(name, &p, &e);
	if (!a) {
		ll_errf(err, errlen, "%s: %s", adir, e ? e : "its stamp holds impossible parameters");
		free(e);
		return -1;
	}
	st = state_open(a, adir, NULL, false, err, errlen);
	if (!st) {
		array_free(a);
		return -1;
	}
	rc = store_db_integrity(st->db, err, errlen);
	w.st = st;
	if (!rc)
		rc = store_db_each_block(st->db, check_payload, &w, err, errlen) ? -1 : 0;
	if (!rc) {
		bs_figures(a->bs, &f);
		for (struct volume *v = a->vols; v; v = v->next) {
			vols++;
			named += v->name != NULL;
			own += v->pkey != NULL;
			mapped += atomic_load(&v->mapped);
		}
		char holds[96] = "";
		if (st->holds_dropped)
			snprintf(holds, sizeof(holds), "; %llu ODX hold(s) left by a crash, dropped at open",
				 (unsigned long long)st->holds_dropped);
		snprintf(out, outlen,
			 /* named and LU-own apart: the API's model counts only the named ones, so a
			  * reader comparing the two lines sees why the array's total is larger */
			 "array %s: %llu volume(s) (%llu named, %llu a LU's own), %llu map entries, %llu block(s) "
			 "with their data checked, references and figures consistent (commit %llu)%s",
			 name, (unsigned long long)vols, (unsigned long long)named, (unsigned long long)own,
			 (unsigned long long)mapped, (unsigned long long)w.checked,
			 (unsigned long long)st->epoch, holds);
	}
	bs_persist_detach(a->bs);
	state_free(st);
	array_free(a);
	return rc;
}
