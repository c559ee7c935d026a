/* raw_ini.c — see raw_ini.h.  Independent of the target's own code except
 * for the header field helpers (pdu.h) and CRC32C. */
#include "raw_ini.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "target/iscsi/crc32c.h"

int g_port;
const char *g_iqn;

long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int raw_connect(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)g_port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

void raw_close(struct raw *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

int raw_send_bytes(struct raw *r, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = send(r->fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int raw_send(struct raw *r, uint8_t *bhs, const void *data, uint32_t dlen, bool corrupt_dd)
{
	uint8_t dig[4], pad[3] = { 0 };
	uint32_t p = pdu_pad4(dlen);

	put_be24(bhs + 5, dlen);
	if (raw_send_bytes(r, bhs, ISCSI_BHS_LEN + bhs_ahs_len(bhs)) < 0)
		return -1;
	if (r->hd) {
		crc32c_put_wire(dig, ll_crc32c(0, bhs, ISCSI_BHS_LEN + bhs_ahs_len(bhs)));
		if (raw_send_bytes(r, dig, 4) < 0)
			return -1;
	}
	if (!dlen)
		return 0;
	if (raw_send_bytes(r, data, dlen) < 0 || raw_send_bytes(r, pad, p) < 0)
		return -1;
	if (r->dd) {
		uint32_t c = ll_crc32c(0, data, dlen);
		c = ll_crc32c(c, pad, p);
		crc32c_put_wire(dig, corrupt_dd ? c ^ 0x5a : c);
		if (raw_send_bytes(r, dig, 4) < 0)
			return -1;
	}
	return 0;
}

/* 1: got n bytes, RAW_CLOSED, RAW_TIMEOUT (deadline in now_ms() terms) */
static int recv_all(int fd, void *buf, size_t n, long deadline)
{
	uint8_t *b = buf;

	while (n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t g;

		if (left <= 0)
			return RAW_TIMEOUT;
		if (poll(&pfd, 1, (int)left) == 0)
			return RAW_TIMEOUT;
		g = recv(fd, b, n, 0);
		if (g < 0 && errno == EINTR)
			continue;
		if (g <= 0)
			return RAW_CLOSED; /* EOF or reset: the target ended it */
		b += g;
		n -= (size_t)g;
	}
	return 1;
}

int raw_recv(struct raw *r, uint8_t *bhs, uint8_t *data, uint32_t cap, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	uint8_t dig[4], pad[3];
	uint32_t dlen, p;
	int rc;

	if ((rc = recv_all(r->fd, bhs, ISCSI_BHS_LEN, deadline)) != 1)
		return rc;
	if (bhs_ahs_len(bhs))
		return RAW_BAD; /* the target sends no AHS */
	if (r->hd) {
		if ((rc = recv_all(r->fd, dig, 4, deadline)) != 1)
			return rc;
		if (crc32c_get_wire(dig) != ll_crc32c(0, bhs, ISCSI_BHS_LEN))
			return RAW_BAD;
	}
	dlen = bhs_data_len(bhs);
	p = pdu_pad4(dlen);
	if (dlen > cap)
		return RAW_BAD;
	if (dlen) {
		if ((rc = recv_all(r->fd, data, dlen, deadline)) != 1 ||
		    (rc = recv_all(r->fd, pad, p, deadline)) != 1)
			return rc;
		if (r->dd) {
			uint32_t c = ll_crc32c(0, data, dlen);
			c = ll_crc32c(c, pad, p);
			if ((rc = recv_all(r->fd, dig, 4, deadline)) != 1)
				return rc;
			if (crc32c_get_wire(dig) != c)
				return RAW_BAD;
		}
	}
	/* StatSN / MaxCmdSN bookkeeping (Data-In without status has no StatSN) */
	if (bhs_opcode(bhs) != ISCSI_OP_DATA_IN || (bhs[1] & ISCSI_DATAIN_STATUS)) {
		if (bhs_opcode(bhs) != ISCSI_OP_R2T)
			r->exp_statsn = get_be32(bhs + 24) + 1;
	}
	if (bhs_opcode(bhs) != ISCSI_OP_LOGIN_RSP && bhs_opcode(bhs) != ISCSI_OP_REJECT)
		r->max_cmdsn = get_be32(bhs + 32);
	return (int)dlen;
}

long raw_wait_closed(struct raw *r, int timeout_ms)
{
	long t0 = now_ms(), deadline = t0 + timeout_ms;
	uint8_t buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t g;

		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, (int)left) == 0)
			return -1;
		g = recv(r->fd, buf, sizeof(buf), 0);
		if (g < 0 && errno == EINTR)
			continue;
		if (g <= 0)
			return now_ms() - t0;
	}
}

