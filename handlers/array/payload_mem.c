/* payload_mem.c — payloads in process memory, one slot per block id, as the
 * file backend keeps them (slot = id).  The bytes are kept uncompressed
 * (docs/accounting.md "Data held uncompressed"): reads and read-modify-write
 * cost a memcpy, dedup verification a memcmp.
 *
 * Why slots and not one malloc per block: with malloc, a store filling with
 * new blocks grew the allocator's arenas a little at a time (an mprotect
 * call and its address-space lock every few dozen blocks, fighting the page
 * faults of the other writers), and every 4 KiB block straddled two pages
 * behind its 16-byte header.  Measured on a 4 MiB QD1 write of unique data at
 * 4 KiB blocks (the fa420 profile), that was half the write path's CPU while
 * the store filled.  Slots are page-aligned in segments of SEG_IDS ids,
 * reserved as one mapping each on first use; memory is touched only when a
 * slot is written, a freed slot is reused by the id's next block, and a
 * segment whose slots are all free gives its memory back (a deleted volume's
 * blocks do not stay resident).
 *
 * Why a filler thread: a first write into never-written space takes fresh
 * pages, and each 4 KiB page of a new slot faulted in the writer's memcpy
 * (one exception each, the kernel zeroing the page): 31% of lunlab-target's
 * CPU on 4 MiB QD1 writes of unique data into a fresh LU, against 1.6% when
 * the same range was written again (perf, docs/accounting.md "First
 * writes").  The filler populates the slots just ahead of the highest one
 * stored so far (MADV_POPULATE_WRITE: page tables filled in one call, no
 * byte written, so a writer's concurrent copy is never disturbed), and the
 * writers find them resident.  It keeps as much ahead as the store already
 * holds, at most FILL_AHEAD_MAX, and starts only once the store holds
 * FILL_START: a small or idle store has no thread and no extra memory.
 * No transparent huge pages (MADV_HUGEPAGE): they cost 5x less to populate
 * once the memory is the guest's, but on this project's VMs (virtio-balloon
 * free page reporting) a free 2 MiB block has usually been handed back to
 * the host, and populating it ran at 0.13-0.2 GB/s against 1.2-2.5 GB/s for
 * small pages (docs/accounting.md "First writes").  The hugetlb pool's
 * pages (reserved by an administrator, vm.nr_hugepages) stay the guest's,
 * so a segment is mapped from it when it has room (seg_map, below). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << 26) /* log2(2 MiB) << MAP_HUGE_SHIFT (linux/mman.h) */
#endif

#include "handlers/array/block_store.h"
#include "handlers/array/payload.h"
#include "lunlab/size_parse.h"

#define SEG_SHIFT 14u /* 16384 ids per segment: 64 MiB of 4 KiB blocks */
#define SEG_IDS (1u << SEG_SHIFT)
#define NSEGS (BLK_MAX_IDS >> SEG_SHIFT)
#define SEG_GIVING_BACK (1u << 31) /* in mem_seg.live: its memory is being given back */

#define FILL_START (8u << 20)      /* bytes of slots stored before the filler starts */
#define FILL_AHEAD_MAX (32u << 20) /* the most it keeps populated ahead of the writers */
#define FILL_STEP (1u << 20)       /* the writers wake the filler once per step */
#define FILL_PIECE (256u << 10)    /* one populate call: how long a mapping change may wait on it */
/* Added to the filler's nice: it does what the writers would otherwise do
 * themselves, so where it competes with them for a core they must win (a
 * data-path thread waking behind a filler of equal weight waited for its
 * slice); it still has any core the data path leaves idle.  Measured,
 * quiet machine, alternating in one run (docs/accounting.md "First writes",
 * fourth pass): first / overwrite 0.86-0.90 at +10 and +19 against 0.74-0.81
 * at +0; with two nice-10 busy loops on both cores, the same first-write
 * rate as at +0 (1,111 against 1,181 MB/s). Not the idle class: on a busy
 * machine it then starved, and the writers faulted every page themselves. */
#define FILL_NICE_ADD 10

/* open brackets of payload_mapping_begin/end, in the whole process */
static atomic_uint mapping_changes;

