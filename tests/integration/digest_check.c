/*
 * digest_check: iSCSI header and data digests (CRC32C) checked with a small raw initiator.
 *
 * libiscsi 1.19 can negotiate HeaderDigest but always offers DataDigest=None, so the data
 * digest path of a target cannot be driven through it.  This program speaks just enough iSCSI
 * (RFC 7143) itself: login (security stage with AuthMethod=None, then operational stage),
 * SCSI WRITE(10) with immediate data and R2T/Data-Out, READ(10) with Data-In, NOP-Out/In, and
 * Logout, every PDU with or without digests as negotiated.
 *
 *   digest_check URL good     for each of {None/None, CRC32C/None, None/CRC32C, CRC32C/CRC32C}:
 *                             log in offering exactly that, require the target to answer the
 *                             same, write 4 KiB (immediate data) and 300 KiB (R2T/Data-Out),
 *                             read both back (checking every received digest) and compare
 *   digest_check URL errors   a SCSI command whose immediate data carries a wrong data digest
 *                             must be refused (Reject reason 0x02, or the connection dropped)
 *                             and must not change the LU; a PDU with a wrong header digest must
 *                             make the target drop the connection or discard it; the target
 *                             must still accept a new session afterwards
 *
 * URL: iscsi://HOST:PORT/IQN/LUN (numeric IPv4 host).  Exit 0 pass, 1 fail, 2 usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tests/lib/check_fail.h"

#define BHS 48

/* opcodes (initiator -> target) */
#define OP_NOP_OUT 0x00
#define OP_SCSI_CMD 0x01
#define OP_LOGIN_REQ 0x03
#define OP_DATA_OUT 0x05
#define OP_LOGOUT_REQ 0x06
/* opcodes (target -> initiator) */
#define OP_NOP_IN 0x20
#define OP_SCSI_RSP 0x21
#define OP_LOGIN_RSP 0x23
#define OP_DATA_IN 0x25
#define OP_LOGOUT_RSP 0x26
#define OP_R2T 0x31
#define OP_REJECT 0x3f

struct target_addr {
	char host[64];
	int port;
	char iqn[224];
	int lun;
};

struct conn {
	int fd;
	bool hd, dd;             /* digests in use after login */
	uint32_t cmdsn, expstatsn, itt;
	uint32_t tgt_mrdsl;      /* the target's MaxRecvDataSegmentLength (what we may send) */
	uint32_t first_burst, max_burst;
	bool immediate, initial_r2t;
	uint16_t tsih;
};

struct pdu {
	uint8_t bhs[BHS];
	uint8_t *data;
	uint32_t len;
};

static uint32_t crc_table[256];

/* CRC32C (Castagnoli), reflected polynomial 0x82F63B78, as iSCSI digests use it */
static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/* digests travel least significant byte first */
static void put_digest(uint8_t *p, uint32_t crc)
{
	p[0] = (uint8_t)crc;
	p[1] = (uint8_t)(crc >> 8);
	p[2] = (uint8_t)(crc >> 16);
	p[3] = (uint8_t)(crc >> 24);
}

static uint32_t get_digest(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}



static bool write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* 1: got n bytes, 0: orderly close before any byte, -1: error/timeout/short */
static int read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, p + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return got == 0 ? 0 : -1;
		if (r < 0)
			return (errno == ECONNRESET && got == 0) ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

/*
 * Send one PDU.  corrupt: 1 = flip the header digest, 2 = flip the data digest (tests only).
 */
