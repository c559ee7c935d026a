/* xcopy_parse.h — EXTENDED COPY (LID1) parameter list parser.
 *
 * Pure: no device, no sense buffer, no allocation.  It turns the bytes an
 * initiator sent into a checked description of the copy, or into the exact
 * sense (key/ASC/ASCQ plus the sense-key-specific field pointer into the
 * parameter list) the copy manager must answer.  Everything that needs a
 * device (does a designator name an LU, is a range inside it) is left to
 * xcopy_exec.c. */
#ifndef LUNLAB_XCOPY_PARSE_H
#define LUNLAB_XCOPY_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handlers/copy/copy_limits.h"

enum xcopy_list_usage {
	XCOPY_LIST_HOLD = 0,       /* 00b: keep status for RECEIVE COPY RESULTS */
	XCOPY_LIST_RESERVED = 1,   /* 01b: rejected */
	XCOPY_LIST_DISCARD = 2,    /* 10b: list id identifies the copy, status discarded */
	XCOPY_LIST_NONE = 3,       /* 11b: no list identifier (LIST IDENTIFIER must be 0) */
};

/* One 0xE4 CSCD (identification) descriptor. */
struct xcopy_tgt {
	uint8_t naa[16];           /* designator: NAA IEEE Registered Extended */
	uint8_t pdt;               /* peripheral device type (0 = block) */
	uint32_t block_len;        /* DISK BLOCK LENGTH (0 = not given) */
	uint16_t offset;           /* byte offset of the descriptor in the list */
};

/* One 0x02 block -> block segment descriptor. */
struct xcopy_seg {
	uint16_t src_index, dst_index;
	bool dc;                   /* NUMBER OF BLOCKS counts destination blocks */
	bool cat;
	uint16_t nblocks;
	uint64_t src_lba, dst_lba;
	uint16_t offset;           /* byte offset of the descriptor in the list */
};

struct xcopy_list {
	uint8_t list_id;
	enum xcopy_list_usage usage;
	bool str;
	uint8_t priority;
	unsigned ntgt, nseg;
	struct xcopy_tgt tgt[XCOPY_MAX_TGT_DESC];
	struct xcopy_seg seg[XCOPY_MAX_SEG_DESC];
};

/* A parse failure: what sense to return.  field_byte is an offset into the
 * parameter list (C/D = 0); field_bit is 0..7 or -1 (no bit pointer). */
struct xcopy_err {
	uint8_t key, asc, ascq;
	bool sksv;
	uint16_t field_byte;
	int field_bit;
};

/* Parse len bytes at p (len = the parameter list the initiator sent, never
 * 0: a zero PARAMETER LIST LENGTH is a no-op the caller handles).
 * Returns true and fills *out, or false and fills *err. */
bool xcopy_parse(const uint8_t *p, size_t len, struct xcopy_list *out, struct xcopy_err *err);

#endif
