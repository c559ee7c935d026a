/* vpd8f.h - decode the Third-party Copy VPD page (0x8F, SPC-4 7.8.17): the copy limits an
 * array advertises (what vSphere's --xcopy-use-array-values and Windows ODX read). */
#ifndef LUNLAB_CLIENT_VPD8F_H
#define LUNLAB_CLIENT_VPD8F_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tpc_vpd {
	unsigned descriptors;
	bool have_commands;             /* 0001h supported commands */
	bool lid1_xcopy, populate_token, write_using_token;
	bool have_params;               /* 0004h parameter data */
	uint16_t max_cscd, max_segments;
	uint32_t max_list_len, max_inline_len;
	bool have_general;              /* 8001h general copy operations */
	uint32_t total_concurrent, max_identified, max_segment_len;
	uint8_t data_granularity_log2;
	bool have_rod;                  /* 0000h block device ROD token limits */
	uint16_t max_range_descriptors;
	uint64_t max_token_transfer, optimal_transfer_count;
};

/* Returns 0, or -1 with a one-line reason (page code, truncated descriptor...) in err. */
int vpd8f_parse(const uint8_t *page, size_t len, struct tpc_vpd *out, char *err, size_t errlen);

#endif
