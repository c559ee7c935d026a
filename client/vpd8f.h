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
	bool copy_operation_abort;      /* 83h SA 1Ch */
	bool rrti;                      /* 84h SA 07h RECEIVE ROD TOKEN INFORMATION */
	bool have_params;               /* 0004h parameter data */
	uint16_t max_cscd, max_segments;
	uint32_t max_list_len, max_inline_len;
	bool have_general;              /* 8001h general copy operations */
	uint32_t total_concurrent, max_identified, max_segment_len;
	uint8_t data_granularity_log2;
	bool have_rod;                  /* 0000h block device ROD token limits */
	uint16_t max_range_descriptors;
	uint32_t max_inactivity_timeout_s, default_inactivity_timeout_s;
	uint64_t max_token_transfer, optimal_transfer_count;   /* in blocks */
	bool have_rod_types;            /* 0108h supported ROD types */
	unsigned n_rod_types;           /* descriptors listed (the first VPD8F_MAX_ROD_TYPES kept) */
#define VPD8F_MAX_ROD_TYPES 4
	struct tpc_rod_type {
		uint32_t type;
		bool ecpy_int, token_in, token_out;
		uint16_t preference;
	} rod_types[VPD8F_MAX_ROD_TYPES];
	bool have_rod_features;         /* 0106h ROD token features */
	uint8_t remote_tokens;          /* 0: none (copies between arrays are not offered) */
	uint32_t min_token_lifetime_s, max_token_lifetime_s, max_token_inactivity_s;
	bool have_rod_block_features;   /* its block-device type-specific part */
	uint16_t optimal_length_granularity;   /* blocks */
	uint64_t rod_max_bytes, rod_optimal_bytes;
	uint64_t optimal_bytes_to_token, optimal_bytes_from_token;   /* per segment */
};

/* Returns 0, or -1 with a one-line reason (page code, truncated descriptor...) in err. */
int vpd8f_parse(const uint8_t *page, size_t len, struct tpc_vpd *out, char *err, size_t errlen);

#endif
