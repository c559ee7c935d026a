/* test_payload_mem.c — handlers/array/payload_mem.c: a payload reads back
 * through the returned pointer, page-aligned, in whatever segment its id
 * falls; an id's slot holds its next block after a free; a segment whose
 * payloads are all freed gives its memory back (mincore), and one with a
 * payload left keeps it; writers on one segment at once never see each
 * other's bytes; once a store holds 8 MiB, the filler makes the slots just
 * ahead of the highest one resident (as many bytes as the store holds, at
 * most 32 MiB) and no further, populates nothing while an allocation of the
 * write path is bracketed (payload_mapping_begin) and runs 10 nice levels
 * below the process, LUNLAB_PREALLOC_MIB makes the first slots resident at
 * open, across segments (a bad value is ignored), a smaller store gets nothing ahead, and a
 * child forked meanwhile goes on without it.  Segments from the hugetlb pool
 * (when it has room): data reads back, the pages count in the process's
 * HugetlbPages while the segment lives and leave it when the segment
 * empties, and the segment is used again; with the pool taken (or
 * LUNLAB_HUGEPAGES=off) the store falls back to 4 KiB pages, which
 * behave as above.  The tests above hugetlb run with LUNLAB_HUGEPAGES=off:
 * they look at 4 KiB pages (mincore) and at a slot's address after its
 * segment was given back (a hugetlb segment is unmapped then). */
#include "array_test_util.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "handlers/array/block_store.h"
#include "handlers/array/payload.h"

#define B 4096u
#define SEG_IDS 16384u /* payload_mem.c's segment */

static void fill(uint8_t *p, uint64_t seed)
{
	fill_random(p, B, &seed);
}

static void test_put_read_ids(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	assert_non_null(ps);
	const uint32_t ids[] = { 1, 2, SEG_IDS - 1, SEG_IDS, 3 * SEG_IDS + 5, BLK_MAX_IDS - 1 };
	uint8_t buf[B];
	void *at[6];
	for (unsigned i = 0; i < 6; i++) {
		fill(buf, ids[i]);
		at[i] = payload_put(ps, ids[i], buf);
		assert_non_null(at[i]);
		assert_int_equal((uintptr_t)at[i] % 4096, 0);
	}
	for (unsigned i = 0; i < 6; i++) {
		fill(buf, ids[i]);
		assert_memory_equal(at[i], buf, B);
	}
	/* the slot of a freed id holds its next block */
	payload_free(ps, ids[1], at[1]);
	fill(buf, 999);
	void *again = payload_put(ps, ids[1], buf);
	assert_ptr_equal(again, at[1]);
	assert_memory_equal(again, buf, B);
	payload_free(ps, ids[1], again);
	for (unsigned i = 0; i < 6; i++)
		if (i != 1)
			payload_free(ps, ids[i], at[i]);
	payload_close(ps);
}

static unsigned resident_pages(void *p, size_t len)
{
	unsigned char vec[64];
	unsigned n = 0;
	assert_true(len / 4096 <= sizeof(vec));
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < len / 4096; i++)
		n += vec[i] & 1;
	return n;
}