static bool send_pdu(struct conn *c, uint8_t *bhs, const uint8_t *data, uint32_t len, int corrupt)
{
	uint8_t hdr[BHS + 4], dig[4];
	static const uint8_t pad[4];
	uint32_t padlen = (4 - (len & 3)) & 3;
	size_t hlen = BHS;

	bhs[4] = 0; /* no AHS */
	bhs[5] = (uint8_t)(len >> 16);
	bhs[6] = (uint8_t)(len >> 8);
	bhs[7] = (uint8_t)len;
	memcpy(hdr, bhs, BHS);
	if (c->hd) {
		put_digest(hdr + BHS, crc32c(hdr, BHS) ^ (corrupt == 1 ? 0x1u : 0));
		hlen += 4;
	}
	if (!write_all(c->fd, hdr, hlen))
		return false;
	if (len == 0)
		return true;
	if (!write_all(c->fd, data, len) || (padlen && !write_all(c->fd, pad, padlen)))
		return false;
	if (c->dd) {
		/* the data digest covers the data and its padding */
		uint32_t crc = 0xffffffffu;
		for (uint32_t i = 0; i < len; i++)
			crc = crc_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
		for (uint32_t i = 0; i < padlen; i++)
			crc = crc_table[crc & 0xff] ^ (crc >> 8);
		put_digest(dig, (crc ^ 0xffffffffu) ^ (corrupt == 2 ? 0x1u : 0));
		if (!write_all(c->fd, dig, 4))
			return false;
	}
	return true;
}

/*
 * Receive one PDU, verifying the digests the target sends.
 * Returns 1 ok, 0 connection closed, -1 error (message printed).
 */
static int recv_pdu(struct conn *c, struct pdu *p)
{
	uint8_t ahs[1024], dig[4];
	uint32_t ahslen, padlen;
	int r;

	free(p->data);
	p->data = NULL;
	p->len = 0;
	r = read_all(c->fd, p->bhs, BHS);
	if (r <= 0) {
		if (r < 0)
			ll_check_fail("receiving a PDU header: timeout or short read");
		return r;
	}
	ahslen = p->bhs[4] * 4u;
	if (ahslen > 0 && read_all(c->fd, ahs, ahslen) != 1) {
		ll_check_fail("receiving AHS");
		return -1;
	}
	if (c->hd) {
		uint32_t crc = 0xffffffffu;
		if (read_all(c->fd, dig, 4) != 1) {
			ll_check_fail("receiving the header digest");
			return -1;
		}
		for (int i = 0; i < BHS; i++)
			crc = crc_table[(crc ^ p->bhs[i]) & 0xff] ^ (crc >> 8);
		for (uint32_t i = 0; i < ahslen; i++)
			crc = crc_table[(crc ^ ahs[i]) & 0xff] ^ (crc >> 8);
		if ((crc ^ 0xffffffffu) != get_digest(dig)) {
			ll_check_fail("target sent a PDU with a wrong header digest");
			return -1;
		}
	}
	p->len = (uint32_t)p->bhs[5] << 16 | (uint32_t)p->bhs[6] << 8 | p->bhs[7];
	if (p->len == 0)
		return 1;
	if (p->len > 16u * 1024 * 1024) {
		ll_check_fail("target sent a data segment over 16 MiB");
		return -1;
	}
	padlen = (4 - (p->len & 3)) & 3;
	p->data = malloc(p->len + padlen);
	if (p->data == NULL || read_all(c->fd, p->data, p->len + padlen) != 1) {
		ll_check_fail("receiving a data segment");
		return -1;
	}
	if (c->dd) {
		if (read_all(c->fd, dig, 4) != 1) {
			ll_check_fail("receiving the data digest");
			return -1;
		}
		if (crc32c(p->data, p->len + padlen) != get_digest(dig)) {
			ll_check_fail("target sent a data segment with a wrong data digest");
			return -1;
		}
	}
	return 1;
}

static bool clear_unit_attention(struct conn *c, const struct target_addr *t);

