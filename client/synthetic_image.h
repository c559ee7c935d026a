/* synthetic_image.h - the built-in synthetic Windows-10-like VM image.
 *
 * A pure function of (seed, block index): any block can be produced on its own, in any
 * order, by any number of threads, and the same seed always gives the same image.  That is
 * what lets the drr scenario stream an 11.9 GiB image without storing it and lets the model
 * owner calibrate data reduction against exactly the bytes the bench writes.
 * Composition and rationale: docs/bench.md "Synthetic Windows 10 image". */
#ifndef LUNLAB_CLIENT_SYNTHETIC_IMAGE_H
#define LUNLAB_CLIENT_SYNTHETIC_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define SYNTH_BLOCK_SIZE   4096u            /* bytes per generated block */
#define SYNTH_EXTENT_BLOCKS 16u             /* 64 KiB extents: aligned to 8 and 16 KiB dedup blocks */
#define SYNTH_EXTENT_SIZE  (SYNTH_BLOCK_SIZE * SYNTH_EXTENT_BLOCKS)
#define SYNTH_GROUP_EXTENTS 100u           /* 6.25 MiB groups: each holds the exact composition */
#define SYNTH_GROUP_LIBRARY 2u              /* distinct extents the duplicates of a group copy */
#define SYNTH_WIN10_DEFAULT_SIZE 12777527705ull /* 11.9 GiB, rounded down to a 64 KiB extent below */

/* What an extent holds.  The order is the order of the cumulative fractions. */
enum synth_kind {
	SYNTH_ZERO = 0,        /* never-written / zeroed space inside the file systems */
	SYNTH_DUPLICATE,       /* copy of one of the group's SYNTH_GROUP_LIBRARY extents (DLLs, WinSxS) */
	SYNTH_PAGEFILE,        /* a 4..64 byte pattern repeated (page file / hiberfil fill) */
	SYNTH_TEXT,            /* logs, XML, INF, registry text: low entropy, compresses ~3-4x */
	SYNTH_BINARY,          /* executables and data files: medium entropy, compresses ~1.5-2x */
	SYNTH_MEDIA,           /* compressed media, cabs, installers: incompressible */
	SYNTH_KINDS
};

/* Fractions of extents per kind, in parts per thousand (sum 1000). */
extern const unsigned synth_win10_permille[SYNTH_KINDS];

const char *synth_kind_name(enum synth_kind k);

/* Kind of the 64 KiB extent that holds block `block`. */
enum synth_kind synth_win10_kind(uint64_t seed, uint64_t block);

/* Fill out[SYNTH_BLOCK_SIZE] with block `block` of the image for `seed`. Pure. */
void synth_win10_block(uint64_t seed, uint64_t block, uint8_t *out);

/* Fill `len` bytes starting at byte `offset` (both multiples of SYNTH_BLOCK_SIZE). */
void synth_win10_fill(uint64_t seed, uint64_t offset, uint8_t *out, size_t len);

/* The template content of the clone scenario: highly dedupable "pattern" (a handful of
 * distinct 4 KiB blocks repeated, so the array's memory stays modest), all "zero", or the
 * "synthetic" image above. */
enum template_content { TEMPLATE_ZERO, TEMPLATE_PATTERN, TEMPLATE_SYNTHETIC };
void template_fill(enum template_content c, uint64_t seed, uint64_t offset, uint8_t *out, size_t len);

#endif
