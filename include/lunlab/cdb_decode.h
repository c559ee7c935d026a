/* lunlab/cdb_decode.h - the one CDB decoder.  A layout table (common/cdb_layout.c) says, per
 * operation code and service action, how long the CDB is, where its LBA and its transfer /
 * allocation / parameter list length sit and in what unit, which way data moves, which flags
 * it carries (FUA, DPO, IMMED, BYTCHK ...) and what kind of command it is; cdb_decode() reads
 * one CDB through it.  The iSCSI transport (expected lengths, residuals), fault matching,
 * per-LU statistics, the embedded tcmu host, handler_lunlab.so and lunlab-bench all decode
 * here, so a new opcode is described once.
 *
 * The table holds every command handler_lunlab.so's opcode table (handlers/scsi/opcodes.c)
 * lists, plus the ones lunlab-target answers itself (CDB_L_TARGET_ONLY); the unit test
 * tests/unit/scsi/test_cdb_decode.c proves both tables name the same commands.  The opcode
 * table has no CDB length of its own: it takes each command's from its row here.
 *
 * Cost: a lookup is one index read and a scan of that opcode's service actions (at most a
 * handful); no allocation.  Linked as a static library with hidden symbols, so
 * handler_lunlab.so gains no dynamic symbol under tcmu-runner. */
#ifndef LUNLAB_CDB_DECODE_H
#define LUNLAB_CDB_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest CDB lunlab knows (VARIABLE LENGTH CDB: 32). */
#define CDB_MAX_LEN 32

/* Which way data moves (SAM-5): in = device server to initiator (Data-In). */
enum cdb_dir {
	CDB_DIR_NONE,
	CDB_DIR_IN,
	CDB_DIR_OUT,
};

/* What the length field counts and what it makes move. */
enum cdb_len_kind {
	CDB_LEN_NONE,     /* no length field; nothing moves (TEST UNIT READY, RESERVE) */
	CDB_LEN_FIXED,    /* no length field; layout->fixed_bytes move (READ CAPACITY(10): 8) */
	CDB_LEN_XFER,     /* TRANSFER LENGTH in blocks, all of them move (READ, WRITE, ORWRITE) */
	CDB_LEN_VERIFY,   /* blocks verified; BYTCHK says what moves: 00b none, 01b all, 11b one */
	CDB_LEN_SAME,     /* blocks written with one block of data (WRITE SAME; none with NDOB) */
	CDB_LEN_RANGE,    /* blocks addressed, nothing moves (SYNCHRONIZE CACHE, PRE-FETCH) */
	CDB_LEN_CAW,      /* NUMBER OF LOGICAL BLOCKS: twice that many move (compare + write) */
	CDB_LEN_ALLOC,    /* ALLOCATION LENGTH in bytes: at most this many move in */
	CDB_LEN_PARAM,    /* PARAMETER LIST LENGTH in bytes: this many move out */
};

/* What a command does, as statistics, fault rules and the transport group commands. */
enum cdb_class {
	CDB_CLASS_OTHER,
	CDB_CLASS_READ,       /* READ(6/10/12/16) */
	CDB_CLASS_WRITE,      /* WRITE(6/10/12/16), WRITE AND VERIFY, WRITE ATOMIC(16) */
	CDB_CLASS_WRITE_SAME, /* WRITE SAME(10/16) */
	CDB_CLASS_UNMAP,
	CDB_CLASS_CAW,        /* COMPARE AND WRITE */
	CDB_CLASS_XCOPY,      /* EXTENDED COPY */
	CDB_CLASS_SYNC,       /* SYNCHRONIZE CACHE(10/16) */
	CDB_CLASS_TUR,        /* TEST UNIT READY */
};

/* Flags a CDB carries, all in byte 1 (SBC-4); layout->flags says which a command has,
 * cdb_info.flags which are set in this CDB. */
