/* scn_verify.c - the write-then-verify stream (scn_verify.h), on libiscsi's synchronous
 * API: one command at a time is all it needs, and each answer decides what is known to be
 * acknowledged.  What the array promised: a write acknowledged and followed by a good
 * SYNCHRONIZE CACHE must read back exactly.  One acknowledged but not yet synchronised when
 * the session was lost may be gone (SBC's write cache allows that); the stream writes such
 * pieces again, as a journaling host does, so at the end every acknowledged piece has a
 * good sync after it and must read back exactly. */
#include "client/scn_verify.h"
#include "lunlab/scsi_vocab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>
#include <json-c/json.h>

#include "client/scn_proc.h"

enum { PIECE_NONE, PIECE_ACKED, PIECE_SYNCED };

struct vs {
	const struct scn_verify_opts *o;
	struct iscsi_context *ctx;
	int lun;
	unsigned path;             /* the path in use */
	unsigned blk;
	unsigned reconnects, failovers;
	unsigned senses[16];       /* distinct senses met, KK<<16|AA<<8|QQ */
	unsigned n_senses;
	unsigned fatal_sense;      /* the sense that ended the writes, 0 none */
	char error[256];
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

void scn_verify_pattern(uint64_t seed, uint64_t i, uint64_t lba, unsigned blk, uint8_t *buf, size_t bs)
{
	uint64_t s = mix(seed * 0x9e3779b97f4a7c15ULL + i + 1);
	for (size_t off = 0; off + 8 <= bs; off += 8) {
		uint64_t v;
		if (off % 512 == 0)
			v = mix(seed) ^ (i << 32) ^ (lba + off / blk);
		else
			v = s = mix(s + off);
		memcpy(buf + off, &v, 8);
	}
}

static void disconnect(struct vs *v)
{
	if (v->ctx) {
		iscsi_destroy_context(v->ctx);
		v->ctx = NULL;
	}
}

/* log in on the current path; 0 or -1 */
static int login(struct vs *v)
{
	disconnect(v);
	struct iscsi_context *ctx = iscsi_create_context(v->o->initiator);
	if (!ctx)
		return -1;
	struct iscsi_url *u = iscsi_parse_full_url(ctx, v->o->paths[v->path]);
	if (!u) {
		iscsi_destroy_context(ctx);
		return -1;
	}
	iscsi_set_noautoreconnect(ctx, 1);     /* this stream decides where to log in again */
	iscsi_set_timeout(ctx, 15);            /* a held command is given up, not waited for forever */
	iscsi_set_session_type(ctx, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(ctx, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_targetname(ctx, u->target);
	int rc = iscsi_full_connect_sync(ctx, u->portal, u->lun);
	v->lun = u->lun;
	iscsi_destroy_url(u);
	if (rc) {
		iscsi_destroy_context(ctx);
		return -1;
	}
	v->ctx = ctx;
	return 0;
}

/* The session is gone (or the path refuses I/O): log in again, on this path or the next,
 * until reconnect_s has passed.  0 or -1. */
static int recover(struct vs *v, bool change_path)
{
	double end = scn_now() + v->o->reconnect_s;
	if (change_path && v->o->n_paths > 1) {
		v->path = (v->path + 1) % v->o->n_paths;
		v->failovers++;
	}
	v->reconnects++;
	for (unsigned tries = 0;; tries++) {
		if (!login(v))
			return 0;
		if (scn_now() >= end) {
			snprintf(v->error, sizeof(v->error), "no path came back within %.3gs", v->o->reconnect_s);
			return -1;
		}
		if (v->o->n_paths > 1) { /* this path does not log in (or refuses I/O at login): the next */
			v->path = (v->path + 1) % v->o->n_paths;
			v->failovers++;
		}
		if ((tries + 1) % v->o->n_paths == 0)
			scn_sleep(0.1); /* every path tried: wait a little before the next round */
	}
}

static void note_sense(struct vs *v, unsigned s)
{
	for (unsigned i = 0; i < v->n_senses; i++)
		if (v->senses[i] == s)
			return;
	if (v->n_senses < 16)
		v->senses[v->n_senses++] = s;
}

enum answer { A_GOOD, A_RETRY, A_LOST, A_PATH, A_FAILED };

/* what to do with a command's answer (task consumed) */
static enum answer judge(struct vs *v, struct scsi_task *t, unsigned *sense)
{
	enum answer a;
	*sense = 0;
	if (!t || t->status == SCSI_STATUS_ERROR || t->status == SCSI_STATUS_CANCELLED ||
	    t->status == SCSI_STATUS_TIMEOUT) {
		a = A_LOST;
	} else if (t->status == SCSI_STATUS_GOOD) {
		a = A_GOOD;
	} else if (t->status == SCSI_STATUS_CHECK_CONDITION) {
		unsigned k = t->sense.key & 0xf, asc = t->sense.ascq >> 8, q = t->sense.ascq & 0xff;
		*sense = k << 16 | asc << 8 | q;
		note_sense(v, *sense);
		if (k == SCSI_SENSE_UNIT_ATTENTION)
			a = A_RETRY;          /* told something (a threshold, a state change): say it again */
		else if (k == SCSI_SENSE_NOT_READY && (scsi_asc_pair(asc, q) == SCSI_ASC_LU_NOT_ACCESSIBLE_TRANSITION ||
						 scsi_asc_pair(asc, q) == SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY ||
						 scsi_asc_pair(asc, q) == SCSI_ASC_LU_NOT_ACCESSIBLE_UNAVAILABLE))
			a = A_PATH;           /* ALUA transitioning / standby / unavailable: another path */
		else
			a = A_FAILED;
	} else {
		a = A_RETRY;                  /* BUSY, TASK SET FULL: later */
		scn_sleep(0.01);
	}
	if (t)
		scsi_free_scsi_task(t);
	return a;
}

struct pass_count {
	uint64_t verified, mismatches, unreadable, first_bad;
};

/* One read of every piece that must hold the pattern (state not PIECE_NONE), compared.  A
 * read-only stream's progress is the pieces its first pass read (the progress condition). */
static void read_pass(struct vs *v, const uint8_t *state, uint64_t n, uint8_t *buf, uint8_t *rd,
		      struct scn_progress *pg, struct pass_count *c)
{
	const struct scn_verify_opts *o = v->o;
	*c = (struct pass_count){ .first_bad = UINT64_MAX };
	for (uint64_t i = 0; i < n && v->ctx; i++) {
		if (o->read_only && i + 1 > pg->done)
			pg->done = i + 1;
		if (state[i] == PIECE_NONE)
			continue;
		uint64_t lba = (o->offset + i * o->bs) / v->blk;
		struct scsi_task *t = NULL;
		for (unsigned tries = 0; tries < 1000; tries++) {
			t = iscsi_read16_sync(v->ctx, v->lun, lba, (uint32_t)o->bs, (int)v->blk, 0, 0, 0, 0, 0);
			if (t && t->status == SCSI_STATUS_GOOD)
				break;
			unsigned s;
			enum answer a = judge(v, t, &s);
			t = NULL;
			if (a == A_FAILED) {
				if (!v->error[0])
					snprintf(v->error, sizeof(v->error), "READ(16) at LBA %llu failed with %02x/%02x/%02x",
						 (unsigned long long)lba, s >> 16, (s >> 8) & 0xff, s & 0xff);
				if (!v->fatal_sense)
					v->fatal_sense = s;
				break;
			}
			if ((a == A_LOST || a == A_PATH) && recover(v, a == A_PATH))
				break;
		}
		if (!t) {
			c->unreadable++; /* the error says which command and sense */
			continue;
		}
		size_t got = t->datain.size > 0 ? (size_t)t->datain.size : 0;
		if (got >= o->bs) {
			memcpy(rd, t->datain.data, o->bs);
			scn_verify_pattern(o->seed, i, lba, v->blk, buf, o->bs);
		}
		scsi_free_scsi_task(t);
		if (got >= o->bs && !memcmp(rd, buf, o->bs)) {
			c->verified++;
			continue;
		}
		c->mismatches++;
		if (c->first_bad == UINT64_MAX)
			c->first_bad = lba;
	}
}

/* Sync everything written: 1 GOOD; 0 failed for good (error set); -1 the session was lost
 * first (logged in again): what was acknowledged since the last good sync is in doubt. */
static int sync_cache(struct vs *v)
{
	for (unsigned tries = 0; tries < 1000; tries++) {
		unsigned s;
		enum answer a = judge(v, iscsi_synchronizecache10_sync(v->ctx, v->lun, 0, 0, 0, 0), &s);
		if (a == A_GOOD)
			return 1;
		if (a == A_FAILED) {
			v->fatal_sense = s;
			snprintf(v->error, sizeof(v->error), "SYNCHRONIZE CACHE failed with %02x/%02x/%02x", s >> 16,
				 (s >> 8) & 0xff, s & 0xff);
			return 0;
		}
		if ((a == A_LOST || a == A_PATH) && recover(v, a == A_PATH))
			return 0;
		if (a == A_LOST)
			return -1;
	}
	snprintf(v->error, sizeof(v->error), "SYNCHRONIZE CACHE never answered GOOD");
	return 0;
}

int scn_verify_run(const struct scn_verify_opts *o, struct scn_progress *pg, FILE *out)
{
	struct vs v = { .o = o };
	uint64_t n = o->size / o->bs;
	uint8_t *state = calloc(n ? n : 1, 1), *buf = malloc(o->bs), *rd = NULL;
	uint64_t acked = 0, synced = 0, verified = 0, mismatches = 0, unreadable = 0, rewritten = 0, first_bad = UINT64_MAX;
	uint64_t first_unsynced = 0;  /* pieces before it are covered by a good SYNCHRONIZE CACHE */
	unsigned passes = 1;          /* read passes (read_only with reread_s: until the data is there) */
	double t0 = scn_now();
	pg->total = n;
	if (!state || !buf) {
		snprintf(v.error, sizeof(v.error), "out of memory");
		goto report;
	}
	if (recover(&v, false))
		goto report;
	v.reconnects = 0;
	{
		struct scsi_task *t = iscsi_readcapacity16_sync(v.ctx, v.lun);
		struct scsi_readcapacity16 *rc16 = t && t->status == SCSI_STATUS_GOOD ? scsi_datain_unmarshall(t) : NULL;
		v.blk = rc16 ? rc16->block_length : 0;
		if (t)
			scsi_free_scsi_task(t);
		if (!v.blk || o->bs % v.blk || o->offset % v.blk) {
			snprintf(v.error, sizeof(v.error), "READ CAPACITY(16): block size %u does not divide bs/offset", v.blk);
			goto report;
		}
	}
	/* Writes, a sync every sync_every, a last sync.  A lost session puts every piece
	 * acknowledged since the last good sync in doubt (the array may have lost its cache):
	 * like a journaling host, the stream writes them again.  So what it verifies at the end
	 * is exactly what the array promised to keep.  A read-only stream writes nothing: the
	 * whole region must hold the pattern (a writer with this seed put it there, on this
	 * volume or on the one it was refreshed or cloned from). */
	if (o->read_only) {
		memset(state, PIECE_SYNCED, n);
		first_unsynced = n;
	}
	for (uint64_t i = 0; !o->read_only && !v.fatal_sense && !v.error[0];) {
		bool lost = false;
		if (i < n) {
			uint64_t lba = (o->offset + i * o->bs) / v.blk;
			scn_verify_pattern(o->seed, i, lba, v.blk, buf, o->bs);
			for (unsigned tries = 0;; tries++) {
				unsigned s;
				enum answer a = judge(&v, iscsi_write16_sync(v.ctx, v.lun, lba, buf, (uint32_t)o->bs, (int)v.blk, 0, 0, 0, 0, 0), &s);
				if (a == A_GOOD) {
					state[i] = PIECE_ACKED;
					acked++;
					break;
				}
				if (a == A_FAILED) {
					v.fatal_sense = s;
					snprintf(v.error, sizeof(v.error), "WRITE(16) at LBA %llu failed with %02x/%02x/%02x",
						 (unsigned long long)lba, s >> 16, (s >> 8) & 0xff, s & 0xff);
					break;
				}
				if ((a == A_LOST || a == A_PATH) && recover(&v, a == A_PATH))
					break;
				if (a == A_LOST) {
					lost = true;
					break;
				}
				if (tries > 10000) {
					snprintf(v.error, sizeof(v.error), "WRITE(16) at LBA %llu: no GOOD after 10000 tries", (unsigned long long)lba);
					break;
				}
			}
			if (v.fatal_sense || v.error[0])
				break;
			if (!lost) {
				i++;
				if (i > pg->done)
					pg->done = i;
			}
		}
		bool sync_now = i == n || (o->sync_every && i % o->sync_every == 0);
		if (!lost && sync_now && i > first_unsynced) {
			int rc = sync_cache(&v);
			if (rc == 1) {
				for (uint64_t j = first_unsynced; j < i; j++)
					state[j] = PIECE_SYNCED;
				first_unsynced = i;
			} else if (rc < 0) {
				lost = true;
			}
		}
		if (lost) {
			for (uint64_t j = first_unsynced; j < i; j++)
				if (state[j] == PIECE_ACKED) {
					state[j] = PIECE_NONE;
					acked--;
					rewritten++;
				}
			i = first_unsynced;
			continue;
		}
		if (i == n && first_unsynced == n)
			break;
	}
	if (!v.ctx)
		goto report;
	/* a sense that ended the writes (the array full) does not stop the check: what was
	 * acknowledged before it is made durable and must read back */
	if (v.fatal_sense && first_unsynced < n) {
		char saved[256];
		unsigned fs = v.fatal_sense;
		snprintf(saved, sizeof(saved), "%s", v.error);
		v.error[0] = 0;
		v.fatal_sense = 0;
		if (sync_cache(&v) == 1)
			for (uint64_t j = first_unsynced; j < n; j++)
				if (state[j] == PIECE_ACKED)
					state[j] = PIECE_SYNCED;
		snprintf(v.error, sizeof(v.error), "%s", saved);
		v.fatal_sense = fs;
	}
	rd = malloc(o->bs);
	if (rd && v.ctx) {
		struct pass_count c;
		read_pass(&v, state, n, buf, rd, pg, &c);
		/* read_only + reread_s: a host waiting for a restore or a refresh - data other than
		 * the pattern is read again until it is the pattern or the time is up */
		double until = scn_now() + o->reread_s;
		while (o->read_only && c.mismatches && !c.unreadable && !v.error[0] && v.ctx && scn_now() < until) {
			scn_sleep(0.05);
			read_pass(&v, state, n, buf, rd, pg, &c);
			passes++;
		}
		verified = c.verified;
		mismatches = c.mismatches;
		unreadable = c.unreadable;
		first_bad = c.first_bad;
	}
	for (uint64_t j = 0; j < n && !o->read_only; j++)
		synced += state[j] == PIECE_SYNCED;
report:;
	json_object *j = json_object_new_object();
	json_object_object_add(j, "kind", json_object_new_string("verify"));
	json_object_object_add(j, "pieces", json_object_new_int64((int64_t)n));
	json_object_object_add(j, "acked", json_object_new_int64((int64_t)acked));
	json_object_object_add(j, "synced", json_object_new_int64((int64_t)synced));
	json_object_object_add(j, "verified", json_object_new_int64((int64_t)verified));
	json_object_object_add(j, "mismatches", json_object_new_int64((int64_t)mismatches));
	json_object_object_add(j, "unreadable", json_object_new_int64((int64_t)unreadable));
	json_object_object_add(j, "first_mismatch_lba",
			       first_bad == UINT64_MAX ? NULL : json_object_new_int64((int64_t)first_bad));
	json_object_object_add(j, "rewritten", json_object_new_int64((int64_t)rewritten));
	json_object_object_add(j, "reconnects", json_object_new_int((int)v.reconnects));
	json_object_object_add(j, "failovers", json_object_new_int((int)v.failovers));
	json_object *ss = json_object_new_array();
	for (unsigned i = 0; i < v.n_senses; i++) {
		char s[16];
		snprintf(s, sizeof(s), "%02x/%02x/%02x", v.senses[i] >> 16, (v.senses[i] >> 8) & 0xff, v.senses[i] & 0xff);
		json_object_array_add(ss, json_object_new_string(s));
	}
	json_object_object_add(j, "senses_seen", ss);
	char fs[16];
	snprintf(fs, sizeof(fs), "%02x/%02x/%02x", v.fatal_sense >> 16, (v.fatal_sense >> 8) & 0xff, v.fatal_sense & 0xff);
	json_object_object_add(j, "sense", v.fatal_sense ? json_object_new_string(fs) : NULL);
	bool ok_data = mismatches == 0 && (o->read_only ? n > 0 && unreadable == 0 && verified == n
							: acked > 0 && verified == acked);
	json_object_object_add(j, "read_only", json_object_new_boolean(o->read_only));
	json_object_object_add(j, "passes", json_object_new_int((int)passes));
	json_object_object_add(j, "data_verified", json_object_new_boolean(ok_data));
	json_object_object_add(j, "error", v.error[0] ? json_object_new_string(v.error) : NULL);
	json_object_object_add(j, "seconds", json_object_new_double(scn_now() - t0));
	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (v.error[0])
		fprintf(stderr, "verify: %s\n", v.error);
	if (unreadable)
		fprintf(stderr, "verify: %llu acknowledged piece(s) could not be read back\n", (unsigned long long)unreadable);
	if (mismatches)
		fprintf(stderr, "verify: %llu %spiece(s) read back wrong, the first at LBA %llu\n",
			(unsigned long long)mismatches, o->read_only ? "" : "acknowledged ", (unsigned long long)first_bad);
	json_object_put(j);
	disconnect(&v);
	free(state);
	free(buf);
	free(rd);
	return v.error[0] || !ok_data ? 1 : 0;
}
