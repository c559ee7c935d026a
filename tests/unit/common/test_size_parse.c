/* test_size_parse.c — common/size_parse.c: the one size rule, with the cases
 * each of its former copies (target --lun size=, the cfgstring's
 * array_capacity=, XMS vol-size, lunlab-bench's sizes) was tested with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lunlab/size_parse.h"

static uint64_t ok(const char *s, unsigned unit_shift)
{
	uint64_t v = 0xdeadbeef;

	assert_true(ll_size_parse(s, unit_shift, &v));
	return v;
}

static void refused(const char *s, unsigned unit_shift)
{
	uint64_t v = 0xdeadbeef;

	assert_false(ll_size_parse(s, unit_shift, &v));
	assert_int_equal(v, 0xdeadbeef); /* untouched */
}

static void units_are_powers_of_1024(void **state)
{
	assert_int_equal(ok("4096", 0), 4096);
	assert_int_equal(ok("512k", 0), 512ull << 10);
	assert_int_equal(ok("256K", 0), 256ull << 10);
	assert_int_equal(ok("4m", 0), 4ull << 20);
	assert_int_equal(ok("2G", 0), 2ull << 30);
	assert_int_equal(ok("2T", 0), 2ull << 40);
	assert_int_equal(ok("2p", 0), 2ull << 50);
	assert_int_equal(ok("0", 0), 0);
}

static void spellings_of_a_unit(void **state)
{
	/* K, KB, Kb, KiB, Ki: one unit */
	assert_int_equal(ok("4MiB", 0), 4ull << 20);
	assert_int_equal(ok("4MB", 0), 4ull << 20);
	assert_int_equal(ok("4Mi", 0), 4ull << 20);
	assert_int_equal(ok("2pb", 0), 2ull << 50);
	assert_int_equal(ok("512B", 0), 512);
	refused("4iB", 0);
	refused("4KiBB", 0);
	refused("4Kib ", 0);
}

static void fractions_round_down(void **state)
{
	/* 11.9 GiB = 11 GiB + floor(0.9 * 2^30) */
	assert_int_equal(ok("11.9g", 0), 12777527705ull);
	assert_int_equal(ok("1.5k", 0), 1536);
	assert_int_equal(ok("0.5", 0), 0);
	/* exact in 64 bits where a double would not be */
	assert_int_equal(ok("8191.999999999999999999P", 0), (8192ull << 50) - 1);
	refused("1.", 0);
	refused(".5k", 0);
	refused("1.2.3", 0);
}

static void the_default_unit(void **state)
{
	/* the XMS API: a number alone counts KiB */
	assert_int_equal(ok("1048576", 10), 1ull << 30);
	assert_int_equal(ok("10g", 10), 10ull << 30);
	assert_int_equal(ok("512B", 10), 512); /* an explicit B is bytes */
}

static void garbage_and_overflow_refused(void **state)
{
	refused(NULL, 0);
	refused("", 0);
	refused("k", 0);
	refused("g", 10);
	refused("2X", 0);
	refused("1x", 10);
	refused("1gg", 0);
	refused("64MM", 0);
	refused("-1G", 0);
	refused("-4k", 0);
	refused("+4", 0);
	refused(" 4", 0);
	refused("1e30", 0);
	refused("99999999999999999999", 0);
	refused("99999999999T", 0);
	refused("16384p", 0);
	refused("18014398509481984", 10);
	assert_int_equal(ok("18446744073709551615", 0), UINT64_MAX);
	refused("18446744073709551616", 0);
	assert_int_equal(ok("16383.9999999999999999999p", 0), UINT64_MAX); /* fits, just */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units_are_powers_of_1024),
		cmocka_unit_test(spellings_of_a_unit),
		cmocka_unit_test(fractions_round_down),
		cmocka_unit_test(the_default_unit),
		cmocka_unit_test(garbage_and_overflow_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
