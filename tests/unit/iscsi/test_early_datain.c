/* test_early_datain.c — lu_cmd.data_ready: a READ's Data-In leaves before
 * its status.  A test-only LU fills the buffer, calls data_ready, and calls
 * done() only later (200 ms, like a paced handler), or at once (done racing
 * the early send), or with CHECK CONDITION after the data.  A raw socket
 * sees the PDUs and when they arrive. */
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
#define HOLD_MS 200
/* LBAs that choose the LU's behaviour */
enum { LBA_SLOW_GOOD = 0, LBA_SLOW_CHECK = 1, LBA_FAST_GOOD = 2, LBA_NO_READY = 3 };

static int port;
static atomic_int ready_calls, ready_offered;

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
	if (lba != LBA_FAST_GOOD)
		usleep(HOLD_MS * 1000);
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
	lc->done(lc);
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
	usleep((HOLD_MS + 100) * 1000); /* let detached command threads finish */
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

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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
	send_pdu(fd, bhs, NULL, 0);
}

/* Receives Data-In PDUs until a SCSI Response: checks offsets, DataSN,
 * the pattern, no S bit on any Data-In; returns data bytes and when the
 * first and the last Data-In arrived. */
static uint32_t collect(int fd, uint32_t itt, uint32_t lba, uint8_t *rsp, uint8_t *rsp_data,
			double *first_ms, double *last_ms, uint32_t *pdus)
{
	static uint8_t data[16384];
	uint32_t total = 0, n = 0;

	*first_ms = *last_ms = -1;
	for (;;) {
		uint32_t dlen = recv_pdu(fd, rsp, data, sizeof(data));

		if (rsp[0] == ISCSI_OP_SCSI_RSP) {
			memcpy(rsp_data, data, dlen);
			break;
		}
		assert_int_equal(rsp[0], ISCSI_OP_DATA_IN);
		assert_int_equal(get_be32(rsp + 16), itt);
		assert_false(rsp[1] & ISCSI_DATAIN_STATUS); /* status comes separately */
		assert_int_equal(get_be32(rsp + 36), n);     /* DataSN */
		assert_int_equal(get_be32(rsp + 40), total); /* BufferOffset */
		for (uint32_t i = 0; i < dlen; i++)
			assert_int_equal(data[i], pattern(lba, total + i));
		if (*first_ms < 0)
			*first_ms = now_ms();
		*last_ms = now_ms();
		total += dlen;
		n++;
	}
	*pdus = n;
	return total;
}

static void data_before_status(void **state)
{
	uint8_t rsp[48], rsp_data[300];
	uint32_t statsn, pdus;
	int fd = login(&statsn);
	double t0, first, last, status_at;

	(void)state;
	atomic_store(&ready_calls, 0);
	/* 16 KiB in two 8 KiB Data-In PDUs, then GOOD 200 ms after data_ready */
	t0 = now_ms();
	read10(fd, 0x21, 1, LBA_SLOW_GOOD, 32, 32 * BS);
	assert_int_equal(collect(fd, 0x21, LBA_SLOW_GOOD, rsp, rsp_data, &first, &last, &pdus), 32 * BS);
	status_at = now_ms();
	assert_int_equal(pdus, 2);
	assert_int_equal(atomic_load(&ready_calls), 1);
	/* the data left long before the LU completed; the status after it did */
	assert_true(last - t0 < HOLD_MS / 2);
	assert_true(status_at - t0 >= HOLD_MS - 5);
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
	double first, last;

	(void)state;
	read10(fd, 0x31, 1, LBA_SLOW_CHECK, 4, 4 * BS);
	assert_int_equal(collect(fd, 0x31, LBA_SLOW_CHECK, rsp, rsp_data, &first, &last, &pdus), 4 * BS);
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
	double first, last;

	(void)state;
	read10(fd, 0x41, 1, LBA_SLOW_GOOD, 2, 3 * BS);
	assert_int_equal(collect(fd, 0x41, LBA_SLOW_GOOD, rsp, rsp_data, &first, &last, &pdus), 2 * BS);
	assert_int_equal(rsp[3], 0x00);
	assert_int_equal(rsp[1], ISCSI_FLAG_FINAL | ISCSI_FLAG_UNDERFLOW);
	assert_int_equal(get_be32(rsp + 44), BS);

	read10(fd, 0x42, 2, LBA_SLOW_GOOD, 4, 3 * BS);
	assert_int_equal(collect(fd, 0x42, LBA_SLOW_GOOD, rsp, rsp_data, &first, &last, &pdus), 3 * BS);
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
	double first, last;

	(void)state;
	for (uint32_t i = 0; i < 200; i++) {
		read10(fd, 0x100 + i, 1 + i, LBA_FAST_GOOD, 24, 24 * BS);
		assert_int_equal(collect(fd, 0x100 + i, LBA_FAST_GOOD, rsp, rsp_data, &first, &last, &pdus),
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
