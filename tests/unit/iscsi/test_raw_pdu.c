/* test_raw_pdu.c — the transport on 127.0.0.1 driven PDU by PDU over a raw
 * socket, for what libiscsi cannot do: DataDigest=CRC32C both ways, a wrong
 * data digest (Reject 02h), an opcode the target does not know (Reject 05h),
 * NOP-Out ping echo, Logout closing the connection.  Test-only in-memory LU. */
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
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "loopback_target.h"
#include "mem_backend.h"
#include "target/iscsi/conn.h"
#include "target/iscsi/crc32c.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/listener.h"
#include "target/iscsi/pdu.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"

#define IQN "iqn.2026-11.org.lunlab:raw"

static int port;
static struct lu_backend *lu0;

static int group_setup(void **state)
{
	g_target.iqn = IQN;
	g_target.quiet = true;
	g_target.max_sessions = 100;
	lu0 = mem_backend_new(1 << 20, 512);
	lu_table_reset();
	lu_table_add(lu0);
	port = (int)loopback_target_start(1);
	return 0;
}

static int group_teardown(void **state)
{
	loopback_target_stop();
	mem_backend_free(lu0);
	io_threads_free();
	lu_table_reset();
	return 0;
}

static bool hd, dd; /* digests in effect on this connection */
static uint8_t login_isid = 1; /* last ISID byte: two live sessions need two */

/* corrupt: send a wrong data digest */
static void send_pdu(int fd, uint8_t *bhs, const void *data, uint32_t dlen, bool corrupt)
{
	uint8_t dig[4], pad[3] = { 0 };
	uint32_t p = pdu_pad4(dlen);

	put_be24(bhs + 5, dlen);
	fd_write_all(fd, bhs, 48);
	if (hd) {
		crc32c_put_wire(dig, ll_crc32c(0, bhs, 48));
		fd_write_all(fd, dig, 4);
	}
	if (!dlen)
		return;
	fd_write_all(fd, data, dlen);
	fd_write_all(fd, pad, p);
	if (dd) {
		uint32_t c = ll_crc32c(0, data, dlen);
		c = ll_crc32c(c, pad, p);
		crc32c_put_wire(dig, corrupt ? c ^ 1 : c);
		fd_write_all(fd, dig, 4);
	}
}

/* receives one PDU, checking its digests; returns the data length */
static uint32_t recv_pdu(int fd, uint8_t *bhs, uint8_t *data)
{
	uint8_t dig[4];
	uint32_t dlen, p;

	fd_read_all(fd, bhs, 48);
	if (hd) {
		fd_read_all(fd, dig, 4);
		assert_int_equal(crc32c_get_wire(dig), ll_crc32c(0, bhs, 48));
	}
	dlen = bhs_data_len(bhs);
	p = pdu_pad4(dlen);
	if (dlen) {
		fd_read_all(fd, data, dlen + p);
		if (dd) {
			fd_read_all(fd, dig, 4);
			assert_int_equal(crc32c_get_wire(dig), ll_crc32c(0, data, dlen + p));
		}
	}
	return dlen;
}

static int login_with(uint32_t *statsn, const char *extra, size_t extra_len);
static int login_fresh(uint32_t *statsn, const char *extra, size_t extra_len);

static int login(uint32_t *statsn)
{
	return login_with(statsn, "InitialR2T=Yes", 15);
}

#define RAW_INI "iqn.2026-11.org.lunlab:raw-ini"

/* The ISID login_fresh() sends. */
static void raw_isid(uint8_t isid[6])
{
	memcpy(isid, "\x80\x00\x00\x01\x00\x00", 6);
	isid[3] = login_isid;
}

/* A session whose port has had LU 0's power-on unit attention already
 * (power_on.h): the tests below are about the transport, and each would
 * otherwise have to spend its first command on 06/29/01.  The unit
 * attention itself: power_on_unit_attention_once_per_port. */
static int login_with(uint32_t *statsn, const char *extra, size_t extra_len)
{
	uint8_t isid[6];

	raw_isid(isid);
	(void)lu_power_on_claim(0, RAW_INI, isid);
	return login_fresh(statsn, extra, extra_len);
}

