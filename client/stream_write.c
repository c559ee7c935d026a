/* stream_write.c - sequential WRITE(16)s at a fixed queue depth through the connection layer
 * (conn.h: a lost session is logged in again and the writes in flight are sent again). */
#include "client/stream_write.h"
#include "client/xfer_limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "client/progress.h"

struct sw_state;

struct sw_slot {
	struct sw_state *st;
	uint8_t *buf;
	struct scsi_iovec iov;
	bool busy;
};

struct sw_state {
	const struct stream_write_args *a;
	uint64_t next, done;
	unsigned inflight;
	int failed;
	char err[1024];
};

static void write_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	struct sw_slot *s = priv;
	struct sw_state *st = s->st;
	st->inflight--;
	s->busy = false;
	if (status != SCSI_STATUS_GOOD && !st->failed) {
		char what[96], why[100];
		st->failed = 1;
		conn_describe_cdb(task->cdb, task->cdb_size, what, sizeof(what));
		conn_describe_answer(c, status, task, why, sizeof(why));
		if (status == SCSI_STATUS_ERROR)
			snprintf(st->err, sizeof(st->err), "%s", conn_error(c));
		else
			snprintf(st->err, sizeof(st->err), "%s: %s failed: %s", c->url, what, why);
	} else if (status == SCSI_STATUS_GOOD) {
		st->done += task->expxferlen > 0 ? (uint64_t)task->expxferlen : 0;
	}
	scsi_free_scsi_task(task);
}

int stream_write(struct bench_conn *c, const struct stream_write_args *a, char *err, size_t errlen)
{
	if (a->total_bytes % c->block_size || a->io_bytes % c->block_size || !a->io_bytes || !a->qd) {
		snprintf(err, errlen, "write of %llu bytes in %u-byte I/Os is not a multiple of the %u-byte block",
			 (unsigned long long)a->total_bytes, a->io_bytes, c->block_size);
		return -1;
	}
	if (a->start_lba + a->total_bytes / c->block_size > c->num_blocks) {
		snprintf(err, errlen, "write of %llu bytes at LBA %llu runs past the LU's %llu blocks",
			 (unsigned long long)a->total_bytes, (unsigned long long)a->start_lba,
			 (unsigned long long)c->num_blocks);
		return -1;
	}
	/* Never more per WRITE than the LU's MAXIMUM TRANSFER LENGTH (VPD B0h, xfer_limit.h). */
	const uint32_t io = xfer_clamp_bytes(a->io_bytes, c->block_size, c->max_xfer_blocks);
	struct sw_state st = { .a = a };
	struct sw_slot *slots = calloc(a->qd, sizeof(*slots));
	if (!slots) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int ret = -1;
	for (unsigned i = 0; i < a->qd; i++) {
		slots[i].st = &st;
		if (posix_memalign((void **)&slots[i].buf, 4096, io)) {
			snprintf(err, errlen, "out of memory for write buffers");
			goto out;
		}
	}
	struct progress pb;
	progress_start(&pb, a->label, a->total_bytes, a->quiet);
	while (!st.failed && (st.next < a->total_bytes || st.inflight)) {
		for (unsigned i = 0; i < a->qd && st.next < a->total_bytes && !st.failed; i++) {
			if (slots[i].busy)
				continue;
			uint64_t left = a->total_bytes - st.next;
			uint32_t len = left < io ? (uint32_t)left : io;
			if (a->fill(a->fill_arg, st.next, slots[i].buf, len)) {
				snprintf(st.err, sizeof(st.err), "reading the source data at offset %llu failed",
					 (unsigned long long)st.next);
				st.failed = 1;
				break;
			}
			uint64_t lba = a->start_lba + st.next / c->block_size;
			slots[i].iov.iov_base = slots[i].buf;
			slots[i].iov.iov_len = len;
			slots[i].busy = true;
			st.inflight++;
			if (conn_write16(c, lba, len, &slots[i].iov, 1, write_cb, &slots[i])) {
				slots[i].busy = false;
				st.inflight--;
				snprintf(st.err, sizeof(st.err), "%s", conn_failed(c) ? conn_error(c) : "cannot queue WRITE(16)");
				st.failed = 1;
				break;
			}
			st.next += len;
		}
		/* a session that fails for good fails its writes back through write_cb */
		if (st.inflight)
			conn_poll_many(c, 1, 1000, err, errlen);
		progress_update(&pb, st.done);
	}
	/* Drain what is in flight after a failure, so no callback outlives the slots. */
	while (st.inflight)
		conn_poll_many(c, 1, 1000, err, errlen);
	progress_end(&pb);
	if (st.failed) {
		snprintf(err, errlen, "%s", st.err);
		goto out;
	}
	ret = 0;
out:
	for (unsigned i = 0; i < a->qd; i++)
		free(slots[i].buf);
	free(slots);
	return ret;
}
