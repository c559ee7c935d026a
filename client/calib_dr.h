/* calib_dr.h - data reduction for lunlab-bench calibrate: generated data kinds whose
 * deduplication and compression tell the profile's data_reduction parameters apart, and
 * the fit of those parameters to what the LU reported (docs/calibrate.md "Data reduction").
 *
 * Kinds (every block unique within and across kinds, from a per-run seed):
 *   zero      all zero: does the array store zero blocks at all?
 *   random    incompressible: neither dedup nor compression
 *   dup S     random pieces of S bytes, each written twice in a row: dedups exactly when the
 *             array's dedup block is <= S, so the smallest S that dedups is the block
 *   sparse    zero except an 8-byte counter every 512 bytes: compresses to almost nothing, so
 *             what a block occupies is the allocation unit
 *   period K  each dedup block a random pattern of 0.6 x 2^K bytes repeated: deflate finds the
 *             repeat only with a window of 2^K or more (its reach is the window minus 262)
 *   win10     lunlab-bench's synthetic Windows 10 image, one 6.25 MiB group: the realistic mix
 *
 * Pure: tests/unit/client/test_calib_dr.c checks the generators and the fit against lunlab's
 * own accounting rules (docs/accounting.md), recomputed here with zlib. */
#ifndef LUNLAB_CLIENT_CALIB_DR_H
#define LUNLAB_CLIENT_CALIB_DR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dr_kind { DR_ZERO, DR_RANDOM, DR_DUP, DR_SPARSE, DR_PERIOD, DR_WIN10 };

struct dr_spec {
	enum dr_kind kind;
	uint32_t param;          /* DUP: piece bytes; PERIOD: K (window bits it needs) */
	uint64_t bytes;          /* how much is written */
	uint64_t seed;           /* per run */
	uint32_t block;          /* PERIOD: the dedup block the patterns are laid out in */
};

/* Bytes [off, off + len) of the kind (off, len multiples of 512). */
void dr_fill(const struct dr_spec *s, uint64_t off, uint8_t *buf, size_t len);
/* "dup 16 KiB", "period 12" ... */
void dr_name(const struct dr_spec *s, char *buf, size_t len);
/* The period of PERIOD K: 0.6 x 2^K, a multiple of 8 */
uint32_t dr_period(uint32_t k);

/* What the LU reported for one kind: bytes mapped (logical), after dedup (unique) and
 * after compression (physical). */
struct dr_measure {
	struct dr_spec spec;
	uint64_t logical, unique, physical;
	uint32_t resolution;         /* bytes per count the LU reported in (a threshold set, VPD
	                              * B2h); 0: 512 */
};

struct dr_params {
	uint32_t dedup_block;
	int zlib_level, zlib_window_bits;
	uint32_t alloc_unit;
};

/* The model's unique and physical bytes for a kind under p (lunlab's accounting rules:
 * zero blocks not stored, dedup by content per block, raw deflate per unique block at the
 * level and window, rounded up to the unit, capped at the block).  Returns 0 or -1. */
int dr_predict(const struct dr_spec *s, const struct dr_params *p, uint64_t *logical, uint64_t *unique,
	       uint64_t *physical);

/* The smallest dedup block consistent with the dup kinds measured: the smallest piece size
 * whose kind lost >= 40% to dedup, when the next smaller one lost < 10%.  0 when none did. */
uint32_t dr_dedup_block(const struct dr_measure *m, unsigned n);

struct dr_fit_report {
	double err;                  /* sum over kinds of (ln(predicted / measured physical) / the
	                              * measurement's resolution)^2: below 1 per kind is a match */
	double err_next;             /* the best candidate that differs in level, window or unit */
	bool window_identified;      /* a period kind compressed and the next larger did not */
	int window_lo, window_hi;    /* windows that fit the period kinds equally */
	int level_lo, level_hi;      /* levels within the measurement's resolution of the best */
	bool compresses;             /* anything compressed at all */
};

/* Fit level, window and unit (the dedup block given) to the kinds measured: every window and
 * level on samples of each kind's blocks, then every unit.  Returns 0 or -1. */
int dr_fit(const struct dr_measure *m, unsigned n, uint32_t dedup_block, struct dr_params *out,
	   struct dr_fit_report *rep);

#endif
