/* test_volume_early.c — handlers/array/volume_early.c: a WRITE's blocks
 * stored while its data arrives.  A write fed in bursts reads back exactly
 * and leaves the same figures as a plain write; a state fed with a burst
 * the write does not match (another range), never taken (the command never
 * ran) or taken after the array filled up holds no block afterwards; the
 * bytes fed are the ones stored, not what the buffer holds later beyond
 * them; writes that gain nothing get no state. */
#include <errno.h>
#include "array_test_util.h"

#define B 4096u
#define BURST (256u << 10)

/* Feed the whole of buf to e burst by burst, as lunlab-target does (every
 * burst but the last). */
static void feed_bursts(struct vio_early *e, void *buf, uint64_t len)
{
	struct iovec io = { buf, len };
	for (uint64_t got = BURST; got < len; got += BURST)
		vio_early_feed(e, &io, 1, got);
}

static int write_early(struct volume *v, uint64_t off, void *buf, uint64_t len, struct vio_early *e)
{
	struct iovec io = { buf, len };
	return volume_write_early(v, off, len, &io, 1, e);
}

/* A state made for [made_at, +len) and fed all of buf, then the write of
 * buf at write_at through it; the state freed.  The write's status. */
static int fed_write(struct volume *v, uint64_t made_at, uint64_t write_at, void *buf, uint64_t len)
{
	struct vio_early *e = vio_early_new(v, made_at, len);
	assert_non_null(e);
	feed_bursts(e, buf, len);
	int r = write_early(v, write_at, buf, len, e);
	vio_early_free(e);
	return r;
}

static void assert_reads_back(struct volume *v, uint64_t off, const void *buf, uint64_t len)
{
	unsigned char *back = malloc(len);
	assert_int_equal(rd(v, off, back, len), 0);
	assert_memory_equal(back, buf, len);
	free(back);
}

static void bursts_read_back_and_same_figures(void **state)
{
	(void)state;
	const uint64_t len = 4u << 20;
	uint64_t seed = 7;
	unsigned char *buf = malloc(len);
	fill_random(buf, len, &seed);
	memset(buf + BURST, 0, 3 * B); /* zero blocks stay unmapped */
	memcpy(buf + 2 * BURST, buf, 8 * B); /* dedup inside the write */

	struct array *a = new_array(B, 1, 512), *p = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 64u << 20, 512), *pv = volume_create(p, 64u << 20, 512);
	/* at an offset that is not block aligned: partial blocks at both ends */
	uint64_t off = 3 * B + 1024;
	assert_int_equal(fed_write(v, off, off, buf, len), 0);
	assert_int_equal(wr(pv, off, buf, len), 0);

	assert_reads_back(v, off, buf, len);
	struct array_stats s = stats_of(a), ps = stats_of(p);
	assert_int_equal(s.unique_blocks, ps.unique_blocks);
	assert_int_equal(s.mapped_blocks, ps.mapped_blocks);
	assert_int_equal(s.physical_bytes, ps.physical_bytes);
	/* overwrite the same range through early states again: old blocks go */
	for (int round = 0; round < 3; round++) {
		fill_random(buf, len, &seed);
		assert_int_equal(fed_write(v, off, off, buf, len), 0);
		assert_int_equal(wr(pv, off, buf, len), 0);
	}
	assert_reads_back(v, off, buf, len);
	s = stats_of(a);
	ps = stats_of(p);
	assert_int_equal(s.unique_blocks, ps.unique_blocks);
	assert_int_equal(s.mapped_blocks, ps.mapped_blocks);
	volume_destroy(v);
	volume_destroy(pv);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	array_put(a);
	array_put(p);
	free(buf);
}

/* The state stores what was final when fed: bytes the buffer receives
 * later (the next bursts) are the write's, stored by the write itself. */