void payload_mapping_begin(void)
{
	atomic_fetch_add_explicit(&mapping_changes, 1, memory_order_acq_rel);
}

void payload_mapping_end(void)
{
	atomic_fetch_sub_explicit(&mapping_changes, 1, memory_order_acq_rel);
}

/* Until no allocation on the write path is under way: it changes mappings
 * at once, when it gets the lock; sleeping 10 us at a time costs the filler
 * nothing it would not have waited anyway. */
static void wait_mapping_changes(void)
{
	const struct timespec pause = {.tv_nsec = 10000};

	while (atomic_load_explicit(&mapping_changes, memory_order_acquire))
		nanosleep(&pause, NULL);
}

struct mem_seg {
	/* NULL until the segment's first put (or the filler's), and again after
	 * a hugetlb segment was given back (unmapped: below) */
	_Atomic(unsigned char *) base;
	atomic_uint live;              /* slots holding a payload */
	bool returned;                 /* under seg_mu: its memory was given back once */
	bool huge;                     /* under seg_mu: mapped from the hugetlb pool */
};

struct mem_store {
	struct payload_store ps;       /* first: what payload.h's calls see */
	size_t seg_bytes;
	bool try_huge;                 /* segments may come from the hugetlb pool */
	/* reserving a segment, populating part of it and emptying one (its
	 * memory given back), one at a time: all rare, none may overlap a put
	 * into an empty segment */
	pthread_mutex_t seg_mu;
	/* the filler: the writers raise front, it populates up to ahead of it */
	_Atomic uint64_t front;        /* bytes: end of the highest slot stored so far */
	pthread_mutex_t fill_mu;       /* the fields below */
	pthread_cond_t fill_cv;
	bool fill_started, fill_stop;
	bool fill_idle, fill_done;     /* nothing to populate now; gone for good */
	uint64_t filled;               /* populated (or passed by the writers) up to here */
	pthread_t filler;
	struct mem_store *next;        /* every store of the process (fork, below) */
	struct mem_seg segs[NSEGS];
};

/* fork (the crash tests fork writers): the child has no filler.  Every
 * store's locks are taken across the fork, so the child never inherits one
 * held by a filler in the middle of a step; the child's stores then never
 * start one (their slots fault in the writers, as without it). */
static pthread_mutex_t stores_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mem_store *stores;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
	pthread_mutex_lock(&stores_mu);
	for (struct mem_store *m = stores; m; m = m->next) {
		pthread_mutex_lock(&m->fill_mu);
		pthread_mutex_lock(&m->seg_mu);
	}
}

static void after_fork_parent(void)
{
	for (struct mem_store *m = stores; m; m = m->next) {
		pthread_mutex_unlock(&m->seg_mu);
		pthread_mutex_unlock(&m->fill_mu);
	}
	pthread_mutex_unlock(&stores_mu);
}

static void after_fork_child(void)
{
	for (struct mem_store *m = stores; m; m = m->next) {
		m->fill_started = false;
		m->fill_stop = true;
		/* the parent's filler may have been waiting on it: a condition
		 * variable with a waiter that does not exist here never destroys */
		pthread_cond_init(&m->fill_cv, NULL);
		pthread_mutex_unlock(&m->seg_mu);
		pthread_mutex_unlock(&m->fill_mu);
	}
	pthread_mutex_unlock(&stores_mu);
}