static int login_fresh(uint32_t *statsn, const char *extra, size_t extra_len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static const char keys[] = "InitiatorName=" RAW_INI "\0TargetName=" IQN
				   "\0SessionType=Normal\0HeaderDigest=CRC32C\0DataDigest=CRC32C\0"
				   "MaxRecvDataSegmentLength=8192\0";
	uint8_t bhs[48], data[8192];
	char all[1024];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memcpy(all, keys, sizeof(keys) - 1);
	memcpy(all + sizeof(keys) - 1, extra, extra_len);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	hd = dd = false;
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_LOGIN_REQ;
	bhs[1] = ISCSI_LOGIN_TRANSIT | 0x04 | 0x03; /* operational -> full feature */
	raw_isid(bhs + 8);
	put_be32(bhs + 16, 1);
	put_be32(bhs + 24, 1); /* CmdSN */
	send_pdu(fd, bhs, all, (uint32_t)(sizeof(keys) - 1 + extra_len), false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_LOGIN_RSP);
	assert_int_equal(bhs[36], 0);
	assert_int_not_equal(get_be16(bhs + 14), 0);
	assert_non_null(memmem(data, bhs_data_len(bhs), "DataDigest=CRC32C", 17));
	*statsn = get_be32(bhs + 24);
	hd = dd = true;
	return fd;
}

static void scsi_cmd(uint8_t *bhs, uint32_t itt, uint32_t cmdsn, uint8_t op, uint32_t edtl, bool write)
{
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_SCSI_CMD;
	bhs[1] = ISCSI_FLAG_FINAL | (write ? ISCSI_CMD_WRITE : ISCSI_CMD_READ) | 0x01; /* SIMPLE */
	put_be32(bhs + 16, itt);
	put_be32(bhs + 20, edtl);
	put_be32(bhs + 24, cmdsn);
	bhs[32] = op;
	put_be32(bhs + 34, 4); /* LBA 4 */
	bhs[40] = 1;           /* 1 block */
}

static void data_digest_both_ways(void **state)
{
	uint8_t bhs[48], data[8192], block[512];
	uint32_t statsn, cmdsn = 1;
	int fd = login(&statsn);

	for (int i = 0; i < 512; i++)
		block[i] = (uint8_t)(i * 7 + 3);
	/* WRITE(10) with the block as immediate data, digest right */
	scsi_cmd(bhs, 0x10, cmdsn++, 0x2a, 512, true);
	send_pdu(fd, bhs, block, 512, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_SCSI_RSP);
	assert_int_equal(get_be32(bhs + 16), 0x10);
	assert_int_equal(bhs[3], 0x00);
	assert_int_equal(get_be32(bhs + 24), statsn + 1);
	assert_int_equal(get_be32(bhs + 28), cmdsn); /* ExpCmdSN advanced */

	/* the same with a corrupted data digest: Reject, reason data digest */
	scsi_cmd(bhs, 0x11, cmdsn, 0x2a, 512, true);
	send_pdu(fd, bhs, block, 512, true);
	assert_int_equal(recv_pdu(fd, bhs, data), 48);
	assert_int_equal(bhs[0], ISCSI_OP_REJECT);
	assert_int_equal(bhs[2], ISCSI_REJECT_DATA_DIGEST);
	assert_int_equal(get_be32(data + 16), 0x11); /* the rejected header comes back */
	/* RFC 7143 7.8: the command is treated as never sent; CmdSN not consumed */
	assert_int_equal(get_be32(bhs + 28), cmdsn);

	/* READ(10): Data-In with status collapsed, data digest checked in recv_pdu */
	scsi_cmd(bhs, 0x12, cmdsn++, 0x28, 512, false);
	send_pdu(fd, bhs, NULL, 0, false);
	assert_int_equal(recv_pdu(fd, bhs, data), 512);
	assert_int_equal(bhs[0], ISCSI_OP_DATA_IN);
	assert_int_equal(bhs[1], ISCSI_FLAG_FINAL | ISCSI_DATAIN_STATUS);
	assert_int_equal(bhs[3], 0x00);
	assert_memory_equal(data, block, 512);

	/* NOP-Out ping: data echoed in the NOP-In */
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x13);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, cmdsn);
	send_pdu(fd, bhs, "hello", 5, false);
	assert_int_equal(recv_pdu(fd, bhs, data), 5);
	assert_int_equal(bhs[0], ISCSI_OP_NOP_IN);
	assert_int_equal(get_be32(bhs + 16), 0x13);
	assert_memory_equal(data, "hello", 5);

	/* an opcode no initiator may send: Reject, command not supported */
	memset(bhs, 0, 48);
	bhs[0] = 0x1c;
	put_be32(bhs + 16, 0x14);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_REJECT);
	assert_int_equal(bhs[2], ISCSI_REJECT_CMD_NOT_SUPPORTED);

	/* Logout (close session): response, then the target closes */
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_LOGOUT_REQ;
	bhs[1] = ISCSI_FLAG_FINAL | 0;
	put_be32(bhs + 16, 0x15);
	put_be32(bhs + 24, cmdsn);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_LOGOUT_RSP);
	assert_int_equal(bhs[2], 0);
	assert_int_equal(read(fd, data, 1), 0);
	close(fd);
}

