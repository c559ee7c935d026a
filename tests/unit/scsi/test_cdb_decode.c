/* test_cdb_decode.c - the CDB decoder (scsi/cdb_decode.c) and its layout table
 * (scsi/cdb_layout.c) against every command it lists.  The expectations below are written
 * from SBC-4 / SPC-4 independently of the table: each CDB is built by hand from them (not
 * with cdb_build), decoded, and its LBA, length, direction and transfer bytes compared.
 * The table must list exactly the commands expected here, and exactly the commands of
 * handler_lunlab.so's opcode table (handlers/scsi/opcodes.c) plus the target-only ones, with
 * the same CDB lengths: the two tables cannot drift apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"

#define BS 4096u

/* what a command moves, as the standard words it */
enum moves {
	M_NONE,     /* nothing */
	M_BLOCKS,   /* length blocks */
	M_BYTES,    /* length bytes (allocation / parameter list length) */
	M_ONE,      /* one block (WRITE SAME) */
	M_TWICE,    /* 2 x length blocks (COMPARE AND WRITE) */
	M_EIGHT,    /* 8 bytes (READ CAPACITY(10)) */
	M_BYTCHK,   /* BYTCHK 00b: nothing (VERIFY; the test sets 00b) */
};

struct expect {
	uint8_t op;
	bool has_sa;
	uint16_t sa;
	uint8_t len;                /* CDB bytes */
	uint8_t lba_off, lba_bytes; /* 0 bytes: no LBA */
	uint8_t len_off, len_bytes; /* 0 bytes: no length field */
	enum moves moves;
	enum cdb_dir dir;
};

