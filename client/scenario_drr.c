/* scenario_drr.c - write a VM image (a file or the built-in synthetic Windows 10 image) and
 * read the array's data reduction back from LOG SENSE page 0x30, once its accounting has
 * caught up (pending_blocks == 0). */
#include "client/scenarios.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/conn.h"
#include "client/readback.h"
#include "client/scsi_query.h"
#include "client/stream_write.h"
#include "client/xfer_limit.h"
#include "client/synthetic_image.h"

struct drr_src {
	const struct bench_opts *o;
	FILE *file;
};

static int fill_synthetic(void *arg, uint64_t offset, uint8_t *buf, size_t len)
{
	struct drr_src *s = arg;
	synth_win10_fill(s->o->seed, offset, buf, len);
	return 0;
}

/* By offset (pread), not sequentially: the read-back check after a lost session reads the
 * image again at chosen offsets. */
static int fill_file(void *arg, uint64_t offset, uint8_t *buf, size_t len)
{
	struct drr_src *s = arg;
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fileno(s->file), buf + got, len - got, (off_t)(offset + got));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	memset(buf + got, 0, len - got);   /* the last block is padded with zeros */
	return 0;
}

int scenario_drr(const struct bench_opts *o, struct drr_result *r, char *err, size_t errlen)
{
	struct bench_conn c;
	struct drr_src src = { .o = o };
	memset(r, 0, sizeof(*r));
	uint64_t size = o->image_size;
	if (o->image_path) {
		struct stat sb;
		src.file = fopen(o->image_path, "rb");
		if (!src.file || fstat(fileno(src.file), &sb)) {
			snprintf(err, errlen, "--image %s: %s", o->image_path, strerror(errno));
			if (src.file)
				fclose(src.file);
			return -1;
		}
		size = (uint64_t)sb.st_size;
		snprintf(r->source_buf, sizeof(r->source_buf), "file %s", o->image_path);
	} else {
		size -= size % SYNTH_EXTENT_SIZE;
		if (size == 0)
			size = SYNTH_EXTENT_SIZE;
		snprintf(r->source_buf, sizeof(r->source_buf), "synthetic win10, seed %llu",
			 (unsigned long long)o->seed);
	}
	r->source = r->source_buf;
	if (conn_open(o->url, o->initiator, &c, err, errlen)) {
		if (src.file)
			fclose(src.file);
		return -1;
	}
	int ret = -1;
	if (xfer_limit_query(&c, err, errlen))
		goto out;
	/* Round the image up to whole blocks; a file's tail is zero padded. */
	size = (size + c.block_size - 1) / c.block_size * c.block_size;
	if (size == 0) {
		snprintf(err, errlen, "--image %s is empty", o->image_path);
		goto out;
	}
	r->image_bytes = size;
	struct stream_write_args wa = {
		.start_lba = 0, .total_bytes = size, .io_bytes = (uint32_t)o->write_size, .qd = 8,
		.fill = src.file ? fill_file : fill_synthetic, .fill_arg = &src, .label = "writing image",
		.quiet = o->quiet,
	};
	if (wa.io_bytes % c.block_size)
		wa.io_bytes = c.block_size;
	/* The figures are the whole array's: remember what it already held, to warn. */
	bool have_page = q_log_supported(&c, 0x30);
	if (have_page) {
		struct array_capacity before;
		char e[200];
		if (q_capacity(&c, &before, e, sizeof(e)) == 0)
			r->logical_before = before.logical_bytes;
	}
	double t0 = now_s();
	if (stream_write(&c, &wa, err, errlen))
		goto out;
	r->write_s = now_s() - t0;
	if (!have_page)
		goto check;          /* tgt, LIO...: the image was written, no figures to read */
	double t1 = now_s();
	for (;;) {
		if (q_capacity(&c, &r->cap, err, errlen))
			goto out;
		r->have_capacity = true;
		r->settle_s = now_s() - t1;
		if (!r->cap.have_pending || r->cap.pending_blocks == 0) {
			r->settled = true;
			break;
		}
		if (r->settle_s > o->settle_timeout_s)
			break;
		usleep(200 * 1000);
	}
check:
	/* A session was lost and logged in again: the figures are the image's only if what the
	 * target acknowledged before the loss is still there (a path that came back, or a target
	 * that kept its state); a target that came back empty fails the run. */
	if (c.stats.reconnects &&
	    readback_check(&c, 0, size, wa.fill, wa.fill_arg, 16, &r->readback_bytes, err, errlen))
		goto out;
	ret = 0;
out:
	if (src.file)
		fclose(src.file);
	r->conn = c.stats;
	conn_close(&c);
	return ret;
}
