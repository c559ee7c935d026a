/* block_compress.c — the accounting compressor: the exact compressed size of
 * one block under the rules of docs/accounting.md (zlib deflate, RAW format,
 * the profile's level and windowBits, memLevel 8, default strategy, one
 * deflate(Z_FINISH) per block).  The output is discarded: data stays
 * uncompressed in memory; only its size feeds the capacity figures.
 * One z_stream per thread, reset per block (deflateInit per block costs 3-4x;
 * see shared facts/compression.md). */
#include <pthread.h>
#include <stdlib.h>
#include <zlib.h>

#include "handlers/array/block_compress.h"

struct zctx {
	z_stream zs;
	int level, wbits; /* parameters zs was initialised with */
	int live;
};

static pthread_key_t zkey;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;

static void zctx_free(void *p)
{
	struct zctx *z = p;
	if (z->live)
		deflateEnd(&z->zs);
	free(z);
}

static void zkey_init(void) { pthread_key_create(&zkey, zctx_free); }

static struct zctx *zctx_get(int level, int wbits)
{
	pthread_once(&zonce, zkey_init);
	struct zctx *z = pthread_getspecific(zkey);
	if (!z) {
		z = calloc(1, sizeof(*z));
		if (!z)
			return NULL;
		pthread_setspecific(zkey, z);
	}
	if (z->live && (z->level != level || z->wbits != wbits)) {
		deflateEnd(&z->zs);
		z->live = 0;
	}
	if (!z->live) {
		/* Negative windowBits: raw deflate, no zlib header or adler32. */
		if (deflateInit2(&z->zs, level, Z_DEFLATED, -wbits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return NULL;
		z->live = 1;
		z->level = level;
		z->wbits = wbits;
	} else {
		deflateReset(&z->zs);
	}
	return z;
}

uint32_t compressed_size(int level, int wbits, const void *data, uint32_t len)
{
	struct zctx *z = zctx_get(level, wbits);
	if (!z)
		return len; /* cannot account: count it as incompressible */
	unsigned char out[4096];
	uint32_t total = 0;
	z->zs.next_in = (Bytef *)data;
	z->zs.avail_in = len;
	int r;
	do {
		z->zs.next_out = out;
		z->zs.avail_out = sizeof(out);
		r = deflate(&z->zs, Z_FINISH);
		total += (uint32_t)(sizeof(out) - z->zs.avail_out);
	} while (r == Z_OK || (r == Z_BUF_ERROR && z->zs.avail_out == 0));
	return total;
}