static uint32_t key_num(const char *data, uint32_t len, const char *key, uint32_t dflt)
{
	size_t kl = strlen(key);

	for (uint32_t i = 0; i < len;) {
		const char *s = data + i;
		size_t sl = strnlen(s, len - i);
		if (sl > kl && !memcmp(s, key, kl) && s[kl] == '=')
			return (uint32_t)strtoul(s + kl + 1, NULL, 0);
		i += (uint32_t)sl + 1;
	}
	return dflt;
}

static bool key_is(const char *data, uint32_t len, const char *kv)
{
	size_t kl = strlen(kv);

	for (uint32_t i = 0; i < len;) {
		const char *s = data + i;
		size_t sl = strnlen(s, len - i);
		if (sl == kl && !memcmp(s, kv, kl))
			return true;
		i += (uint32_t)sl + 1;
	}
	return false;
}

/* A new initiator port is owed each LU's power-on unit attention
 * (06/29/01) on its first command: one TEST UNIT READY per LUN the robust
 * target has takes it, so the cases see only what they provoke.  GOOD (the
 * port was told before) and 05/25/00 (no such LUN) are fine too. */
static int clear_power_on(struct raw *r)
{
	static const uint8_t tur[16];
	uint8_t bhs[48], data[256];

	for (uint64_t lun = 0; lun < RAW_LUNS; lun++) {
		int n;

		raw_scsi_cmd(r, bhs, lun, tur, 0, false, false, true);
		if (raw_send(r, bhs, NULL, 0, false) < 0)
			return -1;
		do
			n = raw_recv(r, bhs, data, sizeof(data), 30000);
		while (n >= 0 && bhs_opcode(bhs) == ISCSI_OP_ASYNC_MSG);
		if (n < 0 || bhs_opcode(bhs) != ISCSI_OP_SCSI_RSP)
			return -1;
		if (bhs[3] == 0x02 && n >= 16 && (data[2 + 2] & 0x0f) == 0x06 && data[2 + 12] == 0x29 &&
		    data[2 + 13] == 0x01)
			continue;
		if (bhs[3] == 0x02 && n >= 16 && (data[2 + 2] & 0x0f) == 0x05 && data[2 + 12] == 0x25)
			continue;
		if (bhs[3] != 0x00)
			return -1;
	}
	return 0;
}

