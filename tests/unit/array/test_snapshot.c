/* test_snapshot.c — instant snapshots (snapshot.c): a snapshot reads back
 * the data of its moment, shares every block (exact counters: mapped,
 * unique, physical, single-referenced), diverges block by block from its
 * source in both directions, is read-only when asked, can itself be
 * snapshotted, and is freed by delete; a set of volumes is taken at one point
 * in time while a writer runs; every refusal changes nothing and says why.
 * A refresh (array_refresh) replaces an attached volume's data in place by
 * another's as map entries: exact counters, the old blocks dropped, the
 * device reading the new data at once; its refusals change nothing. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "array_test_util.h"
#include "handlers/array/volume_names.h"

#define B 16384u

static struct volume *attach(struct array *a, const char *name, uint64_t size)
{
	struct volume *v = NULL;
	char *err = NULL;
	if (volume_attach(a, name, size, 512, &v, &err) != 0)
		fail_msg("attach %s: %s", name, err ? err : "?");
	return v;
}

static void snapshot_shares_then_diverges(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *src = attach(a, "src", 16 * B);
	unsigned char *blk = malloc(8 * B), *got = malloc(8 * B), *nb = malloc(B);
	uint64_t seed = 21;
	fill_random(blk, 8 * B, &seed);
	fill_random(nb, B, &seed);
	assert_int_equal(wr(src, 0, blk, 8 * B), 0);
	struct array_stats s0 = stats_of(a);
	assert_int_equal(s0.single_ref_blocks, 8);

	const char *from[] = { "src" }, *to[] = { "snap" };
	uint64_t entries = 0;
	char *err = NULL;
	assert_int_equal(array_snapshot(a, from, to, 1, false, &entries, &err), 0);
	assert_null(err);
	assert_int_equal(entries, 8);
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.mapped_blocks, 16);
	assert_int_equal(s1.unique_blocks, 8);
	assert_int_equal(s1.physical_bytes, s0.physical_bytes);
	assert_int_equal(s1.single_ref_blocks, 0);
	struct volume *snap = attach(a, "snap", 16 * B);
	assert_int_equal(rd(snap, 0, got, 8 * B), 0);
	assert_memory_equal(got, blk, 8 * B);

	/* the source moves on: the snapshot keeps its moment */
	assert_int_equal(wr(src, 2 * B, nb, B), 0);
	assert_int_equal(rd(snap, 0, got, 8 * B), 0);
	assert_memory_equal(got, blk, 8 * B);
	struct array_stats s2 = stats_of(a);
	assert_int_equal(s2.unique_blocks, 9);
	assert_int_equal(s2.mapped_blocks, 16);
	assert_int_equal(s2.single_ref_blocks, 2); /* src's new block, snap's old block 2 */
	/* and the writable snapshot moves on without touching the source */
	assert_int_equal(volume_unmap(snap, 5 * B, B), 0);
	assert_int_equal(rd(src, 5 * B, got, B), 0);
	assert_memory_equal(got, blk + 5 * B, B);
	struct array_stats s3 = stats_of(a);
	assert_int_equal(s3.mapped_blocks, 15);
	assert_int_equal(s3.single_ref_blocks, 3); /* src's block 5 now only src's */
	assert_int_equal(s3.unique_blocks, 9);

	/* a snapshot of the snapshot names its source */
	const char *from2[] = { "snap" }, *to2[] = { "snap-of-snap" };
	assert_int_equal(array_snapshot(a, from2, to2, 1, true, &entries, &err), 0);
	assert_int_equal(entries, 7);
	struct volume_info vi[4];
	int n = array_volumes_info(a, vi, 4, NULL);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		if (!strcmp(vi[i].name, "snap-of-snap")) {
			assert_string_equal(vi[i].snapshot_of, "snap");
			assert_true(vi[i].readonly);
			assert_false(vi[i].attached);
			assert_int_equal(vi[i].size_bytes, 16 * B);
		} else if (!strcmp(vi[i].name, "snap")) {
			assert_string_equal(vi[i].snapshot_of, "src");
			assert_false(vi[i].readonly);
		}
	}
	struct volume *ss = attach(a, "snap-of-snap", 16 * B);
	assert_true(volume_is_readonly(ss));
	volume_release(ss);

	/* deleting the snapshots gives back exactly what they held */
	volume_release(snap);
	assert_int_equal(array_volume_delete(a, "snap-of-snap", &err), 0);
	assert_int_equal(array_volume_delete(a, "snap", &err), 0);
	struct array_stats s4 = stats_of(a);
	assert_int_equal(s4.mapped_blocks, 8);
	assert_int_equal(s4.unique_blocks, 8);
	assert_int_equal(s4.single_ref_blocks, 8);
	assert_int_equal(rd(src, 0, got, 8 * B), 0);
	memcpy(blk + 2 * B, nb, B);
	assert_memory_equal(got, blk, 8 * B);
	volume_release(src);
	assert_int_equal(array_volume_delete(a, "src", &err), 0);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	array_put(a);
	free(blk);
	free(got);
	free(nb);
}

