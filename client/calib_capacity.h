/* calib_capacity.h - the array's usable capacity and soft threshold, as any host can read them
 * (docs/calibrate.md "Capacity"): LOG SENSE 0Ch's available LBA mapping resource count beside
 * its available provisioning resource percentage, and the soft threshold descriptor of the
 * Logical Block Provisioning mode page (1Ch/02h). */
#ifndef LUNLAB_CLIENT_CALIB_CAPACITY_H
#define LUNLAB_CLIENT_CALIB_CAPACITY_H

#include <stdbool.h>
#include <stdint.h>

/* What a page 0Ch reading says of the capacity: avail_bytes available at pct percent
 * available (the LU rounds the percentage down, SBC-4 leaves it to the LU: the interval
 * assumes down).  lo..hi holds every capacity that gives that pair; est is the one profile
 * value (avail itself at 100%, else the middle).  false when pct is 0 (any capacity above
 * 100 x avail fits). */
bool calib_capacity_from_lbp(uint64_t avail_bytes, unsigned pct, uint64_t *lo, uint64_t *hi, uint64_t *est);

/* The soft threshold as a percentage of the usable capacity: the array warns once available
 * falls below count_bytes (the descriptor's THRESHOLD COUNT in bytes), i.e. once use passes
 * usable - count_bytes.  Rounded to the nearest percent, 0..100. */
unsigned calib_soft_threshold_percent(uint64_t usable, uint64_t count_bytes);

struct cctx;
/* Read both from the LU and store them in x->r (capacity_*; usable_bytes stays the LU's size
 * when the LU reports no percentage).  Never fails the run: what cannot be read is a note. */
void calib_capacity(struct cctx *x);

#endif
