/* test_volume_names.c — named volumes (volume_names.c): attach creates, data
 * outlives the device, re-attach finds it, one device at a time, size and
 * block size must match, names are checked, delete frees (and is refused
 * while attached), a name keeps its array alive, the listing's figures
 * (single-referenced bytes per volume, provisioned), and the shutdown sweep. */
#include <errno.h>
#include "array_test_util.h"
#include "handlers/array/volume_names.h"

#define B 16384u

static void attach_release_reattach(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = NULL, *w = NULL;
	char *err = NULL;
	unsigned char data[4096], got[4096];
	memset(data, 0x6b, sizeof(data));

	assert_int_equal(volume_attach(a, "vol-1", 1 << 20, 512, &v, &err), 0);
	assert_null(err);
	assert_int_equal(volume_size(v), 1 << 20);
	assert_int_equal(wr(v, 8192, data, sizeof(data)), 0);
	/* one device at a time */
	assert_int_equal(volume_attach(a, "vol-1", 1 << 20, 512, &w, &err), -EBUSY);
	assert_null(w);
	expect_msg(err, "volume 'vol-1' of array 'test-");
	volume_release(v); /* the device closes: the volume stays */
	assert_int_equal(stats_of(a).mapped_blocks, 1);
	/* a size or block size that differs is refused, never a resize */
	assert_int_equal(volume_attach(a, "vol-1", 2 << 20, 512, &w, &err), -EINVAL);
	expect_msg(err, "volume 'vol-1' is 1048576 bytes, the device 2097152");
	assert_int_equal(volume_attach(a, "vol-1", 1 << 20, 4096, &w, &err), -EINVAL);
	expect_msg(err, "volume 'vol-1' has 512-byte blocks, the device 4096-byte blocks");
	assert_int_equal(volume_attach(a, "vol-1", 1 << 20, 512, &w, &err), 0);
	assert_ptr_equal(w, v);
	assert_int_equal(rd(w, 8192, got, sizeof(got)), 0);
	assert_memory_equal(got, data, sizeof(data));
	volume_release(w);
	array_put(a); /* the name still holds the array */
	struct array *again = array_lookup(array_name(a));
	assert_ptr_equal(again, a);
	assert_int_equal(array_volume_delete(a, "vol-1", &err), 0);
	array_put(again);
}

static void bad_names_and_sizes(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = NULL;
	char *err = NULL, longname[140];
	const char *bad[] = { "", "a b", "a,b", "a;b", "a/b", "a=b", "tab\there", "\x7f" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(volume_name_ok(bad[i]));
		assert_int_equal(volume_attach(a, bad[i], 1 << 20, 512, &v, &err), -EINVAL);
		expect_msg(err, "want 1..127 printable characters other than space ; , / =");
	}
	memset(longname, 'n', sizeof(longname));
	longname[127] = '\0';
	assert_true(volume_name_ok(longname));
	longname[127] = 'n';
	longname[128] = '\0';
	assert_false(volume_name_ok(longname));
	assert_true(volume_name_ok("volume-5b1f:snap_2.x"));
	assert_int_equal(volume_attach(a, "odd", 1000, 512, &v, &err), -EINVAL);
	expect_msg(err, "size 1000 is not a multiple of the 512-byte block");
	assert_int_equal(volume_attach(a, "odd", 4096, 1024, &v, &err), -EINVAL);
	expect_msg(err, "volume 'odd'");
	assert_int_equal(array_volumes_info(a, NULL, 0, NULL), 0); /* nothing was created */
	array_put(a);
}