static void refusals_change_nothing(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = attach(a, "v", 4 * B), *w = attach(a, "w", 4 * B);
	unsigned char blk[B];
	memset(blk, 7, sizeof(blk));
	assert_int_equal(wr(v, 0, blk, B), 0);
	struct array_stats s0 = stats_of(a);
	uint64_t entries = 99;
	char *err = NULL;
	const char *missing[] = { "v", "nope" }, *dsts[] = { "d1", "d2" };
	assert_int_equal(array_snapshot(a, missing, dsts, 2, false, &entries, &err), -ENOENT);
	expect_msg(err, "volume 'nope': no such volume in array 'test-");
	assert_int_equal(entries, 0);
	const char *src1[] = { "v" }, *exists[] = { "w" };
	assert_int_equal(array_snapshot(a, src1, exists, 1, false, &entries, &err), -EEXIST);
	expect_msg(err, "volume 'w' already exists in array 'test-");
	const char *two[] = { "v", "w" }, *same[] = { "x", "x" };
	assert_int_equal(array_snapshot(a, two, same, 2, false, &entries, &err), -EEXIST);
	expect_msg(err, "snapshot name 'x' is given twice");
	const char *badname[] = { "a b" };
	assert_int_equal(array_snapshot(a, src1, badname, 1, false, &entries, &err), -EINVAL);
	expect_msg(err, "snapshot name 'a b'");
	assert_int_equal(array_snapshot(a, src1, badname, 0, false, &entries, &err), -EINVAL);
	expect_msg(err, "at least one source volume");
	/* nothing was created or referenced */
	assert_int_equal(array_volumes_info(a, NULL, 0, NULL), 2);
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.mapped_blocks, s0.mapped_blocks);
	assert_int_equal(s1.single_ref_blocks, s0.single_ref_blocks);
	/* the same source twice in one set is fine */
	const char *vv[] = { "v", "v" }, *pair[] = { "p1", "p2" };
	assert_int_equal(array_snapshot(a, vv, pair, 2, false, &entries, &err), 0);
	assert_int_equal(entries, 2);
	assert_int_equal(stats_of(a).mapped_blocks, 3);
	volume_release(v);
	volume_release(w);
	array_drop_named_volumes();
	assert_int_equal(stats_of(a).mapped_blocks, 0);
	array_put(a);
}

/* A writer stamps a counter into volume x, then the same into y, forever.
 * A snapshot set of (x, y) is taken at one instant, so it holds either the
 * same stamp in both or x one ahead; never y ahead, never further apart. */
struct stamper {
	struct volume *x, *y;
	atomic_bool stop;
	_Atomic uint64_t written;
};

static void *stamp_main(void *arg)
{
	struct stamper *s = arg;
	unsigned char buf[512];
	for (uint64_t k = 1; !atomic_load(&s->stop); k++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &k, sizeof(k));
		if (wr(s->x, 0, buf, sizeof(buf)) || wr(s->y, 0, buf, sizeof(buf)))
			break;
		atomic_store(&s->written, k);
	}
	return NULL;
}

static void set_is_one_point_in_time(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct stamper st = { attach(a, "x", 4 * B), attach(a, "y", 4 * B), false, 0 };
	pthread_t t;
	pthread_create(&t, NULL, stamp_main, &st);
	/* the snapshots must race a writer that is running: wait for its first stamp (on a
	 * loaded machine the thread may start after 40 snapshots otherwise; docs/testing.md
	 * rule 5, meson's timeout is the hang guard) */
	while (atomic_load(&st.written) == 0)
		sched_yield();
	char *err = NULL;
	for (int i = 0; i < 40; i++) {
		char sx[16], sy[16];
		snprintf(sx, sizeof(sx), "sx%d", i);
		snprintf(sy, sizeof(sy), "sy%d", i);
		const char *src[] = { "x", "y" }, *dst[] = { sx, sy };
		uint64_t entries = 0;
		assert_int_equal(array_snapshot(a, src, dst, 2, true, &entries, &err), 0);
		struct volume *vx = attach(a, sx, 4 * B), *vy = attach(a, sy, 4 * B);
		uint64_t kx = 0, ky = 0;
		unsigned char buf[512];
		assert_int_equal(rd(vx, 0, buf, sizeof(buf)), 0);
		memcpy(&kx, buf, sizeof(kx));
		assert_int_equal(rd(vy, 0, buf, sizeof(buf)), 0);
		memcpy(&ky, buf, sizeof(ky));
		if (!(kx == ky || kx == ky + 1))
			fail_msg("snapshot %d: x holds stamp %llu, y %llu", i, (unsigned long long)kx,
				 (unsigned long long)ky);
		volume_release(vx);
		volume_release(vy);
		assert_int_equal(array_volume_delete(a, sx, &err), 0);
		assert_int_equal(array_volume_delete(a, sy, &err), 0);
		usleep(500);
	}
	atomic_store(&st.stop, true);
	pthread_join(t, NULL);
	assert_true(st.written > 0);
	volume_release(st.x);
	volume_release(st.y);
	array_drop_named_volumes();
	array_put(a);
}

