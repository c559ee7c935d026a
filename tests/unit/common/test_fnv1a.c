/* test_fnv1a.c — include/lunlab/fnv1a.h against the published FNV-1a test
 * vectors (Fowler/Noll/Vo), and chaining. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/fnv1a.h"

static void vectors(void **state)
{
	assert_int_equal(ll_fnv1a32(LL_FNV1A32_BASIS, "", 0), 0x811c9dc5u);
	assert_int_equal(ll_fnv1a32(LL_FNV1A32_BASIS, "a", 1), 0xe40c292cu);
	assert_int_equal(ll_fnv1a32(LL_FNV1A32_BASIS, "foobar", 6), 0xbf9cf968u);
	assert_true(ll_fnv1a64(LL_FNV1A64_BASIS, "", 0) == 0xcbf29ce484222325ull);
	assert_true(ll_fnv1a64(LL_FNV1A64_BASIS, "a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(ll_fnv1a64(LL_FNV1A64_BASIS, "foobar", 6) == 0x85944171f73967e8ull);
}

static void chaining(void **state)
{
	assert_true(ll_fnv1a64(ll_fnv1a64(LL_FNV1A64_BASIS, "foo", 3), "bar", 3) ==
		    ll_fnv1a64(LL_FNV1A64_BASIS, "foobar", 6));
	assert_int_equal(ll_fnv1a32(ll_fnv1a32(LL_FNV1A32_BASIS, "foo", 3), "bar", 3),
			 ll_fnv1a32(LL_FNV1A32_BASIS, "foobar", 6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vectors),
		cmocka_unit_test(chaining),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
