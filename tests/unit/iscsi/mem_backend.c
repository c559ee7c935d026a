/* mem_backend.c — see mem_backend.h (test code only). */
#include "mem_backend.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "lunlab/be.h"
#include "lunlab/fnv1a.h"
#include "lunlab/scsi_vocab.h"

struct mem_be {
	struct lu_backend be;
	uint8_t *data;
	size_t size;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct lu_cmd *head, *tail;
	bool stop;
	bool hold;             /* queue commands, execute none (mem_backend_hold) */
	uint64_t last_arrival;  /* lu_cmd.arrival_ns of the last command executed */
	pthread_t th;
	struct mem_early_stats early; /* under mu */
};

/* One command's early state: what each data_arrived call said was final. */
#define EARLY_MAX_CALLS 256
struct mem_early {
	struct mem_be *m;
	unsigned n;
	size_t bytes[EARLY_MAX_CALLS];
	uint64_t sum[EARLY_MAX_CALLS];
};

/* FNV-1a over the first n bytes of the command's buffer (one iovec). */
static uint64_t prefix_sum(const struct lu_cmd *c, size_t n)
{
	return ll_fnv1a64(LL_FNV1A64_BASIS, c->iov[0].iov_base, n);
}

static void check(struct lu_cmd *c, uint8_t key, uint8_t asc)
{
	c->status = SCSI_STAT_CHECK_CONDITION;
	memset(c->sense, 0, 18);
	c->sense[0] = 0x70;
	c->sense[2] = key;
	c->sense[7] = 10;
	c->sense[12] = asc;
	c->sense_len = 18;
	c->data_len = 0;
}

/* copies between the LU and the command's iovec */
static void xfer(struct lu_cmd *c, uint8_t *lu, size_t len, bool to_lu)
{
	size_t done = 0;

	for (size_t i = 0; i < c->iov_cnt && done < len; i++) {
		size_t n = c->iov[i].iov_len < len - done ? c->iov[i].iov_len : len - done;
		if (to_lu)
			memcpy(lu + done, c->iov[i].iov_base, n);
		else
			memcpy(c->iov[i].iov_base, lu + done, n);
		done += n;
	}
}

static void put(struct lu_cmd *c, const uint8_t *src, size_t n)
{
	if (n > c->xfer_len)
		n = c->xfer_len;
	xfer(c, (uint8_t *)src, n, false);
	c->status = 0;
	c->data_len = c->xfer_len;
}

static void execute(struct mem_be *m, struct lu_cmd *c)
{
	uint8_t *cdb = c->cdb, out[36];
	uint64_t lba, blocks, nl = m->size / m->be.block_size;

	c->status = 0;
	c->sense_len = 0;
	c->data_len = 0;
	switch (cdb[0]) {
	case SCSI_OP_TEST_UNIT_READY:
		return;
	case SCSI_OP_INQUIRY:
		memset(out, 0, sizeof(out));
		out[2] = 6;
		out[3] = 2;
		out[4] = 31;
		memcpy(out + 8, "TESTMEM MEMORY-LU       0001", 28);
		put(c, out, 36);
		return;
	case SCSI_OP_READ_CAPACITY_10:
		memset(out, 0, 8);
		out[0] = (uint8_t)((nl - 1) >> 24);
		out[1] = (uint8_t)((nl - 1) >> 16);
		out[2] = (uint8_t)((nl - 1) >> 8);
		out[3] = (uint8_t)(nl - 1);
		out[6] = (uint8_t)(m->be.block_size >> 8);
		put(c, out, 8);
		return;
	case SCSI_OP_READ_10: case SCSI_OP_WRITE_10:
		lba = get_be32(cdb + 2);
		blocks = (uint64_t)(cdb[7] << 8 | cdb[8]);
		break;
	case SCSI_OP_READ_16: case SCSI_OP_WRITE_16:
		lba = (uint64_t)get_be32(cdb + 2) << 32 | get_be32(cdb + 6);
		blocks = get_be32(cdb + 10);
		break;
	default:
		check(c, 0x05, 0x20);
		return;
	}
	if (lba + blocks > nl) {
		check(c, 0x05, 0x21);
		return;
	}
	xfer(c, m->data + lba * m->be.block_size, blocks * m->be.block_size, cdb[0] == SCSI_OP_WRITE_10 || cdb[0] == SCSI_OP_WRITE_16);
	c->data_len = c->xfer_len;
}

/* At execution: every prefix a data_arrived call declared final is
 * unchanged (the transport wrote nothing into it since). */
static void early_verify(struct mem_be *m, struct lu_cmd *c)
{
	struct mem_early *e = c->early;
	unsigned long bad = 0;

	if (!e)
		return;
	for (unsigned i = 0; i < e->n; i++)
		if (prefix_sum(c, e->bytes[i]) != e->sum[i])
			bad++;
	pthread_mutex_lock(&m->mu);
	m->early.bad += bad;
	pthread_mutex_unlock(&m->mu);
}

