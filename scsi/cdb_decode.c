/* cdb_decode.c - the CDB decoder (lunlab/cdb_decode.h): finds a CDB's row in the layout
 * table (cdb_layout.c) through a per-opcode index, and reads its fields through the row. */
#include "lunlab/cdb_decode.h"

#include <pthread.h>
#include <string.h>

#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* Per opcode: its first row + 1 (0: unknown) and how many rows it has.  Built once from the
 * table, so adding a row needs no second list; rows of one opcode are adjacent. */
static uint8_t first_row[256], row_count[256];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void build_index(void)
{
	for (size_t i = 0; i < cdb_layout_count(); i++) {
		uint8_t op = cdb_layout_at(i)->opcode;

		if (!first_row[op])
			first_row[op] = (uint8_t)(i + 1);
		row_count[op]++;
	}
}

static const struct cdb_layout *rows_of(uint8_t opcode, unsigned *n)
{
	pthread_once(&index_once, build_index);
	*n = row_count[opcode];
	return first_row[opcode] ? cdb_layout_at(first_row[opcode] - 1u) : NULL;
}

const struct cdb_layout *cdb_layout_find(uint8_t opcode, uint16_t sa)
{
	unsigned n;
	const struct cdb_layout *l = rows_of(opcode, &n);

	for (unsigned i = 0; l && i < n; i++)
		if (!l[i].has_sa || l[i].sa == sa)
			return &l[i];
	return NULL;
}

uint8_t cdb_opcode_props(uint8_t opcode)
{
	unsigned n;
	const struct cdb_layout *l = rows_of(opcode, &n);
	uint8_t props = 0;

	for (unsigned i = 0; l && i < n; i++)
		props |= l[i].props;
	return props;
}

int cdb_service_action(const uint8_t *cdb, size_t size)
{
	if (!cdb || size < 1)
		return -1;
	if (!scsi_opcode_has_sa(cdb[0]))
		return 0;
	if (cdb[0] == SCSI_OP_VARIABLE_LENGTH_CDB) /* SERVICE ACTION in bytes 8..9 */
		return size >= 10 ? get_be16(cdb + 8) : -1;
	return size >= 2 ? cdb[1] & SCSI_SA_MASK : -1;
}

uint64_t cdb_layout_lba(const struct cdb_layout *l, const uint8_t *cdb)
{
	switch (l->lba_size) {
	case 3: return get_be24(cdb + l->lba_off) & 0x1fffff; /* READ(6)/WRITE(6): 21 bits */
	case 4: return get_be32(cdb + l->lba_off);
	case 8: return get_be64(cdb + l->lba_off);
	default: return 0;
	}
}

uint32_t cdb_layout_length(const struct cdb_layout *l, const uint8_t *cdb)
{
	switch (l->len_size) {
	case 1: return cdb[l->len_off];
	case 2: return get_be16(cdb + l->len_off);
	case 3: return get_be24(cdb + l->len_off); /* READ/WRITE BUFFER(10)'s shape (SPC-4) */
	case 4: return get_be32(cdb + l->len_off);
	default: return 0;
	}
}

/* Bytes the command moves for its length n (after 0 = 256) and BYTCHK. */
static uint64_t xfer_bytes(const struct cdb_layout *l, uint32_t n, uint8_t bytchk, uint8_t flags, uint32_t bs)
{
	switch (l->len_kind) {
	case CDB_LEN_FIXED:
		return l->fixed_bytes;
	case CDB_LEN_XFER:
		return (uint64_t)n * bs;
	case CDB_LEN_VERIFY: /* SBC-4 5.30: 01b every block is sent, 11b one block for all */
		return bytchk == 1 ? (uint64_t)n * bs : bytchk == 3 && n ? bs : 0;
	case CDB_LEN_SAME:
		return flags & CDB_F_NDOB ? 0 : bs;
	case CDB_LEN_CAW: /* the compare blocks, then the write blocks */
		return 2 * (uint64_t)n * bs;
	case CDB_LEN_ALLOC:
	case CDB_LEN_PARAM:
		return n;
	default: /* NONE, RANGE */
		return 0;
	}
}

/* The CDB_F_* of byte 1 each flag stands for (bits of one byte, SBC-4) */
static uint8_t flags_of(const struct cdb_layout *l, uint8_t b1, uint8_t *bytchk)
{
	uint8_t f = 0;

	*bytchk = 0;
	if ((l->flags & CDB_F_FUA) && (b1 & 0x08))
		f |= CDB_F_FUA;
	if ((l->flags & CDB_F_DPO) && (b1 & 0x10))
		f |= CDB_F_DPO;
	if ((l->flags & CDB_F_IMMED) && (b1 & 0x02))
		f |= CDB_F_IMMED;
	if (l->flags & CDB_F_BYTCHK) {
		*bytchk = (b1 >> 1) & 0x03;
		if (*bytchk)
			f |= CDB_F_BYTCHK;
	}
	if ((l->flags & CDB_F_UNMAP) && (b1 & 0x08))
		f |= CDB_F_UNMAP;
	if ((l->flags & CDB_F_ANCHOR) && (b1 & 0x10))
		f |= CDB_F_ANCHOR;
	if ((l->flags & CDB_F_NDOB) && (b1 & 0x01))
		f |= CDB_F_NDOB;
	return f;
}

/* The row of a CDB of size bytes: cdb_decode's checks, without reading a field. */
static enum cdb_decode_status find_layout(const uint8_t *cdb, size_t size, const struct cdb_layout **out)
{
	const struct cdb_layout *l;
	unsigned n;

