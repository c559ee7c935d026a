/* test_scsi_cmd_flow.c — a WRITE whose Expected Data Transfer Length differs
 * from its CDB (scsi_cmd_flow.c, trim_to_edtl): carried out exactly as far as
 * the initiator's data reaches, byte for byte, never acknowledged and
 * dropped (the in-memory LU writes what it is given, as handler_lunlab's
 * sbc_write does after the transport trimmed the CDB); and that the LU learns
 * when the command arrived (lu_cmd.arrival_ns), before its data.  libiscsi sends the commands (the same way
 * iscsi-test-cu's iSCSIResiduals tests do) to the real transport on
 * 127.0.0.1 with an in-memory 512-byte LU behind it; every case reads the
 * blocks back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"
#include "mem_backend.h"
#include "loopback_target.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"

#define IQN "iqn.2026-11.org.lunlab:cmd-flow"
#define BS 512

static char portal[64];
static struct lu_backend *lu0;
static struct iscsi_context *ic;

static int group_setup(void **state)
{
	g_target.iqn = IQN;
	g_target.quiet = true;
	g_target.max_sessions = 16;
	lu0 = mem_backend_new(1u << 20, BS);
	lu_table_reset();
	lu_table_add(lu0);
	snprintf(portal, sizeof(portal), "127.0.0.1:%u", loopback_target_start(1));
	ic = iscsi_create_context("iqn.2026-11.org.lunlab:cmd-flow-initiator");
	iscsi_set_targetname(ic, IQN);
	iscsi_set_session_type(ic, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(ic, 10);
	if (iscsi_full_connect_sync(ic, portal, 0) != 0)
		fail_msg("login failed: %s", iscsi_get_error(ic));
	return 0;
}

static int group_teardown(void **state)
{
	iscsi_logout_sync(ic);
	iscsi_destroy_context(ic);
	loopback_target_stop();
	mem_backend_free(lu0);
	io_threads_free();
	lu_table_reset();
	return 0;
}

/* blocks LBA 0.. filled with 'a' */
static void fill_a(unsigned blocks)
{
	uint8_t buf[8 * BS];
	memset(buf, 'a', sizeof(buf));
	struct scsi_task *t = iscsi_write10_sync(ic, 0, 0, buf, blocks * BS, BS, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	scsi_free_scsi_task(t);
}

/* how many leading bytes of LBA 0.. are 'b', and that the rest of n blocks is 'a' */
static size_t count_b(unsigned blocks)
{
	struct scsi_task *t = iscsi_read10_sync(ic, 0, 0, blocks * BS, BS, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	size_t n = 0;
	while (n < blocks * BS && t->datain.data[n] == 'b')
		n++;
	for (size_t i = n; i < blocks * BS; i++)
		assert_int_equal(t->datain.data[i], 'a');
	scsi_free_scsi_task(t);
	return n;
}

struct answer {
	int status;
	int key, asc, ascq;
	enum scsi_residual residual_status;
	size_t residual;
};

/* opcode 0x2a (WRITE(10)), 0x2e (WRITE AND VERIFY(10)) or 0x8a (WRITE(16))
 * of `blocks` blocks of 'b' at LBA 0, with EDTL edtl */
static struct answer write_edtl(uint8_t opcode, unsigned blocks, uint32_t edtl)
{
	static uint8_t buf[16384];
	struct iscsi_data data = { .size = edtl, .data = buf };
	struct scsi_task *task = calloc(1, sizeof(*task));
	struct answer a;

	memset(buf, 'b', sizeof(buf));
	task->cdb[0] = opcode;
	if (opcode == SCSI_OP_WRITE_16) {
		task->cdb[13] = (uint8_t)blocks;
		task->cdb_size = 16;
	} else {
		task->cdb[8] = (uint8_t)blocks;
		task->cdb_size = 10;
	}
	task->xfer_dir = SCSI_XFER_WRITE;
	task->expxferlen = edtl;
	assert_non_null(iscsi_scsi_command_sync(ic, 0, task, edtl ? &data : NULL));
	a.status = task->status;
	a.key = task->sense.key;
	a.asc = task->sense.ascq >> 8;
	a.ascq = task->sense.ascq & 0xff;
	a.residual_status = task->residual_status;
	a.residual = task->residual;
	scsi_free_scsi_task(task);
	return a;
}

/* EDTL ending inside a block: GOOD with the overflow residual, and exactly
 * EDTL bytes written (the block keeps its other bytes) - what iscsi-test-cu's
 * newer Write10Residuals checks; before, nothing was written at all. */
static void partial_block_written_as_far_as_data_reaches(void **state)
{
	static const uint8_t ops[] = { 0x2a, 0x8a };
	for (size_t k = 0; k < sizeof(ops); k++) {
		fill_a(4);
		struct answer a = write_edtl(ops[k], 1, 200);
		assert_int_equal(a.status, SCSI_STATUS_GOOD);
		assert_int_equal(a.residual_status, SCSI_RESIDUAL_OVERFLOW);
		assert_int_equal(a.residual, BS - 200);
		assert_int_equal(count_b(4), 200);
		/* 1.95 blocks of data for 3 (R2T for the part beyond the first burst) */
		fill_a(4);
		a = write_edtl(ops[k], 3, 1000);
		assert_int_equal(a.status, SCSI_STATUS_GOOD);
		assert_int_equal(a.residual_status, SCSI_RESIDUAL_OVERFLOW);
		assert_int_equal(a.residual, 3 * BS - 1000);
		assert_int_equal(count_b(4), 1000);
	}
}

/* EDTL a whole number of blocks below the CDB's: those blocks are written,
 * GOOD with the overflow residual; EDTL 0: nothing written, GOOD, the whole
 * transfer as residual (libiscsi 1.19's Write10Residuals expects GOOD). */
static void whole_blocks_written_as_far_as_data_reaches(void **state)
{
	fill_a(4);
	struct answer a = write_edtl(0x2a, 3, 2 * BS);
	assert_int_equal(a.status, SCSI_STATUS_GOOD);
	assert_int_equal(a.residual_status, SCSI_RESIDUAL_OVERFLOW);
	assert_int_equal(a.residual, BS);
	assert_int_equal(count_b(4), 2 * BS);

	fill_a(4);
	a = write_edtl(0x8a, 1, 0);
	assert_int_equal(a.status, SCSI_STATUS_GOOD);
	assert_int_equal(a.residual_status, SCSI_RESIDUAL_OVERFLOW);
	assert_int_equal(a.residual, BS);
	assert_int_equal(count_b(4), 0);
}

/* EDTL above the CDB's: the CDB's blocks are written, the rest of the data
 * ignored, GOOD with the underflow residual. */
static void extra_data_ignored(void **state)
{
	fill_a(4);
	struct answer a = write_edtl(0x2a, 1, 10000);
	assert_int_equal(a.status, SCSI_STATUS_GOOD);
	assert_int_equal(a.residual_status, SCSI_RESIDUAL_UNDERFLOW);
	assert_int_equal(a.residual, 10000 - BS);
	assert_int_equal(count_b(4), BS);
	/* and the exact length: no residual */
	fill_a(4);
	a = write_edtl(0x2a, 2, 2 * BS);
	assert_int_equal(a.status, SCSI_STATUS_GOOD);
	assert_int_equal(a.residual_status, SCSI_RESIDUAL_NO_RESIDUAL);
	assert_int_equal(count_b(4), 2 * BS);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* lu_cmd.arrival_ns: when the SCSI Command PDU came in, before its data (a
 * WRITE reaches the LU only after every R2T round trip), on the same clock
 * a paced LU uses. */
static void arrival_is_the_command_pdu(void **state)
{
	static uint8_t buf[1 << 20];
	memset(buf, 'c', sizeof(buf));
	uint64_t before = mono_ns();
	struct scsi_task *t = iscsi_write10_sync(ic, 0, 0, buf, sizeof(buf), BS, 0, 0, 0, 0, 0);
	uint64_t after = mono_ns();
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	scsi_free_scsi_task(t);
	uint64_t arrival = mem_backend_last_arrival(lu0);
	assert_true(arrival >= before);
	assert_true(arrival <= after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(partial_block_written_as_far_as_data_reaches),
		cmocka_unit_test(whole_blocks_written_as_far_as_data_reaches),
		cmocka_unit_test(extra_data_ignored),
		cmocka_unit_test(arrival_is_the_command_pdu),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
