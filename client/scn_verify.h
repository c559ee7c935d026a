/* scn_verify.h - the scenario runner's write-then-verify stream: writes a region once with
 * data derived from the seed, SYNCHRONIZE CACHE every few writes, then reads back every
 * write the array acknowledged and compares.  It proves that nothing acknowledged was lost
 * (or changed) while the timeline did its worst: faults, paths down, ALUA moves, a SIGKILL.
 * Like a multipath host it keeps every path (portal) of the LU and moves to the next when
 * one is lost or refuses I/O for its ALUA state. */
#ifndef LUNLAB_CLIENT_SCN_VERIFY_H
#define LUNLAB_CLIENT_SCN_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/scn_model.h"

/* written by the stream, read by the runner (a MAP_SHARED page): the progress condition */
struct scn_progress {
	volatile uint64_t done, total;
};

struct scn_verify_opts {
	const char *paths[SCN_MAX_PORTALS]; /* iscsi://host:port/iqn/lun, one per portal */
	unsigned n_paths;
	uint64_t bs, size, offset;
	unsigned sync_every;
	double reconnect_s;
	uint64_t seed;
	const char *initiator;
	bool read_only;                     /* no writes: the region must already hold the pattern */
	double reread_s;                    /* read_only: a pass that found other data is read again
					     * until it holds the pattern or this long has passed */
};

/* Runs the stream, prints its JSON report to out.  0: every acknowledged write read back
 * right and no command failed; 1 otherwise (the report says what). */
int scn_verify_run(const struct scn_verify_opts *o, struct scn_progress *pg, FILE *out);

/* the data of piece i (bs bytes at LBA lba of block size blk) for seed: every 512 bytes
 * start with (seed, i, lba of that block), so a misplaced block differs too */
void scn_verify_pattern(uint64_t seed, uint64_t i, uint64_t lba, unsigned blk, uint8_t *buf, size_t bs);

#endif