int raw_login(struct raw *r, const struct login_opts *o)
{
	char keys[2048];
	size_t n = 0;
	uint8_t bhs[48], data[8192];
	const char *dg = o && o->digest ? o->digest : "None";
	int dlen;

	memset(r, 0, sizeof(*r));
	r->fd = raw_connect();
	if (r->fd < 0)
		return -1;
#define KEY(...) n += (size_t)snprintf(keys + n, sizeof(keys) - n, __VA_ARGS__) + 1
	KEY("InitiatorName=iqn.2026-11.org.lunlab:robust-%u", o ? o->isid_low : 0);
	KEY("TargetName=%s", g_iqn);
	KEY("SessionType=Normal");
	KEY("HeaderDigest=%s", dg);
	KEY("DataDigest=%s", dg);
	KEY("MaxRecvDataSegmentLength=262144");
	if (o && o->initial_r2t)
		KEY("InitialR2T=%s", o->initial_r2t);
	if (o && o->immediate_data)
		KEY("ImmediateData=%s", o->immediate_data);
	if (o && o->max_r2t)
		KEY("MaxOutstandingR2T=%s", o->max_r2t);
	if (o && o->max_burst)
		KEY("MaxBurstLength=%s", o->max_burst);
	if (o && o->first_burst)
		KEY("FirstBurstLength=%s", o->first_burst);
#undef KEY
	r->cmdsn = 1;
	r->itt = 0x100;
	for (int round = 0; round < 4; round++) {
		memset(bhs, 0, 48);
		bhs[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ;
		bhs[1] = ISCSI_LOGIN_TRANSIT | 0x04 | 0x03; /* operational -> full feature */
		memcpy(bhs + 8, "\x80\x00\x00\x52\x00", 5);
		bhs[13] = o ? o->isid_low : 0;
		put_be32(bhs + 16, r->itt);
		put_be32(bhs + 24, r->cmdsn);
		put_be32(bhs + 28, r->exp_statsn);
		if (raw_send(r, bhs, keys, round ? 0 : (uint32_t)n, false) < 0)
			return -1;
		dlen = raw_recv(r, bhs, data, sizeof(data), 10000);
		if (dlen < 0 || bhs_opcode(bhs) != ISCSI_OP_LOGIN_RSP)
			return -1;
		if (bhs[36] || bhs[37])
			return bhs[36] << 8 | bhs[37];
		if (!r->target_mrdsl)
			r->target_mrdsl = key_num((char *)data, (uint32_t)dlen, "MaxRecvDataSegmentLength", 8192);
		r->max_burst = key_num((char *)data, (uint32_t)dlen, "MaxBurstLength", r->max_burst ? r->max_burst : 262144);
		r->first_burst = key_num((char *)data, (uint32_t)dlen, "FirstBurstLength", r->first_burst ? r->first_burst : 65536);
		r->max_r2t = key_num((char *)data, (uint32_t)dlen, "MaxOutstandingR2T", r->max_r2t ? r->max_r2t : 1);
		if (key_is((char *)data, (uint32_t)dlen, "InitialR2T=No"))
			r->initial_r2t = false;
		else if (key_is((char *)data, (uint32_t)dlen, "InitialR2T=Yes") || !round)
			r->initial_r2t = true;
		if (key_is((char *)data, (uint32_t)dlen, "ImmediateData=Yes"))
			r->immediate_data = true;
		else if (key_is((char *)data, (uint32_t)dlen, "ImmediateData=No"))
			r->immediate_data = false;
		else if (!round)
			r->immediate_data = true; /* RFC default Yes */
		if (key_is((char *)data, (uint32_t)dlen, "HeaderDigest=CRC32C"))
			r->hd = true;
		if (key_is((char *)data, (uint32_t)dlen, "DataDigest=CRC32C"))
			r->dd = true;
		r->max_cmdsn = get_be32(bhs + 32);
		if ((bhs[1] & ISCSI_LOGIN_TRANSIT) && (bhs[1] & 3) == 3)
			return o && o->keep_power_on ? 0 : clear_power_on(r);
	}
	return -1;
}

void raw_scsi_cmd(struct raw *r, uint8_t *bhs, uint64_t lun, const uint8_t *cdb, uint32_t edtl,
		  bool rd, bool wr, bool final)
{
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_SCSI_CMD;
	bhs[1] = (final ? ISCSI_FLAG_FINAL : 0) | (rd ? ISCSI_CMD_READ : 0) | (wr ? ISCSI_CMD_WRITE : 0) | 0x01;
	bhs[9] = (uint8_t)lun; /* single-level peripheral LUN (tests use LUNs < 256) */
	put_be32(bhs + 16, ++r->itt);
	put_be32(bhs + 20, edtl);
	put_be32(bhs + 24, r->cmdsn++);
	put_be32(bhs + 28, r->exp_statsn);
	memcpy(bhs + 32, cdb, 16);
}

void raw_nop_ping(struct raw *r, uint8_t *bhs)
{
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, ++r->itt);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, r->cmdsn);
	put_be32(bhs + 28, r->exp_statsn);
}

bool raw_ping_ok(struct raw *r, int timeout_ms)
{
	uint8_t bhs[48], data[64];
	uint32_t itt;
	long deadline = now_ms() + timeout_ms;

	raw_nop_ping(r, bhs);
	itt = r->itt;
	if (raw_send(r, bhs, "ping", 4, false) < 0)
		return false;
	while (now_ms() < deadline) {
		int n = raw_recv(r, bhs, data, sizeof(data), (int)(deadline - now_ms()));
		if (n < 0)
			return false;
		if (bhs_opcode(bhs) == ISCSI_OP_NOP_IN && get_be32(bhs + 16) == itt)
			return n == 4 && !memcmp(data, "ping", 4);
	}
	return false;
}

void cdb_rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, blocks);
}