static bool parse_url(const char *url, struct target_addr *t)
{
	const char *p = url, *slash, *colon, *lslash;
	char *end;
	long v;

	if (strncmp(p, "iscsi://", 8) != 0)
		return false;
	p += 8;
	slash = strchr(p, '/');
	if (slash == NULL)
		return false;
	colon = memchr(p, ':', (size_t)(slash - p));
	if (colon == NULL || (size_t)(colon - p) >= sizeof(t->host))
		return false;
	memcpy(t->host, p, (size_t)(colon - p));
	t->host[colon - p] = '\0';
	v = strtol(colon + 1, &end, 10);
	if (end != slash || v <= 0 || v > 65535)
		return false;
	t->port = (int)v;
	lslash = strrchr(slash + 1, '/');
	if (lslash == NULL || (size_t)(lslash - slash - 1) >= sizeof(t->iqn) || lslash == slash + 1)
		return false;
	memcpy(t->iqn, slash + 1, (size_t)(lslash - slash - 1));
	t->iqn[lslash - slash - 1] = '\0';
	v = strtol(lslash + 1, &end, 10);
	if (*end != '\0' || end == lslash + 1 || v < 0 || v > 255)
		return false;
	t->lun = (int)v;
	return true;
}

/* value of KEY in a NUL-separated key=value list, or NULL */
static const char *find_key(const uint8_t *data, uint32_t len, const char *key)
{
	size_t kl = strlen(key);
	uint32_t i = 0;

	while (i < len) {
		const char *s = (const char *)data + i;
		size_t sl = strnlen(s, len - i);
		if (sl > kl && strncmp(s, key, kl) == 0 && s[kl] == '=')
			return s + kl + 1;
		i += (uint32_t)sl + 1;
	}
	return NULL;
}

static size_t add_key(char *buf, size_t off, size_t cap, const char *kv)
{
	size_t n = strlen(kv) + 1;

	if (off + n > cap)
		return off;
	memcpy(buf + off, kv, n);
	return off + n;
}

/* One login request/response exchange; returns the response or NULL (message printed). */
static bool login_step(struct conn *c, const struct target_addr *t, int csg, int nsg,
		       const char *keys, size_t klen, struct pdu *rsp)
{
	uint8_t bhs[BHS] = { 0 };
	static const uint8_t isid[6] = { 0x80, 0x00, 0x4c, 0x4c, 0x00, 0x01 };

	(void)t;
	bhs[0] = 0x40 | OP_LOGIN_REQ;                          /* immediate */
	bhs[1] = (uint8_t)(0x80 | (csg << 2) | nsg);           /* transit */
	memcpy(bhs + 8, isid, 6);
	bhs[14] = (uint8_t)(c->tsih >> 8);
	bhs[15] = (uint8_t)c->tsih;
	put32(bhs + 16, c->itt);
	put32(bhs + 24, c->cmdsn);
	put32(bhs + 28, c->expstatsn);
	if (!send_pdu(c, bhs, (const uint8_t *)keys, (uint32_t)klen, 0)) {
		ll_check_fail("sending a login request");
		return false;
	}
	if (recv_pdu(c, rsp) != 1) {
		ll_check_fail("no login response");
		return false;
	}
	if ((rsp->bhs[0] & 0x3f) != OP_LOGIN_RSP) {
		printf("  got opcode 0x%02x\n", rsp->bhs[0] & 0x3f);
		ll_check_fail("expected a login response");
		return false;
	}
	if (rsp->bhs[36] != 0) {
		printf("  login status class 0x%02x detail 0x%02x\n", rsp->bhs[36], rsp->bhs[37]);
		ll_check_fail("login refused");
		return false;
	}
	c->tsih = (uint16_t)(rsp->bhs[14] << 8 | rsp->bhs[15]);
	c->expstatsn = get32(rsp->bhs + 24) + 1;
	return true;
}

