/* block_account.h — the array's accounting, off the write path: background
 * workers compute the compressed size of every new unique block (the
 * block store's backlog, block_store.h) on otherwise idle cores.  A consumer
 * of the store, above it: the store never calls in here (it only runs the
 * notification function it was given).  docs/accounting.md says when the
 * figures lag and by how much. */
#ifndef LUNLAB_ARRAY_BLOCK_ACCOUNT_H
#define LUNLAB_ARRAY_BLOCK_ACCOUNT_H

#include <stdint.h>

struct block_store;

struct acct_params {
	int zlib_level;
	int zlib_window_bits;
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

/* How many workers run now (tests, docs). */
unsigned acct_workers(void);

#endif
