/* payload_file.c — block payloads in a file of slots (payload_file.h). */
#define _FILE_OFFSET_BITS 64
#include "handlers/array/payload_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handlers/array/payload.h"
#include "state/state_crc.h"

/* ids are 28 bits (block_store.h BLK_MAX_IDS): the mapping spans them all */
#define PF_MAX_IDS (1u << 28)
#define PF_LEAF_SHIFT 16u
#define PF_LEAF (1u << PF_LEAF_SHIFT)
#define PF_TOP (PF_MAX_IDS >> PF_LEAF_SHIFT)
/* space is reserved this far ahead of the highest slot */
#define PF_GROW (64ull << 20)
/* start writeback of dirty slots after this many bytes (keeps a later
 * fdatasync short and the page cache from filling with dirty pages): the
 * writer that crosses it wakes the governor, which starts it */
#define PF_KICK (8ull << 20)

enum { SLOT_NONE = 0, SLOT_UNCHECKED, SLOT_GOOD, SLOT_BAD };

struct pf_leaf {
	uint32_t crc[PF_LEAF];
	_Atomic uint8_t state[PF_LEAF];
};

struct payload_file {
	struct payload_store base;
	int fd;
	char path[4096];
	const uint8_t *map;
	size_t map_len;
	pthread_mutex_t grow_mu;
	_Atomic uint64_t file_len;       /* bytes reserved (fallocate) */
	_Atomic(struct pf_leaf *) leaves[PF_TOP];
	_Atomic uint64_t since_kick;     /* bytes written since the last writeback kick */
	struct payload_file *next;       /* the governor's list */
};

/* ---- the mapped-pages governor: one thread for every file store ---- */

static pthread_mutex_t gov_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gov_cv = PTHREAD_COND_INITIALIZER;
static struct payload_file *gov_list;
static pthread_t gov_thread;
static bool gov_running;
static _Atomic uint64_t mapped_budget = 256ull << 20;

void payload_file_set_mapped_budget(uint64_t bytes)
{
	atomic_store(&mapped_budget, bytes);
}

/* pages of file mappings the process holds (statm: resident - anonymous is
 * not given; "shared" = RssFile + RssShmem, which is what we map) */
static uint64_t mapped_file_bytes(void)
{
	unsigned long size, resident, shared;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu %lu", &size, &resident, &shared);
	fclose(f);
	return n == 3 ? (uint64_t)shared * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static void *governor(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gov_mu);
	while (gov_list) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 200 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&gov_cv, &gov_mu, &ts);
		bool over = mapped_file_bytes() > atomic_load(&mapped_budget);

		for (struct payload_file *pf = gov_list; pf; pf = pf->next) {
			uint64_t len = atomic_load(&pf->file_len);

			/* the data stays in the file and the page cache: a later
			 * read maps it again (a minor fault) */
			if (over && len)
				madvise((void *)pf->map, len < pf->map_len ? len : pf->map_len, MADV_DONTNEED);
			if (atomic_load(&pf->since_kick) >= PF_KICK) {
				atomic_store(&pf->since_kick, 0);
				sync_file_range(pf->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
			}
		}
	}
	pthread_mutex_unlock(&gov_mu);
	return NULL;
}

/* The thread runs while a store exists and is joined when the last one
 * goes, so a process with no file store has no thread of ours (a fork()
 * then inherits no lock it holds). */
static pthread_mutex_t gov_life = PTHREAD_MUTEX_INITIALIZER;

static void gov_add(struct payload_file *pf)
{
	pthread_mutex_lock(&gov_life);
	pthread_mutex_lock(&gov_mu);
	pf->next = gov_list;
	gov_list = pf;
	if (!gov_running) {
		sigset_t all, old;

		/* no signals in our thread: the host has its own plans for them */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		gov_running = pthread_create(&gov_thread, NULL, governor, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&gov_mu);
	pthread_mutex_unlock(&gov_life);
}

static void gov_remove(struct payload_file *pf)
{
	bool join;

	pthread_mutex_lock(&gov_life);
	pthread_mutex_lock(&gov_mu);
	for (struct payload_file **pp = &gov_list; *pp; pp = &(*pp)->next)
		if (*pp == pf) {
			*pp = pf->next;
			break;
		}
	pthread_cond_broadcast(&gov_cv);
	/* the thread touches a store only under gov_mu: once removed here,
	 * it never sees this one again */
	join = !gov_list && gov_running;
	pthread_mutex_unlock(&gov_mu);
	if (join) {
		pthread_join(gov_thread, NULL);
		gov_running = false;
	}
	pthread_mutex_unlock(&gov_life);
}

/* ---- slots ---- */

static struct pf_leaf *leaf_of(struct payload_file *pf, uint32_t id, bool make)
{
	_Atomic(struct pf_leaf *) *lp = &pf->leaves[id >> PF_LEAF_SHIFT];
	struct pf_leaf *l = atomic_load_explicit(lp, memory_order_acquire);

	if (!l && make) {
		struct pf_leaf *fresh = calloc(1, sizeof(*fresh));

		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong(lp, &l, fresh))
			l = fresh;
		else
			free(fresh);
	}
	return l;
}