/* Connect and log in offering exactly the digests asked for; false on any failure. */
static bool session_open(struct conn *c, const struct target_addr *t, bool hd, bool dd,
			 const char *initiator)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)t->port) };
	struct timeval tv = { .tv_sec = 10 };
	struct pdu rsp = { .data = NULL };
	char keys[2048];
	char kv[320];
	size_t n = 0;
	const char *v;
	int one = 1;
	bool ok = false;

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0 || inet_pton(AF_INET, t->host, &sa.sin_addr) != 1) {
		ll_check_fail("socket/address");
		return false;
	}
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		ll_check_fail("connect");
		return false;
	}
	c->itt = 1;
	c->cmdsn = 1;

	/* security stage: no authentication */
	snprintf(kv, sizeof(kv), "InitiatorName=%s", initiator);
	n = add_key(keys, n, sizeof(keys), kv);
	snprintf(kv, sizeof(kv), "TargetName=%s", t->iqn);
	n = add_key(keys, n, sizeof(keys), kv);
	n = add_key(keys, n, sizeof(keys), "SessionType=Normal");
	n = add_key(keys, n, sizeof(keys), "AuthMethod=None");
	if (!login_step(c, t, 0, 1, keys, n, &rsp))
		goto out;
	/* a target may stay in the security stage for one more exchange */
	for (int i = 0; i < 4 && !((rsp.bhs[1] & 0x80) && (rsp.bhs[1] & 3) == 1); i++)
		if (!login_step(c, t, 0, 1, "", 0, &rsp))
			goto out;

	/* operational stage: offer exactly one digest value each, so the answer is forced */
	n = 0;
	n = add_key(keys, n, sizeof(keys), hd ? "HeaderDigest=CRC32C" : "HeaderDigest=None");
	n = add_key(keys, n, sizeof(keys), dd ? "DataDigest=CRC32C" : "DataDigest=None");
	n = add_key(keys, n, sizeof(keys), "MaxRecvDataSegmentLength=65536");
	n = add_key(keys, n, sizeof(keys), "FirstBurstLength=65536");
	n = add_key(keys, n, sizeof(keys), "MaxBurstLength=262144");
	n = add_key(keys, n, sizeof(keys), "ImmediateData=Yes");
	n = add_key(keys, n, sizeof(keys), "InitialR2T=Yes");
	n = add_key(keys, n, sizeof(keys), "MaxOutstandingR2T=1");
	n = add_key(keys, n, sizeof(keys), "ErrorRecoveryLevel=0");
	n = add_key(keys, n, sizeof(keys), "DefaultTime2Wait=2");
	n = add_key(keys, n, sizeof(keys), "DefaultTime2Retain=0");
	n = add_key(keys, n, sizeof(keys), "DataPDUInOrder=Yes");
	n = add_key(keys, n, sizeof(keys), "DataSequenceInOrder=Yes");
	n = add_key(keys, n, sizeof(keys), "MaxConnections=1");
	if (!login_step(c, t, 1, 3, keys, n, &rsp))
		goto out;
	c->tgt_mrdsl = 8192; /* RFC 7143 default when the target does not declare one */
	c->first_burst = 65536;
	c->max_burst = 262144;
	c->immediate = true;
	c->initial_r2t = true;
	/* the answers may come over more than one response: keep what each one says */
	for (int i = 0; i < 5; i++) {
		const char *want_hd = hd ? "CRC32C" : "None", *want_dd = dd ? "CRC32C" : "None";
		v = find_key(rsp.data, rsp.len, "HeaderDigest");
		if (v != NULL && strcmp(v, want_hd) != 0) {
			printf("  offered HeaderDigest=%s, target answered %s\n", want_hd, v);
			ll_check_fail("HeaderDigest negotiation");
			goto out;
		}
		v = find_key(rsp.data, rsp.len, "DataDigest");
		if (v != NULL && strcmp(v, want_dd) != 0) {
			printf("  offered DataDigest=%s, target answered %s\n", want_dd, v);
			ll_check_fail("DataDigest negotiation");
			goto out;
		}
		if ((v = find_key(rsp.data, rsp.len, "MaxRecvDataSegmentLength")) != NULL)
			c->tgt_mrdsl = (uint32_t)strtoul(v, NULL, 10);
		if ((v = find_key(rsp.data, rsp.len, "FirstBurstLength")) != NULL)
			c->first_burst = (uint32_t)strtoul(v, NULL, 10);
		if ((v = find_key(rsp.data, rsp.len, "MaxBurstLength")) != NULL)
			c->max_burst = (uint32_t)strtoul(v, NULL, 10);
		if ((v = find_key(rsp.data, rsp.len, "ImmediateData")) != NULL)
			c->immediate = strcmp(v, "Yes") == 0;
		if ((v = find_key(rsp.data, rsp.len, "InitialR2T")) != NULL)
			c->initial_r2t = strcmp(v, "No") != 0;
		if ((rsp.bhs[1] & 0x80) && (rsp.bhs[1] & 3) == 3)
			break;
		if (!login_step(c, t, 1, 3, "", 0, &rsp))
			goto out;
	}
	if (!((rsp.bhs[1] & 0x80) && (rsp.bhs[1] & 3) == 3)) {
		ll_check_fail("target never moved to full feature phase");
		goto out;
	}
	if (c->tgt_mrdsl < 512 || c->tgt_mrdsl > 16777215) {
		ll_check_fail("target declared an unusable MaxRecvDataSegmentLength");
		goto out;
	}
	/* digests start with the first PDU after the final login response */
	c->hd = hd;
	c->dd = dd;
	c->itt = 2;
	ok = clear_unit_attention(c, t);
