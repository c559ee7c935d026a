/* test_early_datain.c — lu_cmd.data_ready: a READ's Data-In leaves before
 * its status.  A test-only LU fills the buffer, calls data_ready, and calls
 * done() only when the test opens a gate (like a paced handler holding the
 * status), or at once (done racing the early send), or with CHECK CONDITION
 * after the data.  A raw socket sees the PDUs.
 *
 * "Before" is an order, not a time: the gate opens only once every Data-In
 * byte has arrived, so a target that held the data until done() would never
 * deliver it (the test fails on its hang guard), and the status is checked
 * to come after done().  (It used to be "the data within 100 ms, the status
 * after 195 ms" of a 200 ms sleep, which a loaded machine can break.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "loopback_target.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/listener.h"
#include "target/iscsi/pdu.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"

#define IQN "iqn.2026-11.org.lunlab:early"
#define BS 512u
/* hang guard only: how long a Data-In may take to come while the LU holds
 * its status (on an idle machine: well under a millisecond) */
#define GUARD_MS 60000
/* LBAs that choose the LU's behaviour */
enum { LBA_SLOW_GOOD = 0, LBA_SLOW_CHECK = 1, LBA_FAST_GOOD = 2, LBA_NO_READY = 3 };

static int port;
static atomic_int ready_calls, ready_offered;

/* the gate a held command waits at before done(); closed by read10 for the
 * held LBAs, opened by collect() once all their data is in */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open = true;
static atomic_int lu_completed; /* held commands whose done() was called */
static atomic_int in_flight;    /* detached command threads still running */

static void set_gate(bool open)
{
	pthread_mutex_lock(&gate_mu);
	gate_open = open;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_mu);
}

static bool held_lba(uint64_t lba)
{
	return lba == LBA_SLOW_GOOD || lba == LBA_SLOW_CHECK;
}

/* ---- the test LU: one detached thread per command ---- */

static uint8_t pattern(uint64_t lba, size_t i)
{
	return (uint8_t)(lba * 31 + i * 7 + 1);
}

static void *slow_cmd(void *arg)
{
	struct lu_cmd *lc = arg;
	uint64_t lba = ((uint64_t)lc->cdb[2] << 24) | ((uint64_t)lc->cdb[3] << 16) |
		       ((uint64_t)lc->cdb[4] << 8) | lc->cdb[5];
	size_t len = ((size_t)lc->cdb[7] << 8 | lc->cdb[8]) * BS;
	uint8_t *buf = lc->iov_cnt ? lc->iov[0].iov_base : NULL;

	if (len > lc->xfer_len)
		len = lc->xfer_len;
	for (size_t i = 0; buf && i < len; i++)
		buf[i] = pattern(lba, i);
	if (lc->data_ready) {
		atomic_fetch_add(&ready_offered, 1);
		if (lba != LBA_NO_READY) {
			atomic_fetch_add(&ready_calls, 1);
			lc->data_ready(lc);
		}
	}
	if (held_lba(lba)) {
		pthread_mutex_lock(&gate_mu);
		while (!gate_open)
			pthread_cond_wait(&gate_cv, &gate_mu);
		pthread_mutex_unlock(&gate_mu);
	}
	if (lba == LBA_SLOW_CHECK) {
		static const uint8_t sense[18] = { 0x70, 0, 0x03, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x11, 0x00 };
		lc->status = SCSI_STAT_CHECK_CONDITION;
		memcpy(lc->sense, sense, 18);
		lc->sense_len = 18;
		lc->data_len = 0;
	} else {
		lc->status = 0;
		lc->sense_len = 0;
		lc->data_len = len;
	}
	if (held_lba(lba))
		atomic_fetch_add(&lu_completed, 1);
	lc->done(lc);
	atomic_fetch_sub(&in_flight, 1);
	return NULL;
}