	if (!cdb || size < 1)
		return CDB_DECODE_EMPTY;
	l = rows_of(cdb[0], &n);
	if (!l)
		return CDB_DECODE_UNKNOWN_OPCODE;
	if (l->has_sa) {
		int sa = cdb_service_action(cdb, size);

		if (sa < 0)
			return CDB_DECODE_SHORT;
		l = cdb_layout_find(cdb[0], (uint16_t)sa);
		if (!l)
			return CDB_DECODE_UNKNOWN_SA;
	}
	if (size < l->cdb_len)
		return CDB_DECODE_SHORT;
	*out = l;
	return CDB_DECODE_OK;
}

const struct cdb_layout *cdb_layout_of(const uint8_t *cdb, size_t size)
{
	const struct cdb_layout *l = NULL;

	return find_layout(cdb, size, &l) == CDB_DECODE_OK ? l : NULL;
}

enum cdb_decode_status cdb_decode(const uint8_t *cdb, size_t size, uint32_t block_size, struct cdb_info *out)
{
	const struct cdb_layout *l = NULL;
	enum cdb_decode_status st;

	memset(out, 0, sizeof(*out));
	st = find_layout(cdb, size, &l);
	if (st != CDB_DECODE_OK)
		return st;

	out->layout = l;
	out->lba = cdb_layout_lba(l, cdb);
	out->length = cdb_layout_length(l, cdb);
	if (out->length == 0 && (l->props & CDB_L_ZERO_IS_256))
		out->length = 256;
	out->flags = flags_of(l, cdb[1], &out->bytchk);
	out->xfer_bytes = xfer_bytes(l, out->length, out->bytchk, out->flags, block_size);
	out->dir = out->xfer_bytes ? (enum cdb_dir)l->dir : CDB_DIR_NONE;
	return CDB_DECODE_OK;
}

uint32_t cdb_byte_length(const uint8_t *cdb, size_t size)
{
	struct cdb_info info;

	if (cdb_decode(cdb, size, 0, &info) != CDB_DECODE_OK ||
	    (info.layout->len_kind != CDB_LEN_ALLOC && info.layout->len_kind != CDB_LEN_PARAM))
		return 0;
	return info.length;
}

const char *cdb_decode_status_str(enum cdb_decode_status s)
{
	switch (s) {
	case CDB_DECODE_OK: return "CDB decoded";
	case CDB_DECODE_EMPTY: return "no CDB";
	case CDB_DECODE_SHORT: return "CDB shorter than its operation code's CDB length";
	case CDB_DECODE_UNKNOWN_OPCODE: return "operation code not in the CDB layout table";
	case CDB_DECODE_UNKNOWN_SA: return "service action not in the CDB layout table";
	default: return "unknown CDB decode status";
	}
}

/* Whether v fits the layout's length field (READ(6)/WRITE(6): 1..256, 256 written as 0). */
static bool length_fits(const struct cdb_layout *l, uint32_t v)
{
	if (l->props & CDB_L_ZERO_IS_256)
		return v >= 1 && v <= 256;
	switch (l->len_size) {
	case 0: return v == 0;
	case 1: return v <= 0xff;
	case 2: return v <= 0xffff;
	case 3: return v <= 0xffffff;
	default: return true;
	}
}

static void put_length(const struct cdb_layout *l, uint8_t *cdb, uint32_t v)
{
	switch (l->len_size) {
	case 1: cdb[l->len_off] = (uint8_t)(v == 256 ? 0 : v); break;
	case 2: put_be16(cdb + l->len_off, (uint16_t)v); break;
	case 3: put_be24(cdb + l->len_off, v); break;
	case 4: put_be32(cdb + l->len_off, v); break;
	default: break;
	}
}

bool cdb_build(uint8_t *cdb, size_t size, uint8_t opcode, uint16_t sa, uint64_t lba, uint32_t length)
{
	const struct cdb_layout *l = cdb_layout_find(opcode, sa);

	if (!cdb || !l || size < l->cdb_len || !length_fits(l, length))
		return false;
	if ((l->lba_size == 0 && lba) || (l->lba_size == 3 && lba > 0x1fffff) ||
	    (l->lba_size == 4 && lba > UINT32_MAX))
		return false;
	memset(cdb, 0, size);
	cdb[0] = opcode;
	if (l->has_sa)
		cdb[1] = (uint8_t)(l->sa & SCSI_SA_MASK);
	switch (l->lba_size) {
	case 3: put_be24(cdb + l->lba_off, (uint32_t)lba); break;
	case 4: put_be32(cdb + l->lba_off, (uint32_t)lba); break;
	case 8: put_be64(cdb + l->lba_off, lba); break;
	default: break;
	}
	put_length(l, cdb, length);
	return true;
}

bool cdb_layout_set_length(const struct cdb_layout *l, uint8_t *cdb, size_t size, uint32_t length)
{
	if (!l || !cdb || size < l->cdb_len || !l->len_size || !length_fits(l, length))
		return false;
	put_length(l, cdb, length);
	return true;
}

bool cdb_set_length(uint8_t *cdb, size_t size, uint32_t length)
{
	struct cdb_info info;

	if (cdb_decode(cdb, size, 0, &info) != CDB_DECODE_OK)
		return false;
	return cdb_layout_set_length(info.layout, cdb, size, length);
}