static void register_atfork(void) { (void)pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

static struct mem_store *mem_of(struct payload_store *ps) { return (struct mem_store *)ps; }

/* Where the hugetlb pool is used: LUNLAB_HUGEPAGES=off never, anything else
 * (default: auto) whenever the pool has room for a whole segment. */
static bool hugetlb_wanted(size_t seg_bytes)
{
	const char *e = getenv("LUNLAB_HUGEPAGES");
	if (e && (!strcmp(e, "off") || !strcmp(e, "0") || !strcmp(e, "no")))
		return false;
	return seg_bytes % (2u << 20) == 0;
}

/* Pages in the 2 MiB pool (vm.nr_hugepages), free or not; 0 without one. */
static long pool_pages(void)
{
	long n = 0;
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "re");
	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/* Logged once per process and kind (not per store: a target with many LUs
 * would repeat it), so an operator sees whether the pool is used.  Small
 * pages are not announced on a machine without a pool (the Linux default):
 * nothing changed there, and its logs stay as they were. */
static atomic_bool said_huge, said_small;

static void say_kind(struct mem_store *m, bool huge)
{
	if (!huge && (atomic_load(&said_small) || (m->try_huge && pool_pages() == 0)))
		return;
	if (!atomic_exchange(huge ? &said_huge : &said_small, true))
		fprintf(stderr, "lunlab: array payloads: memory from %s\n",
			huge ? "the hugetlb pool (2 MiB pages, vm.nr_hugepages)"
			     : m->try_huge ? "4 KiB pages (the hugetlb pool has no room for a 64 MiB segment)"
					   : "4 KiB pages (--no-hugepages or LUNLAB_HUGEPAGES=off)");
}

/* Under seg_mu.  A segment is mapped from the hugetlb pool when the pool
 * holds enough free pages for all of it, else from small pages.  Why the
 * pool: a fresh 4 KiB page costs the kernel about 0.3-0.4 ms per MiB
 * (allocation, memcg charge, LRU, zeroing: docs/accounting.md "First
 * writes"), a page of the pool only its zeroing (0.09 ms per MiB once the
 * host backs it).  No MAP_NORESERVE there: the mmap then reserves the
 * segment's pages, so it fails (and we fall back) when the pool is short,
 * instead of a later write faulting SIGBUS. */
static unsigned char *seg_map(struct mem_store *m, struct mem_seg *g)
{
	unsigned char *base = atomic_load_explicit(&g->base, memory_order_relaxed);
	if (!base) {
		void *p = MAP_FAILED;
		g->huge = false;
		if (m->try_huge) {
			p = mmap(NULL, m->seg_bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
			g->huge = p != MAP_FAILED;
		}
		if (p == MAP_FAILED)
			p = mmap(NULL, m->seg_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
		if (p != MAP_FAILED) {
			say_kind(m, g->huge);
			atomic_store_explicit(&g->base, base = p, memory_order_release);
		}
	}
	return base;
}

/* MADV_POPULATE_WRITE over [from, to) of the segment mapped at base, in
 * pieces, each after the write path's allocations are done
 * (payload_mapping_begin): 0, or -1 at the first piece the kernel refuses. */
static int populate_pieces(const struct mem_store *m, unsigned char *base, uint64_t from, uint64_t to)
{
	for (uint64_t at = from; at < to; at += FILL_PIECE) {
		uint64_t n = to - at < FILL_PIECE ? to - at : FILL_PIECE;
		wait_mapping_changes();
		if (madvise(base + at % m->seg_bytes, n, MADV_POPULATE_WRITE) != 0)
			return -1;
	}
	return 0;
}

/* Populate the slots' memory [from, to) (one segment): 0, or -1 when the
 * kernel cannot (no MADV_POPULATE_WRITE before Linux 5.14, out of memory):
 * the filler then stops and writers fault as they did without it.  A
 * segment given back and empty since is left alone (its memory was
 * returned on purpose); a segment never used is reserved here. */
static int populate(struct mem_store *m, uint64_t from, uint64_t to)
{
	struct mem_seg *g = &m->segs[from / m->seg_bytes];
	int rc = 0;

	pthread_mutex_lock(&m->seg_mu);
	if (!g->returned || atomic_load(&g->live)) {
		unsigned char *base = seg_map(m, g);
		rc = base ? populate_pieces(m, base, from, to) : -1;
	}
	pthread_mutex_unlock(&m->seg_mu);
	return rc;
}

/* The end of the populate step that starts at from: a step later, but not
 * past to or the end of from's segment (populate works in one segment). */
static uint64_t step_end(const struct mem_store *m, uint64_t from, uint64_t to)
{
	uint64_t end = from + FILL_STEP, seg_end = (from / m->seg_bytes + 1) * m->seg_bytes;
	end = end < to ? end : to;
	return end < seg_end ? end : seg_end;
}

static void *filler(void *arg)
{
	struct mem_store *m = arg;
	const uint64_t total = (uint64_t)NSEGS * m->seg_bytes;

	pthread_setname_np(pthread_self(), "lunlab-fill");
	/* Linux: nice is per thread; raising it needs no privilege (if it
	 * fails, the filler runs as before) */
	id_t tid = (id_t)syscall(SYS_gettid);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, tid);
	if (errno == 0)
		(void)setpriority(PRIO_PROCESS, tid, nice + FILL_NICE_ADD > 19 ? 19 : nice + FILL_NICE_ADD);
	pthread_mutex_lock(&m->fill_mu);
	while (!m->fill_stop) {
		uint64_t front = atomic_load(&m->front);
		uint64_t ahead = front < FILL_AHEAD_MAX ? front : FILL_AHEAD_MAX;
		/* whole steps, so a populate call never ends mid-page */
		uint64_t to = (front + ahead + FILL_STEP - 1) & ~(uint64_t)(FILL_STEP - 1);
		to = to < total ? to : total;
		/* what the writers passed is theirs already */
		uint64_t from = m->filled > front ? m->filled : front;
		if (from >= to) {
			m->fill_idle = true;
			pthread_cond_broadcast(&m->fill_cv);
			pthread_cond_wait(&m->fill_cv, &m->fill_mu);
			continue;
		}
		from &= ~(uint64_t)(FILL_STEP - 1);
		uint64_t end = step_end(m, from, to);
		pthread_mutex_unlock(&m->fill_mu);
		int rc = populate(m, from, end);
		pthread_mutex_lock(&m->fill_mu);
		m->filled = end;
		if (rc)
			break;
	}
	m->fill_done = true;
	pthread_cond_broadcast(&m->fill_cv);
	pthread_mutex_unlock(&m->fill_mu);
	return NULL;
}

void payload_mem_settle(struct payload_store *ps)
{
	struct mem_store *m = mem_of(ps);

	pthread_mutex_lock(&m->fill_mu);
	while (m->fill_started && !m->fill_idle && !m->fill_done)
		pthread_cond_wait(&m->fill_cv, &m->fill_mu);
	pthread_mutex_unlock(&m->fill_mu);
}

/* A put ended at byte end of the slots: raise the front, and wake the
 * filler (started the first time) when it crossed a step. */
static void note_front(struct mem_store *m, uint64_t end)
{
	uint64_t f = atomic_load_explicit(&m->front, memory_order_relaxed);
	while (end > f)
		if (atomic_compare_exchange_weak(&m->front, &f, end)) {
			if (end / FILL_STEP == f / FILL_STEP)
				return;
			pthread_mutex_lock(&m->fill_mu);
			if (!m->fill_started && !m->fill_stop)
				m->fill_started = pthread_create(&m->filler, NULL, filler, m) == 0;
			m->fill_idle = false;
			pthread_cond_broadcast(&m->fill_cv);
			pthread_mutex_unlock(&m->fill_mu);
			return;
		}
}

static void *mem_put(struct payload_store *ps, uint32_t id, const void *src)
{
	struct mem_store *m = mem_of(ps);
	struct mem_seg *g = &m->segs[id >> SEG_SHIFT];

	unsigned prev = atomic_fetch_add(&g->live, 1);
	/* read after counting ourselves: a live segment's base cannot change
	 * (a hugetlb segment given back is unmapped, and a later put maps it
	 * anew, both under seg_mu while live is 0) */
	unsigned char *base = atomic_load_explicit(&g->base, memory_order_acquire);
	if (prev == 0 || (prev & SEG_GIVING_BACK) || !base) {
		/* first slot of an empty segment: wait out a give-back in progress,
		 * reserve the mapping if it has none */
		pthread_mutex_lock(&m->seg_mu);
		base = seg_map(m, g);
		pthread_mutex_unlock(&m->seg_mu);
		if (!base) {
			atomic_fetch_sub(&g->live, 1);
			return NULL;
		}
	}
	void *slot = base + (size_t)(id & (SEG_IDS - 1)) * ps->block_bytes;
	uint64_t end = ((uint64_t)id + 1) * ps->block_bytes;
	if (end >= FILL_START && end > atomic_load_explicit(&m->front, memory_order_relaxed))
		note_front(m, end);
	memcpy(slot, src, ps->block_bytes);
	return slot;
}

static void mem_free(struct payload_store *ps, uint32_t id, void *p)
{
	struct mem_store *m = mem_of(ps);
	struct mem_seg *g = &m->segs[id >> SEG_SHIFT];

	(void)p;
	if (atomic_fetch_sub(&g->live, 1) != 1)
		return;
	/* the last one: give the segment's memory back, unless a put came in
	 * meanwhile (it counted itself before it writes, and waits for us) */
	pthread_mutex_lock(&m->seg_mu);
	unsigned zero = 0;
	/* marked while the memory goes: a put that counts itself now sees the
	 * mark and waits for the lock instead of writing into the slot */
	if (atomic_compare_exchange_strong(&g->live, &zero, SEG_GIVING_BACK)) {
		unsigned char *base = atomic_load_explicit(&g->base, memory_order_relaxed);
		if (g->huge) {
			/* unmapped, not MADV_DONTNEED: a private hugetlb mapping
			 * does not get its reservation back when its pages go, so
			 * a refault could find the pool empty (SIGBUS); the next
			 * put maps the segment again (from the pool if it has room) */
			munmap(base, m->seg_bytes);
			atomic_store_explicit(&g->base, NULL, memory_order_relaxed);
		} else {
			(void)madvise(base, m->seg_bytes, MADV_DONTNEED);
		}
		g->returned = true;
		atomic_fetch_and(&g->live, ~SEG_GIVING_BACK);
	}
	pthread_mutex_unlock(&m->seg_mu);
}

static void mem_close(struct payload_store *ps)
{
	struct mem_store *m = mem_of(ps);

	pthread_mutex_lock(&stores_mu);
	for (struct mem_store **pp = &stores; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	pthread_mutex_unlock(&stores_mu);

	pthread_mutex_lock(&m->fill_mu);
	m->fill_stop = true;
	pthread_cond_broadcast(&m->fill_cv);
	bool started = m->fill_started;
	pthread_mutex_unlock(&m->fill_mu);
	if (started)
		pthread_join(m->filler, NULL);
	pthread_mutex_destroy(&m->fill_mu);
	pthread_cond_destroy(&m->fill_cv);

	for (uint32_t i = 0; i < NSEGS; i++) {
		unsigned char *base = atomic_load(&m->segs[i].base);
		if (base)
			munmap(base, m->seg_bytes);
	}
	pthread_mutex_destroy(&m->seg_mu);
	munmap(m, sizeof(*m));
}

static const struct payload_ops mem_ops = {
	.put = mem_put,
	.free = mem_free,
	.close = mem_close,
};

/* LUNLAB_PREALLOC_MIB=N (lunlab-target --prealloc-mib N): bytes of slots to
 * populate when the store opens, so that first writes into them cost what
 * overwrites do (docs/accounting.md "Preallocated payload memory"); 0 when
 * unset.  A value that breaks the size rule (lunlab/size_parse.h: a bare
 * number counts MiB) or asks for more than the store can hold is named on
 * stderr and ignored: the handler under tcmu-runner cannot
 * refuse to start, lunlab-target refuses it before it gets here. */
static uint64_t prealloc_bytes(uint64_t total)
{
	const char *e = getenv("LUNLAB_PREALLOC_MIB");
	uint64_t bytes;

	if (!e || !*e)
		return 0;
	/* the project's one size rule (a bare number counts MiB here) */
	if (!ll_size_parse(e, 20, &bytes) || bytes > total) {
		fprintf(stderr, "lunlab: LUNLAB_PREALLOC_MIB=%s: want " LL_SIZE_RULE ", MiB without one, at most %llu MiB; ignored\n",
			e, (unsigned long long)(total >> 20));
		return 0;
	}
	return bytes & ~(uint64_t)4095; /* whole pages */
}

/* The preallocation's work, shared by its threads: steps are taken in turn
 * from next, so every thread gets cheap and dear memory alike. */
struct prealloc_work {
	struct mem_store *m;
	uint64_t bytes;
	_Atomic uint64_t next;     /* the next step to take */
	_Atomic uint64_t failed;   /* the lowest step the kernel refused; bytes if none */
};

static void *prealloc_worker(void *arg)
{
	struct prealloc_work *w = arg;
	struct mem_store *m = w->m;

	for (;;) {
		uint64_t at = atomic_fetch_add(&w->next, FILL_STEP);
		if (at >= w->bytes || at >= atomic_load(&w->failed))
			break;
		uint64_t stop = at + FILL_STEP < w->bytes ? at + FILL_STEP : w->bytes;
		/* no seg_mu: the store is not yet anyone's (payload_open has
		 * not returned, the filler has not started) and its segments
		 * were mapped before the threads started; other stores' writers
		 * may be running, so their allocations still go first.  A step
		 * may span two segments (one that is not a whole number of
		 * steps): each part in its own mapping. */
		for (uint64_t p = at, end; p < stop; p = end) {
			end = step_end(m, p, stop);
			unsigned char *base = atomic_load_explicit(&m->segs[p / m->seg_bytes].base, memory_order_relaxed);
			if (populate_pieces(m, base, p, end)) {
				uint64_t f = atomic_load(&w->failed);
				while (at < f && !atomic_compare_exchange_weak(&w->failed, &f, at))
					;
				return NULL;
			}
		}
	}
	return NULL;
}

#define PREALLOC_THREADS_MAX 8

/* Populate the first bytes of slots before the store is used; the filler
 * then starts past them.  On as many threads as the machine has cores (at
 * most PREALLOC_THREADS_MAX), the calling thread one of them: nothing else
 * of this store runs yet, and where the host has taken free memory back, a
 * fresh page costs the vCPU that touches it 3-6.5 ms per MiB
 * (docs/accounting.md "The host's price of fresh memory"), so one thread
 * took 11-40 s to start with 14 GiB; two take their share each. */
static void prealloc(struct mem_store *m, uint64_t bytes)
{
	struct prealloc_work w = {.m = m};
	atomic_init(&w.next, 0);

	/* every segment mapped first, by this thread alone */
	uint64_t mapped = 0;
	pthread_mutex_lock(&m->seg_mu);
	while (mapped < bytes && seg_map(m, &m->segs[mapped / m->seg_bytes]))
		mapped += m->seg_bytes;
	pthread_mutex_unlock(&m->seg_mu);
	w.bytes = mapped < bytes ? mapped : bytes;
	atomic_init(&w.failed, w.bytes);

	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t steps = (w.bytes + FILL_STEP - 1) / FILL_STEP;
	unsigned want = cores > PREALLOC_THREADS_MAX ? PREALLOC_THREADS_MAX : cores > 1 ? (unsigned)cores : 1;
	want = steps < want ? (unsigned)steps : want;
	pthread_t th[PREALLOC_THREADS_MAX];
	unsigned started = 0;
	while (started + 1 < want && pthread_create(&th[started], NULL, prealloc_worker, &w) == 0)
		started++;
	prealloc_worker(&w);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);

	/* what is populated from the start without a gap */
	uint64_t at = atomic_load(&w.failed);
	m->filled = at;
	if (at)
		fprintf(stderr, "lunlab: array payloads: %llu MiB of memory populated at open (LUNLAB_PREALLOC_MIB)%s\n",
			(unsigned long long)(at >> 20), at < bytes ? ", less than asked: the kernel refused the rest" : "");
}

struct payload_store *payload_open(uint32_t block_bytes)
{
	/* the segment table (16384 entries) is mapped, not allocated: only the
	 * pages of segments in use are ever touched */
	void *p = mmap(NULL, sizeof(struct mem_store), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct mem_store *m = p;
	m->ps.ops = &mem_ops;
	m->ps.block_bytes = block_bytes;
	m->seg_bytes = (size_t)SEG_IDS * block_bytes;
	m->try_huge = hugetlb_wanted(m->seg_bytes);
	pthread_mutex_init(&m->seg_mu, NULL);
	pthread_mutex_init(&m->fill_mu, NULL);
	pthread_cond_init(&m->fill_cv, NULL);
	pthread_once(&atfork_once, register_atfork);
	pthread_mutex_lock(&stores_mu);
	m->next = stores;
	stores = m;
	pthread_mutex_unlock(&stores_mu);
	uint64_t pre = prealloc_bytes((uint64_t)NSEGS * m->seg_bytes);
	if (pre)
		prealloc(m, pre);
	return &m->ps;
}
