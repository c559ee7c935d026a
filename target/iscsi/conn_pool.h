/* conn_pool.h — a thread's spare tasks and queued-PDU records.
 *
 * Every SCSI command costs one struct icmd and one struct txpdu or more,
 * allocated on the I/O thread and freed there moments later.  With 32
 * commands in flight glibc's per-thread cache overflows, and calloc + free
 * cost about as many instructions as the rest of the iSCSI layer's work on
 * a 4 KiB READ (callgrind, iscsi-perf QD32).  So each thread keeps up to
 * CONN_POOL_MAX spare objects of each kind, in a thread-local LIFO list
 * (objects are reused while still warm in the cache).
 *
 * Sanitizer builds do not pool: ASan must see the free() to report a use
 * after it. */
#ifndef LUNLAB_ISCSI_CONN_POOL_H
#define LUNLAB_ISCSI_CONN_POOL_H

#include <stdlib.h>
#include <string.h>

#define CONN_POOL_MAX 256

#if defined(__SANITIZE_ADDRESS__)
#define CONN_POOL_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONN_POOL_ON 0
#endif
#endif
#ifndef CONN_POOL_ON
#define CONN_POOL_ON 1
#endif

struct conn_pool {
	void *head;     /* each spare object's first word links the next */
	unsigned n;
};

/* A zeroed object of size bytes (>= sizeof(void *)), or NULL. */
static inline void *conn_pool_get(struct conn_pool *p, size_t size)
{
	void *o = p->head;

	if (!o)
		return calloc(1, size);
	p->head = *(void **)o;
	p->n--;
	memset(o, 0, size);
	return o;
}

static inline void conn_pool_put(struct conn_pool *p, void *o)
{
	if (!CONN_POOL_ON || p->n >= CONN_POOL_MAX) {
		free(o);
		return;
	}
	*(void **)o = p->head;
	p->head = o;
	p->n++;
}

static inline void conn_pool_drain(struct conn_pool *p)
{
	while (p->head) {
		void *o = p->head;

		p->head = *(void **)o;
		free(o);
	}
	p->n = 0;
}

#endif