/* Resident 4 KiB pages of [p, p + len). */
static size_t resident_range(void *p, size_t len)
{
	size_t n = 0, pages = len / 4096;
	unsigned char *vec = malloc(pages);
	assert_non_null(vec);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

#define MiB (1u << 20)

/* Store ids [0, n) (each block tagged with its id), let the filler finish. */
static void **store_ids(struct payload_store *ps, uint32_t n)
{
	void **at = malloc(n * sizeof(*at));
	uint8_t buf[B];
	assert_non_null(at);
	for (uint32_t id = 0; id < n; id++) {
		fill(buf, id);
		at[id] = payload_put(ps, id, buf);
		assert_non_null(at[id]);
	}
	payload_mem_settle(ps);
	return at;
}

static void free_ids(struct payload_store *ps, void **at, uint32_t n)
{
	uint8_t buf[B];
	for (uint32_t id = 0; id < n; id++) {
		fill(buf, id);
		assert_memory_equal(at[id], buf, B); /* populating never touched a stored byte */
		payload_free(ps, id, at[id]);
	}
	free(at);
}

static void test_filler_populates_ahead(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	const uint32_t n = 12 * MiB / B; /* 12 MiB stored: 12 MiB ahead, in one segment */
	void **at = store_ids(ps, n);
	unsigned char *end = (unsigned char *)at[0] + (size_t)n * B;
	/* ahead of the last slot, all resident (less a step of slack: the
	 * filler aims anew each time the front crosses a 1 MiB step) */
	assert_int_equal(resident_range(end, 11 * MiB), 11 * MiB / 4096);
	/* past the window, nothing */
	assert_int_equal(resident_range(end + 14 * MiB, 4 * MiB), 0);
	free_ids(ps, at, n);
	payload_close(ps);
}

/* the nice of this process's thread named name (-100: none such) */
static int thread_nice(const char *name)
{
	char path[320], comm[32], line[1024];
	int nice = -100;
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		const char *tid = e->d_name;
		if (tid[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", tid);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		bool match = fgets(comm, sizeof(comm), f) && strncmp(comm, name, strlen(name)) == 0;
		fclose(f);
		if (!match)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		/* after the comm's ')': state is field 3, nice field 19 */
		const char *p = strrchr(line, ')');
		assert_non_null(p);
		int field = 2;
		for (p++; *p && field < 19; p++)
			if (*p == ' ')
				field++;
		nice = atoi(p);
	}
	closedir(d);
	return nice;
}

/* While an allocation of the write path is bracketed (payload_mapping_begin),
 * the filler populates nothing; once it closes, the filler does what it
 * aims at.  The filler runs 10 nice levels below the process. */
static void test_filler_waits_for_mapping_changes(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	const uint32_t n = 12 * MiB / B;
	void **at = malloc(n * sizeof(*at));
	uint8_t buf[B];
	assert_non_null(at);
	payload_mapping_begin();
	for (uint32_t id = 0; id < n; id++) {
		fill(buf, id);
		at[id] = payload_put(ps, id, buf);
		assert_non_null(at[id]);
	}
	unsigned char *end = (unsigned char *)at[0] + (size_t)n * B;
	/* the filler has started (the store passed 8 MiB): wait until it has
	 * named itself and set its nice (a loaded machine may not have run it
	 * yet), then it is waiting for the bracket */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(errno, 0);
	const int want = nice + 10 > 19 ? 19 : nice + 10;
	const struct timespec pause = {.tv_nsec = 10 * 1000 * 1000};
	int got = thread_nice("lunlab-fill");
	for (int i = 0; i < 3000 && got != want; i++) {
		nanosleep(&pause, NULL);
		got = thread_nice("lunlab-fill");
	}
	assert_int_equal(got, want);
	nanosleep(&pause, NULL);
	assert_int_equal(resident_range(end, 16 * MiB), 0);
	payload_mapping_end();
	payload_mem_settle(ps);
	assert_int_equal(resident_range(end, 11 * MiB), 11 * MiB / 4096);
	free_ids(ps, at, n);
	payload_close(ps);
}

/* payload_open with stderr caught: the store, and its first line in line */
static struct payload_store *open_caught(char *line, size_t len)
{
	FILE *t = tmpfile();
	assert_non_null(t);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(t), 2) >= 0);
	struct payload_store *ps = payload_open(B);
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	rewind(t);
	if (!fgets(line, (int)len, t))
		line[0] = 0;
	fclose(t);
	return ps;
}

/* LUNLAB_PREALLOC_MIB=N: the first N MiB of slots are resident when the
 * store opens and nothing past them (a store this small has no filler), and
 * the store says so; a value with a suffix counts as the size rule says; a
 * value that breaks the rule, or asks for more than a store holds, is named
 * in one exact line and ignored (nothing populated). */