out:
	free(rsp.data);
	if (!ok && c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	return ok;
}

static void scsi_bhs(struct conn *c, uint8_t *bhs, const struct target_addr *t, bool rd,
		     bool wr, uint32_t edtl, const uint8_t *cdb)
{
	memset(bhs, 0, BHS);
	bhs[0] = OP_SCSI_CMD;
	bhs[1] = (uint8_t)(0x80 | (rd ? 0x40 : 0) | (wr ? 0x20 : 0) | 0x01);  /* F, simple */
	bhs[9] = (uint8_t)t->lun;                                              /* flat LUN < 256 */
	put32(bhs + 16, c->itt);
	put32(bhs + 20, edtl);
	put32(bhs + 24, c->cmdsn);
	put32(bhs + 28, c->expstatsn);
	memcpy(bhs + 32, cdb, 10);
}

static void cdb10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	put32(cdb + 2, lba);
	cdb[7] = (uint8_t)(blocks >> 8);
	cdb[8] = (uint8_t)blocks;
}

/* Wait for the SCSI Response (or status in Data-In) of the current ITT, answering R2Ts with
 * Data-Out from wbuf and placing Data-In into rbuf.  Returns the SCSI status or -1. */
static int finish_command(struct conn *c, const uint8_t *wbuf, uint8_t *rbuf, uint32_t len)
{
	struct pdu p = { .data = NULL };
	int status = -1;
	uint32_t got = 0;

	for (;;) {
		int r = recv_pdu(c, &p);
		uint8_t op;
		if (r != 1) {
			if (r == 0)
				ll_check_fail("target closed the connection during a command");
			break;
		}
		op = p.bhs[0] & 0x3f;
		if (op == OP_R2T && wbuf != NULL) {
			uint32_t ttt = get32(p.bhs + 20), off = get32(p.bhs + 40), want = get32(p.bhs + 44);
			uint32_t sent = 0, datasn = 0;
			if (get32(p.bhs + 16) != c->itt || off + want > len || want == 0) {
				ll_check_fail("R2T with a wrong ITT, offset or length");
				break;
			}
			while (sent < want) {
				uint8_t bhs[BHS] = { 0 };
				uint32_t n = want - sent < c->tgt_mrdsl ? want - sent : c->tgt_mrdsl;
				bhs[0] = OP_DATA_OUT;
				bhs[1] = sent + n == want ? 0x80 : 0;
				memcpy(bhs + 8, p.bhs + 8, 8);
				put32(bhs + 16, c->itt);
				put32(bhs + 20, ttt);
				put32(bhs + 28, c->expstatsn);
				put32(bhs + 36, datasn++);
				put32(bhs + 40, off + sent);
				if (!send_pdu(c, bhs, wbuf + off + sent, n, 0)) {
					ll_check_fail("sending Data-Out");
					goto out;
				}
				sent += n;
			}
		} else if (op == OP_DATA_IN && rbuf != NULL) {
			uint32_t off = get32(p.bhs + 40);
			if (get32(p.bhs + 16) != c->itt || off + p.len > len) {
				ll_check_fail("Data-In with a wrong ITT or beyond the transfer");
				break;
			}
			memcpy(rbuf + off, p.data, p.len);
			got += p.len;
			if (p.bhs[1] & 0x01) {          /* S: status collapsed into this Data-In */
				c->expstatsn = get32(p.bhs + 24) + 1;
				status = p.bhs[3];
				break;
			}
		} else if (op == OP_SCSI_RSP) {
			c->expstatsn = get32(p.bhs + 24) + 1;
			status = p.bhs[2] == 0 ? p.bhs[3] : -1;
			break;
		} else if (op == OP_NOP_IN) {
			if (get32(p.bhs + 20) != 0xffffffffu) {   /* the target pings: answer */
				uint8_t bhs[BHS] = { 0 };
				bhs[0] = 0x40 | OP_NOP_OUT;
				bhs[1] = 0x80;
				memcpy(bhs + 8, p.bhs + 8, 8);
				put32(bhs + 16, 0xffffffffu);
				memcpy(bhs + 20, p.bhs + 20, 4);
				put32(bhs + 24, c->cmdsn);
				put32(bhs + 28, c->expstatsn);
				send_pdu(c, bhs, NULL, 0, 0);
			}
		} else {
			printf("  unexpected opcode 0x%02x\n", op);
			ll_check_fail("unexpected PDU during a command");
			break;
		}
	}
	if (status > 0 && len > 0)
		printf("  SCSI status 0x%02x\n", status);
	if (status == 0 && rbuf != NULL && got != len) {
		ll_check_fail("READ returned fewer bytes than asked");
		status = -1;
	}
out:
	free(p.data);
	c->itt++;
	c->cmdsn++;
	return status;
}