#define CDB_F_FUA    (1u << 0) /* bit 3: force unit access */
#define CDB_F_DPO    (1u << 1) /* bit 4: disable page out */
#define CDB_F_IMMED  (1u << 2) /* bit 1: status before the operation completes */
#define CDB_F_BYTCHK (1u << 3) /* bits 2..1: cdb_info.bytchk holds the field */
#define CDB_F_UNMAP  (1u << 4) /* bit 3 of WRITE SAME: unmap the blocks */
#define CDB_F_ANCHOR (1u << 5) /* bit 4 of WRITE SAME: anchor the blocks */
#define CDB_F_NDOB   (1u << 6) /* bit 0 of WRITE SAME(16): no data-out buffer */

/* Properties of a command (layout->props). */
#define CDB_L_ZERO_IS_256  (1u << 0) /* READ(6)/WRITE(6): TRANSFER LENGTH 0 means 256 blocks */
#define CDB_L_ZERO_TO_END  (1u << 1) /* length 0 means "to the last LBA" (SYNC CACHE, WRITE SAME) */
#define CDB_L_DIVISIBLE    (1u << 2) /* its blocks may be cut short: the transport trims it to
					* the initiator's EDTL (READ, WRITE, WRITE AND VERIFY) */
#define CDB_L_UA_EXEMPT    (1u << 3) /* runs despite a pending unit attention (SAM-5 5.14:
					* INQUIRY, REPORT LUNS, REQUEST SENSE); fault op=any
					* leaves it alone */
#define CDB_L_NOT_REPEATABLE (1u << 4) /* repeating it after a partial execution could change
					  the outcome: an initiator must not retry it blindly */
#define CDB_L_TARGET_ONLY  (1u << 5) /* answered by lunlab-target's transport, never by the
					* handler, not in the handler's opcode table */

struct cdb_layout {
	uint8_t opcode;
	bool has_sa;          /* service action: byte 1 bits 4..0 (VARIABLE LENGTH CDB: 8..9) */
	uint16_t sa;
	uint8_t cdb_len;      /* bytes of the CDB */
	uint8_t lba_off;      /* LBA field: offset and bytes (0: none; 3: READ(6)'s 21 bits) */
	uint8_t lba_size;
	uint8_t len_off;      /* length field: offset and bytes (0: none) */
	uint8_t len_size;
	uint8_t len_kind;     /* enum cdb_len_kind */
	uint8_t dir;          /* enum cdb_dir when data moves */
	uint8_t cls;          /* enum cdb_class */
	uint8_t flags;        /* CDB_F_* the CDB can carry */
	uint8_t props;        /* CDB_L_* */
	uint16_t fixed_bytes; /* CDB_LEN_FIXED: bytes moved */
};

/* One decoded CDB. */
struct cdb_info {
	const struct cdb_layout *layout;
	uint64_t lba;         /* 0 when the command has no LBA */
	uint32_t length;      /* the length field (blocks or bytes per len_kind); READ(6)/WRITE(6)
			       * 0 is 256 here; 0 when there is no field */
	uint8_t flags;        /* CDB_F_* set in this CDB */
	uint8_t bytchk;       /* BYTCHK field (VERIFY, WRITE AND VERIFY), else 0 */
	enum cdb_dir dir;     /* this CDB's direction: NONE when nothing moves (VERIFY BYTCHK 0,
			       * a length of 0) */
	uint64_t xfer_bytes;  /* bytes this CDB moves for the block size given (ALLOC: at most) */
};

enum cdb_decode_status {
	CDB_DECODE_OK,
	CDB_DECODE_EMPTY,          /* no CDB at all (NULL or 0 bytes) */
	CDB_DECODE_SHORT,          /* fewer bytes than the opcode's CDB length (or its service action) */
	CDB_DECODE_UNKNOWN_OPCODE, /* not in the table */
	CDB_DECODE_UNKNOWN_SA,     /* the opcode is, this service action is not */
};

/* Decode cdb (size bytes readable) for an LU of block_size bytes.  Bounds-checked: never
 * reads past size, nor past the opcode's CDB length.  *out is filled on CDB_DECODE_OK and
 * zeroed (layout NULL) otherwise. */
