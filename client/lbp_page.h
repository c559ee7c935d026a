/* lbp_page.h - the standard Logical Block Provisioning log page (LOG SENSE 0Ch, SBC-4 6.4.6):
 * the resource counts a thin, deduplicating array may report to any host.  calibrate reads
 * the de-duplicated and compressed LBA counts to measure data reduction without a vendor
 * page (lunlab's 30h is the round-trip test's answer key only). */
#ifndef LUNLAB_CLIENT_LBP_PAGE_H
#define LUNLAB_CLIENT_LBP_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/logpage.h"

/* Counts in logical blocks of the LU; have_* say which the page held. */
struct lbp_counts {
	uint32_t available;          /* 0001h available LBA mapping resource count */
	uint32_t used;               /* 0002h used LBA mapping resource count */
	uint32_t dedup;              /* 0100h de-duplicated LBA resource count */
	uint32_t compressed;         /* 0101h compressed LBA resource count */
	uint16_t avail_pct;          /* 0003h available provisioning resource percentage */
	uint8_t used_scope;          /* SCOPE of 0002h: 1 dedicated to this LU, 2 not dedicated */
	bool have_available, have_used, have_dedup, have_compressed, have_avail_pct;
};

/* Decode a parsed page 0Ch.  Each resource count parameter is 8 bytes (a 4-byte count, then
 * the SCOPE field); another length is an error naming the parameter.  Returns 0 or -1. */
int lbp_counts_decode(const struct log_page *pg, struct lbp_counts *c, char *err, size_t errlen);

/* The soft threshold of the Logical Block Provisioning mode page (MODE SENSE(10) page 1Ch
 * subpage 02h, SBC-4 6.5.7): the first threshold descriptor on the available LBA mapping
 * resource (01h) of type soft, decreasing.  count: its THRESHOLD COUNT in threshold sets. */
struct lbp_threshold {
	bool have;                   /* the page held such a descriptor */
	bool enabled;
	uint32_t count;
};
/* Decode the MODE SENSE(10) data buf[n] (header, block descriptors, the page), bounds-checked:
 * 0 (t->have false when no soft descriptor), or -1 with the bad field named in err. */
int lbp_threshold_decode(const uint8_t *buf, size_t n, struct lbp_threshold *t, char *err, size_t errlen);

#endif