#define N false, 0
#define S(x) true, SCSI_SA_##x
static const struct expect expected[] = {
	{ SCSI_OP_TEST_UNIT_READY, N, 6, 0, 0, 0, 0, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_REQUEST_SENSE, N, 6, 0, 0, 4, 1, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_READ_6, N, 6, 1, 3, 4, 1, M_BLOCKS, CDB_DIR_IN },
	{ SCSI_OP_WRITE_6, N, 6, 1, 3, 4, 1, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_INQUIRY, N, 6, 0, 0, 3, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_MODE_SELECT_6, N, 6, 0, 0, 4, 1, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_RESERVE_6, N, 6, 0, 0, 0, 0, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_RELEASE_6, N, 6, 0, 0, 0, 0, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_MODE_SENSE_6, N, 6, 0, 0, 4, 1, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_READ_CAPACITY_10, N, 10, 0, 0, 0, 0, M_EIGHT, CDB_DIR_IN },
	{ SCSI_OP_READ_10, N, 10, 2, 4, 7, 2, M_BLOCKS, CDB_DIR_IN },
	{ SCSI_OP_WRITE_10, N, 10, 2, 4, 7, 2, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_WRITE_AND_VERIFY_10, N, 10, 2, 4, 7, 2, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_VERIFY_10, N, 10, 2, 4, 7, 2, M_BYTCHK, CDB_DIR_NONE },
	{ SCSI_OP_PRE_FETCH_10, N, 10, 2, 4, 7, 2, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_SYNCHRONIZE_CACHE_10, N, 10, 2, 4, 7, 2, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_READ_DEFECT_DATA_10, N, 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_WRITE_SAME_10, N, 10, 2, 4, 7, 2, M_ONE, CDB_DIR_OUT },
	{ SCSI_OP_UNMAP, N, 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_LOG_SELECT, N, 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_LOG_SENSE, N, 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_MODE_SELECT_10, N, 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_RESERVE_10, N, 10, 0, 0, 0, 0, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_RELEASE_10, N, 10, 0, 0, 0, 0, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_MODE_SENSE_10, N, 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_PERSISTENT_RESERVE_IN, S(PRIN_READ_KEYS), 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_PERSISTENT_RESERVE_IN, S(PRIN_READ_RESERVATION), 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_PERSISTENT_RESERVE_IN, S(PRIN_REPORT_CAPABILITIES), 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_PERSISTENT_RESERVE_IN, S(PRIN_READ_FULL_STATUS), 10, 0, 0, 7, 2, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_REGISTER), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_RESERVE), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_RELEASE), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_CLEAR), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_PREEMPT), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_PREEMPT_AND_ABORT), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_PERSISTENT_RESERVE_OUT, S(PROUT_REGISTER_AND_IGNORE), 10, 0, 0, 5, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_THIRD_PARTY_COPY_OUT, S(EXTENDED_COPY_LID1), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_THIRD_PARTY_COPY_OUT, S(POPULATE_TOKEN), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_THIRD_PARTY_COPY_OUT, S(WRITE_USING_TOKEN), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_THIRD_PARTY_COPY_OUT, S(COPY_OPERATION_ABORT), 16, 0, 0, 0, 0, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_THIRD_PARTY_COPY_IN, S(RECEIVE_COPY_STATUS_LID1), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_THIRD_PARTY_COPY_IN, S(RECEIVE_COPY_OPERATING_PARAMETERS), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_THIRD_PARTY_COPY_IN, S(RECEIVE_COPY_FAILURE_DETAILS_LID1), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_THIRD_PARTY_COPY_IN, S(RECEIVE_ROD_TOKEN_INFORMATION), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_READ_16, N, 16, 2, 8, 10, 4, M_BLOCKS, CDB_DIR_IN },
	{ SCSI_OP_COMPARE_AND_WRITE, N, 16, 2, 8, 13, 1, M_TWICE, CDB_DIR_OUT },
	{ SCSI_OP_WRITE_16, N, 16, 2, 8, 10, 4, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_ORWRITE_16, N, 16, 2, 8, 10, 4, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_WRITE_AND_VERIFY_16, N, 16, 2, 8, 10, 4, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_VERIFY_16, N, 16, 2, 8, 10, 4, M_BYTCHK, CDB_DIR_NONE },
	{ SCSI_OP_PRE_FETCH_16, N, 16, 2, 8, 10, 4, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_SYNCHRONIZE_CACHE_16, N, 16, 2, 8, 10, 4, M_NONE, CDB_DIR_NONE },
	{ SCSI_OP_WRITE_SAME_16, N, 16, 2, 8, 10, 4, M_ONE, CDB_DIR_OUT },
	{ SCSI_OP_WRITE_ATOMIC_16, N, 16, 2, 8, 12, 2, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_SERVICE_ACTION_IN_16, S(READ_CAPACITY_16), 16, 0, 0, 10, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_SERVICE_ACTION_IN_16, S(GET_LBA_STATUS), 16, 2, 8, 10, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_REPORT_LUNS, N, 12, 0, 0, 6, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_MAINTENANCE_IN, S(REPORT_TARGET_PORT_GROUPS), 12, 0, 0, 6, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_MAINTENANCE_IN, S(REPORT_SUPPORTED_OPCODES), 12, 0, 0, 6, 4, M_BYTES, CDB_DIR_IN },
	{ SCSI_OP_MAINTENANCE_OUT, S(SET_TARGET_PORT_GROUPS), 12, 0, 0, 6, 4, M_BYTES, CDB_DIR_OUT },
	{ SCSI_OP_READ_12, N, 12, 2, 4, 6, 4, M_BLOCKS, CDB_DIR_IN },
	{ SCSI_OP_WRITE_12, N, 12, 2, 4, 6, 4, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_WRITE_AND_VERIFY_12, N, 12, 2, 4, 6, 4, M_BLOCKS, CDB_DIR_OUT },
	{ SCSI_OP_VERIFY_12, N, 12, 2, 4, 6, 4, M_BYTCHK, CDB_DIR_NONE },
	{ SCSI_OP_READ_DEFECT_DATA_12, N, 12, 0, 0, 6, 4, M_BYTES, CDB_DIR_IN },
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static const struct expect *expectation(uint8_t op, uint16_t sa)
{
	for (size_t i = 0; i < N_EXPECTED; i++)
		if (expected[i].op == op && (!expected[i].has_sa || expected[i].sa == sa))
			return &expected[i];
	return NULL;
}

/* a value that fills the field with distinct bytes (the LBA of READ(6): 21 bits) */
static uint64_t lba_for(const struct expect *e)
{
	switch (e->lba_bytes) {
	case 3: return 0x1abcde;
	case 4: return 0x89abcdefu;
	case 8: return 0x0123456789abcdefull;
	default: return 0;
	}
}