static bool do_write(struct conn *c, const struct target_addr *t, uint32_t lba,
		     const uint8_t *buf, uint32_t len)
{
	uint8_t cdb[16], bhs[BHS];
	uint32_t imm = 0;

	cdb10(cdb, 0x2a, lba, (uint16_t)(len / 512));
	scsi_bhs(c, bhs, t, false, true, len, cdb);
	if (c->immediate) {
		imm = len;
		if (imm > c->first_burst)
			imm = c->first_burst;
		if (imm > c->tgt_mrdsl)
			imm = c->tgt_mrdsl;
		/* F stays set: with InitialR2T=Yes the rest comes only through R2T */
	}
	if (!send_pdu(c, bhs, buf, imm, 0)) {
		ll_check_fail("sending WRITE(10)");
		return false;
	}
	return finish_command(c, buf, NULL, len) == 0;
}

static bool do_read(struct conn *c, const struct target_addr *t, uint32_t lba, uint8_t *buf,
		    uint32_t len)
{
	uint8_t cdb[16], bhs[BHS];

	cdb10(cdb, 0x28, lba, (uint16_t)(len / 512));
	scsi_bhs(c, bhs, t, true, false, len, cdb);
	if (!send_pdu(c, bhs, NULL, 0, 0)) {
		ll_check_fail("sending READ(10)");
		return false;
	}
	return finish_command(c, NULL, buf, len) == 0;
}

/* A new I_T nexus may first get a UNIT ATTENTION (power on / reset): TEST UNIT READY until
 * GOOD, as real initiators do, so that the commands under test see no stale attention. */
static bool clear_unit_attention(struct conn *c, const struct target_addr *t)
{
	uint8_t cdb[16] = { 0 }, bhs[BHS];

	for (int i = 0; i < 4; i++) {
		int st;
		scsi_bhs(c, bhs, t, false, false, 0, cdb);
		if (!send_pdu(c, bhs, NULL, 0, 0))
			return false;
		st = finish_command(c, NULL, NULL, 0);
		if (st == 0)
			return true;
		if (st < 0)
			return false;
	}
	ll_check_fail("TEST UNIT READY never returned GOOD");
	return false;
}

