/* calib_drrun.c - calibrate's data reduction through the standard Logical Block Provisioning
 * log page (LOG SENSE 0Ch): each generated kind of calib_dr.h written to a freshly unmapped
 * area, the counts before and after, and the fit of the data_reduction parameters. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lunlab/scsi_vocab.h"
#include "client/calib_ctx.h"
#include "client/lbp_page.h"
#include "client/scsi_query.h"

/* ---- 5. data reduction ---- */

static int lbp_read(struct cctx *x, struct lbp_counts *c, char *err, size_t errlen)
{
	static struct log_page pg;
	if (q_log_page(x->main, 0x0c, &pg, err, errlen))
		return -1;
	return lbp_counts_decode(&pg, c, err, errlen);
}

/* Physical bytes a kind took between two readings, two ways (in bytes, counts x set):
 *   from the compressed count: (used - de-duplicated - compressed) deltas, what calibrate
 *   measures;
 *   from the available count: its drop.  An array that accounts compression in the background
 *   (lunlab: docs/accounting.md "When figures lag") counts a block it has not compressed yet
 *   as compressed to nothing in the first and at its worst case in the second, so the two
 *   agree only once the kind is accounted (and nothing else on the array changed). */
static int64_t phys_by_counts(const struct lbp_counts *c0, const struct lbp_counts *c1, int64_t unit)
{
	return (((int64_t)c1->used - c0->used) - ((int64_t)c1->dedup - c0->dedup) -
		((int64_t)c1->compressed - c0->compressed)) * unit;
}

static int64_t phys_by_available(const struct lbp_counts *c0, const struct lbp_counts *c1, int64_t unit)
{
	return ((int64_t)c0->available - c1->available) * unit;
}

/* whether the available count can take part: reported, and not saturated (a count of 2^32-1
 * sets or more stays at 2^32-1) */
static bool available_usable(const struct lbp_counts *c0, const struct lbp_counts *c1)
{
	return c0->have_available && c1->have_available && c0->available != UINT32_MAX && c1->available != UINT32_MAX;
}

/* An array may account in the background: wait until the figures have not changed for a while
 * (0.5 s, up to 2 s with the default 10 minutes; 30 s at most, then the figures are noted as
 * provisional).  With base (the reading before a kind was written) and a usable available
 * count, also until both ways of counting the kind's physical bytes agree within 3 sets (the
 * rounding of the counts).  Returns 0, 1 when they settled apart with the available count
 * telling of more than the kind (blocks accounted that were pending before base: measure the
 * kind again), -1 on a failure. */
static int lbp_settled(struct cctx *x, struct lbp_counts *c, const struct lbp_counts *base, char *err,
		       size_t errlen)
{
	struct lbp_counts prev;
	double stable = x->o->budget_s / 300.0;
	stable = stable < 0.5 ? 0.5 : stable > 2 ? 2 : stable;
	int64_t unit = (int64_t)(x->lbp_set_blocks * x->r->bs);
	if (lbp_read(x, &prev, err, errlen))
		return -1;
	double t0 = now_s(), since = t0;
	for (;;) {
		struct timespec ts = { 0, 25000000 };
		nanosleep(&ts, NULL);
		if (lbp_read(x, c, err, errlen))
			return -1;
		if (memcmp(c, &prev, sizeof(*c)))
			since = now_s();
		prev = *c;
		bool quiet = now_s() - since >= stable;
		if (quiet && !(base && available_usable(base, c)))
			return 0;
		if (quiet) {
			int64_t apart = phys_by_available(base, c, unit) - phys_by_counts(base, c, unit);
			if (apart <= 3 * unit && apart >= -3 * unit)
				return 0;
			/* the available count says less was taken than the counts: older blocks were
			 * accounted meanwhile, and settle no further */
			if (apart < -3 * unit && now_s() - since >= 4 * stable)
				return 1;
		}
		if (now_s() - t0 > 30) {
			calib_note(x->r, "the LU's capacity figures were still changing after 30 s: data reduction is provisional");
			return 0;
		}
	}
}

