/* fuzz_xcopy_parse.c — libFuzzer target (-Dfuzz=true, clang): any bytes as an
 * EXTENDED COPY parameter list.  The parser must never read outside the list
 * (ASan), and every answer must be self-consistent: a rejection names
 * ILLEGAL REQUEST with a field inside the list, an acceptance describes
 * descriptors that lie inside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/copy/xcopy_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xcopy_list list;
	struct xcopy_err err;
	/* an exact-size heap copy, so ASan sees any read past the end */
	uint8_t *p = malloc(size ? size : 1);

	if (!p)
		return 0;
	memcpy(p, data, size);
	if (xcopy_parse(p, size, &list, &err)) {
		if (list.ntgt == 0 || list.ntgt > XCOPY_MAX_TGT_DESC || list.nseg == 0 ||
		    list.nseg > XCOPY_MAX_SEG_DESC)
			abort();
		for (unsigned i = 0; i < list.nseg; i++)
			if ((size_t)list.seg[i].offset + XCOPY_SEG_DESC_LEN > size ||
			    list.seg[i].src_index > XCOPY_CSCD_INDEX_MAX)
				abort();
	} else {
		if (err.key != SCSI_SK_ILLEGAL_REQUEST || (err.asc != scsi_asc(SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR) &&
						    err.asc != scsi_asc(SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST)))
			abort();
		if (err.sksv && err.field_byte >= size)
			abort();
	}
	free(p);
	return 0;
}