static void refresh_replaces_in_place(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *vol = attach(a, "vol", 16 * B);
	unsigned char *old = malloc(8 * B), *later = malloc(4 * B), *got = malloc(8 * B);
	uint64_t seed = 33, entries = 0;
	char *err = NULL;
	fill_random(old, 8 * B, &seed);
	fill_random(later, 4 * B, &seed);
	assert_int_equal(wr(vol, 0, old, 8 * B), 0);
	const char *from[] = { "vol" }, *to[] = { "snap" };
	assert_int_equal(array_snapshot(a, from, to, 1, true, &entries, &err), 0);
	/* a write after the snapshot: blocks 2..5 new, and block 12 beyond the old data */
	assert_int_equal(wr(vol, 2 * B, later, 4 * B), 0);
	assert_int_equal(wr(vol, 12 * B, later, B), 0);
	assert_int_equal(stats_of(a).unique_blocks, 12);

	/* vol (still attached: its device is open) back to the snapshot's data */
	const char *rs[] = { "snap" }, *rd_[] = { "vol" };
	assert_int_equal(array_refresh(a, rs, rd_, 1, &entries, &err), 0);
	assert_null(err);
	assert_int_equal(entries, 4); /* blocks 2..5 took snap's entries again; 12 was unmapped */
	assert_int_equal(rd(vol, 0, got, 8 * B), 0);
	assert_memory_equal(got, old, 8 * B);
	memset(got, 0xee, B);
	assert_int_equal(rd(vol, 12 * B, got, B), 0);
	for (unsigned k = 0; k < B; k++)
		if (got[k])
			fail_msg("block 12 of the refreshed volume is not zero at byte %u", k);
	struct array_stats st = stats_of(a);
	assert_int_equal(st.unique_blocks, 8); /* the later write's blocks are gone */
	assert_int_equal(st.mapped_blocks, 16);
	assert_int_equal(st.single_ref_blocks, 0);
	/* the refreshed volume is a volume like any: it diverges again */
	assert_int_equal(wr(vol, 0, later, B), 0);
	assert_int_equal(stats_of(a).single_ref_blocks, 2);

	/* refusals change nothing */
	struct volume *big = attach(a, "big", 32 * B);
	const char *bs_[] = { "big" }, *nope[] = { "nope" }, *self[] = { "vol" };
	assert_int_equal(array_refresh(a, bs_, rd_, 1, &entries, &err), -EINVAL);
	expect_msg(err, "differ in size");
	assert_int_equal(array_refresh(a, nope, rd_, 1, &entries, &err), -ENOENT);
	expect_msg(err, "'nope': no such volume");
	assert_int_equal(array_refresh(a, self, rd_, 1, &entries, &err), -EINVAL);
	expect_msg(err, "cannot be refreshed from itself");
	const char *two_s[] = { "snap", "snap" }, *two_d[] = { "vol", "vol" };
	assert_int_equal(array_refresh(a, two_s, two_d, 2, &entries, &err), -EINVAL);
	expect_msg(err, "named twice");
	assert_int_equal(array_refresh(a, rs, rd_, 0, &entries, &err), -EINVAL);
	expect_msg(err, "1..4096");
	assert_int_equal(rd(vol, 0, got, B), 0);
	assert_memory_equal(got, later, B);
	assert_int_equal(stats_of(a).single_ref_blocks, 2);

	volume_release(big);
	volume_release(vol);
	assert_int_equal(array_volume_delete(a, "big", &err), 0);
	assert_int_equal(array_volume_delete(a, "snap", &err), 0);
	assert_int_equal(array_volume_delete(a, "vol", &err), 0);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	array_put(a);
	free(old);
	free(later);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshot_shares_then_diverges),
		cmocka_unit_test(refusals_change_nothing),
		cmocka_unit_test(set_is_one_point_in_time),
		cmocka_unit_test(refresh_replaces_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
