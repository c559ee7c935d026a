/* block_account.h — the array's accounting, off the write path: background
 * workers compute the compressed size of every new unique block (the
 * block store's backlog, block_store.h) on otherwise idle cores.  A consumer
 * of the store, above it: the store never calls in here (it only runs the
 * notification function it was given).  docs/accounting.md says when the
 * figures lag and by how much. */
#ifndef LUNLAB_ARRAY_BLOCK_ACCOUNT_H
#define LUNLAB_ARRAY_BLOCK_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

struct block_store;

struct acct_params {
	int zlib_level;
	int zlib_window_bits;
	/* Bytes the array can still take (NULL: no capacity, no limit).  While
	 * writes of new data arrive the workers hold back (block_account.c),
	 * but never once the backlog's worst case (pending x dedup_block, what
	 * "used" may overstate) reaches that headroom: near full, exact figures
	 * decide whether a write fits. */
	uint64_t (*headroom)(void *ctx);
	void *ctx;
};

/* Let the workers account bs's new blocks (starts them on first use);
 * -ENOMEM when they cannot be started. */
int acct_attach(struct block_store *bs, const struct acct_params *p);
/* Stop accounting bs: returns once no worker touches it any more (blocks
 * still pending stay pending).  The last detach stops the workers. */
void acct_detach(struct block_store *bs);
/* Account everything pending in bs now, in the calling thread as well as
 * the workers, and return once the backlog is empty. */
void acct_drain(struct block_store *bs);

/* The workers' rule (block_account.c): hold back from a store where
 * `arrived` new blocks came since the last look, `pending` wait, and the
 * array can take `headroom` more bytes of `block`-byte blocks. */
bool acct_hold_back(uint64_t arrived, uint64_t pending, uint64_t headroom, uint32_t block);

/* How many workers run now (tests, docs). */
unsigned acct_workers(void);

#endif