static void slow_submit(struct lu_backend *be, struct lu_cmd *lc)
{
	pthread_t t;

	(void)be;
	if (lc->cdb[0] != SCSI_OP_READ_10) { /* only READ(10) is used here */
		lc->status = 0;
		lc->sense_len = 0;
		lc->data_len = 0;
		lc->done(lc);
		return;
	}
	atomic_fetch_add(&in_flight, 1);
	assert_int_equal(pthread_create(&t, NULL, slow_cmd, lc), 0);
	pthread_detach(t);
}

static void slow_abort(struct lu_backend *be, uint64_t nexus) { (void)be; (void)nexus; }
static void slow_destroy(struct lu_backend *be) { (void)be; }

static const struct lu_backend_ops slow_ops = {
	.submit = slow_submit, .abort_nexus = slow_abort, .destroy = slow_destroy,
};
static struct lu_backend slow_lu = { .ops = &slow_ops, .block_size = BS, .num_lbas = 2048 };

/* ---- target and raw initiator ---- */

static int group_setup(void **state)
{
	(void)state;
	g_target.iqn = IQN;
	g_target.quiet = true;
	g_target.max_sessions = 100;
	lu_table_reset();
	lu_table_add(&slow_lu);
	port = (int)loopback_target_start(1);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	set_gate(true);
	while (atomic_load(&in_flight)) /* the detached command threads finish */
		usleep(1000);
	loopback_target_stop();
	io_threads_free();
	lu_table_reset();
	return 0;
}

static void send_pdu(int fd, uint8_t *bhs, const void *data, uint32_t dlen)
{
	static const uint8_t pad[3];

	put_be24(bhs + 5, dlen);
	fd_write_all(fd, bhs, 48);
	if (dlen) {
		fd_write_all(fd, data, dlen);
		fd_write_all(fd, pad, pdu_pad4(dlen));
	}
}

static uint32_t recv_pdu(int fd, uint8_t *bhs, uint8_t *data, size_t cap)
{
	uint32_t dlen;

	fd_read_all(fd, bhs, 48);
	dlen = bhs_data_len(bhs);
	assert_true(dlen + pdu_pad4(dlen) <= cap);
	if (dlen)
		fd_read_all(fd, data, dlen + pdu_pad4(dlen));
	return dlen;
}

static int login(uint32_t *statsn)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static const char keys[] = "InitiatorName=iqn.2026-11.org.lunlab:early-ini\0TargetName=" IQN
				   "\0SessionType=Normal\0HeaderDigest=None\0DataDigest=None\0"
				   "MaxRecvDataSegmentLength=8192\0";
	uint8_t bhs[48], data[8192];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_LOGIN_REQ;
	bhs[1] = ISCSI_LOGIN_TRANSIT | 0x04 | 0x03; /* operational -> full feature */
	memcpy(bhs + 8, "\x80\x00\x00\x02\x00\x00", 6);
	/* the port has had its power-on unit attention (test_raw_pdu.c tests it) */
	(void)lu_power_on_claim(0, "iqn.2026-11.org.lunlab:early-ini", bhs + 8);
	put_be32(bhs + 16, 1);
	put_be32(bhs + 24, 1);
	send_pdu(fd, bhs, keys, sizeof(keys) - 1);
	recv_pdu(fd, bhs, data, sizeof(data));
	assert_int_equal(bhs[0], ISCSI_OP_LOGIN_RSP);
	assert_int_equal(bhs[36], 0);
	*statsn = get_be32(bhs + 24);
	return fd;
}

static void read10(int fd, uint32_t itt, uint32_t cmdsn, uint32_t lba, uint16_t blocks, uint32_t edtl)
{
	uint8_t bhs[48] = { 0 };

	bhs[0] = ISCSI_OP_SCSI_CMD;
	bhs[1] = ISCSI_FLAG_FINAL | ISCSI_CMD_READ | 0x01;
	put_be32(bhs + 16, itt);
	put_be32(bhs + 20, edtl);
	put_be32(bhs + 24, cmdsn);
	bhs[32] = 0x28;
	put_be32(bhs + 34, lba);
	put_be16(bhs + 39, blocks);
	if (held_lba(lba)) {
		atomic_store(&lu_completed, 0);
		set_gate(false);
	}
	send_pdu(fd, bhs, NULL, 0);
}

