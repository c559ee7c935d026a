/* fake_target.c - see fake_target.h.  One connection at a time; PDUs without digests;
 * ImmediateData=Yes, InitialR2T=No and large bursts are negotiated so that no R2T is needed. */
#include "fake_target.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BHS 48

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

struct conn {
	struct fake_target *f;
	int fd;
	uint32_t statsn, expcmdsn;
	struct held { uint32_t itt; bool live; } held[8];
};

/* 0 read all, -1 closed / error / stop */
static int read_full(struct conn *c, uint8_t *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int r = poll(&p, 1, 50);
		if (c->f->stop)
			return -1;
		if (r <= 0)
			continue;
		ssize_t n = read(c->fd, buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static void send_pdu(struct conn *c, uint8_t *hdr, const uint8_t *data, uint32_t dlen)
{
	static const uint8_t pad[4];
	hdr[5] = (uint8_t)(dlen >> 16);
	hdr[6] = (uint8_t)(dlen >> 8);
	hdr[7] = (uint8_t)dlen;
	if (write(c->fd, hdr, BHS) != BHS)
		return;
	if (dlen && write(c->fd, data, dlen) != (ssize_t)dlen)
		return;
	if (dlen % 4 && write(c->fd, pad, 4 - dlen % 4) < 0)
		return;
}

/* StatSN, ExpCmdSN, MaxCmdSN at 24, 28, 32 of a response */
static void seq(struct conn *c, uint8_t *h, bool status)
{
	put32(h + 24, status ? c->statsn++ : c->statsn);
	put32(h + 28, c->expcmdsn);
	put32(h + 32, c->expcmdsn + 64);
}

static bool login(struct conn *c, const uint8_t *req)
{
	struct fake_target *f = c->f;
	uint8_t h[BHS] = { 0x23 };
	static const char keys[] = "HeaderDigest=None\0DataDigest=None\0ImmediateData=Yes\0InitialR2T=No\0"
				   "FirstBurstLength=262144\0MaxBurstLength=262144\0"
				   "MaxRecvDataSegmentLength=262144\0TargetPortalGroupTag=1";
	bool transit = req[1] & 0x80;
	uint8_t csg = (req[1] >> 2) & 3, nsg = req[1] & 3;
	h[1] = (uint8_t)((transit ? 0x80 : 0) | csg << 2 | (transit ? nsg : 0));
	memcpy(h + 8, req + 8, 6);                 /* ISID */
	memcpy(h + 16, req + 16, 4);               /* ITT */
	c->expcmdsn = get32(req + 24);
	pthread_mutex_lock(&f->lock);
	uint16_t st = f->login_status;
	bool done = !st && transit && nsg == 3;
	if (done && f->logins < FAKE_MAX_LOG)
		memcpy(f->isid[f->logins], req + 8, 6);
	if (done)
		f->logins++;
	if (st)
		f->refusals++;
	pthread_mutex_unlock(&f->lock);
	if (done)
		h[15] = 1;                         /* TSIH */
	h[36] = (uint8_t)(st >> 8);
	h[37] = (uint8_t)st;
	seq(c, h, true);
	if (st)
		h[1] = 0;
	send_pdu(c, h, (const uint8_t *)keys, csg == 1 && !st ? sizeof(keys) : 0);
	return !st;
}

static void respond(struct conn *c, const uint8_t *req, uint8_t status, const uint8_t *sense3)
{
	uint8_t h[BHS] = { 0x21, 0x80, 0x00, status };
	uint8_t data[2 + 18] = { 0 };
	memcpy(h + 16, req + 16, 4);
	seq(c, h, true);
	if (sense3) {
		data[1] = 18;
		data[2] = 0x70;
		data[2 + 2] = sense3[0];
		data[2 + 7] = 10;
		data[2 + 12] = sense3[1];
		data[2 + 13] = sense3[2];
		send_pdu(c, h, data, sizeof(data));
	} else {
		send_pdu(c, h, NULL, 0);
	}
}

static void data_in(struct conn *c, const uint8_t *req, const uint8_t *buf, uint32_t len)
{
	uint8_t h[BHS] = { 0x25, 0x81, 0x00, 0x00 };  /* F, S: GOOD with the data */
	memcpy(h + 16, req + 16, 4);
	put32(h + 20, 0xffffffff);
	seq(c, h, true);
	send_pdu(c, h, buf, len);
}

/* returns false when the connection must close */
static bool scsi_cmd(struct conn *c, const uint8_t *req)
{
	struct fake_target *f = c->f;
	if (!(req[0] & 0x40))
		c->expcmdsn = get32(req + 24) + 1;
	struct fake_action a = { .kind = FAKE_GOOD };
	pthread_mutex_lock(&f->lock);
	if (f->n_cmds < FAKE_MAX_LOG) {
		f->cmd_op[f->n_cmds] = req[32];
		f->cmd_itt[f->n_cmds] = get32(req + 16);
	}
	f->n_cmds++;
	if (f->next_action < f->n_script)
		a = f->script[f->next_action++];
	if (a.kind == FAKE_VANISH && f->lfd >= 0) {
		close(f->lfd);
		f->lfd = -1;
	}
	pthread_mutex_unlock(&f->lock);
	uint8_t sense[3] = { a.key, a.asc, a.ascq };
	switch (a.kind) {
	case FAKE_DROP:
	case FAKE_VANISH:
		return false;
	case FAKE_HOLD:
		for (int i = 0; i < 8; i++) {
			if (!c->held[i].live) {
				c->held[i] = (struct held){ get32(req + 16), true };
				break;
			}
		}
		return true;
	case FAKE_STATUS:
		respond(c, req, a.status, NULL);
		return true;
	case FAKE_SENSE:
		respond(c, req, 0x02, sense);
		return true;
	case FAKE_GOOD:
		break;
	}
	uint32_t edtl = get32(req + 20);
	if (req[32] == 0x9e) {                     /* READ CAPACITY(16): 2048 blocks of 512 */
		uint8_t rc[32] = { 0 };
		put32(rc + 4, 2047);
		put32(rc + 8, 512);
		data_in(c, req, rc, edtl < sizeof(rc) ? edtl : sizeof(rc));
	} else if ((req[1] & 0x40) && edtl) {      /* a read: zeros */
		uint8_t *z = calloc(1, edtl);
		if (z)
			data_in(c, req, z, edtl);
		free(z);
	} else {
		respond(c, req, 0x00, NULL);
	}
	return true;
}

static void tmf(struct conn *c, const uint8_t *req)
{
	struct fake_target *f = c->f;
	uint32_t ref = get32(req + 20);
	pthread_mutex_lock(&f->lock);
	if (f->n_tmfs < FAKE_MAX_LOG) {
		f->tmf_func[f->n_tmfs] = req[1] & 0x7f;
		f->tmf_ref[f->n_tmfs] = ref;
	}
	f->n_tmfs++;
	pthread_mutex_unlock(&f->lock);
	uint8_t resp = 1;                          /* TASK DOES NOT EXIST */
	for (int i = 0; i < 8; i++) {
		if (c->held[i].live && c->held[i].itt == ref) {
			c->held[i].live = false;       /* aborted: never answered */
			resp = 0;                      /* FUNCTION COMPLETE */
		}
	}
	uint8_t h[BHS] = { 0x22, 0x80, resp };
	memcpy(h + 16, req + 16, 4);
	seq(c, h, true);
	send_pdu(c, h, NULL, 0);
}

static void serve(struct conn *c)
{
	uint8_t h[BHS];
	static uint8_t data[300000];
	bool logged_in = false;
	for (;;) {
		if (read_full(c, h, BHS))
			return;
		uint32_t dlen = (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
		uint32_t padded = (dlen + 3) & ~3u;
		if (h[4] || padded > sizeof(data) || read_full(c, data, padded))
			return;
		switch (h[0] & 0x3f) {
		case 0x03:
			if (!login(c, h))
				return;
			logged_in = logged_in || (h[1] & 0x83) == 0x83;
			break;
		case 0x01:
			if (!logged_in || !scsi_cmd(c, h))
				return;
			break;
		case 0x02:
			tmf(c, h);
			break;
		case 0x05:                         /* Data-Out: everything fits in immediate data here */
			break;
		case 0x06: {
			pthread_mutex_lock(&c->f->lock);
			c->f->logouts++;
			pthread_mutex_unlock(&c->f->lock);
			uint8_t r[BHS] = { 0x26, 0x80 };
			memcpy(r + 16, h + 16, 4);
			seq(c, r, true);
			send_pdu(c, r, NULL, 0);
			return;
		}
		default:
			break;
		}
	}
}

static void *loop(void *arg)
{
	struct fake_target *f = arg;
	while (!f->stop) {
		pthread_mutex_lock(&f->lock);
		int lfd = f->lfd;
		pthread_mutex_unlock(&f->lock);
		if (lfd < 0) {
			usleep(20000);
			continue;
		}
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		if (poll(&p, 1, 50) <= 0)
			continue;
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct conn c = { .f = f, .fd = fd, .statsn = 1 };
		serve(&c);
		close(fd);
	}
	return NULL;
}

int fake_start(struct fake_target *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (f->lfd < 0)
		return -1;
	int one = 1;
	setsockopt(f->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	if (bind(f->lfd, (struct sockaddr *)&a, sizeof(a)) || listen(f->lfd, 8) ||
	    getsockname(f->lfd, (struct sockaddr *)&a, &al)) {
		close(f->lfd);
		return -1;
	}
	f->port = ntohs(a.sin_port);
	if (pthread_create(&f->thread, NULL, loop, f)) {
		close(f->lfd);
		return -1;
	}
	return 0;
}

void fake_stop(struct fake_target *f)
{
	f->stop = true;
	pthread_join(f->thread, NULL);
	if (f->lfd >= 0)
		close(f->lfd);
	pthread_mutex_destroy(&f->lock);
}

void fake_push(struct fake_target *f, struct fake_action a)
{
	pthread_mutex_lock(&f->lock);
	if (f->n_script < FAKE_MAX_SCRIPT)
		f->script[f->n_script++] = a;
	pthread_mutex_unlock(&f->lock);
}

void fake_url(const struct fake_target *f, char *buf, size_t len)
{
	snprintf(buf, len, "iscsi://127.0.0.1:%u/iqn.2026-11.org.lunlab:fake/0", f->port);
}
