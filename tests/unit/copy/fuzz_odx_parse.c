/* fuzz_odx_parse.c — libFuzzer target (-Dfuzz=true, clang): any bytes as a
 * POPULATE TOKEN (first byte even) or WRITE USING TOKEN (odd) parameter
 * list, the rest of the input being the list.  The parser must never read
 * outside the list (ASan: an exact-size heap copy), and every answer must be
 * self-consistent: a rejection is ILLEGAL REQUEST with one of the table's
 * ASCs and a field inside the list; an acceptance has 1..max ranges inside
 * the LU, a total within the token size, none overlapping, a token inside
 * the list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/copy/odx_parse.h"
#include "lunlab/scsi_vocab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct odx_limits lim = {
	.offered = true, .max_ranges = 16, .max_token_blocks = 1u << 20,
	.default_timeout_s = 60, .max_timeout_s = 600, .num_lbas = 1u << 21,
};

static void check_ranges(const struct odx_ranges *r)
{
	uint64_t total = 0;

	if (r->n == 0 || r->n > lim.max_ranges)
		abort();
	for (unsigned i = 0; i < r->n; i++) {
		if (r->r[i].lba > lim.num_lbas || r->r[i].nblocks > lim.num_lbas - r->r[i].lba)
			abort();
		total += r->r[i].nblocks;
		for (unsigned j = 0; j < i; j++)
			if (r->r[i].nblocks && r->r[j].nblocks && r->r[i].lba < r->r[j].lba + r->r[j].nblocks &&
			    r->r[j].lba < r->r[i].lba + r->r[i].nblocks)
				abort();
	}
	if (total != r->total_blocks || total > lim.max_token_blocks)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct odx_pt_list pt;
	static struct odx_wut_list wut;
	struct xcopy_err err;

	if (size < 1)
		return 0;
	bool is_wut = data[0] & 1;
	size_t n = size - 1;
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		return 0;
	memcpy(p, data + 1, n);
	bool ok = is_wut ? odx_parse_wut(p, n, &lim, &wut, &err) : odx_parse_pt(p, n, &lim, &pt, &err);
	if (ok && is_wut) {
		check_ranges(&wut.ranges);
		if (wut.token != p + ODX_WUT_TOKEN_OFF || n < ODX_WUT_HDR_LEN)
			abort();
	} else if (ok) {
		check_ranges(&pt.ranges);
		if (pt.timeout_s > lim.max_timeout_s)
			abort();
	} else {
		uint16_t a = scsi_asc_pair(err.asc, err.ascq);
		if (err.key != SCSI_SK_ILLEGAL_REQUEST ||
		    (a != SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST && a != SCSI_ASC_TOO_MANY_SEGMENT_DESCRIPTORS &&
		     a != SCSI_ASC_LBA_OUT_OF_RANGE))
			abort();
		if (err.sksv && err.field_byte >= (n > 0 ? n : 1) && err.field_byte != 0)
			abort();
	}
	free(p);
	return 0;
}