static uint32_t len_for(const struct expect *e)
{
	switch (e->len_bytes) {
	case 1: return 0x9a;
	case 2: return 0x1234;
	case 4: return 0x00123456;
	default: return 0;
	}
}

/* the CDB by hand: big-endian fields at the expected offsets; bytes 2.. outside them hold
 * filler, so a field read at the wrong place or of the wrong size picks filler up */
static void build(uint8_t *cdb, const struct expect *e, uint64_t lba, uint32_t len, uint8_t filler)
{
	memset(cdb, 0, CDB_MAX_LEN);
	memset(cdb + 2, filler, e->len - 2u);
	cdb[0] = e->op;
	if (e->has_sa)
		cdb[1] = (uint8_t)e->sa;
	for (unsigned i = 0; i < e->lba_bytes; i++)
		cdb[e->lba_off + i] = (uint8_t)(lba >> (8 * (e->lba_bytes - 1 - i)));
	for (unsigned i = 0; i < e->len_bytes; i++)
		cdb[e->len_off + i] = (uint8_t)(len >> (8 * (e->len_bytes - 1 - i)));
}

static uint64_t moved(const struct expect *e, uint32_t len)
{
	switch (e->moves) {
	case M_BLOCKS: return (uint64_t)len * BS;
	case M_BYTES: return len;
	case M_ONE: return BS;
	case M_TWICE: return 2ull * len * BS;
	case M_EIGHT: return 8;
	default: return 0;
	}
}

/* every row of the table decodes a hand-built CDB to the expected fields, and rejects the
 * same CDB one byte short */
static void test_every_row_decodes(void **state)
{
	uint8_t cdb[CDB_MAX_LEN];
	struct cdb_info info;

	(void)state;
	assert_int_equal(cdb_layout_count(), N_EXPECTED);
	for (size_t i = 0; i < cdb_layout_count(); i++) {
		const struct cdb_layout *l = cdb_layout_at(i);
		const struct expect *e = expectation(l->opcode, l->sa);

		assert_non_null(e);
		assert_int_equal(l->has_sa, e->has_sa);
		assert_int_equal(l->cdb_len, e->len);
		uint64_t lba = lba_for(e);
		uint32_t len = len_for(e);
		build(cdb, e, lba, len, 0xa5);
		assert_int_equal(cdb_decode(cdb, e->len, BS, &info), CDB_DECODE_OK);
		assert_ptr_equal(info.layout, l);
		assert_ptr_equal(cdb_layout_of(cdb, e->len), l); /* the layout alone, the same row */
		assert_true(info.lba == lba);
		assert_int_equal(info.length, len);
		assert_true(info.xfer_bytes == moved(e, len));
		assert_int_equal(info.dir, e->dir);
		assert_int_equal(info.flags, 0);

		/* one byte short: refused before any field is read (ASan sees an overread) */
		assert_int_equal(cdb_decode(cdb, e->len - 1u, BS, &info), CDB_DECODE_SHORT);
		assert_null(info.layout);
		assert_null(cdb_layout_of(cdb, e->len - 1u));
		assert_true(info.lba == 0 && info.length == 0 && info.xfer_bytes == 0);
	}
}

/* the handler's opcode table and the layout table name the same commands, with the same
 * CDB lengths; only target-only rows are absent from the handler's */
static void test_handler_table_agrees(void **state)
{
	size_t target_only = 0;

	(void)state;
	for (size_t i = 0; i < scsi_op_count(); i++) {
		const struct scsi_op *op = scsi_op_at(i);
		const struct cdb_layout *l = cdb_layout_find(op->opcode, op->sa);

		assert_non_null(l);
		assert_int_equal(l->has_sa, scsi_op_has_sa(op));
		if (scsi_op_has_sa(op))
			assert_int_equal(l->sa, op->sa);
		assert_int_equal(scsi_op_cdb_len(op), l->cdb_len); /* read from the row */
		assert_false(l->props & CDB_L_TARGET_ONLY);
		/* the handler's READ class is the decoder's */
		assert_int_equal(op->kind == COST_READ, l->cls == CDB_CLASS_READ);
	}
	for (size_t i = 0; i < cdb_layout_count(); i++) {
		const struct cdb_layout *l = cdb_layout_at(i);
		const struct scsi_op *op = scsi_op_find(l->opcode, l->sa, NULL, NULL);

		if (l->props & CDB_L_TARGET_ONLY) {
			assert_null(op);
			target_only++;
			continue;
		}
		assert_non_null(op);
		assert_int_equal(op->opcode, l->opcode);
		assert_int_equal(op->sa, l->sa);
	}
	assert_int_equal(scsi_op_count() + target_only, cdb_layout_count());
}

