/* test_space.c — an array's physical space (space.c): capacity enforcement on
 * every kind of write with the map left untouched by a refused command, what
 * keeps working when the array is full (reads, dedup overwrites, UNMAP,
 * metadata copies), the soft threshold's crossings and re-arming, and the
 * settings' rules and messages.  Data is random so every block is physically
 * dedup_block bytes (incompressible: rule 5 of docs/accounting.md caps it),
 * the same before and after the background accounting. */
#include <errno.h>
#include <pthread.h>
#include "array_test_util.h"

#define B 16384u

static struct array *full_array(uint64_t cap_blocks, uint64_t soft_blocks)
{
	struct array *a = new_array(B, 1, 512);
	char *err = NULL;
	assert_int_equal(array_set_capacity(a, cap_blocks * B, soft_blocks * B, &err), 0);
	assert_null(err);
	return a;
}

static void rnd_block(unsigned char *p, uint64_t seed)
{
	fill_random(p, B, &seed);
}

/* Once the accounting backlog is drained: blocks count their physical size
 * (before, a pending block counts dedup_block bytes, its worst case). */
static struct array_space space_of(struct array *a)
{
	struct array_space s;
	array_flush_accounting(a);
	array_get_space(a, &s);
	return s;
}

/* Write n random blocks (seeds seed..seed+n-1) at block index at. */
static int write_blocks(struct volume *v, uint64_t at, uint64_t n, uint64_t seed)
{
	unsigned char *buf = malloc(n * B);
	for (uint64_t i = 0; i < n; i++)
		rnd_block(buf + i * B, seed + i);
	int r = wr(v, at * B, buf, n * B);
	free(buf);
	return r;
}

static void assert_blocks(struct volume *v, uint64_t at, uint64_t n, uint64_t seed)
{
	unsigned char *got = malloc(B), *want = malloc(B);
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(rd(v, (at + i) * B, got, B), 0);
		if (seed)
			rnd_block(want, seed + i);
		else
			memset(want, 0, B);
		assert_memory_equal(got, want, B);
	}
	free(got);
	free(want);
}

/* A write of 1 MiB or more is stored in pieces on several cores
 * (volume_io.c prestore, split_work.h): when one piece finds the array full
 * the blocks the other pieces stored are let go again, so the refused write
 * leaves the map, the unique blocks and the space as they were. */
static void split_write_refused_whole(void **state)
{
	(void)state;
	struct array *a = full_array(100, 0);
	struct volume *v = volume_create(a, 512 * B, 512);
	assert_int_equal(write_blocks(v, 0, 40, 100), 0);
	for (int round = 0; round < 5; round++) {
		/* 128 new blocks (2 MiB) do not fit in the 60 left */
		assert_int_equal(write_blocks(v, 128, 128, 1000 + (uint64_t)round * 1000), -ENOSPC);
		struct array_stats st = stats_of(a);
		assert_int_equal(st.mapped_blocks, 40);
		assert_int_equal(st.unique_blocks, 40);
		assert_int_equal(space_of(a).used_bytes, 40 * B);
		assert_int_equal(space_of(a).reserved_bytes, 0);
		assert_blocks(v, 128, 128, 0);
	}
	/* 60 new blocks plus 68 the array holds (dedup) fit exactly */
	unsigned char *buf = malloc(128 * B);
	for (uint64_t i = 0; i < 60; i++)
		rnd_block(buf + i * B, 5000 + i);
	for (uint64_t i = 60; i < 128; i++)
		rnd_block(buf + i * B, 100 + (i - 60) % 40);
	assert_int_equal(wr(v, 128 * B, buf, 128 * B), 0);
	free(buf);
	assert_blocks(v, 128, 60, 5000);
	assert_blocks(v, 0, 40, 100);
	assert_int_equal(space_of(a).used_bytes, 100 * B);
	assert_int_equal(stats_of(a).unique_blocks, 100);
	volume_destroy(v);
	array_put(a);
}

static void no_capacity_no_limit(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 64 * B, 512);
	assert_int_equal(write_blocks(v, 0, 40, 1), 0);
	struct array_space s = space_of(a);
	assert_int_equal(s.capacity_bytes, 0);
	assert_int_equal(s.used_bytes, stats_of(a).physical_bytes); /* inline accounting: exact */
	assert_int_equal(s.used_bytes, 40 * B);
	assert_int_equal(s.reserved_bytes, 0);
	volume_destroy(v);
	assert_int_equal(space_of(a).used_bytes, 0);
	array_put(a);
}

