/* readback.c - see readback.h. */
#include "client/readback.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/xfer_limit.h"

#define PIECE (64u * 1024u)
/* How far to look for the first piece that is not all zeros (a VM image starts with its
 * boot sector and partition table; 256 MiB of leading zeros is not an image). */
#define FIRST_SCAN_PIECES 4096u

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* 1: matched, 0: source all zeros (skipped), -1: error or mismatch (err filled) */
static int check_piece(struct bench_conn *c, uint64_t start_lba, uint64_t off, uint32_t len,
		       stream_fill_fn fill, void *arg, uint8_t *want, uint8_t *got, char *err, size_t errlen)
{
	if (fill(arg, off, want, len)) {
		snprintf(err, errlen, "reading the source data at offset %llu failed", (unsigned long long)off);
		return -1;
	}
	if (all_zero(want, len))
		return 0;
	uint64_t lba = start_lba + off / c->block_size;
	uint32_t blocks = len / c->block_size;
	uint8_t cdb[16];
	(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_READ_16, 0, lba, blocks); /* fits: 64-bit LBA, 32-bit length */
	struct cmd_status st;
	if (conn_cmd(c, cdb, 16, 1, NULL, 0, got, len, &st) || st.status != 0 || st.got != len) {
		if (conn_failed(c))
			snprintf(err, errlen, "%s", conn_error(c));
		else
			snprintf(err, errlen, "%s: reading back LBA %llu after the session was re-established failed "
				 "(status %d, sense %02x/%02x/%02x)", c->url, (unsigned long long)lba, st.status,
				 st.key, st.asc, st.ascq);
		return -1;
	}
	if (memcmp(want, got, len)) {
		size_t i = 0;
		while (i < len && want[i] == got[i])
			i++;
		snprintf(err, errlen, "%s: the session was lost and logged in again, and data the target had "
			 "acknowledged reads back different at byte %llu (LBA %llu): the target did not keep it "
			 "(restarted without its state?), so the run cannot continue", c->url,
			 (unsigned long long)(off + i), (unsigned long long)(start_lba + (off + i) / c->block_size));
		return -1;
	}
	return 1;
}

int readback_check(struct bench_conn *c, uint64_t start_lba, uint64_t bytes, stream_fill_fn fill,
		   void *fill_arg, unsigned samples, uint64_t *checked, char *err, size_t errlen)
{
	*checked = 0;
	uint32_t piece = (uint32_t)(bytes < PIECE ? bytes : PIECE);
	piece -= piece % c->block_size;
	piece = xfer_clamp_bytes(piece, c->block_size, c->max_xfer_blocks);
	if (!piece)
		return 0;
	uint8_t *want = malloc(piece), *got = malloc(piece);
	int ret = -1;
	if (!want || !got) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (uint64_t k = 0, off = 0; k < FIRST_SCAN_PIECES && off + piece <= bytes; k++, off += piece) {
		int r = check_piece(c, start_lba, off, piece, fill, fill_arg, want, got, err, errlen);
		if (r < 0)
			goto out;
		if (r > 0) {
			*checked += piece;
			break;
		}
	}
	for (unsigned i = 1; i <= samples; i++) {
		uint64_t off = (bytes - piece) / samples * i;
		off -= off % c->block_size;
		int r = check_piece(c, start_lba, off, piece, fill, fill_arg, want, got, err, errlen);
		if (r < 0)
			goto out;
		if (r > 0)
			*checked += piece;
	}
	ret = 0;
out:
	free(want);
	free(got);
	return ret;
}