static void test_six_byte_edges(void **state)
{
	uint8_t r6[6] = { SCSI_OP_READ_6, 0xff, 0xff, 0xfe, 0x00, 0 };
	struct cdb_info info;

	(void)state;
	assert_int_equal(cdb_decode(r6, sizeof(r6), 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.lba, 0x1ffffe); /* byte 1's top three bits are not LBA */
	assert_int_equal(info.length, 256);   /* SBC-4: TRANSFER LENGTH 0 is 256 blocks */
	assert_true(info.xfer_bytes == 256 * 512);
	assert_int_equal(info.dir, CDB_DIR_IN);
	r6[4] = 1;
	assert_int_equal(cdb_decode(r6, sizeof(r6), 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.length, 1);
	/* an allocation length of 0 in a 6-byte CDB is 0, not 256 */
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 0, 0 };
	assert_int_equal(cdb_decode(inq, sizeof(inq), 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.length, 0);
	assert_int_equal(info.dir, CDB_DIR_NONE);
}

static void test_flags_and_bytchk(void **state)
{
	uint8_t c[16] = { 0 };
	struct cdb_info info;

	(void)state;
	c[0] = SCSI_OP_WRITE_10;
	c[1] = 0x18; /* DPO, FUA */
	c[8] = 2;
	assert_int_equal(cdb_decode(c, 10, 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.flags, CDB_F_FUA | CDB_F_DPO);
	assert_true(info.xfer_bytes == 1024);

	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_SYNCHRONIZE_CACHE_16;
	c[1] = 0x02; /* IMMED */
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.flags, CDB_F_IMMED);
	assert_true(info.layout->props & CDB_L_ZERO_TO_END);

	/* VERIFY: BYTCHK 00b none, 01b every block, 11b one block for all */
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_VERIFY_16;
	c[13] = 4;
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_OK);
	assert_true(info.xfer_bytes == 0 && info.dir == CDB_DIR_NONE && info.bytchk == 0);
	c[1] = 0x02;
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_OK);
	assert_true(info.xfer_bytes == 4 * 512 && info.dir == CDB_DIR_OUT && info.bytchk == 1);
	assert_int_equal(info.flags, CDB_F_BYTCHK);
	c[1] = 0x06;
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_OK);
	assert_true(info.xfer_bytes == 512 && info.bytchk == 3);

	/* WRITE SAME(16): one block of data, none with NDOB; UNMAP and ANCHOR read */
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_WRITE_SAME_16;
	c[1] = 0x18; /* ANCHOR, UNMAP */
	c[13] = 100;
	assert_int_equal(cdb_decode(c, 16, 4096, &info), CDB_DECODE_OK);
	assert_int_equal(info.flags, CDB_F_UNMAP | CDB_F_ANCHOR);
	assert_true(info.xfer_bytes == 4096 && info.length == 100);
	c[1] = 0x01;
	assert_int_equal(cdb_decode(c, 16, 4096, &info), CDB_DECODE_OK);
	assert_int_equal(info.flags, CDB_F_NDOB);
	assert_true(info.xfer_bytes == 0 && info.dir == CDB_DIR_NONE);

	/* a flag the command does not have is not reported (TEST UNIT READY byte 1) */
	uint8_t tur[6] = { SCSI_OP_TEST_UNIT_READY, 0xff };
	assert_int_equal(cdb_decode(tur, 6, 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.flags, 0);
}