static void whole_writes_refused_when_full(void **state)
{
	struct array *a = full_array(10, 0);
	struct volume *v = volume_create(a, 64 * B, 512);
	assert_int_equal(write_blocks(v, 0, 8, 100), 0);
	/* 4 new blocks do not fit in the 2 left: refused whole, nothing mapped */
	assert_int_equal(write_blocks(v, 20, 4, 200), -ENOSPC);
	assert_blocks(v, 20, 4, 0);
	struct array_stats st = stats_of(a);
	assert_int_equal(st.mapped_blocks, 8);
	assert_int_equal(st.unique_blocks, 8);
	assert_int_equal(space_of(a).used_bytes, 8 * B);
	assert_int_equal(space_of(a).reserved_bytes, 0);
	/* 2 fit exactly, the next one does not */
	assert_int_equal(write_blocks(v, 20, 2, 200), 0);
	assert_int_equal(write_blocks(v, 30, 1, 300), -ENOSPC);
	assert_blocks(v, 0, 8, 100);
	assert_blocks(v, 20, 2, 200);
	assert_int_equal(space_of(a).used_bytes, 10 * B);
	/* what needs no new space still works: reads, rewriting the same data,
	 * writing data the array already holds elsewhere */
	assert_int_equal(write_blocks(v, 0, 8, 100), 0);
	assert_int_equal(write_blocks(v, 40, 8, 100), 0);
	assert_blocks(v, 40, 8, 100);
	st = stats_of(a);
	assert_int_equal(st.mapped_blocks, 18);
	assert_int_equal(st.unique_blocks, 10);
	/* overwriting single-referenced data with new data needs a new block
	 * before the old one is freed: refused, the old data stays */
	assert_int_equal(write_blocks(v, 20, 1, 900), -ENOSPC);
	assert_blocks(v, 20, 2, 200);
	/* UNMAP frees; writes resume */
	assert_int_equal(volume_unmap(v, 20 * B, 2 * B), 0);
	assert_int_equal(space_of(a).used_bytes, 8 * B);
	assert_int_equal(write_blocks(v, 30, 2, 300), 0);
	assert_blocks(v, 30, 2, 300);
	volume_destroy(v);
	array_put(a);
}

static void partial_writes_reserve_first(void **state)
{
	struct array *a = full_array(10, 0);
	struct volume *v = volume_create(a, 64 * B, 512);
	unsigned char *buf = malloc(3 * B);
	assert_int_equal(write_blocks(v, 0, 9, 1), 0);
	/* head partial + 1 whole + tail partial: the whole block fits, but the
	 * two partial blocks' worst case does not: refused before any entry
	 * changes (the whole block, stored first, is given back) */
	uint64_t seed = 77;
	fill_random(buf, 3 * B, &seed);
	struct iovec io = { buf, 2 * B };
	assert_int_equal(volume_write(v, 20 * B + 4096, 2 * B, &io, 1), -ENOSPC);
	assert_blocks(v, 20, 3, 0);
	assert_int_equal(stats_of(a).mapped_blocks, 9);
	assert_int_equal(space_of(a).used_bytes, 9 * B);
	assert_int_equal(space_of(a).reserved_bytes, 0);
	/* a 512-byte write into a block needs one block of room: it has it
	 * (and then uses what the block compresses to) */
	assert_int_equal(wr(v, 30 * B + 512, buf, 512), 0);
	assert_int_equal(space_of(a).used_bytes, stats_of(a).physical_bytes);
	assert_true(space_of(a).used_bytes > 9 * B && space_of(a).used_bytes < 10 * B);
	/* less than a block left: the same small write elsewhere is refused, even
	 * a rewrite of a partial block (its worst case is a new block) */
	assert_int_equal(wr(v, 31 * B, buf, 512), -ENOSPC);
	assert_int_equal(wr(v, 30 * B + 512, buf, 512), -ENOSPC);
	unsigned char got[512];
	assert_int_equal(rd(v, 30 * B + 512, got, 512), 0);
	assert_memory_equal(got, buf, 512);
	/* COMPARE AND WRITE and WRITE SAME of a pattern decide up front too */
	unsigned char cmp[512], pat[512];
	memcpy(cmp, buf, 512);
	memset(pat, 0x5a, sizeof(pat));
	uint64_t mis = 0;
	assert_int_equal(volume_compare_and_write(v, 30 * B + 512, 512, cmp, pat, &mis), -ENOSPC);
	assert_int_equal(rd(v, 30 * B + 512, got, 512), 0);
	assert_memory_equal(got, buf, 512);
	assert_int_equal(volume_write_same(v, 40 * B, 4 * B, pat), -ENOSPC);
	assert_blocks(v, 40, 4, 0);
	/* WRITE SAME of zeros deallocates: always allowed */
	memset(pat, 0, sizeof(pat));
	uint64_t before = space_of(a).used_bytes;
	assert_int_equal(volume_write_same(v, 0, B, pat), 0);
	assert_int_equal(space_of(a).used_bytes, before - B);
	assert_int_equal(space_of(a).reserved_bytes, 0);
	free(buf);
	volume_destroy(v);
	array_put(a);
}