static void early_drop(void *state)
{
	struct mem_early *e = state;

	pthread_mutex_lock(&e->m->mu);
	e->m->early.drops++;
	pthread_mutex_unlock(&e->m->mu);
	free(e);
}

/* The contract (lu_cmd.h): a WRITE not yet submitted, one whole buffer,
 * bytes growing and short of the whole. */
static void data_arrived(struct lu_backend *be, struct lu_cmd *c, size_t bytes)
{
	struct mem_be *m = (struct mem_be *)be;
	struct mem_early *e = c->early;
	bool bad = c->dir != LU_DIR_WRITE || c->iov_cnt != 1 || c->iov[0].iov_len != c->xfer_len ||
		   bytes == 0 || bytes >= c->xfer_len || (e && e->n && bytes <= e->bytes[e->n - 1]);

	if (!e && (e = calloc(1, sizeof(*e)))) {
		e->m = m;
		c->early = e;
		c->early_drop = early_drop;
		pthread_mutex_lock(&m->mu);
		m->early.states++;
		pthread_mutex_unlock(&m->mu);
	}
	if (e && e->n < EARLY_MAX_CALLS && !bad) {
		e->bytes[e->n] = bytes;
		e->sum[e->n++] = prefix_sum(c, bytes);
	}
	pthread_mutex_lock(&m->mu);
	m->early.calls++;
	m->early.bad += bad;
	m->early.last_bytes = bytes;
	pthread_mutex_unlock(&m->mu);
}

static void *worker(void *arg)
{
	struct mem_be *m = arg;

	pthread_mutex_lock(&m->mu);
	for (;;) {
		while ((!m->head || m->hold) && !m->stop)
			pthread_cond_wait(&m->cv, &m->mu);
		if (!m->head)
			break;
		struct lu_cmd *c = m->head;
		m->head = c->backend_priv;
		if (!m->head)
			m->tail = NULL;
		m->last_arrival = c->arrival_ns;
		pthread_mutex_unlock(&m->mu);
		early_verify(m, c);
		execute(m, c);
		c->done(c);
		pthread_mutex_lock(&m->mu);
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

static void submit(struct lu_backend *be, struct lu_cmd *c)
{
	struct mem_be *m = (struct mem_be *)be;

	c->backend_priv = NULL;
	pthread_mutex_lock(&m->mu);
	if (m->tail)
		m->tail->backend_priv = c;
	else
		m->head = c;
	m->tail = c;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

static const struct lu_backend_ops ops = { .submit = submit };
static const struct lu_backend_ops ops_early = { .submit = submit, .data_arrived = data_arrived };

void mem_backend_early(struct lu_backend *be, bool on)
{
	be->ops = on ? &ops_early : &ops;
	be->wants_data_arrived = on;
}

struct mem_early_stats mem_backend_early_stats(struct lu_backend *be)
{
	struct mem_be *m = (struct mem_be *)be;

	pthread_mutex_lock(&m->mu);
	struct mem_early_stats s = m->early;
	pthread_mutex_unlock(&m->mu);
	return s;
}

struct lu_backend *mem_backend_new(size_t size, unsigned bs)
{
	struct mem_be *m = calloc(1, sizeof(*m));

	m->be.ops = &ops;
	m->be.block_size = bs;
	m->be.num_lbas = size / bs;
	m->size = size;
	m->data = calloc(1, size);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	pthread_create(&m->th, NULL, worker, m);
	return &m->be;
}

uint64_t mem_backend_last_arrival(struct lu_backend *be)
{
	struct mem_be *m = (struct mem_be *)be;

	pthread_mutex_lock(&m->mu);
	uint64_t a = m->last_arrival;
	pthread_mutex_unlock(&m->mu);
	return a;
}

unsigned long mem_backend_queued(struct lu_backend *be)
{
	struct mem_be *m = (struct mem_be *)be;
	unsigned long n = 0;

	pthread_mutex_lock(&m->mu);
	for (struct lu_cmd *c = m->head; c; c = c->backend_priv)
		n++;
	pthread_mutex_unlock(&m->mu);
	return n;
}

void mem_backend_hold(struct lu_backend *be, bool hold)
{
	struct mem_be *m = (struct mem_be *)be;

	pthread_mutex_lock(&m->mu);
	m->hold = hold;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

void mem_backend_free(struct lu_backend *be)
{
	struct mem_be *m = (struct mem_be *)be;

	pthread_mutex_lock(&m->mu);
	m->stop = true;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->th, NULL);
	free(m->data);
	free(m);
}