static void test_rejections(void **state)
{
	uint8_t c[CDB_MAX_LEN] = { 0 };
	struct cdb_info info;

	(void)state;
	assert_int_equal(cdb_decode(NULL, 16, 512, &info), CDB_DECODE_EMPTY);
	assert_int_equal(cdb_decode(c, 0, 512, &info), CDB_DECODE_EMPTY);
	assert_null(cdb_layout_of(NULL, 16));
	assert_null(cdb_layout_of(c, 0));
	c[0] = SCSI_OP_WRITE_BUFFER; /* not a command lunlab has */
	assert_int_equal(cdb_decode(c, 10, 512, &info), CDB_DECODE_UNKNOWN_OPCODE);
	assert_null(info.layout);
	assert_null(cdb_layout_of(c, 10));
	c[0] = 0xc0; /* vendor specific group */
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_UNKNOWN_OPCODE);
	/* a service action opcode: its action must be readable, then known */
	c[0] = SCSI_OP_SERVICE_ACTION_IN_16;
	assert_int_equal(cdb_decode(c, 1, 512, &info), CDB_DECODE_SHORT);
	assert_null(cdb_layout_of(c, 1));
	c[1] = SCSI_SA_READ_LONG_16;
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_UNKNOWN_SA);
	assert_null(cdb_layout_of(c, 16));
	c[1] = SCSI_SA_READ_CAPACITY_16 | 0xe0; /* bits above the action are not the action */
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_OK);
	assert_int_equal(info.layout->sa, SCSI_SA_READ_CAPACITY_16);
	assert_ptr_equal(cdb_layout_of(c, 16), info.layout);
	/* 32-byte variable-length CDBs: none in the table; the action sits in bytes 8..9 */
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_VARIABLE_LENGTH_CDB;
	put_be16(c + 8, SCSI_SA_READ_32);
	assert_int_equal(cdb_service_action(c, 9), -1);
	assert_int_equal(cdb_service_action(c, 32), SCSI_SA_READ_32);
	assert_int_equal(cdb_decode(c, 32, 512, &info), CDB_DECODE_UNKNOWN_OPCODE);

	/* every status has its own line */
	for (int a = CDB_DECODE_OK; a <= CDB_DECODE_UNKNOWN_SA; a++)
		for (int b = a + 1; b <= CDB_DECODE_UNKNOWN_SA; b++)
			assert_string_not_equal(cdb_decode_status_str(a), cdb_decode_status_str(b));
	assert_non_null(strstr(cdb_decode_status_str(CDB_DECODE_SHORT), "shorter"));
}

/* cdb_build writes what cdb_decode reads, for every row; out-of-range values are refused */
static void test_build_and_set_length(void **state)
{
	uint8_t c[CDB_MAX_LEN], hand[CDB_MAX_LEN];
	struct cdb_info info;

	(void)state;
	for (size_t i = 0; i < N_EXPECTED; i++) {
		const struct expect *e = &expected[i];
		uint64_t lba = lba_for(e);
		uint32_t len = len_for(e);

		assert_true(cdb_build(c, sizeof(c), e->op, e->sa, lba, len));
		build(hand, e, lba, len, 0);
		assert_memory_equal(c, hand, sizeof(c));
		assert_false(cdb_build(c, e->len - 1u, e->op, e->sa, lba, len));
	}
	assert_true(cdb_build(c, 6, SCSI_OP_WRITE_6, 0, 7, 256));
	assert_int_equal(c[4], 0); /* 256 blocks are written as 0 */
	assert_false(cdb_build(c, 6, SCSI_OP_WRITE_6, 0, 7, 257));
	assert_false(cdb_build(c, 6, SCSI_OP_WRITE_6, 0, 7, 0));
	assert_false(cdb_build(c, 6, SCSI_OP_WRITE_6, 0, 1u << 21, 1));
	assert_false(cdb_build(c, 10, SCSI_OP_READ_10, 0, 1ull << 32, 1));
	assert_false(cdb_build(c, 10, SCSI_OP_READ_10, 0, 0, 0x10000));
	assert_false(cdb_build(c, 6, SCSI_OP_TEST_UNIT_READY, 0, 1, 0)); /* it has no LBA */
	assert_false(cdb_build(c, 16, SCSI_OP_WRITE_BUFFER, 0, 0, 0));

	assert_true(cdb_build(c, 16, SCSI_OP_READ_16, 0, 99, 1000));
	assert_true(cdb_set_length(c, 16, 8));
	assert_int_equal(cdb_decode(c, 16, 512, &info), CDB_DECODE_OK);
	assert_true(info.lba == 99 && info.length == 8);
	assert_true(cdb_build(c, 10, SCSI_OP_WRITE_10, 0, 5, 1));
	assert_false(cdb_set_length(c, 10, 0x10000));
	assert_true(cdb_build(c, 6, SCSI_OP_TEST_UNIT_READY, 0, 0, 0));
	assert_false(cdb_set_length(c, 6, 1)); /* no length field */
}