static void session_close(struct conn *c)
{
	uint8_t bhs[BHS] = { 0 };
	struct pdu p = { .data = NULL };

	if (c->fd < 0)
		return;
	bhs[0] = 0x40 | OP_LOGOUT_REQ;
	bhs[1] = 0x80;                 /* close the session */
	put32(bhs + 16, c->itt);
	put32(bhs + 24, c->cmdsn);
	put32(bhs + 28, c->expstatsn);
	if (send_pdu(c, bhs, NULL, 0, 0) && recv_pdu(c, &p) == 1 &&
	    (p.bhs[0] & 0x3f) != OP_LOGOUT_RSP)
		ll_check_fail("expected a logout response");
	free(p.data);
	close(c->fd);
	c->fd = -1;
}

static void fill(uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 2654435761u + seed * 40503u) >> 13);
}

/* block size must be 512 for this program's CDBs */
#define SMALL 4096u
#define LARGE (300u * 1024u)

static void run_good(const struct target_addr *t)
{
	static const struct {
		bool hd, dd;
	} modes[] = { { false, false }, { true, false }, { false, true }, { true, true } };
	uint8_t *w = malloc(LARGE), *r = malloc(LARGE);

	for (size_t i = 0; i < 4 && w && r; i++) {
		struct conn c;
		int before = ll_check_failures;
		printf("HeaderDigest=%s DataDigest=%s:\n", modes[i].hd ? "CRC32C" : "None",
		       modes[i].dd ? "CRC32C" : "None");
		if (!session_open(&c, t, modes[i].hd, modes[i].dd,
				  "iqn.2026-11.org.lunlab:digest-check"))
			continue;
		printf("  negotiated; target MaxRecvDataSegmentLength %u, ImmediateData %s\n",
		       c.tgt_mrdsl, c.immediate ? "Yes" : "No");
		/* 4 KiB at LBA 64+i*1024: immediate data; 300 KiB after it: R2T + Data-Out */
		fill(w, SMALL, (uint32_t)i + 1);
		if (!do_write(&c, t, 64 + (uint32_t)i * 1024, w, SMALL) ||
		    !do_read(&c, t, 64 + (uint32_t)i * 1024, r, SMALL) || memcmp(w, r, SMALL) != 0)
			ll_check_fail("4 KiB write/read back");
		fill(w, LARGE, (uint32_t)i + 100);
		if (!do_write(&c, t, 72 + (uint32_t)i * 1024, w, LARGE) ||
		    !do_read(&c, t, 72 + (uint32_t)i * 1024, r, LARGE) || memcmp(w, r, LARGE) != 0)
			ll_check_fail("300 KiB write/read back");
		session_close(&c);
		if (ll_check_failures == before)
			printf("  4 KiB and 300 KiB written and read back: data matched, digests verified\n");
	}
	free(w);
	free(r);
}

/* After sending a bad PDU: 1 if the target rejected it (Reject reason 0x02 data digest error),
 * 2 if it closed the connection, 0 if something else came back (printed). */
static int await_refusal(struct conn *c)
{
	struct pdu p = { .data = NULL };
	int r, res = 0;

	for (int i = 0; i < 8; i++) {
		r = recv_pdu(c, &p);
		if (r == 0 || r < 0) {          /* closed (or reset): the ERL 0 answer */
			res = 2;
			break;
		}
		if ((p.bhs[0] & 0x3f) == OP_REJECT) {
			printf("  target sent Reject reason 0x%02x\n", p.bhs[2]);
			res = p.bhs[2] == 0x02 ? 1 : 0;
			break;
		}
		if ((p.bhs[0] & 0x3f) == OP_SCSI_RSP) {
			printf("  target answered the corrupted command with SCSI status 0x%02x\n",
			       p.bhs[3]);
			res = 0;
			break;
		}
		if ((p.bhs[0] & 0x3f) == OP_R2T) {
			/* a target may ask for the rest first; the command is still refused later */
			continue;
		}
	}
	free(p.data);
	return res;
}