/* Receives Data-In PDUs until a SCSI Response: checks offsets, DataSN,
 * the pattern, no S bit on any Data-In; returns data bytes.  For a held LBA
 * the LU has not completed while the data comes: the gate opens once
 * `expect` bytes are in, and the status must come after the LU's done(). */
static uint32_t collect(int fd, uint32_t itt, uint32_t lba, uint32_t expect, uint8_t *rsp, uint8_t *rsp_data,
			uint32_t *pdus)
{
	static uint8_t data[16384];
	uint32_t total = 0, n = 0;

	for (;;) {
		uint32_t dlen;

		if (held_lba(lba) && total < expect) {
			/* the LU is held: the Data-In must come without its done() */
			struct pollfd p = { .fd = fd, .events = POLLIN };
			if (poll(&p, 1, GUARD_MS) != 1)
				fail_msg("no Data-In within %d ms while the LU held its status", GUARD_MS);
			assert_int_equal(atomic_load(&lu_completed), 0);
		}
		dlen = recv_pdu(fd, rsp, data, sizeof(data));
		if (rsp[0] == ISCSI_OP_SCSI_RSP) {
			memcpy(rsp_data, data, dlen);
			if (held_lba(lba))
				assert_int_equal(atomic_load(&lu_completed), 1); /* status after done() */
			break;
		}
		assert_int_equal(rsp[0], ISCSI_OP_DATA_IN);
		assert_int_equal(get_be32(rsp + 16), itt);
		assert_false(rsp[1] & ISCSI_DATAIN_STATUS); /* status comes separately */
		assert_int_equal(get_be32(rsp + 36), n);     /* DataSN */
		assert_int_equal(get_be32(rsp + 40), total); /* BufferOffset */
		for (uint32_t i = 0; i < dlen; i++)
			assert_int_equal(data[i], pattern(lba, total + i));
		total += dlen;
		n++;
		if (held_lba(lba) && total == expect)
			set_gate(true); /* all the data came while the LU held: let it complete */
	}
	*pdus = n;
	return total;
}

static void data_before_status(void **state)
{
	uint8_t rsp[48], rsp_data[300];
	uint32_t statsn, pdus;
	int fd = login(&statsn);

	(void)state;
	atomic_store(&ready_calls, 0);
	/* 16 KiB in two 8 KiB Data-In PDUs while the LU holds its status (the
	 * data left before the LU completed), then GOOD after done() */
	read10(fd, 0x21, 1, LBA_SLOW_GOOD, 32, 32 * BS);
	assert_int_equal(collect(fd, 0x21, LBA_SLOW_GOOD, 32 * BS, rsp, rsp_data, &pdus), 32 * BS);
	assert_int_equal(pdus, 2);
	assert_int_equal(atomic_load(&ready_calls), 1);
	assert_int_equal(get_be32(rsp + 16), 0x21);
	assert_int_equal(rsp[1], ISCSI_FLAG_FINAL); /* no residual */
	assert_int_equal(rsp[3], 0x00);
	assert_int_equal(get_be32(rsp + 24), statsn + 1); /* the one after the Login Response */
	assert_int_equal(get_be32(rsp + 36), 2);      /* ExpDataSN: Data-In PDUs sent */
	assert_int_equal(get_be32(rsp + 44), 0);
	assert_int_equal(bhs_data_len(rsp), 0);
	close(fd);
}