/* UNMAP, in the LU's largest allowed pieces (64 MiB when it names no limit) */
int calib_unmap_range(struct cctx *x, struct bench_conn *c, uint64_t lba, uint64_t blocks)
{
	uint64_t chunk = x->b0.max_unmap_blocks ? x->b0.max_unmap_blocks : (64 * CALIB_MIB) / x->r->bs;
	while (blocks) {
		uint64_t n = blocks < chunk ? blocks : chunk;
		uint8_t cdb[10] = { SCSI_OP_UNMAP, 0, 0, 0, 0, 0, 0, 0, 24, 0 };
		uint8_t list[24] = { 0, 22, 0, 16 };
		for (int i = 0; i < 8; i++)
			list[8 + i] = (uint8_t)(lba >> (56 - 8 * i));
		for (int i = 0; i < 4; i++)
			list[16 + i] = (uint8_t)(n >> (24 - 8 * i));
		struct cmd_status st;
		if (conn_cmd(c, cdb, 10, 2, list, sizeof(list), NULL, 0, &st) || st.status != 0)
			return -1;
		lba += n;
		blocks -= n;
	}
	return 0;
}

static int measure_kind(struct cctx *x, const struct dr_spec *spec, uint64_t lba, struct dr_measure *m, char *err,
			size_t errlen)
{
	struct lbp_counts c0, c1;
	uint32_t bs = x->r->bs;
	if (calib_unmap_range(x, x->main, lba, spec->bytes / bs)) {
		snprintf(err, errlen, "UNMAP of the data-reduction area failed");
		return -1;
	}
	char label[40];
	dr_name(spec, label, sizeof(label));
	for (unsigned attempt = 0;; attempt++) {
		if (lbp_settled(x, &c0, NULL, err, errlen))
			return -1;
		if (calib_write_kind(x, spec, lba, label, err, errlen))
			return -1;
		calib_track_written(x, A_DR, lba + spec->bytes / bs);
		int rc = lbp_settled(x, &c1, &c0, err, errlen);
		if (rc < 0)
			return -1;
		if (rc == 0)
			break;
		if (attempt == 2) {
			calib_note(x->r, "%s: the capacity counts kept changing for other blocks than the kind's: its "
				   "figures are provisional", label);
			break;
		}
		/* the kind again, from a reading that is settled now */
		if (calib_unmap_range(x, x->main, lba, spec->bytes / bs)) {
			snprintf(err, errlen, "UNMAP of the data-reduction area failed");
			return -1;
		}
	}
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	int64_t unit = (int64_t)(x->lbp_set_blocks * bs); /* bytes per counted threshold set */
	int64_t logical = ((int64_t)c1.used - (int64_t)c0.used) * unit;
	int64_t dedup = ((int64_t)c1.dedup - (int64_t)c0.dedup) * unit;
	int64_t comp = ((int64_t)c1.compressed - (int64_t)c0.compressed) * unit;
	m->logical = logical > 0 ? (uint64_t)logical : 0;
	m->unique = logical - dedup > 0 ? (uint64_t)(logical - dedup) : 0;
	m->physical = logical - dedup - comp > 0 ? (uint64_t)(logical - dedup - comp) : 0;
	m->resolution = (uint32_t)unit;
	return 0;
}