static void test_prealloc(void **state)
{
	(void)state;
	uint8_t buf[B];
	char line[512], want[512];
	fill(buf, 0);
	const char *good[] = { "8", "8M", "8192K" };
	for (unsigned i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		setenv("LUNLAB_PREALLOC_MIB", good[i], 1);
		struct payload_store *ps = open_caught(line, sizeof(line));
		assert_string_equal(line, "lunlab: array payloads: 8 MiB of memory populated at open (LUNLAB_PREALLOC_MIB)\n");
		void *at0 = payload_put(ps, 0, buf);
		assert_non_null(at0);
		assert_int_equal(resident_range(at0, 8 * MiB), 8 * MiB / 4096);
		assert_int_equal(resident_range((unsigned char *)at0 + 8 * MiB, 8 * MiB), 0);
		assert_memory_equal(at0, buf, B);
		payload_free(ps, 0, at0);
		payload_close(ps);
	}

	/* past one segment (64 MiB): populated on several threads, every
	 * step of both segments resident and nothing past the 96 MiB asked
	 * (the filler, which starts at the put into the second segment, can
	 * reach 97 MiB at most: ahead of 64 MiB by up to 32, whole steps) */
	setenv("LUNLAB_PREALLOC_MIB", "96", 1);
	struct payload_store *ps = open_caught(line, sizeof(line));
	assert_string_equal(line, "lunlab: array payloads: 96 MiB of memory populated at open (LUNLAB_PREALLOC_MIB)\n");
	void *at0 = payload_put(ps, 0, buf);
	assert_non_null(at0);
	assert_int_equal(resident_range(at0, 64 * MiB), 64 * MiB / 4096);
	void *at1 = payload_put(ps, SEG_IDS, buf);
	assert_non_null(at1);
	assert_int_equal(resident_range(at1, 32 * MiB), 32 * MiB / 4096);
	assert_int_equal(resident_range((unsigned char *)at1 + 34 * MiB, 8 * MiB), 0);
	assert_memory_equal(at1, buf, B);
	payload_free(ps, SEG_IDS, at1);
	payload_free(ps, 0, at0);
	payload_close(ps);

	/* 2^28 ids of 4 KiB: 1 TiB, 1048576 MiB */
	const char *bad[] = { "8x", "-1", "99999999999999999999", " 8", "1048577", "2T" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("LUNLAB_PREALLOC_MIB", bad[i], 1);
		ps = open_caught(line, sizeof(line));
		snprintf(want, sizeof(want),
			 "lunlab: LUNLAB_PREALLOC_MIB=%s: want a number with an optional K, M, G, T or P suffix "
			 "(powers of 1024), MiB without one, at most 1048576 MiB; ignored\n", bad[i]);
		assert_string_equal(line, want);
		at0 = payload_put(ps, 0, buf);
		assert_non_null(at0);
		assert_int_equal(resident_range((unsigned char *)at0 + B, 4 * MiB), 0);
		payload_free(ps, 0, at0);
		payload_close(ps);
	}
	unsetenv("LUNLAB_PREALLOC_MIB");
}

static void test_small_store_no_filler(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	const uint32_t n = 6 * MiB / B; /* below the filler's 8 MiB start */
	void **at = store_ids(ps, n);
	unsigned char *end = (unsigned char *)at[0] + (size_t)n * B;
	assert_int_equal(resident_range(at[0], (size_t)n * B), n);
	assert_int_equal(resident_range(end, 4 * MiB), 0);
	free_ids(ps, at, n);
	payload_close(ps);
}

/* A child forked while the filler runs (it is gone there) stores more,
 * across the filler's steps, reads it back and closes the store: it must
 * neither hang on a lock the filler held nor wait for the missing thread. */