static void check_condition_after_data(void **state)
{
	uint8_t rsp[48], rsp_data[300];
	uint32_t statsn, pdus;
	int fd = login(&statsn);

	(void)state;
	read10(fd, 0x31, 1, LBA_SLOW_CHECK, 4, 4 * BS);
	assert_int_equal(collect(fd, 0x31, LBA_SLOW_CHECK, 4 * BS, rsp, rsp_data, &pdus), 4 * BS);
	assert_int_equal(pdus, 1);
	assert_int_equal(rsp[3], 0x02);
	assert_int_equal(bhs_data_len(rsp), 20); /* SenseLength + 18 bytes */
	assert_int_equal(get_be16(rsp_data), 18);
	assert_int_equal(rsp_data[2 + 2], 0x03); /* MEDIUM ERROR */
	assert_int_equal(rsp_data[2 + 12], 0x11);
	assert_int_equal(get_be32(rsp + 36), 1);
	close(fd);
}

/* EDTL larger than the CDB: the early Data-In carries the CDB's bytes, the
 * response the underflow; EDTL smaller: the first EDTL bytes, overflow. */
static void residuals_with_early_data(void **state)
{
	uint8_t rsp[48], rsp_data[300];
	uint32_t statsn, pdus;
	int fd = login(&statsn);

	(void)state;
	read10(fd, 0x41, 1, LBA_SLOW_GOOD, 2, 3 * BS);
	assert_int_equal(collect(fd, 0x41, LBA_SLOW_GOOD, 2 * BS, rsp, rsp_data, &pdus), 2 * BS);
	assert_int_equal(rsp[3], 0x00);
	assert_int_equal(rsp[1], ISCSI_FLAG_FINAL | ISCSI_FLAG_UNDERFLOW);
	assert_int_equal(get_be32(rsp + 44), BS);

	read10(fd, 0x42, 2, LBA_SLOW_GOOD, 4, 3 * BS);
	assert_int_equal(collect(fd, 0x42, LBA_SLOW_GOOD, 3 * BS, rsp, rsp_data, &pdus), 3 * BS);
	assert_int_equal(rsp[3], 0x00);
	assert_int_equal(rsp[1], ISCSI_FLAG_FINAL | ISCSI_FLAG_OVERFLOW);
	assert_int_equal(get_be32(rsp + 44), BS);
	close(fd);
}

/* done() right after data_ready, on the LU's thread, many times: the two
 * events race into the I/O thread; every command still gets its data once
 * and one status. */
static void done_racing_data_ready(void **state)
{
	uint8_t rsp[48], rsp_data[300];
	uint32_t statsn, pdus;
	int fd = login(&statsn);

	(void)state;
	for (uint32_t i = 0; i < 200; i++) {
		read10(fd, 0x100 + i, 1 + i, LBA_FAST_GOOD, 24, 24 * BS);
		assert_int_equal(collect(fd, 0x100 + i, LBA_FAST_GOOD, 24 * BS, rsp, rsp_data, &pdus),
				 24 * BS);
		assert_int_equal(get_be32(rsp + 16), 0x100 + i);
		assert_int_equal(get_be32(rsp + 24), statsn + 1 + i);
		/* even when done() came in the same wake-up as data_ready, the
		 * data went first and the status once, in its own PDU */
		assert_int_equal(rsp[3], 0x00);
	}
	close(fd);
}

/* A LU that never calls data_ready: status collapsed into the last
 * Data-In as before, and the offer is made only for reads. */
static void no_data_ready_collapses_status(void **state)
{
	uint8_t bhs[48], data[8192];
	uint32_t statsn;
	int fd = login(&statsn);

	(void)state;
	atomic_store(&ready_offered, 0);
	read10(fd, 0x51, 1, LBA_NO_READY, 2, 2 * BS);
	assert_int_equal(recv_pdu(fd, bhs, data, sizeof(data)), 2 * BS);
	assert_int_equal(bhs[0], ISCSI_OP_DATA_IN);
	assert_int_equal(bhs[1], ISCSI_FLAG_FINAL | ISCSI_DATAIN_STATUS);
	assert_int_equal(bhs[3], 0x00);
	assert_int_equal(atomic_load(&ready_offered), 1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(data_before_status),
		cmocka_unit_test(check_condition_after_data),
		cmocka_unit_test(residuals_with_early_data),
		cmocka_unit_test(done_racing_data_ready),
		cmocka_unit_test(no_data_ready_collapses_status),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