static void delete_frees_and_refuses_while_attached(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = NULL;
	char *err = NULL;
	unsigned char *blk = malloc(B);
	uint64_t seed = 3;

	assert_int_equal(array_volume_delete(a, "nope", &err), -ENOENT);
	expect_msg(err, "volume 'nope': no such volume in array 'test-");
	assert_int_equal(volume_attach(a, "d", 64 * B, 512, &v, &err), 0);
	for (int i = 0; i < 5; i++) {
		fill_random(blk, B, &seed);
		assert_int_equal(wr(v, (uint64_t)i * B, blk, B), 0);
	}
	assert_int_equal(array_volume_delete(a, "d", &err), -EBUSY);
	expect_msg(err, "volume 'd' of array 'test-");
	assert_int_equal(stats_of(a).unique_blocks, 5);
	volume_release(v);
	assert_int_equal(array_volume_delete(a, "d", &err), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(s.mapped_blocks, 0);
	assert_int_equal(s.physical_bytes, 0);
	/* the name is free again: a new, empty volume */
	assert_int_equal(volume_attach(a, "d", 64 * B, 512, &v, &err), 0);
	assert_int_equal(volume_mapped_bytes(v), 0);
	volume_release(v);
	assert_int_equal(array_volume_delete(a, "d", &err), 0);
	array_put(a);
	free(blk);
}

/* The array lives while named volumes do, and goes when the last is deleted. */
static void names_keep_the_array_alive(void **state)
{
	const struct array_params p = { B, 1, 14, 512 };
	char name[64], *err = NULL;
	unsigned before = array_registry_count();
	snprintf(name, sizeof(name), "names-alive-%d", (int)getpid());
	struct array *a = array_get(name, &p, &err);
	struct volume *v = NULL, *w = NULL;
	assert_int_equal(volume_attach(a, "x", 1 << 20, 512, &v, &err), 0);
	assert_int_equal(volume_attach(a, "y", 1 << 20, 512, &w, &err), 0);
	volume_release(v);
	volume_release(w);
	array_put(a); /* the LU's reference */
	assert_int_equal(array_registry_count(), before + 1);
	struct array *found = array_lookup(name);
	assert_ptr_equal(found, a);
	char names[64][ARRAY_NAME_MAX];
	int n = array_names(names, 64);
	bool listed = false;
	for (int i = 0; i < n && i < 64; i++)
		listed |= !strcmp(names[i], name);
	assert_true(listed);
	assert_int_equal(array_volume_delete(found, "x", &err), 0);
	assert_int_equal(array_registry_count(), before + 1);
	assert_int_equal(array_volume_delete(found, "y", &err), 0);
	array_put(found);
	assert_int_equal(array_registry_count(), before);
	assert_null(array_lookup(name));
}

static void listing_figures(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = NULL, *w = NULL;
	struct volume *anon = volume_create(a, 8 * B, 512);
	char *err = NULL;
	unsigned char *blk = malloc(4 * B);
	uint64_t seed = 11;
	fill_random(blk, 4 * B, &seed);

	assert_int_equal(volume_attach(a, "v", 32 * B, 512, &v, &err), 0);
	assert_int_equal(volume_attach(a, "w", 16 * B, 4096, &w, &err), 0);
	/* v: blocks 0-3 own data; w: blocks 0-1 the same data as v's 0-1 and
	 * block 2 its own; so v holds 2 single-referenced blocks, w 1 */
	assert_int_equal(wr(v, 0, blk, 4 * B), 0);
	assert_int_equal(wr(w, 0, blk, 2 * B), 0);
	fill_random(blk, B, &seed);
	assert_int_equal(wr(w, 2 * B, blk, B), 0);
	volume_release(w);
	struct volume_info vi[4];
	uint64_t prov = 0;
	int n = array_volumes_info(a, vi, 4, &prov);
	assert_int_equal(n, 3);
	assert_int_equal(prov, (8 + 32 + 16) * (uint64_t)B);
	int seen = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(vi[i].name, "v")) {
			assert_int_equal(vi[i].size_bytes, 32 * B);
			assert_int_equal(vi[i].mapped_bytes, 4 * B);
			assert_int_equal(vi[i].single_ref_bytes, 2 * B);
			assert_int_equal(vi[i].lba_size, 512);
			assert_true(vi[i].attached);
			seen |= 1;
		} else if (!strcmp(vi[i].name, "w")) {
			assert_int_equal(vi[i].mapped_bytes, 3 * B);
			assert_int_equal(vi[i].single_ref_bytes, B);
			assert_int_equal(vi[i].lba_size, 4096);
			assert_false(vi[i].attached);
			assert_false(vi[i].readonly);
			assert_string_equal(vi[i].snapshot_of, "");
			seen |= 2;
		} else {
			assert_string_equal(vi[i].name, "");
			assert_true(vi[i].attached); /* anonymous: lives with its device */
			assert_int_equal(vi[i].mapped_bytes, 0);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	/* max smaller than the count: fills max, returns the count */
	assert_int_equal(array_volumes_info(a, vi, 1, NULL), 3);
	volume_release(v);
	volume_destroy(anon);
	array_drop_named_volumes(); /* the shutdown sweep deletes v and w */
	assert_int_equal(array_volumes_info(a, NULL, 0, NULL), 0);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	array_put(a);
	free(blk);
}

/* the list's name index (array_core.c): every name found, by attach (the
 * same volume), by volume_info (its own figures) and by snapshot, after
 * deletes in any order; a deleted name is gone and can be made again */
static void names_found_through_the_index(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct volume *v = NULL;
	struct volume_info vi;
	char name[32], *err = NULL;
	const char *src[1] = { "n7" }, *dst[1] = { "n7.snap" };
	uint64_t entries;

	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(volume_attach(a, name, (uint64_t)(i + 1) * B, 512, &v, &err), 0);
		volume_release(v);
	}
	for (int i = 0; i < 40; i += 3) { /* every third gone: first, middle and last of the list among them */
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(array_volume_delete(a, name, &err), 0);
	}
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		if (i % 3 == 0) {
			assert_int_equal(array_volume_info(a, name, &vi), -ENOENT);
			continue;
		}
		assert_int_equal(array_volume_info(a, name, &vi), 0);
		assert_string_equal(vi.name, name);
		assert_int_equal(vi.size_bytes, (uint64_t)(i + 1) * B);
	}
	assert_int_equal(array_snapshot(a, src, dst, 1, true, &entries, &err), 0);
	assert_int_equal(array_volume_info(a, "n7.snap", &vi), 0);
	assert_string_equal(vi.snapshot_of, "n7");
	assert_true(vi.readonly);
	/* a name made again after its delete is the new volume */
	assert_int_equal(volume_attach(a, "n0", 2 * B, 512, &v, &err), 0);
	volume_release(v);
	assert_int_equal(array_volume_info(a, "n0", &vi), 0);
	assert_int_equal(vi.size_bytes, 2 * B);
	assert_int_equal(array_volume_info(a, "n", &vi), -ENOENT);
	array_drop_named_volumes();
	assert_int_equal(array_volume_info(a, "n1", &vi), -ENOENT);
	array_put(a);
}

static void profile_is_kept(void **state)
{
	struct array *a = new_array(B, 1, 512);
	char prof[32];
	array_profile(a, prof, sizeof(prof));
	assert_string_equal(prof, "");
	array_set_profile(a, "x2");
	array_set_profile(a, "x1"); /* the first LU's stays */
	array_profile(a, prof, sizeof(prof));
	assert_string_equal(prof, "x2");
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(attach_release_reattach),
		cmocka_unit_test(bad_names_and_sizes),
		cmocka_unit_test(delete_frees_and_refuses_while_attached),
		cmocka_unit_test(names_keep_the_array_alive),
		cmocka_unit_test(listing_figures),
		cmocka_unit_test(profile_is_kept),
		cmocka_unit_test(names_found_through_the_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