static void test_fork_with_filler(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	const uint32_t n = 12 * MiB / B;
	void **at = store_ids(ps, n);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(60); /* a hang dies by SIGALRM and fails below */
		uint8_t buf[B];
		for (uint32_t id = n; id < n + 4 * MiB / B; id++) {
			fill(buf, id);
			void *p = payload_put(ps, id, buf);
			if (!p || memcmp(p, buf, B))
				_exit(1);
		}
		payload_mem_settle(ps);
		payload_close(ps);
		_exit(0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	free_ids(ps, at, n);
	payload_close(ps);
}

static void test_empty_segment_given_back(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	uint8_t buf[B];
	void *at[33];
	for (uint32_t id = 0; id < 33; id++) {
		fill(buf, id);
		at[id] = payload_put(ps, id, buf);
	}
	/* 32 consecutive slots: 32 resident pages */
	assert_int_equal(resident_pages(at[0], 32 * B), 32);
	for (uint32_t id = 1; id < 33; id++)
		payload_free(ps, id, at[id]);
	/* id 0 still lives: the segment keeps its memory */
	assert_int_equal(resident_pages(at[0], 32 * B), 32);
	fill(buf, 0);
	assert_memory_equal(at[0], buf, B);
	payload_free(ps, 0, at[0]);
	assert_int_equal(resident_pages(at[0], 32 * B), 0);
	/* and is used again */
	fill(buf, 7);
	void *p = payload_put(ps, 5, buf);
	assert_ptr_equal(p, at[5]);
	assert_memory_equal(p, buf, B);
	payload_free(ps, 5, p);
	payload_close(ps);
}

/* Four threads put, check and free their own ids (interleaved in one
 * segment) 20,000 times each: every read shows the writer's bytes, and the
 * segment is emptied and refilled many times on the way. */
struct worker {
	struct payload_store *ps;
	uint32_t base;
	int bad;
};

static void *churn(void *arg)
{
	struct worker *w = arg;
	uint8_t buf[B];
	uint64_t seed = w->base;
	for (int k = 0; k < 20000; k++) {
		uint32_t id = w->base + 4 * (uint32_t)(rng_next(&seed) % 8);
		uint64_t tag = rng_next(&seed);
		memset(buf, (int)(tag & 0xff), B);
		memcpy(buf, &tag, sizeof(tag));
		void *p = payload_put(w->ps, id, buf);
		if (!p || memcmp(p, buf, B))
			w->bad++;
		payload_free(w->ps, id, p);
	}
	return NULL;
}

/* Four threads churning ps at once; each must read back only what it stored. */
static void churn_in_four(struct payload_store *ps)
{
	pthread_t t[4];
	struct worker w[4];
	for (uint32_t i = 0; i < 4; i++) {
		w[i] = (struct worker){ ps, i, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, churn, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].bad, 0);
	}
}

static void test_concurrent_churn(void **state)
{
	(void)state;
	struct payload_store *ps = payload_open(B);
	churn_in_four(ps);
	payload_close(ps);
}