static void unmap_of_partial_blocks_never_refused(void **state)
{
	struct array *a = full_array(10, 0);
	struct volume *v = volume_create(a, 64 * B, 512);
	assert_int_equal(write_blocks(v, 0, 10, 1), 0);
	/* half of block 3 and the first 4 KiB of block 4: new content for two
	 * blocks although the array is full; the old blocks are freed */
	assert_int_equal(volume_unmap(v, 3 * B + B / 2, B / 2 + 4096), 0);
	unsigned char *got = malloc(B), *want = malloc(B);
	assert_int_equal(rd(v, 3 * B, got, B), 0);
	rnd_block(want, 1 + 3);
	memset(want + B / 2, 0, B / 2);
	assert_memory_equal(got, want, B);
	struct array_space s = space_of(a);
	assert_true(s.used_bytes <= s.capacity_bytes);
	assert_int_equal(s.used_bytes, stats_of(a).physical_bytes);
	free(got);
	free(want);
	volume_destroy(v);
	array_put(a);
}

static void copies_move_entries_without_space(void **state)
{
	struct array *a = full_array(8, 0);
	struct volume *src = volume_create(a, 32 * B, 512), *dst = volume_create(a, 32 * B, 512);
	assert_int_equal(write_blocks(src, 0, 8, 5), 0);
	uint64_t moved = 0;
	/* aligned: map entries and references only, the array being full */
	assert_int_equal(volume_copy(dst, 0, src, 0, 8 * B, &moved), 0);
	assert_int_equal(moved, 8);
	assert_blocks(dst, 0, 8, 5);
	/* misaligned within the block: a data copy, refused before it starts */
	assert_int_equal(volume_copy(dst, 16 * B + 512, src, 0, 2 * B, &moved), -ENOSPC);
	assert_blocks(dst, 16, 3, 0);
	/* aligned blocks but unaligned edges: the partial edges need room */
	assert_int_equal(volume_copy(dst, 20 * B + 512, src, 512, B, &moved), -ENOSPC);
	assert_blocks(dst, 20, 2, 0);
	assert_int_equal(space_of(a).used_bytes, 8 * B);
	assert_int_equal(space_of(a).reserved_bytes, 0);
	volume_destroy(dst);
	volume_destroy(src);
	array_put(a);
}

static void soft_threshold_once_per_crossing(void **state)
{
	struct array *a = full_array(100, 50);
	struct volume *v = volume_create(a, 128 * B, 512);
	uint64_t g0 = array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD);
	assert_int_equal(write_blocks(v, 0, 49, 1000), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0);
	assert_int_equal(write_blocks(v, 49, 1, 1049), 0); /* 50 blocks: reached */
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 1);
	assert_int_equal(write_blocks(v, 50, 10, 1050), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 1);
	/* re-armed only once use is 1% of the capacity (one block here) below
	 * the threshold: 49 blocks is not enough, 48 is */
	assert_int_equal(volume_unmap(v, 49 * B, 11 * B), 0);
	assert_int_equal(space_of(a).used_bytes, 49 * B);
	assert_int_equal(write_blocks(v, 49, 1, 2049), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 1);
	assert_int_equal(volume_unmap(v, 48 * B, 2 * B), 0);
	assert_int_equal(write_blocks(v, 48, 2, 3048), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 2);
	/* lowering the threshold below the use is a crossing too; raising it
	 * above re-arms; no threshold never counts */
	char *err = NULL;
	assert_int_equal(array_set_capacity(a, 100 * B, 80 * B, &err), 0);
	assert_int_equal(write_blocks(v, 60, 1, 4000), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 2);
	assert_int_equal(array_set_capacity(a, 100 * B, 40 * B, &err), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 3);
	assert_int_equal(array_set_capacity(a, 100 * B, 0, &err), 0);
	assert_int_equal(write_blocks(v, 61, 30, 5000), 0);
	assert_int_equal(array_event_gen(a, ARRAY_EV_SOFT_THRESHOLD), g0 + 3);
	volume_destroy(v);
	array_put(a);
}

