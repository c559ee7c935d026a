/* range_store.c — the whole blocks of a write into the block store
 * (fingerprint, find or insert, one reference each), from the write's own
 * iovec.  The one step a WRITE (volume_io.c's prestore) and its early
 * stores while the data still arrives (volume_early.c) share; it needs the
 * store, not the volume, and calls nothing but the block store. */
#include <errno.h>
#include <string.h>

#include "handlers/array/iov_cursor.h"
#include "handlers/array/volume_internal.h"

int is_zero(const void *p, size_t n)
{
	const unsigned char *c = p;
	return n == 0 || (c[0] == 0 && memcmp(c, c + 1, n - 1) == 0);
}

/* Store whole blocks [from, to) of a write at byte off of a volume whose
 * blocks are 1 << bshift bytes (ids[i] for block first_full + i; iov holds
 * the write's data from off on); on failure releases the ones it stored and
 * returns the error.  Needs the store, not the volume: early stores
 * (volume_early.c) run while the data still arrives. */
int vio_store_range(struct block_store *bs, unsigned bshift, uint64_t off, const struct iovec *iov,
		    size_t iovcnt, uint32_t *ids, uint64_t first_full, uint64_t from, uint64_t to)
{
	uint64_t B = bs->block;
	unsigned char buf[MAX_BLOCK] __attribute__((aligned(64)));
	struct iovcur c;
	cur_init(&c, iov, iovcnt);
	cur_skip(&c, ((first_full + from) << bshift) - off);
	for (uint64_t i = from; i < to; i++) {
		const void *content = cur_peek(&c, B);
		int r = 0;
		if (content)
			cur_skip(&c, B);
		else if ((r = cur_gather(&c, buf, B)) == 0)
			content = buf;
		ids[i] = 0;
		if (!r && !is_zero(content, B))
			r = bs_ref_content(bs, content, &ids[i]);
		if (r) {
			while (i-- > from)
				if (ids[i])
					bs_unref(bs, ids[i]);
			return r;
		}
	}
	return 0;
}