/* The process's mapped hugetlb memory, kB (/proc/self/status). */
static unsigned long long hugetlb_kb(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugetlbPages: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Pages of the 2 MiB pool free and not reserved by anyone (0 without it). */
static long pool_available(void)
{
	const char *dir = "/sys/kernel/mm/hugepages/hugepages-2048kB/";
	long v[2] = { 0, 0 };
	const char *name[2] = { "free_hugepages", "resv_hugepages" };
	for (int i = 0; i < 2; i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s%s", dir, name[i]);
		FILE *f = fopen(path, "r");
		if (!f)
			return 0;
		if (fscanf(f, "%ld", &v[i]) != 1)
			v[i] = 0;
		fclose(f);
	}
	return v[0] > v[1] ? v[0] - v[1] : 0;
}

#define HUGE_KB 2048u

/* From the pool: two segments.  Segment 0 holds ids 7 and 8 (one 2 MiB
 * page); id SEG_IDS + 3 starts segment 1 and, 64 MiB into the store, the
 * filler, which populates 32 MiB ahead of it to the next 1 MiB step: 64 MiB
 * to 97 MiB, 17 pages of 2 MiB. */
#define SEG1_PAGES 17u

static void test_hugetlb_segments(void **state)
{
	(void)state;
	if (pool_available() < 2 * (SEG_IDS * B / (2 * MiB)))
		skip(); /* no room in the pool (vm.nr_hugepages): nothing to test here */
	setenv("LUNLAB_HUGEPAGES", "auto", 1);
	unsigned long long kb0 = hugetlb_kb();
	struct payload_store *ps = payload_open(B);
	setenv("LUNLAB_HUGEPAGES", "off", 1);
	assert_non_null(ps);
	uint8_t buf[B];
	const uint32_t ids[3] = { 7, 8, SEG_IDS + 3 };
	void *at[3];
	for (int i = 0; i < 3; i++) {
		fill(buf, ids[i]);
		at[i] = payload_put(ps, ids[i], buf);
		assert_non_null(at[i]);
	}
	payload_mem_settle(ps);
	if (hugetlb_kb() == kb0 && pool_available() < 2 * (SEG_IDS * B / (2 * MiB))) {
		/* another process (a parallel test) took the pool meanwhile: the
		 * store rightly fell back; with room left, no huge page is a bug */
		for (int i = 0; i < 3; i++)
			payload_free(ps, ids[i], at[i]);
		payload_close(ps);
		skip();
	}
	assert_int_equal(hugetlb_kb() - kb0, (1 + SEG1_PAGES) * HUGE_KB);
	for (int i = 0; i < 3; i++) {
		fill(buf, ids[i]);
		assert_memory_equal(at[i], buf, B);
	}
	/* segment 0 empties: its page goes back to the pool */
	payload_free(ps, ids[0], at[0]);
	assert_int_equal(hugetlb_kb() - kb0, (1 + SEG1_PAGES) * HUGE_KB);
	payload_free(ps, ids[1], at[1]);
	assert_int_equal(hugetlb_kb() - kb0, SEG1_PAGES * HUGE_KB);
	fill(buf, ids[2]);
	assert_memory_equal(at[2], buf, B); /* the other segment is untouched */
	/* and is used again (mapped anew) */
	fill(buf, 1234);
	void *p = payload_put(ps, ids[1], buf);
	assert_non_null(p);
	assert_memory_equal(p, buf, B);
	assert_int_equal(hugetlb_kb() - kb0, (1 + SEG1_PAGES) * HUGE_KB);
	payload_free(ps, ids[1], p);
	payload_free(ps, ids[2], at[2]);
	assert_int_equal(hugetlb_kb() - kb0, 0);
	payload_close(ps);
}

/* The churn of test_concurrent_churn on a hugetlb segment: it is unmapped
 * and mapped anew each time it empties, under four writers. */
static void test_hugetlb_churn(void **state)
{
	(void)state;
	if (pool_available() < SEG_IDS * B / (2 * MiB))
		skip();
	setenv("LUNLAB_HUGEPAGES", "auto", 1);
	struct payload_store *ps = payload_open(B);
	setenv("LUNLAB_HUGEPAGES", "off", 1);
	churn_in_four(ps);
	payload_close(ps);
}

/* The pool wanted but without room (this test takes what is left of it
 * first, so the outcome does not depend on the machine's vm.nr_hugepages):
 * the store falls back to 4 KiB pages, stores, reads back and gives its
 * memory back. */
static void test_hugetlb_fallback(void **state)
{
	(void)state;
	void *hog = MAP_FAILED;
	size_t hog_len = 0;
	for (long n = pool_available(); n > 0 && hog == MAP_FAILED; n--) {
		hog_len = (size_t)n * 2 * MiB;
		/* reserved, never touched: the pool has no free page left */
		hog = mmap(NULL, hog_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	}
	setenv("LUNLAB_HUGEPAGES", "auto", 1);
	unsigned long long kb0 = hugetlb_kb();
	struct payload_store *ps = payload_open(B);
	setenv("LUNLAB_HUGEPAGES", "off", 1);
	assert_non_null(ps);
	uint8_t buf[B];
	void *at[33];
	for (uint32_t id = 0; id < 33; id++) {
		fill(buf, id);
		at[id] = payload_put(ps, id, buf);
		assert_non_null(at[id]);
	}
	assert_int_equal(hugetlb_kb(), kb0);
	assert_int_equal(resident_pages(at[0], 32 * B), 32);
	for (uint32_t id = 0; id < 33; id++) {
		fill(buf, id);
		assert_memory_equal(at[id], buf, B);
		payload_free(ps, id, at[id]);
	}
	assert_int_equal(resident_pages(at[0], 32 * B), 0);
	payload_close(ps);
	if (hog != MAP_FAILED)
		munmap(hog, hog_len);
}

int main(void)
{
	/* the tests above the hugetlb ones look at 4 KiB pages */
	setenv("LUNLAB_HUGEPAGES", "off", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_read_ids),
		cmocka_unit_test(test_empty_segment_given_back),
		cmocka_unit_test(test_concurrent_churn),
		cmocka_unit_test(test_filler_populates_ahead),
		cmocka_unit_test(test_filler_waits_for_mapping_changes),
		cmocka_unit_test(test_prealloc),
		cmocka_unit_test(test_small_store_no_filler),
		cmocka_unit_test(test_fork_with_filler),
		cmocka_unit_test(test_hugetlb_segments),
		cmocka_unit_test(test_hugetlb_churn),
		cmocka_unit_test(test_hugetlb_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