static void header_digest_error_closes(void **state)
{
	uint8_t bhs[48], dig[4] = { 1, 2, 3, 4 }, b;
	uint32_t statsn;
	int fd = login(&statsn);

	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x20);
	fd_write_all(fd, bhs, 48);
	fd_write_all(fd, dig, 4); /* wrong header digest: framing cannot be trusted */
	assert_int_equal(read(fd, &b, 1), 0);
	close(fd);
}

static uint8_t tmf(int fd, uint8_t fn, uint8_t lun, uint32_t itt, uint32_t ref_itt, uint32_t cmdsn,
		   uint32_t ref_cmdsn)
{
	uint8_t bhs[48], data[64];

	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_TMF_REQ;
	bhs[1] = 0x80 | fn;
	bhs[9] = lun;
	put_be32(bhs + 16, itt);
	put_be32(bhs + 20, ref_itt);
	put_be32(bhs + 24, cmdsn);
	put_be32(bhs + 32, ref_cmdsn);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_TMF_RSP);
	assert_int_equal(get_be32(bhs + 16), itt);
	return bhs[2];
}

static void task_management(void **state)
{
	uint8_t bhs[48], data[8192], block[512] = { 0 };
	uint32_t statsn, cmdsn = 1, ttt;
	int fd = login(&statsn);

	/* a WRITE without immediate data waits for its R2T'd data */
	scsi_cmd(bhs, 0x30, cmdsn++, 0x2a, 512, true);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_R2T);
	assert_int_equal(get_be32(bhs + 16), 0x30);
	assert_int_equal(get_be32(bhs + 36), 0);   /* R2TSN */
	assert_int_equal(get_be32(bhs + 40), 0);   /* BufferOffset */
	assert_int_equal(get_be32(bhs + 44), 512); /* Desired Data Transfer Length */
	ttt = get_be32(bhs + 20);

	/* ABORT TASK: done at once, and the write never answers */
	assert_int_equal(tmf(fd, 1, 0, 0x31, 0x30, cmdsn, cmdsn - 1), 0);
	/* its Data-Out now finds no task and is dropped without a word */
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_DATA_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x30);
	put_be32(bhs + 20, ttt);
	send_pdu(fd, bhs, block, 512, false);
	/* the next thing we hear is the answer to this ping */
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x32);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, cmdsn);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_NOP_IN);
	assert_int_equal(get_be32(bhs + 16), 0x32);

	/* a task that already completed: TASK DOES NOT EXIST */
	assert_int_equal(tmf(fd, 1, 0, 0x33, 0x999, cmdsn, cmdsn - 1), 1);
	/* one not received yet (RefCmdSN in the window): FUNCTION COMPLETE */
	assert_int_equal(tmf(fd, 1, 0, 0x34, 0x998, cmdsn, cmdsn + 1), 0);
	assert_int_equal(tmf(fd, 2, 0, 0x35, 0, cmdsn, 0), 0);    /* ABORT TASK SET */
	assert_int_equal(tmf(fd, 5, 0, 0x36, 0, cmdsn, 0), 0);    /* LUN RESET */
	assert_int_equal(tmf(fd, 5, 7, 0x37, 0, cmdsn, 0), 2);    /* LUN RESET, no such LUN */
	assert_int_equal(tmf(fd, 6, 0, 0x38, 0, cmdsn, 0), 0);    /* TARGET WARM RESET */
	assert_int_equal(tmf(fd, 8, 0, 0x3a, 0, cmdsn, 0), 4);    /* TASK REASSIGN at ERL 0 */
	assert_int_equal(tmf(fd, 20, 0, 0x3b, 0, cmdsn, 0), 255); /* no such function */

	/* the session still works; the resets left it a UNIT ATTENTION
	 * (06/29/03, the resetting nexus included, as SAM-5 and LIO do) */
	scsi_cmd(bhs, 0x3c, cmdsn++, 0x28, 512, false);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_SCSI_RSP);
	assert_int_equal(bhs[3], 0x02);
	scsi_cmd(bhs, 0x3d, cmdsn++, 0x28, 512, false);
	send_pdu(fd, bhs, NULL, 0, false);
	assert_int_equal(recv_pdu(fd, bhs, data), 512);
	assert_int_equal(bhs[0], ISCSI_OP_DATA_IN);

	/* TARGET COLD RESET: FUNCTION COMPLETE, then the connection is gone
	 * (RFC 7143 11.5.1) */
	assert_int_equal(tmf(fd, 7, 0, 0x39, 0, cmdsn, 0), 0);
	assert_int_equal(read(fd, data, 1), 0);
	close(fd);
}