static void test_typical_and_props(void **state)
{
	uint8_t c[16] = { 0 };

	(void)state;
	assert_int_equal(cdb_layout_typical(0x08)->cdb_len, 6);
	assert_int_equal(cdb_layout_typical(0x28)->cdb_len, 10);
	assert_int_equal(cdb_layout_typical(0x55)->cdb_len, 10);
	assert_int_equal(cdb_layout_typical(0x88)->cdb_len, 16);
	assert_int_equal(cdb_layout_typical(0xa8)->cdb_len, 12);
	assert_null(cdb_layout_typical(SCSI_OP_VARIABLE_LENGTH_CDB));
	assert_null(cdb_layout_typical(0xc0));
	assert_null(cdb_layout_typical(0xe0));
	/* a typical 16-byte CDB: LBA at 2..9, TRANSFER LENGTH at 10..13, raw */
	put_be64(c + 2, 0x1122334455667788ull);
	put_be32(c + 10, 0xa0b0c0d0u);
	assert_true(cdb_layout_lba(cdb_layout_typical(0x88), c) == 0x1122334455667788ull);
	assert_int_equal(cdb_layout_length(cdb_layout_typical(0x88), c), 0xa0b0c0d0u);
	c[4] = 0; /* 6-byte: 0 stays 0 through the raw reader */
	assert_int_equal(cdb_layout_length(cdb_layout_typical(0x08), c), 0);

	assert_true(cdb_opcode_props(SCSI_OP_PERSISTENT_RESERVE_OUT) & CDB_L_NOT_REPEATABLE);
	assert_true(cdb_opcode_props(SCSI_OP_COMPARE_AND_WRITE) & CDB_L_NOT_REPEATABLE);
	assert_false(cdb_opcode_props(SCSI_OP_WRITE_16) & CDB_L_NOT_REPEATABLE);
	assert_true(cdb_opcode_props(SCSI_OP_INQUIRY) & CDB_L_UA_EXEMPT);
	assert_true(cdb_opcode_props(SCSI_OP_WRITE_AND_VERIFY_12) & CDB_L_DIVISIBLE);
	assert_false(cdb_opcode_props(SCSI_OP_WRITE_ATOMIC_16) & CDB_L_DIVISIBLE);
	assert_int_equal(cdb_opcode_props(SCSI_OP_WRITE_BUFFER), 0);
}

/* cdb_byte_length: the target-owned commands' ALLOCATION / PARAMETER LIST LENGTH, each at
 * its own offset and width; 0 for a block count, an unknown service action or a short CDB */
