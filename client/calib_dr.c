/* calib_dr.c - calibrate's data kinds and the fit of the data_reduction parameters
 * (calib_dr.h).  The model side recomputes lunlab's accounting rules (docs/accounting.md):
 * raw deflate (zlib, memLevel 8, default strategy, one Z_FINISH per block) at the candidate
 * level and window, rounded up to the unit, capped at the block; blocks deduplicated by
 * content (XXH3-128 of each block). */
#include "client/calib_dr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>
#include <zlib.h>

#include "client/synthetic_image.h"

/* splitmix64 finaliser: the generators' only source of bytes (no state: any block, any order) */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t key(uint64_t seed, uint64_t domain, uint64_t a, uint64_t b)
{
	return mix(mix(mix(seed ^ (domain << 48)) ^ a) ^ b);
}

uint32_t dr_period(uint32_t k)
{
	return (uint32_t)(((uint64_t)3 << k) / 5) & ~7u;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

void dr_fill(const struct dr_spec *s, uint64_t off, uint8_t *buf, size_t len)
{
	switch (s->kind) {
	case DR_ZERO:
		memset(buf, 0, len);
		return;
	case DR_RANDOM:
		for (size_t j = 0; j + 8 <= len; j += 8)
			put64(buf + j, key(s->seed, 1, (off + j) >> 3, 0));
		return;
	case DR_DUP: {
		/* piece i occupies [2 i S, 2 i S + S) and again [2 i S + S, 2 (i + 1) S) */
		uint64_t sz = s->param;
		for (size_t j = 0; j + 8 <= len; j += 8) {
			uint64_t pos = off + j;
			put64(buf + j, key(s->seed, 2 + ((uint64_t)sz << 8), pos / (2 * sz), (pos % sz) >> 3));
		}
		return;
	}
	case DR_SPARSE:
		/* a counter in the first 8 bytes of every 512-byte sector: every block unique, and
		 * almost nothing for deflate to store */
		memset(buf, 0, len);
		for (size_t j = 0; j < len; j += 512)
			put64(buf + j, ((s->seed & 0xffffff) << 40) | ((off + j) >> 9));
		return;
	case DR_PERIOD: {
		/* block b: pattern(b) repeated from the block's start; pattern(b) is P bytes */
		uint32_t d = s->block ? s->block : 4096, p = dr_period(s->param);
		uint8_t pat[19664]; /* dr_period(15) */
		uint64_t have = UINT64_MAX;
		for (size_t j = 0; j < len;) {
			uint64_t pos = off + j, blk = pos / d, in = pos % d;
			if (blk != have) {
				for (uint32_t w = 0; w < p; w += 8)
					put64(pat + w, key(s->seed, 3 + ((uint64_t)s->param << 8), blk, w >> 3));
				have = blk;
			}
			size_t run = d - in < len - j ? d - in : len - j;
			for (size_t r = 0; r < run; r++)
				buf[j + r] = pat[(in + r) % p];
			j += run;
		}
		return;
	}
	case DR_WIN10:
		synth_win10_fill(s->seed, off, buf, len);
		return;
	}
}

void dr_name(const struct dr_spec *s, char *buf, size_t len)
{
	switch (s->kind) {
	case DR_ZERO: snprintf(buf, len, "zero"); break;
	case DR_RANDOM: snprintf(buf, len, "random"); break;
	case DR_DUP:
		if (s->param >= 1024)
			snprintf(buf, len, "dup %u KiB", s->param >> 10);
		else
			snprintf(buf, len, "dup %u B", s->param);
		break;
	case DR_SPARSE: snprintf(buf, len, "sparse"); break;
	case DR_PERIOD: snprintf(buf, len, "period %u B", dr_period(s->param)); break;
	case DR_WIN10: snprintf(buf, len, "win10"); break;
	}
}

/* ---- the model side ---- */

struct zc {
	z_stream zs;
	int level, wbits, live;
	uint8_t out[4096];
};

static uint32_t deflated(struct zc *z, int level, int wbits, const uint8_t *blk, uint32_t d)
{
	if (z->live && (z->level != level || z->wbits != wbits)) {
		deflateEnd(&z->zs);
		z->live = 0;
	}
	if (!z->live) {
		memset(&z->zs, 0, sizeof(z->zs));
		if (deflateInit2(&z->zs, level, Z_DEFLATED, -wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return d;
		z->live = 1;
		z->level = level;
		z->wbits = wbits;
	} else {
		deflateReset(&z->zs);
	}
	uint32_t total = 0;
	z->zs.next_in = (Bytef *)blk;
	z->zs.avail_in = d;
	int r;
	do {
		z->zs.next_out = z->out;
		z->zs.avail_out = sizeof(z->out);
		r = deflate(&z->zs, Z_FINISH);
		total += (uint32_t)(sizeof(z->out) - z->zs.avail_out);
	} while (r == Z_OK || (r == Z_BUF_ERROR && z->zs.avail_out == 0));
	return total;
}

static void zc_end(struct zc *z)
{
	if (z->live)
		deflateEnd(&z->zs);
	z->live = 0;
}

static uint32_t phys(uint32_t csize, uint32_t unit, uint32_t d)
{
	uint64_t r = ((uint64_t)csize + unit - 1) / unit * unit;
	return r > d ? d : (uint32_t)r;
}

static bool all_zero(const uint8_t *b, uint32_t d)
{
	for (uint32_t i = 0; i < d; i++)
		if (b[i])
			return false;
	return true;
}

static int cmp128(const void *a, const void *b)
{
	const XXH128_hash_t *x = a, *y = b;
	if (x->high64 != y->high64)
		return x->high64 < y->high64 ? -1 : 1;
	if (x->low64 != y->low64)
		return x->low64 < y->low64 ? -1 : 1;
	return 0;
}

/* The kind's unique non-zero blocks, by index, in order of first appearance. */
struct uniq {
	uint64_t nblocks, logical_blocks;
	uint64_t *idx;
	size_t n;
};

static int unique_blocks(const struct dr_spec *s, uint32_t d, struct uniq *u)
{
	memset(u, 0, sizeof(*u));
	u->nblocks = s->bytes / d;
	uint8_t *blk = malloc(d);
	struct { XXH128_hash_t h; uint64_t i; } *hs = calloc(u->nblocks ? u->nblocks : 1, sizeof(*hs));
	u->idx = calloc(u->nblocks ? u->nblocks : 1, sizeof(uint64_t));
	if (!blk || !hs || !u->idx) {
		free(blk);
		free(hs);
		free(u->idx);
		u->idx = NULL;
		return -1;
	}
	size_t m = 0;
	for (uint64_t i = 0; i < u->nblocks; i++) {
		dr_fill(s, i * d, blk, d);
		if (all_zero(blk, d))
			continue;
		u->logical_blocks++;
		hs[m].h = XXH3_128bits(blk, d);
		hs[m].i = i;
		m++;
	}
	/* sort by hash (the index breaks no tie: equal hashes are equal blocks), keep the first
	 * index of each, then restore block order */
	qsort(hs, m, sizeof(*hs), cmp128);
	for (size_t j = 0; j < m; j++) {
		if (j && !cmp128(&hs[j].h, &hs[j - 1].h)) {
			if (hs[j].i < u->idx[u->n - 1])
				u->idx[u->n - 1] = hs[j].i;
			continue;
		}
		u->idx[u->n++] = hs[j].i;
	}
	free(hs);
	free(blk);
	return 0;
}

int dr_predict(const struct dr_spec *s, const struct dr_params *p, uint64_t *logical, uint64_t *unique,
	       uint64_t *physical)
{
	uint32_t d = p->dedup_block;
	struct uniq u;
	if (!d || unique_blocks(s, d, &u))
		return -1;
	uint8_t *blk = malloc(d);
	struct zc *z = calloc(1, sizeof(*z));
	if (!blk || !z) {
		free(blk);
		free(z);
		free(u.idx);
		return -1;
	}
	uint64_t ph = 0;
	for (size_t j = 0; j < u.n; j++) {
		dr_fill(s, u.idx[j] * d, blk, d);
		ph += phys(deflated(z, p->zlib_level, p->zlib_window_bits, blk, d), p->alloc_unit, d);
	}
	*logical = u.logical_blocks * d;
	*unique = (uint64_t)u.n * d;
	*physical = ph;
	zc_end(z);
	free(z);
	free(blk);
	free(u.idx);
	return 0;
}

uint32_t dr_dedup_block(const struct dr_measure *m, unsigned n)
{
	uint32_t best = 0;
	double below = 0; /* savings of the next smaller piece measured */
	for (uint32_t sz = 512; sz && sz <= (1u << 20); sz <<= 1) {
		for (unsigned i = 0; i < n; i++) {
			if (m[i].spec.kind != DR_DUP || m[i].spec.param != sz || !m[i].logical)
				continue;
			double saved = 1.0 - (double)m[i].unique / (double)m[i].logical;
			if (saved >= 0.40 && below < 0.10 && !best)
				best = sz;
			below = saved;
		}
	}
	return best;
}

/* ---- the fit ---- */

#define SAMPLE 8          /* blocks of a uniform kind: they all compress alike */

struct kindfit {
	const struct dr_measure *m;
	bool mixed;           /* win10: blocks differ, so every unique block counts (no sample) */
	double meas;          /* measured physical bytes per unique block */
	uint8_t *data;        /* the sampled blocks, generated once */
	size_t ns;
	uint32_t *cs;         /* compressed sizes of the sample, current (level, window) */
};

/* The squared log error of a kind in units of its measurement's resolution (two counts, of
 * 512 bytes or the LU's threshold set, over what the kind occupies), so that a candidate
 * within the resolution of every kind scores below 1 per kind. */
static double kind_err(const struct kindfit *k, uint32_t unit, uint32_t d)
{
	double sum = 0;
	for (size_t j = 0; j < k->ns; j++)
		sum += phys(k->cs[j], unit, d);
	double pred = sum / (double)k->ns;
	double res = 2.0 * (k->m->resolution ? k->m->resolution : 512) / (double)k->m->physical;
	if (res < 1e-4)
		res = 1e-4;
	if (!k->mixed && k->ns < SAMPLE * 4) /* a sample, if a uniform one */
		res += 0.002;
	double e = log(pred / k->meas) / res;
	return e * e;
}

static void compress_samples(struct kindfit *k, unsigned nk, bool mixed, struct zc *z, uint32_t d, int level,
			     int wbits)
{
	for (unsigned i = 0; i < nk; i++) {
		if (k[i].mixed && !mixed)
			continue;
		for (size_t j = 0; j < k[i].ns; j++)
			k[i].cs[j] = deflated(z, level, wbits, k[i].data + j * d, d);
	}
}

/* best unit for the current compressed sizes; *err its error */
static uint32_t best_unit(const struct kindfit *k, unsigned nk, bool mixed, uint32_t d, const uint32_t *units,
			  unsigned nu, double *err)
{
	uint32_t best = d;
	*err = INFINITY;
	for (unsigned u = 0; u < nu; u++) {
		double e = 0;
		for (unsigned i = 0; i < nk; i++)
			if (mixed || !k[i].mixed)
				e += kind_err(&k[i], units[u], d);
		if (e < *err - 1e-12) {
			*err = e;
			best = units[u];
		}
	}
	return best;
}

/* what "as good" means: every kind within its resolution (kind_err below 1 each) */
static double tolerance(const struct kindfit *k, unsigned nk, bool mixed)
{
	double tol = 0;
	for (unsigned i = 0; i < nk; i++)
		tol += mixed || !k[i].mixed;
	return tol;
}

int dr_fit(const struct dr_measure *m, unsigned n, uint32_t d, struct dr_params *out, struct dr_fit_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	*out = (struct dr_params){ .dedup_block = d, .zlib_level = 1, .zlib_window_bits = 15, .alloc_unit = d };
	if (!d)
		return -1;
	struct kindfit k[32];
	unsigned nk = 0;
	int ret = -1;
	uint8_t *blk = malloc(d);
	struct zc *z = calloc(1, sizeof(*z));
	if (!blk || !z)
		goto out;
	/* kinds whose blocks are all unique and whose compression the parameters decide */
	for (unsigned i = 0; i < n && nk < 32; i++) {
		enum dr_kind kd = m[i].spec.kind;
		if ((kd != DR_RANDOM && kd != DR_SPARSE && kd != DR_PERIOD && kd != DR_WIN10) || !m[i].unique ||
		    !m[i].physical)
			continue;
		struct uniq u;
		if (unique_blocks(&m[i].spec, d, &u))
			goto out;
		if (!u.n) {
			free(u.idx);
			continue;
		}
		size_t want = kd == DR_WIN10 ? u.n : SAMPLE;
		struct kindfit *f = &k[nk];
		memset(f, 0, sizeof(*f));
		f->m = &m[i];
		f->mixed = kd == DR_WIN10;
		f->meas = (double)m[i].physical / ((double)m[i].unique / d);
		f->ns = u.n < want ? u.n : want;
		f->data = malloc(f->ns * d);
		f->cs = calloc(f->ns, sizeof(uint32_t));
		if (!f->data || !f->cs) {
			free(f->data);
			free(f->cs);
			free(u.idx);
			goto out;
		}
		for (size_t j = 0; j < f->ns; j++)
			dr_fill(&m[i].spec, u.idx[j * u.n / f->ns] * d, f->data + j * d, d);
		free(u.idx);
		nk++;
		if (f->meas < 0.9 * d)
			rep->compresses = true;
	}
	if (!nk)
		goto out;
	/* unit candidates: every power of two up to the block, and what a sparse block measured */
	uint32_t units[40];
	unsigned nu = 0;
	for (uint32_t u = 1; u <= d && nu < 39; u <<= 1)
		units[nu++] = u;
	for (unsigned i = 0; i < nk; i++)
		if (k[i].m->spec.kind == DR_SPARSE && k[i].meas >= 1 && k[i].meas <= d) {
			uint32_t u = (uint32_t)lround(k[i].meas);
			bool dup = false;
			for (unsigned j = 0; j < nu; j++)
				dup |= units[j] == u;
			if (!dup && nu < 40)
				units[nu++] = u;
		}
	/* 1. the window, from the uniform kinds at levels 0 (stored) and 1: a window decides
	 * whether a repeat is found at all, the level only how well.  A block never compresses
	 * better with a smaller window: ties go to the smallest one (the least the data need). */
	double err1[2][16], best1 = INFINITY;
	int l1 = 1;
	for (int w = 9; w <= 15; w++)
		for (int l = 0; l <= 1; l++) {
			compress_samples(k, nk, false, z, d, l, w);
			best_unit(k, nk, false, d, units, nu, &err1[l][w]);
			if (err1[l][w] < best1 - 1e-12) {
				best1 = err1[l][w];
				l1 = l;
			}
		}
	double tol1 = tolerance(k, nk, false);
	rep->window_lo = 16;
	rep->window_hi = 8;
	rep->err_next = INFINITY;
	for (int w = 9; w <= 15; w++) {
		if (err1[l1][w] <= best1 + tol1) {
			if (w < rep->window_lo) rep->window_lo = w;
			if (w > rep->window_hi) rep->window_hi = w;
		} else if (err1[l1][w] < rep->err_next) {
			rep->err_next = err1[l1][w];
		}
	}
	out->zlib_window_bits = rep->window_lo;
	/* 2. every level at that window, every kind (the mixed one whole), and the unit with it */
	double err2[10], best2 = INFINITY;
	uint32_t unit2[10];
	for (int l = 0; l <= 9; l++) {
		compress_samples(k, nk, true, z, d, l, out->zlib_window_bits);
		unit2[l] = best_unit(k, nk, true, d, units, nu, &err2[l]);
		if (err2[l] < best2 - 1e-12)
			best2 = err2[l];
	}
	double tol2 = tolerance(k, nk, true);
	rep->level_lo = 10;
	rep->level_hi = -1;
	for (int l = 0; l <= 9; l++) {
		if (err2[l] <= best2 + tol2) {
			if (l < rep->level_lo) rep->level_lo = l;
			if (l > rep->level_hi) rep->level_hi = l;
		} else if (err2[l] < rep->err_next) {
			rep->err_next = err2[l];
		}
	}
	out->zlib_level = rep->level_lo;
	out->alloc_unit = unit2[out->zlib_level];
	rep->err = err2[out->zlib_level];
	/* a window is identified when a period kind compressed and the next larger did not */
	bool seen_yes = false;
	for (unsigned i = 0; i < nk; i++)
		if (k[i].m->spec.kind == DR_PERIOD && k[i].meas < 0.9 * d)
			seen_yes = true;
	for (unsigned i = 0; i < nk && seen_yes; i++)
		if (k[i].m->spec.kind == DR_PERIOD && k[i].meas >= 0.9 * d)
			rep->window_identified = rep->window_lo == rep->window_hi;
	if (!rep->compresses) {
		/* nothing compressed: store every block whole */
		out->zlib_level = 0;
		out->alloc_unit = d;
	}
	ret = 0;
out:
	for (unsigned i = 0; i < nk; i++) {
		free(k[i].data);
		free(k[i].cs);
	}
	if (z)
		zc_end(z);
	free(z);
	free(blk);
	return ret;
}