/* a data-less or short-Data-In command to LUN 0; returns the status and
 * leaves sense key/ASC/ASCQ in *ua (0 when none) */
static uint8_t simple_cmd(int fd, uint32_t itt, uint32_t cmdsn, uint8_t op, uint32_t *ua)
{
	uint8_t bhs[48], data[8192];

	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_SCSI_CMD;
	bhs[1] = ISCSI_FLAG_FINAL | 0x01 | (op == SCSI_OP_INQUIRY ? ISCSI_CMD_READ : 0);
	put_be32(bhs + 16, itt);
	put_be32(bhs + 20, op == SCSI_OP_INQUIRY ? 36 : 0);
	put_be32(bhs + 24, cmdsn);
	bhs[32] = op;
	if (op == SCSI_OP_INQUIRY)
		bhs[36] = 36; /* allocation length */
	send_pdu(fd, bhs, NULL, 0, false);
	*ua = 0;
	for (;;) {
		uint32_t dlen = recv_pdu(fd, bhs, data);

		assert_int_equal(get_be32(bhs + 16), itt);
		if (bhs[0] == ISCSI_OP_DATA_IN && (bhs[1] & ISCSI_DATAIN_STATUS))
			return bhs[3];
		if (bhs[0] == ISCSI_OP_SCSI_RSP) {
			if (dlen >= 2 + 14)
				*ua = (uint32_t)(data[2 + 2] & 0x0f) << 16 | (uint32_t)data[2 + 12] << 8 | data[2 + 13];
			return bhs[3];
		}
		assert_int_equal(bhs[0], ISCSI_OP_DATA_IN);
	}
}

/* LUN RESET by one session: every session on that LU, the resetting one
 * included (SAM-5, LIO), gets UNIT ATTENTION 06/29/03 once (INQUIRY passes). */
static void lun_reset_unit_attention_for_others(void **state)
{
	uint32_t sa, sb, ca = 1, cb = 1, ua;
	int a = login(&sa), b;

	login_isid = 2;
	b = login(&sb);
	login_isid = 1;
	assert_int_equal(simple_cmd(b, 0x50, cb++, 0x00, &ua), 0x00); /* nothing pending yet */
	assert_int_equal(tmf(a, 5, 0, 0x51, 0, ca, 0), 0);             /* LUN RESET from A */
	assert_int_equal(simple_cmd(a, 0x52, ca++, 0x00, &ua), 0x02);
	assert_int_equal(ua, 0x062903);
	assert_int_equal(simple_cmd(a, 0x57, ca++, 0x00, &ua), 0x00);  /* reported once */
	assert_int_equal(simple_cmd(b, 0x53, cb++, 0x12, &ua), 0x00);  /* INQUIRY passes */
	assert_int_equal(simple_cmd(b, 0x54, cb++, 0x00, &ua), 0x02);
	assert_int_equal(ua, 0x062903);
	assert_int_equal(simple_cmd(b, 0x55, cb++, 0x00, &ua), 0x00);  /* reported once */
	/* a new session owes nothing to an old reset */
	login_isid = 3;
	int n = login(&sb);
	login_isid = 1;
	assert_int_equal(simple_cmd(n, 0x56, 1, 0x00, &ua), 0x00);
	close(n);
	close(b);
	close(a);
}