static void stores_only_the_fed_prefix(void **state)
{
	(void)state;
	const uint64_t len = 2u << 20;
	uint64_t seed = 11;
	unsigned char *buf = calloc(1, len), *back = malloc(len);
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 16u << 20, 512);
	struct vio_early *e = vio_early_new(v, 0, len);
	struct iovec io = { buf, len };
	fill_random(buf, BURST, &seed);
	vio_early_feed(e, &io, 1, BURST); /* the rest is still zeros here */
	fill_random(buf + BURST, len - BURST, &seed);
	assert_int_equal(write_early(v, 0, buf, len, e), 0);
	vio_early_free(e);
	assert_int_equal(rd(v, 0, back, len), 0);
	assert_memory_equal(back, buf, len);
	assert_int_equal(stats_of(a).unique_blocks, len / B);
	volume_destroy(v);
	array_put(a);
	free(buf);
	free(back);
}

/* A state no write took (the command was refused or aborted), or one for
 * another range: every block it stored is released. */
static void untaken_states_release_their_blocks(void **state)
{
	(void)state;
	const uint64_t len = 1u << 20;
	uint64_t seed = 3;
	unsigned char *buf = malloc(len);
	fill_random(buf, len, &seed);
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 16u << 20, 512);

	struct vio_early *e = vio_early_new(v, 0, len);
	feed_bursts(e, buf, len);
	vio_early_free(e);
	assert_int_equal(stats_of(a).unique_blocks, 0);

	/* fed for [0, len), used by a write at another offset */
	assert_int_equal(fed_write(v, 0, len, buf, len), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.unique_blocks, len / B);
	assert_int_equal(s.mapped_blocks, len / B);
	assert_reads_back(v, len, buf, len);
	volume_destroy(v);
	array_put(a);
	free(buf);
}

/* A full array: the early pieces fail, the write reports ENOSPC as it would
 * without them, and nothing stays held. */
static void full_array_write_refused_whole(void **state)
{
	(void)state;
	const uint64_t len = 2u << 20;
	uint64_t seed = 5;
	unsigned char *buf = malloc(len);
	struct array *a = new_array(B, 1, 512);
	char *err = NULL;
	assert_int_equal(array_set_capacity(a, 100 * B, 0, &err), 0);
	struct volume *v = volume_create(a, 16u << 20, 512);
	fill_random(buf, 40 * B, &seed);
	assert_int_equal(wr(v, 0, buf, 40 * B), 0);
	for (int round = 0; round < 3; round++) {
		fill_random(buf, len, &seed);
		assert_int_equal(fed_write(v, 1u << 20, 1u << 20, buf, len), -ENOSPC);
		struct array_stats s = stats_of(a);
		assert_int_equal(s.unique_blocks, 40);
		assert_int_equal(s.mapped_blocks, 40);
		struct array_space sp;
		array_get_space(a, &sp);
		assert_int_equal(sp.used_bytes, 40 * B);
		assert_int_equal(sp.reserved_bytes, 0);
	}
	volume_destroy(v);
	array_put(a);
	free(buf);
}

/* No state where it cannot help or does not apply. */
static void no_state_where_it_does_not_apply(void **state)
{
	(void)state;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 16u << 20, 512);
	assert_null(vio_early_new(v, 0, 256u << 10));       /* one burst or two */
	assert_null(vio_early_new(v, 15u << 20, 2u << 20)); /* beyond the end */
	assert_null(vio_early_new(v, 100, 1u << 20));       /* not on a logical block */
	struct vio_early *e = vio_early_new(v, 0, 1u << 20);
	assert_non_null(e);
	vio_early_free(e);
	vio_early_free(NULL);
	volume_destroy(v);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bursts_read_back_and_same_figures),
		cmocka_unit_test(stores_only_the_fed_prefix),
		cmocka_unit_test(untaken_states_release_their_blocks),
		cmocka_unit_test(full_array_write_refused_whole),
		cmocka_unit_test(no_state_where_it_does_not_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
