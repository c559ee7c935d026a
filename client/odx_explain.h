/* odx_explain.h - clone --mode odx --explain: the first pieces of clone 0 copied one ODX
 * command at a time (POPULATE TOKEN, RRTI, WRITE USING TOKEN), each list decoded, each answer
 * shown, and what the array did after each from its capacity page (LOG SENSE 0x30). */
#ifndef LUNLAB_CLIENT_ODX_EXPLAIN_H
#define LUNLAB_CLIENT_ODX_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/conn.h"

struct odx_explain_args {
	struct bench_conn *src, *dst;    /* POPULATE TOKEN and RRTI go to src, WUT to dst */
	uint64_t chunk_blocks, tmpl_blocks;
	uint64_t dst_base;               /* LBA of clone 0 on dst */
	uint32_t block_size;
	unsigned count;                  /* pieces to narrate */
	bool offered;                    /* VPD 0x8F lists the three commands */
	bool del_tkn;                    /* as the run will send WRITE USING TOKEN */
	bool two_lus;                    /* for the EXTENDED COPY list size it compares with */
};

void odx_explain(const struct odx_explain_args *a, FILE *f);

#endif