static void settings_and_messages(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 64 * B, 512);
	char *err = NULL;
	uint64_t p0 = array_event_gen(a, ARRAY_EV_PARAMS);
	/* the profile's default applies while nothing is set, once */
	array_space_default(a, 100 * B, 80);
	assert_int_equal(space_of(a).capacity_bytes, 100 * B);
	assert_int_equal(space_of(a).soft_threshold_bytes, 80 * B);
	array_space_default(a, 200 * B, 50);
	assert_int_equal(space_of(a).capacity_bytes, 100 * B);
	assert_int_equal(array_event_gen(a, ARRAY_EV_PARAMS), p0 + 1);
	/* a key pins: the same value again is fine, another is refused */
	assert_int_equal(array_space_keys(a, 64 * B, -1, &err), 0);
	assert_null(err);
	assert_int_equal(space_of(a).capacity_bytes, 64 * B);
	assert_int_equal(space_of(a).soft_threshold_bytes, 64 * B * 80 / 100); /* keeps its share */
	assert_int_equal(array_event_gen(a, ARRAY_EV_PARAMS), p0 + 2);
	assert_int_equal(array_space_keys(a, 64 * B, -1, &err), 0);
	assert_int_equal(array_space_keys(a, 0, -1, &err), 0); /* no key: agrees with anything */
	assert_int_equal(array_event_gen(a, ARRAY_EV_PARAMS), p0 + 2); /* nothing changed */
	assert_int_equal(array_space_keys(a, 65 * B, -1, &err), -EINVAL);
	expect_msg(err, "array_capacity 1064960: array 'test-");
	assert_int_equal(array_space_keys(a, 0, 50, &err), 0);
	assert_int_equal(space_of(a).soft_threshold_bytes, 32 * B);
	assert_int_equal(array_space_keys(a, 0, 50, &err), 0);
	assert_int_equal(array_space_keys(a, 0, 60, &err), -EINVAL);
	expect_msg(err, "soft_threshold 60: array 'test-");
	/* below the use */
	assert_int_equal(write_blocks(v, 0, 10, 1), 0);
	assert_int_equal(array_set_capacity(a, 9 * B, 0, &err), -ENOSPC);
	expect_msg(err, "capacity 147456 is below the 163840 bytes array 'test-");
	assert_int_equal(array_set_capacity(a, 0, 0, &err), -EINVAL);
	expect_msg(err, "capacity 0");
	assert_int_equal(array_set_capacity(a, 20 * B, 21 * B, &err), -EINVAL);
	expect_msg(err, "soft threshold 344064 is above the capacity 327680");
	assert_int_equal(space_of(a).capacity_bytes, 64 * B); /* refusals change nothing */
	assert_int_equal(array_set_capacity(a, 10 * B, 5 * B, &err), 0);
	assert_null(err);
	assert_int_equal(space_of(a).capacity_bytes, 10 * B);
	assert_int_equal(write_blocks(v, 10, 1, 11), -ENOSPC);
	volume_destroy(v);
	/* a capacity key below the use of a fresh array's keys */
	struct array *b = new_array(B, 1, 512);
	struct volume *w = volume_create(b, 64 * B, 512);
	assert_int_equal(write_blocks(w, 0, 3, 1), 0);
	assert_int_equal(array_space_keys(b, 2 * B, -1, &err), -ENOSPC);
	expect_msg(err, "array_capacity 32768: array 'test-");
	assert_int_equal(array_space_keys(b, 0, 10, &err), -EINVAL); /* no capacity to take 10% of */
	expect_msg(err, "soft_threshold 10: array 'test-");
	volume_destroy(w);
	array_put(b);
	array_put(a);
}

struct filler {
	struct volume *v;
	uint64_t first, acked;
};

static void *fill_main(void *arg)
{
	struct filler *f = arg;
	for (uint64_t i = 0; i < 64; i++) {
		if (write_blocks(f->v, f->first + i, 1, f->first + i + 1) != 0)
			break;
		f->acked++;
	}
	return NULL;
}

/* Two writers race to fill the array: together they never pass the
 * capacity, and every acknowledged block reads back. */
static void concurrent_fill_exact(void **state)
{
	struct array *a = full_array(50, 0);
	struct volume *v = volume_create(a, 256 * B, 512);
	struct filler f[2] = { { v, 0, 0 }, { v, 128, 0 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fill_main, &f[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(f[0].acked + f[1].acked, 50);
	assert_blocks(v, f[0].first, f[0].acked, f[0].first + 1);
	assert_blocks(v, f[1].first, f[1].acked, f[1].first + 1);
	assert_int_equal(space_of(a).used_bytes, 50 * B);
	assert_int_equal(stats_of(a).physical_bytes, 50 * B);
	assert_int_equal(space_of(a).reserved_bytes, 0);
	volume_destroy(v);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_capacity_no_limit),
		cmocka_unit_test(whole_writes_refused_when_full),
		cmocka_unit_test(split_write_refused_whole),
		cmocka_unit_test(partial_writes_reserve_first),
		cmocka_unit_test(unmap_of_partial_blocks_never_refused),
		cmocka_unit_test(copies_move_entries_without_space),
		cmocka_unit_test(soft_threshold_once_per_crossing),
		cmocka_unit_test(settings_and_messages),
		cmocka_unit_test(concurrent_fill_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