static void run_errors(const struct target_addr *t)
{
	uint8_t good[SMALL], bad[SMALL], back[SMALL], bhs[BHS], cdb[16];
	struct conn c;
	int before = ll_check_failures, res;
	uint32_t lba = 8192;

	fill(good, SMALL, 7);
	fill(bad, SMALL, 8);

	/* known contents first */
	if (!session_open(&c, t, true, true, "iqn.2026-11.org.lunlab:digest-errors"))
		return;
	if (!do_write(&c, t, lba, good, SMALL))
		ll_check_fail("preparing the LBA range");
	/* a WRITE whose immediate data carries a wrong data digest */
	printf("WRITE(10) with a corrupted data digest on its immediate data:\n");
	cdb10(cdb, 0x2a, lba, SMALL / 512);
	scsi_bhs(&c, bhs, t, false, true, SMALL, cdb);
	if (!c.immediate || c.tgt_mrdsl < SMALL || c.first_burst < SMALL) {
		printf("  (target takes no 4 KiB immediate data: case not applicable)\n");
		session_close(&c);
	} else {
		if (!send_pdu(&c, bhs, bad, SMALL, 2))
			ll_check_fail("sending the corrupted WRITE");
		res = await_refusal(&c);
		if (res == 0)
			ll_check_fail("a data digest error must be answered with Reject 0x02 or a dropped connection");
		else
			printf("  refused (%s)\n", res == 1 ? "Reject: data digest error" : "connection dropped");
		close(c.fd);
	}

	/* a NOP-Out whose header digest is wrong: the target must not act on that header */
	printf("NOP-Out with a corrupted header digest:\n");
	if (session_open(&c, t, true, false, "iqn.2026-11.org.lunlab:digest-errors-2")) {
		struct pdu p = { .data = NULL };
		memset(bhs, 0, BHS);
		bhs[0] = 0x40 | OP_NOP_OUT;
		bhs[1] = 0x80;
		put32(bhs + 16, 0x1111);                /* ITT of the corrupted ping */
		put32(bhs + 20, 0xffffffffu);
		put32(bhs + 24, c.cmdsn);
		put32(bhs + 28, c.expstatsn);
		send_pdu(&c, bhs, NULL, 0, 1);
		put32(bhs + 16, 0x2222);                /* then a good one */
		if (!send_pdu(&c, bhs, NULL, 0, 0)) {
			printf("  connection already dropped\n");
		} else {
			int r = recv_pdu(&c, &p);
			if (r == 1 && (p.bhs[0] & 0x3f) == OP_NOP_IN && get32(p.bhs + 16) == 0x1111)
				ll_check_fail("target answered a PDU whose header digest was wrong");
			else if (r == 1)
				printf("  corrupted header discarded, next PDU answered (ITT 0x%x)\n",
				       get32(p.bhs + 16));
			else
				printf("  connection dropped\n");
		}
		free(p.data);
		close(c.fd);
	}

	/* the LU is unchanged and the target still serves new sessions */
	printf("afterwards:\n");
	if (session_open(&c, t, false, false, "iqn.2026-11.org.lunlab:digest-errors-3")) {
		if (!do_read(&c, t, lba, back, SMALL))
			ll_check_fail("reading back after the digest errors");
		else if (memcmp(back, good, SMALL) != 0)
			ll_check_fail("data with a bad digest reached the LU");
		else
			printf("  new session works; the LU still holds the data written before\n");
		session_close(&c);
	}
	if (ll_check_failures == before)
		printf("digest errors handled\n");
}

int main(int argc, char **argv)
{
	struct target_addr t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	crc_init();
	/* RFC 3720 B.4 check value for CRC32C over 32 zero bytes */
	{
		uint8_t z[32] = { 0 };
		if (crc32c(z, 32) != 0x8a9136aau) {
			printf("FAIL: CRC32C self-test\n");
			return 1;
		}
	}
	if (argc != 3 || !parse_url(argv[1], &t) ||
	    (strcmp(argv[2], "good") != 0 && strcmp(argv[2], "errors") != 0)) {
		fprintf(stderr, "usage: %s iscsi://HOST:PORT/IQN/LUN good|errors\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[2], "good") == 0)
		run_good(&t);
	else
		run_errors(&t);
	printf("%s\n", ll_check_failures ? "FAIL" : "PASS");
	return ll_check_failures ? 1 : 0;
}