/* After a restart on a state directory (and a TARGET COLD RESET) every
 * initiator port gets CHECK CONDITION 06/29/01 POWER ON OCCURRED once (a fresh
 * array owes none: test_power_on.c), on its first command other than
 * INQUIRY and REPORT LUNS; REQUEST SENSE returns it as data; a session that
 * never sent a command leaves it to the port's next session. */
static void power_on_unit_attention_once_per_port(void **state)
{
	uint8_t bhs[48], data[64];
	uint32_t st, ua;
	int fd;

	lu_power_on_arm(0); /* what main.c does for a target restarted on its state */
	login_isid = 0x40;
	fd = login_fresh(&st, "InitialR2T=Yes", 15); /* logs out without a command */
	close(fd);
	fd = login_fresh(&st, "InitialR2T=Yes", 15);
	assert_int_equal(simple_cmd(fd, 0x60, 1, 0x12, &ua), 0x00); /* INQUIRY passes */
	assert_int_equal(simple_cmd(fd, 0x61, 2, 0x00, &ua), 0x02); /* TEST UNIT READY */
	assert_int_equal(ua, 0x062901);
	assert_int_equal(simple_cmd(fd, 0x62, 3, 0x00, &ua), 0x00); /* once */
	close(fd);
	fd = login_fresh(&st, "InitialR2T=Yes", 15); /* the same port again: told */
	assert_int_equal(simple_cmd(fd, 0x63, 1, 0x00, &ua), 0x00);
	close(fd);

	/* another port: REQUEST SENSE carries it as sense data, with GOOD */
	login_isid = 0x41;
	fd = login_fresh(&st, "InitialR2T=Yes", 15);
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_SCSI_CMD;
	bhs[1] = ISCSI_FLAG_FINAL | ISCSI_CMD_READ | 0x01;
	put_be32(bhs + 16, 0x64);
	put_be32(bhs + 20, 18);
	put_be32(bhs + 24, 1);
	bhs[32] = 0x03;
	bhs[36] = 18;
	send_pdu(fd, bhs, NULL, 0, false);
	assert_int_equal(recv_pdu(fd, bhs, data), 18);
	assert_int_equal(bhs[0], ISCSI_OP_DATA_IN);
	assert_int_equal(bhs[3], 0x00);
	assert_int_equal(data[0], 0x70);
	assert_int_equal(data[2], 0x06);
	assert_int_equal(data[12], 0x29);
	assert_int_equal(data[13], 0x01);
	assert_int_equal(simple_cmd(fd, 0x65, 2, 0x00, &ua), 0x00);

	/* TARGET COLD RESET is a power on: owed again (the reset closes the
	 * connection that asked for it) */
	assert_int_equal(tmf(fd, 7, 0, 0x66, 0, 3, 0), 0);
	close(fd);
	fd = login_fresh(&st, "InitialR2T=Yes", 15);
	assert_int_equal(simple_cmd(fd, 0x67, 1, 0x00, &ua), 0x02);
	assert_int_equal(ua, 0x062901);
	close(fd);
	login_isid = 1;
}

static void cmdsn_out_of_window_ignored(void **state)
{
	uint8_t bhs[48], data[8192];
	uint32_t statsn, cmdsn = 1;
	int fd = login(&statsn);

	/* a TEST UNIT READY far above MaxCmdSN, then one below ExpCmdSN: both ignored */
	scsi_cmd(bhs, 0x40, cmdsn + 100000, 0x00, 0, false);
	bhs[1] = ISCSI_FLAG_FINAL | 0x01;
	send_pdu(fd, bhs, NULL, 0, false);
	scsi_cmd(bhs, 0x41, cmdsn - 1, 0x00, 0, false);
	bhs[1] = ISCSI_FLAG_FINAL | 0x01;
	send_pdu(fd, bhs, NULL, 0, false);
	/* two out of order: CmdSN+1 waits for CmdSN, then both run in order */
	scsi_cmd(bhs, 0x43, cmdsn + 1, 0x00, 0, false);
	bhs[1] = ISCSI_FLAG_FINAL | 0x01;
	send_pdu(fd, bhs, NULL, 0, false);
	scsi_cmd(bhs, 0x42, cmdsn, 0x00, 0, false);
	bhs[1] = ISCSI_FLAG_FINAL | 0x01;
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_SCSI_RSP);
	uint32_t first = get_be32(bhs + 16);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_SCSI_RSP);
	uint32_t second = get_be32(bhs + 16);
	/* both answered (completion order may differ), none of the ignored ones */
	assert_true((first == 0x42 && second == 0x43) || (first == 0x43 && second == 0x42));
	assert_int_equal(get_be32(bhs + 28), cmdsn + 2);
	close(fd);
}