static void test_byte_length(void **state)
{
	uint8_t c[16];

	(void)state;
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_REQUEST_SENSE;
	c[4] = 0xfc;
	assert_int_equal(cdb_byte_length(c, 6), 0xfc);
	assert_int_equal(cdb_byte_length(c, 5), 0); /* shorter than REQUEST SENSE's 6 bytes */
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_INQUIRY;
	put_be16(c + 3, 0x1234);
	assert_int_equal(cdb_byte_length(c, 6), 0x1234);
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_PERSISTENT_RESERVE_IN;
	c[1] = SCSI_SA_PRIN_READ_KEYS;
	put_be16(c + 7, 0x0203);
	assert_int_equal(cdb_byte_length(c, 10), 0x0203);
	c[1] = 0x1f; /* a service action PERSISTENT RESERVE IN does not have */
	assert_int_equal(cdb_byte_length(c, 10), 0);
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_PERSISTENT_RESERVE_OUT;
	c[1] = SCSI_SA_PROUT_REGISTER;
	put_be32(c + 5, 0x01020304u);
	assert_int_equal(cdb_byte_length(c, 10), 0x01020304u);
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_REPORT_LUNS;
	put_be32(c + 6, 0xa0b0c0d0u);
	assert_int_equal(cdb_byte_length(c, 12), 0xa0b0c0d0u);
	c[0] = SCSI_OP_MAINTENANCE_IN;
	c[1] = SCSI_SA_REPORT_TARGET_PORT_GROUPS;
	assert_int_equal(cdb_byte_length(c, 12), 0xa0b0c0d0u);
	c[0] = SCSI_OP_MAINTENANCE_OUT;
	c[1] = SCSI_SA_SET_TARGET_PORT_GROUPS;
	assert_int_equal(cdb_byte_length(c, 12), 0xa0b0c0d0u);
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_READ_10; /* TRANSFER LENGTH counts blocks */
	put_be16(c + 7, 8);
	assert_int_equal(cdb_byte_length(c, 10), 0);
	assert_int_equal(cdb_byte_length(NULL, 0), 0);
}

/* 3-byte length fields, READ BUFFER(10) and WRITE BUFFER's shape (SPC-4 6.19 / 6.43: bytes
 * 6..8, ALLOCATION / PARAMETER LIST LENGTH; no table row has one, lunlab serves neither):
 * read and written big-endian in exactly those three bytes, up to 0xffffff. */
static void test_three_byte_length(void **state)
{
	static const struct cdb_layout rb10 = { .opcode = SCSI_OP_READ_BUFFER_10, .cdb_len = 10, .len_off = 6,
						.len_size = 3, .len_kind = CDB_LEN_ALLOC, .dir = CDB_DIR_IN };
	static const struct cdb_layout wb10 = { .opcode = SCSI_OP_WRITE_BUFFER, .cdb_len = 10, .len_off = 6,
						.len_size = 3, .len_kind = CDB_LEN_PARAM, .dir = CDB_DIR_OUT };
	uint8_t c[10];

	(void)state;
	memset(c, 0xee, sizeof(c));
	c[0] = SCSI_OP_READ_BUFFER_10;
	c[6] = 0x12;
	c[7] = 0x34;
	c[8] = 0x56;
	assert_int_equal(cdb_layout_length(&rb10, c), 0x123456);
	memset(c, 0xee, sizeof(c));
	assert_true(cdb_layout_set_length(&wb10, c, sizeof(c), 0xabcdef));
	assert_int_equal(c[5], 0xee); /* only bytes 6..8 */
	assert_int_equal(c[6], 0xab);
	assert_int_equal(c[7], 0xcd);
	assert_int_equal(c[8], 0xef);
	assert_int_equal(c[9], 0xee);
	assert_int_equal(cdb_layout_length(&wb10, c), 0xabcdef);
	assert_true(cdb_layout_set_length(&wb10, c, sizeof(c), 0xffffff));
	assert_int_equal(cdb_layout_length(&wb10, c), 0xffffff);
	assert_false(cdb_layout_set_length(&wb10, c, sizeof(c), 0x1000000)); /* 25 bits: does not fit */
	assert_int_equal(cdb_layout_length(&wb10, c), 0xffffff);           /* untouched */
	assert_false(cdb_layout_set_length(&wb10, c, 9, 1));                 /* shorter than 10 bytes */
	/* the table's own fields through the same path: READ(10)'s 2 bytes */
	memset(c, 0, sizeof(c));
	c[0] = SCSI_OP_READ_10;
	assert_true(cdb_set_length(c, sizeof(c), 0xffff));
	assert_false(cdb_set_length(c, sizeof(c), 0x10000));
	assert_int_equal(get_be16(c + 7), 0xffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_decodes),
		cmocka_unit_test(test_handler_table_agrees),
		cmocka_unit_test(test_six_byte_edges),
		cmocka_unit_test(test_flags_and_bytchk),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_build_and_set_length),
		cmocka_unit_test(test_typical_and_props),
		cmocka_unit_test(test_byte_length),
		cmocka_unit_test(test_three_byte_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
