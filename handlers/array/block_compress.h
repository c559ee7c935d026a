/* block_compress.h — the exact compressed size of one block under the rules
 * of docs/accounting.md (rule 4), for the accounting workers. */
#ifndef LUNLAB_ARRAY_BLOCK_COMPRESS_H
#define LUNLAB_ARRAY_BLOCK_COMPRESS_H

#include <stdint.h>

/* Raw deflate of len bytes at level / window 2^wbits, memLevel 8, default
 * strategy, one deflate(Z_FINISH) on a freshly reset stream: the number of
 * bytes it produces (len when the compressor cannot be set up, so a block
 * that cannot be measured counts as incompressible). */
uint32_t compressed_size(int level, int wbits, const void *data, uint32_t len);

#endif