enum cdb_decode_status cdb_decode(const uint8_t *cdb, size_t size, uint32_t block_size, struct cdb_info *out);

/* The layout cdb_decode would find for cdb (size bytes), or NULL where it would not return
 * CDB_DECODE_OK, without reading any field: for callers that want only the command's class
 * on every command (target/lu/lu_stats.c's kind, ~80 instructions less than a decode). */
const struct cdb_layout *cdb_layout_of(const uint8_t *cdb, size_t size);

/* One line naming what is wrong: "CDB shorter than its operation code's length" ... */
const char *cdb_decode_status_str(enum cdb_decode_status s);

/* The layout of (opcode, sa); sa is ignored for opcodes without service actions.  NULL if
 * not in the table. */
const struct cdb_layout *cdb_layout_find(uint8_t opcode, uint16_t sa);

/* The service action of a CDB of size bytes (0 for opcodes without one; -1 when the CDB is
 * too short to hold it). */
int cdb_service_action(const uint8_t *cdb, size_t size);

/* The CDB_L_* properties of an opcode whatever its service action (the
 * union over its entries; 0 if unknown): for callers that keep only the opcode. */
uint8_t cdb_opcode_props(uint8_t opcode);

/* Every entry, in opcode then service-action order (tests, RSOC cross-checks). */
size_t cdb_layout_count(void);
const struct cdb_layout *cdb_layout_at(size_t i);

/* The typical CDB of the opcode's group code (SPC-4 4.2.5: 6, 10, 12, 16 bytes with LBA and
 * TRANSFER LENGTH at their usual places), for opcodes the table does not know (libtcmu's
 * tcmu_cdb_get_* helpers); NULL for groups 3 (variable), 6 and 7 (vendor specific). */
const struct cdb_layout *cdb_layout_typical(uint8_t opcode);
/* A field read through a layout: the LBA / the raw length field (no 0 = 256), 0 if the
 * layout has none.  Length fields are 1, 2, 3 (READ/WRITE BUFFER(10)'s shape, SPC-4) or 4
 * bytes, big-endian.  cdb must hold layout->cdb_len bytes. */
uint64_t cdb_layout_lba(const struct cdb_layout *l, const uint8_t *cdb);
uint32_t cdb_layout_length(const struct cdb_layout *l, const uint8_t *cdb);
/* Write the length field through a layout (the rules of cdb_set_length below); false, cdb
 * untouched, when size is below layout->cdb_len, the layout has no length field or the value
 * does not fit it (3 bytes: at most 0xffffff). */
bool cdb_layout_set_length(const struct cdb_layout *l, uint8_t *cdb, size_t size, uint32_t length);

/* The ALLOCATION LENGTH or PARAMETER LIST LENGTH of a CDB of size bytes, read through the
 * table: what the commands lunlab-target answers itself (INQUIRY, REQUEST SENSE, REPORT
 * LUNS, PERSISTENT RESERVE IN/OUT, REPORT/SET TARGET PORT GROUPS) need of it.  The field's
 * raw value; 0 when the CDB does not decode (unknown command or service action, shorter
 * than its CDB length) or its length counts blocks, not bytes. */
uint32_t cdb_byte_length(const uint8_t *cdb, size_t size);

/* Write a CDB per the table: zero size bytes, set opcode, service action, LBA and length
 * field.  False (cdb untouched) when the command is unknown, size is below its CDB length,
 * or lba / length do not fit their fields (READ(6): LBA below 2^21, 1..256 blocks, 256
 * written as 0). */
bool cdb_build(uint8_t *cdb, size_t size, uint8_t opcode, uint16_t sa, uint64_t lba, uint32_t length);
/* Rewrite the length field of a CDB in place (same rules); false when the command has none
 * or the value does not fit. */
bool cdb_set_length(uint8_t *cdb, size_t size, uint32_t length);

#endif
