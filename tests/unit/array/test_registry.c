/* test_registry.c — arrays found by name, refcounted, params checked. */
#include <unistd.h>
#include "array_test_util.h"

static const struct array_params X2 = { 16384, 6, 14, 512 };

static void same_name_same_array(void **state)
{
	char *err = NULL;
	unsigned before = array_registry_count();
	struct array *a = array_get("reg-a", &X2, &err);
	assert_non_null(a);
	struct array *b = array_get("reg-a", &X2, &err);
	assert_ptr_equal(a, b);
	assert_int_equal(array_registry_count(), before + 1);
	struct array *c = array_get("reg-c", &X2, &err);
	assert_ptr_not_equal(a, c);
	assert_int_equal(array_registry_count(), before + 2);
	assert_int_equal(array_params(a)->dedup_block, 16384);
	array_put(a);
	assert_int_equal(array_registry_count(), before + 2); /* b still holds it */
	array_put(b);
	array_put(c);
	assert_int_equal(array_registry_count(), before);
}

static void mismatch_names_field(void **state)
{
	char *err = NULL;
	struct array *a = array_get("reg-m", &X2, &err);
	assert_non_null(a);
	struct { struct array_params p; const char *field; } cases[] = {
		{ { 8192, 6, 14, 512 }, "dedup_block" },
		{ { 16384, 1, 14, 512 }, "zlib_level" },
		{ { 16384, 6, 15, 512 }, "zlib_window_bits" },
		{ { 16384, 6, 14, 1024 }, "alloc_unit" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = NULL;
		assert_null(array_get("reg-m", &cases[i].p, &err));
		assert_non_null(err);
		assert_non_null(strstr(err, cases[i].field));
		assert_null(strchr(err, '\n'));
		free(err);
	}
	array_put(a);
}

static void invalid_params_refused(void **state)
{
	struct { struct array_params p; const char *field; } cases[] = {
		{ { 12288, 6, 14, 512 }, "dedup_block" },
		{ { 65536, 6, 14, 512 }, "dedup_block" },
		{ { 16384, 10, 14, 512 }, "zlib_level" },
		{ { 16384, 6, 8, 512 }, "zlib_window_bits" },
		{ { 16384, 6, 14, 0 }, "alloc_unit" },
		{ { 8192, 6, 14, 16384 }, "alloc_unit" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *err = NULL;
		assert_null(array_get("reg-bad", &cases[i].p, &err));
		assert_non_null(err);
		assert_non_null(strstr(err, cases[i].field));
		free(err);
	}
}

static void volume_create_checks(void **state)
{
	struct array *a = new_array(16384, 6, 512);
	assert_null(volume_create(a, 1 << 20, 1024));      /* lba size */
	assert_null(volume_create(a, (1 << 20) + 512, 4096)); /* not a multiple */
	struct volume *v = volume_create(a, 2ull << 40, 4096); /* 2 TiB thin */
	assert_non_null(v);
	assert_ptr_equal(volume_array(v), a);
	assert_int_equal(volume_size(v), 2ull << 40);
	/* An unwritten 2 TiB volume costs only its leaf pointer table. */
	assert_true(stats_of(a).metadata_bytes < 2u << 20);
	volume_destroy(v);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_name_same_array),
		cmocka_unit_test(mismatch_names_field),
		cmocka_unit_test(invalid_params_refused),
		cmocka_unit_test(volume_create_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
