/* payload_mem.c — payloads in process memory: one malloc per block.  The
 * bytes are kept uncompressed (docs/accounting.md "Data held uncompressed"):
 * reads and read-modify-write cost a memcpy, dedup verification a memcmp. */
#include <stdlib.h>
#include <string.h>

#include "handlers/array/payload.h"

struct payload_store {
	uint32_t block_bytes;
};

struct payload_store *payload_open(uint32_t block_bytes)
{
	struct payload_store *ps = malloc(sizeof(*ps));

	if (ps)
		ps->block_bytes = block_bytes;
	return ps;
}

void payload_close(struct payload_store *ps)
{
	free(ps);
}

void *payload_put(struct payload_store *ps, uint32_t id, const void *src)
{
	void *p = malloc(ps->block_bytes);

	(void)id;
	if (p)
		memcpy(p, src, ps->block_bytes);
	return p;
}

void payload_free(struct payload_store *ps, uint32_t id, void *p)
{
	(void)ps;
	(void)id;
	free(p);
}