/* Regression: a WRITE waiting for its CmdSN turn (a gap before it) whose
 * unsolicited Data-Out is rejected was freed while still on the pending
 * queue; the CmdSN filling the gap then delivered freed memory (ASan:
 * heap-use-after-free in ffp_deliver).  Now: Reject 04h, the WRITE is
 * dropped without a response when its turn comes, its CmdSN consumed. */
static void queued_task_bad_dataout(void **state)
{
	static const char extra[] = "InitialR2T=No\0ImmediateData=No\0";
	uint8_t bhs[48], data[8192], block[512] = { 7 };
	uint32_t statsn;
	int fd = login_with(&statsn, extra, sizeof(extra) - 1);

	scsi_cmd(bhs, 0x70, 2, 0x2a, 512, true); /* CmdSN 2: waits for 1 */
	bhs[1] &= (uint8_t)~ISCSI_FLAG_FINAL;    /* unsolicited data follows */
	send_pdu(fd, bhs, NULL, 0, false);
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_DATA_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x70);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 40, 256); /* BufferOffset must be 0 */
	send_pdu(fd, bhs, block, 256, false);
	assert_int_equal(recv_pdu(fd, bhs, data), 48);
	assert_int_equal(bhs[0], ISCSI_OP_REJECT);
	assert_int_equal(bhs[2], ISCSI_REJECT_PROTOCOL_ERROR);
	assert_int_equal(get_be32(data + 16), 0x70);
	/* CmdSN 1 fills the gap: answered; the WRITE (2) goes silently */
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x71);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, 1);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_NOP_IN);
	assert_int_equal(get_be32(bhs + 16), 0x71);
	/* CmdSN 3 is next: 2 was consumed by the dropped WRITE */
	bhs[0] = ISCSI_OP_NOP_OUT;
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x72);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, 3);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_NOP_IN);
	assert_int_equal(get_be32(bhs + 16), 0x72);
	assert_int_equal(get_be32(bhs + 28), 4); /* ExpCmdSN */
	close(fd);
}

/* Regression: with the window closed (MaxCmdSN = ExpCmdSN - 1) the expected
 * CmdSN itself was still delivered, so a flood grew the task list past the
 * window one command at a time.  200 READs against a LU that holds them:
 * exactly the advertised window is answered. */
static void closed_window_drops_expected(void **state)
{
	uint8_t bhs[48], data[8192];
	uint32_t statsn, answered = 0;
	int fd = login(&statsn);

	/* nothing completes, so the MaxCmdSN of the login (CmdSN 1 + window - 1)
	 * is the bound for all 200 */
	mem_backend_hold(lu0, true);
	for (int i = 0; i < 200; i++) {
		scsi_cmd(bhs, 0x1000 + (uint32_t)i, 1 + (uint32_t)i, 0x28, 512, false);
		send_pdu(fd, bhs, NULL, 0, false);
	}
	/* an immediate NOP-Out after them: its NOP-In says the target has read and
	 * judged all 200 (one connection is read in order), so what it accepted is
	 * queued at the held LU now - counted, where a sleep used to guess when
	 * the target had read them (a slow one then saw the window reopen) */
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x77);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, 201);
	send_pdu(fd, bhs, NULL, 0, false);
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_NOP_IN);
	assert_int_equal(get_be32(bhs + 16), 0x77);
	assert_int_equal(mem_backend_queued(lu0), CONN_CMDSN_WINDOW);
	mem_backend_hold(lu0, false);
	/* each accepted READ is answered once: read exactly that many */
	while (answered < CONN_CMDSN_WINDOW) {
		recv_pdu(fd, bhs, data);
		if (bhs[0] == ISCSI_OP_DATA_IN || bhs[0] == ISCSI_OP_SCSI_RSP) {
			assert_true(get_be32(bhs + 16) - 0x1000 < CONN_CMDSN_WINDOW);
			answered++;
		}
	}
	close(fd);
}