int calib_data_reduction(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	struct lbp_counts c;
	char e[200];
	if (!x->lbp_listed || lbp_read(x, &c, e, sizeof(e))) {
		snprintf(r->dr_reason, sizeof(r->dr_reason), "the LU has no Logical Block Provisioning log page (0Ch)");
		return 0;
	}
	if (!c.have_used || !c.have_dedup || !c.have_compressed) {
		snprintf(r->dr_reason, sizeof(r->dr_reason), "LOG SENSE 0Ch has no used, de-duplicated and compressed "
			 "LBA counts (0002h, 0100h, 0101h)");
		return 0;
	}
	if (!r->supported[CK_UNMAP]) {
		snprintf(r->dr_reason, sizeof(r->dr_reason), "the LU cannot UNMAP, so no area can be measured fresh");
		return 0;
	}
	if (x->lbp_set_blocks > 1)
		calib_note(r, "LOG SENSE 0Ch counts threshold sets of %llu bytes (VPD B2h THRESHOLD EXPONENT): the data "
			   "reduction figures are in whole sets", (unsigned long long)(x->lbp_set_blocks * r->bs));
	uint64_t seed = x->stamp * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
	uint64_t lba = x->area[A_DR].lba, end = lba + x->area[A_DR].blocks;
	uint32_t bs = r->bs;
	struct dr_spec specs[CALIB_MAX_DR];
	unsigned n = 0;
	specs[n++] = (struct dr_spec){ .kind = DR_ZERO, .bytes = CALIB_MIB };
	specs[n++] = (struct dr_spec){ .kind = DR_RANDOM, .bytes = 2 * CALIB_MIB };
	specs[n++] = (struct dr_spec){ .kind = DR_SPARSE, .bytes = 2 * CALIB_MIB };
	for (unsigned i = 0; i < n; i++) {
		specs[i].seed = seed + i;
		if (lba + specs[i].bytes / bs > end)
			break;
		if (measure_kind(x, &specs[i], lba, &r->dr[r->ndr], err, errlen))
			return -1;
		lba += specs[i].bytes / bs;
		r->ndr++;
	}
	r->dr_zero_stored = r->dr[0].logical > 0;
	/* dup S from the block size up, until one deduplicates */
	for (uint32_t s = bs > 512 ? bs : 512; s <= CALIB_MIB && r->ndr < CALIB_MAX_DR - 8; s <<= 1) {
		struct dr_spec d = { .kind = DR_DUP, .param = s, .seed = seed + 100 + s };
		d.bytes = 8ull * s > 512 * 1024 ? 8ull * s : 512 * 1024;
		if (lba + d.bytes / bs > end)
			break;
		if (measure_kind(x, &d, lba, &r->dr[r->ndr], err, errlen))
			return -1;
		lba += d.bytes / bs;
		r->ndr++;
		if (dr_dedup_block(r->dr, r->ndr))
			break;
	}
	r->dr_dedup_block = dr_dedup_block(r->dr, r->ndr);
	uint32_t d = r->dr_dedup_block ? r->dr_dedup_block : 4096;
	for (uint32_t k = 10; k <= 15 && (1u << k) <= d && r->ndr < CALIB_MAX_DR - 1; k++) {
		struct dr_spec s = { .kind = DR_PERIOD, .param = k, .bytes = CALIB_MIB > 8ull * d ? CALIB_MIB : 8ull * d,
				     .seed = seed + 200 + k, .block = d };
		if (lba + s.bytes / bs > end)
			break;
		if (measure_kind(x, &s, lba, &r->dr[r->ndr], err, errlen))
			return -1;
		lba += s.bytes / bs;
		r->ndr++;
	}
	struct dr_spec w = { .kind = DR_WIN10, .bytes = 6553600, .seed = seed + 300 };
	if (lba + w.bytes / bs <= end && r->ndr < CALIB_MAX_DR) {
		if (measure_kind(x, &w, lba, &r->dr[r->ndr], err, errlen))
			return -1;
		r->ndr++;
	} else {
		calib_note(r, "the data-reduction area is too small for the win10 kind (6.25 MiB): give more --capacity-use");
	}
	r->have_dr = true;
	if (dr_fit(r->dr, r->ndr, d, &r->drp, &r->drrep) == 0) {
		r->have_drfit = true;
		for (unsigned i = 0; i < r->ndr; i++) {
			uint64_t l;
			dr_predict(&r->dr[i].spec, &r->drp, &l, &r->dr_pred_unique[i], &r->dr_pred_physical[i]);
		}
	}
	return 0;
}

