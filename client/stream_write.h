/* stream_write.h - write a region sequentially at a queue depth, content from a callback
 * (template of the clone scenario, image of the drr scenario). */
#ifndef LUNLAB_CLIENT_STREAM_WRITE_H
#define LUNLAB_CLIENT_STREAM_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/conn.h"

/* Fill buf[len] with the bytes at `offset` of the stream.  Called in increasing offset order.
 * Returns 0, or -1 to abort (err filled by the callback's owner). */
typedef int (*stream_fill_fn)(void *arg, uint64_t offset, uint8_t *buf, size_t len);

struct stream_write_args {
	uint64_t start_lba;
	uint64_t total_bytes;       /* multiple of the LU's block size */
	uint32_t io_bytes;          /* per WRITE(16) */
	unsigned qd;
	stream_fill_fn fill;
	void *fill_arg;
	const char *label;          /* progress bar label */
	bool quiet;
};

int stream_write(struct bench_conn *c, const struct stream_write_args *a, char *err, size_t errlen);

#endif