/* MaxOutstandingR2T=4, MaxBurstLength=4096: a 16 KiB write gets four R2Ts
 * at once; each burst arrives as two Data-Out PDUs */
static void several_outstanding_r2ts(void **state)
{
	static const char extra[] = "InitialR2T=Yes\0ImmediateData=No\0MaxOutstandingR2T=4\0MaxBurstLength=4096\0"
				    "FirstBurstLength=4096\0";
	uint8_t bhs[48], data[16384], pattern[16384];
	uint32_t statsn, ttt[4];
	int fd = login_with(&statsn, extra, sizeof(extra) - 1);

	for (int i = 0; i < 16384; i++)
		pattern[i] = (uint8_t)(i * 13 + 5);
	scsi_cmd(bhs, 0x60, 1, 0x2a, 16384, true);
	bhs[40] = 32; /* 32 blocks */
	send_pdu(fd, bhs, NULL, 0, false);
	for (int r = 0; r < 4; r++) {
		recv_pdu(fd, bhs, data);
		assert_int_equal(bhs[0], ISCSI_OP_R2T);
		assert_int_equal(get_be32(bhs + 36), r);        /* R2TSN */
		assert_int_equal(get_be32(bhs + 40), r * 4096); /* BufferOffset */
		assert_int_equal(get_be32(bhs + 44), 4096);
		ttt[r] = get_be32(bhs + 20);
	}
	for (int r = 0; r < 4; r++) {
		for (int half = 0; half < 2; half++) {
			memset(bhs, 0, 48);
			bhs[0] = ISCSI_OP_DATA_OUT;
			bhs[1] = half ? ISCSI_FLAG_FINAL : 0;
			put_be32(bhs + 16, 0x60);
			put_be32(bhs + 20, ttt[r]);
			put_be32(bhs + 36, (uint32_t)half);                  /* DataSN per R2T */
			put_be32(bhs + 40, (uint32_t)(r * 4096 + half * 2048));
			send_pdu(fd, bhs, pattern + r * 4096 + half * 2048, 2048, false);
		}
	}
	recv_pdu(fd, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_SCSI_RSP);
	assert_int_equal(bhs[3], 0x00);
	assert_int_equal(get_be32(bhs + 36), 4); /* ExpDataSN: the R2Ts sent */

	scsi_cmd(bhs, 0x61, 2, 0x28, 16384, false);
	bhs[40] = 32;
	send_pdu(fd, bhs, NULL, 0, false);
	uint32_t got = 0;
	while (got < 16384) {
		uint32_t n = recv_pdu(fd, bhs, data + got);
		assert_int_equal(bhs[0], ISCSI_OP_DATA_IN);
		assert_int_equal(get_be32(bhs + 40), got);
		assert_true(n <= 8192); /* our MaxRecvDataSegmentLength */
		got += n;
	}
	assert_int_equal(bhs[1] & ISCSI_DATAIN_STATUS, ISCSI_DATAIN_STATUS);
	assert_memory_equal(data, pattern, 16384);
	close(fd);
}

static void session_reinstatement(void **state)
{
	uint8_t bhs[48], data[64], b;
	uint32_t statsn;
	int old = login(&statsn);
	int fresh = login(&statsn); /* same initiator name, same ISID */
	struct timeval tv = { .tv_sec = 5 };

	setsockopt(old, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(read(old, &b, 1), 0); /* the old session was ended */
	memset(bhs, 0, 48);
	bhs[0] = 0x40 | ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x50);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, 1);
	send_pdu(fresh, bhs, NULL, 0, false);
	recv_pdu(fresh, bhs, data);
	assert_int_equal(bhs[0], ISCSI_OP_NOP_IN);
	close(old);
	close(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(data_digest_both_ways),
		cmocka_unit_test(header_digest_error_closes),
		cmocka_unit_test(task_management),
		cmocka_unit_test(lun_reset_unit_attention_for_others),
		cmocka_unit_test(power_on_unit_attention_once_per_port),
		cmocka_unit_test(cmdsn_out_of_window_ignored),
		cmocka_unit_test(several_outstanding_r2ts),
		cmocka_unit_test(queued_task_bad_dataout),
		cmocka_unit_test(closed_window_drops_expected),
		cmocka_unit_test(session_reinstatement),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
