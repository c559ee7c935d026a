/* digest_bench.c — what the iSCSI digests cost the target (not a test: it
 * prints figures).  A raw initiator (tests/robust/raw_ini.c; libiscsi 1.19
 * cannot negotiate DataDigest) logs in with HeaderDigest and DataDigest both
 * CRC32C or both None and runs, one command at a time, 4 MiB READ(16)s and
 * then 1 MiB WRITE(16)s (immediate data + R2T/Data-Out) against LUN 0, each
 * for SECONDS; every digest the target sends is verified.  The initiator's
 * own CRC32C is the same code as the target's (ll_crc32c, common/crc32c.c), so a
 * comparison of two targets runs one client binary.
 *
 * usage: digest-bench PORT IQN CRC32C|None SECONDS
 * prints: "digest=CRC32C read4m_qd1 1234.5 MB/s write1m_qd1 567.8 MB/s" (1e6 B/s) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "target/iscsi/pdu.h"
#include "tests/robust/raw_ini.h"

#define LUN_SPAN (64u << 20) /* bytes of LUN 0 the commands cycle over */

static int fail(const char *what)
{
	fprintf(stderr, "digest-bench: %s\n", what);
	return -1;
}

static int read4m(struct raw *r, uint8_t *buf, uint64_t off)
{
	uint8_t bhs[48], cdb[16] = { SCSI_OP_READ_16 };
	const uint32_t len = 4u << 20;

	put_be32(cdb + 6, (uint32_t)(off / 512));
	put_be32(cdb + 10, len / 512);
	raw_scsi_cmd(r, bhs, 0, cdb, len, true, false, true);
	if (raw_send(r, bhs, NULL, 0, false) < 0)
		return fail("send READ");
	for (;;) {
		int n = raw_recv(r, bhs, buf, len, 10000);
		if (n < 0)
			return fail("READ: no answer, closed, or a bad digest");
		if (bhs_opcode(bhs) == ISCSI_OP_DATA_IN) {
			if (bhs[1] & ISCSI_DATAIN_STATUS)
				return bhs[3] == 0 ? 0 : fail("READ: status not GOOD");
			continue;
		}
		if (bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP)
			return bhs[3] == 0 ? 0 : fail("READ: status not GOOD");
		return fail("READ: unexpected PDU");
	}
}

static int send_data(struct raw *r, const uint8_t *cmd, uint32_t ttt, const uint8_t *buf, uint32_t off,
		     uint32_t len)
{
	uint8_t bhs[48];
	uint32_t sn = 0;

	for (uint32_t done = 0; done < len;) {
		uint32_t n = len - done < r->target_mrdsl ? len - done : r->target_mrdsl;
		memset(bhs, 0, 48);
		bhs[0] = ISCSI_OP_DATA_OUT;
		bhs[1] = done + n == len ? ISCSI_FLAG_FINAL : 0;
		memcpy(bhs + 8, cmd + 8, 8);                /* LUN */
		memcpy(bhs + 16, cmd + 16, 4);              /* ITT */
		put_be32(bhs + 20, ttt);
		put_be32(bhs + 28, r->exp_statsn);
		put_be32(bhs + 36, sn++);
		put_be32(bhs + 40, off + done);
		if (raw_send(r, bhs, buf + off + done, n, false) < 0)
			return -1;
		done += n;
	}
	return 0;
}

static int write1m(struct raw *r, const uint8_t *buf, uint64_t off)
{
	uint8_t cmd[48], bhs[48], cdb[16] = { SCSI_OP_WRITE_16 };
	const uint32_t len = 1u << 20;
	uint32_t imm = r->immediate_data ? (r->first_burst < r->target_mrdsl ? r->first_burst : r->target_mrdsl) : 0;

	put_be32(cdb + 6, (uint32_t)(off / 512));
	put_be32(cdb + 10, len / 512);
	raw_scsi_cmd(r, cmd, 0, cdb, len, false, true, true);
	if (raw_send(r, cmd, buf, imm, false) < 0)
		return fail("send WRITE");
	for (;;) {
		int n = raw_recv(r, bhs, NULL, 0, 10000);
		if (n < 0)
			return fail("WRITE: no answer, closed, or a bad digest");
		if (bhs_opcode(bhs) == ISCSI_OP_R2T) {
			if (send_data(r, cmd, get_be32(bhs + 20), buf, get_be32(bhs + 40), get_be32(bhs + 44)) < 0)
				return fail("send Data-Out");
			continue;
		}
		if (bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP)
			return bhs[3] == 0 ? 0 : fail("WRITE: status not GOOD");
		return fail("WRITE: unexpected PDU");
	}
}

int main(int argc, char **argv)
{
	if (argc != 5 || (strcmp(argv[3], "CRC32C") && strcmp(argv[3], "None"))) {
		fprintf(stderr, "usage: %s PORT IQN CRC32C|None SECONDS\n", argv[0]);
		return 2;
	}
	g_port = atoi(argv[1]);
	g_iqn = argv[2];
	double secs = atof(argv[4]);
	struct raw r;
	struct login_opts o = { .digest = argv[3], .isid_low = 7 };
	if (raw_login(&r, &o) != 0) {
		fprintf(stderr, "digest-bench: login to 127.0.0.1:%d %s failed\n", g_port, g_iqn);
		return 2;
	}
	if (r.hd != !strcmp(argv[3], "CRC32C") || r.dd != r.hd) {
		fprintf(stderr, "digest-bench: the target did not accept digests %s\n", argv[3]);
		return 2;
	}
	uint8_t *buf = malloc(4u << 20);
	for (uint32_t i = 0; i < (4u << 20); i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);
	double mbps[2];
	for (int w = 0; w < 2; w++) {
		long t0 = now_ms(), t;
		uint64_t bytes = 0, off = 0;
		do {
			int rc = w ? write1m(&r, buf, off) : read4m(&r, buf, off);
			if (rc)
				return 1;
			uint32_t len = w ? 1u << 20 : 4u << 20;
			bytes += len;
			off = (off + len) % LUN_SPAN;
			t = now_ms();
		} while (t - t0 < (long)(secs * 1000));
		mbps[w] = (double)bytes / ((double)(t - t0) / 1000.0) / 1e6;
	}
	printf("digest=%s read4m_qd1 %.1f MB/s write1m_qd1 %.1f MB/s\n", argv[3], mbps[0], mbps[1]);
	raw_close(&r);
	free(buf);
	return 0;
}