/* the file reserves at least `need` bytes (fallocate: real blocks on disk,
 * so writing the slot later cannot run out of space) */
static int reserve(struct payload_file *pf, uint64_t need)
{
	int rc = 0;

	if (atomic_load_explicit(&pf->file_len, memory_order_acquire) >= need)
		return 0;
	pthread_mutex_lock(&pf->grow_mu);
	uint64_t have = atomic_load(&pf->file_len);

	if (have < need) {
		uint64_t want = (need + PF_GROW - 1) / PF_GROW * PF_GROW;

		if (want > pf->map_len)
			want = pf->map_len;
		struct stat st;

		/* a step ahead, or (a nearly full disk) just what is needed */
		if (fallocate(pf->fd, 0, (off_t)have, (off_t)(want - have)) < 0 &&
		    fallocate(pf->fd, 0, (off_t)have, (off_t)(need - have)) < 0)
			rc = -errno;
		else if (fstat(pf->fd, &st) < 0)
			rc = -errno;
		else
			atomic_store_explicit(&pf->file_len, (uint64_t)st.st_size, memory_order_release);
	}
	pthread_mutex_unlock(&pf->grow_mu);
	return rc;
}

static void *pf_put(struct payload_store *ps, uint32_t id, const void *src)
{
	struct payload_file *pf = (struct payload_file *)ps;
	uint64_t B = ps->block_bytes, off = (uint64_t)id * B;
	struct pf_leaf *l = leaf_of(pf, id, true);
	const uint8_t *p = src;
	size_t done = 0;

	if (id >= PF_MAX_IDS || !l || reserve(pf, off + B) < 0)
		return NULL;
	while (done < B) {
		ssize_t n = pwrite(pf->fd, p + done, B - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		done += (size_t)n;
	}
	l->crc[id & (PF_LEAF - 1)] = ll_crc32c(0, src, B);
	atomic_store_explicit(&l->state[id & (PF_LEAF - 1)], SLOT_GOOD, memory_order_release);
	uint64_t was = atomic_fetch_add_explicit(&pf->since_kick, B, memory_order_relaxed);
	/* busy: the governor is awake (maybe starting writeback: never wait for it) */
	if (was < PF_KICK && was + B >= PF_KICK && pthread_mutex_trylock(&gov_mu) == 0) {
		pthread_cond_signal(&gov_cv);
		pthread_mutex_unlock(&gov_mu);
	}
	return (void *)(pf->map + off);
}

static void pf_free(struct payload_store *ps, uint32_t id, void *p)
{
	struct payload_file *pf = (struct payload_file *)ps;
	struct pf_leaf *l = leaf_of(pf, id, false);

	(void)p;
	if (l)
		atomic_store(&l->state[id & (PF_LEAF - 1)], SLOT_NONE);
}

static int pf_verify(struct payload_store *ps, uint32_t id)
{
	struct payload_file *pf = (struct payload_file *)ps;
	struct pf_leaf *l = leaf_of(pf, id, false);
	uint64_t B = ps->block_bytes;
	uint8_t st;

	if (!l)
		return -EIO;
	st = atomic_load_explicit(&l->state[id & (PF_LEAF - 1)], memory_order_acquire);
	if (st == SLOT_GOOD)
		return 0;
	if (st != SLOT_UNCHECKED)
		return -EIO;
	/* first use since the state was loaded: the bytes must be the ones the
	 * metadata's checksum describes */
	if ((uint64_t)(id + 1) * B > atomic_load(&pf->file_len))
		st = SLOT_BAD;
	else
		st = ll_crc32c(0, pf->map + (uint64_t)id * B, B) == l->crc[id & (PF_LEAF - 1)] ? SLOT_GOOD : SLOT_BAD;
	atomic_store_explicit(&l->state[id & (PF_LEAF - 1)], st, memory_order_release);
	if (st == SLOT_BAD)
		fprintf(stderr, "lunlab: %s: block %u fails its checksum: its data is never served (MEDIUM ERROR)\n",
			pf->path, id);
	return st == SLOT_GOOD ? 0 : -EIO;
}

static void pf_close(struct payload_store *ps)
{
	struct payload_file *pf = (struct payload_file *)ps;

	gov_remove(pf);
	if (pf->map && pf->map != MAP_FAILED)
		munmap((void *)pf->map, pf->map_len);
	if (pf->fd >= 0)
		close(pf->fd);
	for (unsigned i = 0; i < PF_TOP; i++)
		free(atomic_load(&pf->leaves[i]));
	pthread_mutex_destroy(&pf->grow_mu);
	free(pf);
}

static const struct payload_ops file_ops = {
	.put = pf_put,
	.free = pf_free,
	.close = pf_close,
	.verify = pf_verify,
};

bool payload_is_file(const struct payload_store *ps)
{
	return ps && ps->ops == &file_ops;
}

struct payload_store *payload_file_open(const char *path, uint32_t block_bytes, bool create, char *err,
					size_t errlen)
{
	struct payload_file *pf = calloc(1, sizeof(*pf));
	struct stat st;

	if (!pf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	pf->base.ops = &file_ops;
	pf->base.block_bytes = block_bytes;
	pf->fd = -1;
	pthread_mutex_init(&pf->grow_mu, NULL);
	snprintf(pf->path, sizeof(pf->path), "%s", path);
	pf->fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	if (pf->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, errno == ENOENT ? "missing" : strerror(errno));
		goto fail;
	}
	if (fstat(pf->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	atomic_init(&pf->file_len, (uint64_t)st.st_size);
	pf->map_len = (size_t)PF_MAX_IDS * block_bytes;
	/* read-only: payloads are written with pwrite, never through a pointer */
	pf->map = mmap(NULL, pf->map_len, PROT_READ, MAP_SHARED | MAP_NORESERVE, pf->fd, 0);
	if (pf->map == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		pf->map = NULL;
		goto fail;
	}
	gov_add(pf);
	return &pf->base;
fail:
	pf_close(&pf->base);
	return NULL;
}

void *payload_file_attach(struct payload_store *ps, uint32_t id, uint32_t crc, char *err, size_t errlen)
{
	struct payload_file *pf = (struct payload_file *)ps;
	uint64_t B = ps->block_bytes, len = atomic_load(&pf->file_len);
	struct pf_leaf *l = id < PF_MAX_IDS ? leaf_of(pf, id, true) : NULL;

	if (!l) {
		snprintf(err, errlen, "%s: block %u: %s", pf->path, id, id < PF_MAX_IDS ? "out of memory" : "id out of range");
		return NULL;
	}
	if ((uint64_t)(id + 1) * B > len) {
		snprintf(err, errlen, "%s: %llu bytes, but block %u lives at bytes %llu..%llu (the file was cut)",
			 pf->path, (unsigned long long)len, id, (unsigned long long)((uint64_t)id * B),
			 (unsigned long long)((uint64_t)(id + 1) * B - 1));
		return NULL;
	}
	l->crc[id & (PF_LEAF - 1)] = crc;
	atomic_store(&l->state[id & (PF_LEAF - 1)], SLOT_UNCHECKED);
	return (void *)(pf->map + (uint64_t)id * B);
}

uint32_t payload_file_crc(struct payload_store *ps, uint32_t id)
{
	struct pf_leaf *l = leaf_of((struct payload_file *)ps, id, false);

	return l ? l->crc[id & (PF_LEAF - 1)] : 0;
}

int payload_file_sync(struct payload_store *ps)
{
	struct payload_file *pf = (struct payload_file *)ps;

	return fdatasync(pf->fd) < 0 ? -errno : 0;
}

int payload_file_check(struct payload_store *ps, uint32_t id, uint32_t crc)
{
	struct payload_file *pf = (struct payload_file *)ps;
	uint64_t B = ps->block_bytes;
	uint8_t *buf;
	int rc;

	if ((uint64_t)(id + 1) * B > atomic_load(&pf->file_len))
		return -ERANGE;
	buf = malloc(B);
	if (!buf)
		return -ENOMEM;
	rc = pread(pf->fd, buf, B, (off_t)((uint64_t)id * B)) == (ssize_t)B ? 0 : -EIO;
	if (rc == 0 && ll_crc32c(0, buf, B) != crc)
		rc = -EIO;
	free(buf);
	return rc;
}

void payload_file_usage(struct payload_store *ps, uint64_t *size, uint64_t *disk)
{
	struct payload_file *pf = (struct payload_file *)ps;
	struct stat st;

	*size = *disk = 0;
	if (fstat(pf->fd, &st) == 0) {
		*size = (uint64_t)st.st_size;
		*disk = (uint64_t)st.st_blocks * 512;
	}
}
