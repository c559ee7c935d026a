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

static int fill_file(void *arg, uint64_t offset, uint8_t *buf, size_t len)
{
	struct drr_src *s = arg;
	size_t got = fread(buf, 1, len, s->file);
	if (got < len) {
		if (ferror(s->file))
			return -1;
		memset(buf + got, 0, len - got);   /* last block padded with zeros */
	}
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
	if (!have_page) {
		ret = 0;             /* tgt, LIO...: the image was written, no figures to read */
		goto out;
	}
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
	ret = 0;
out:
	if (src.file)
		fclose(src.file);
	conn_close(&c);
	return ret;
}
