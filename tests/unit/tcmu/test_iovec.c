/* test_iovec.c — libtcmu iovec helpers with tcmu-runner's semantics:
 * memcpy into/from consume the iovec and truncate, seek consumes and
 * counts emptied entries, compare gives the first differing offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"

static unsigned char a[10], b[1], c[7];

static void three(struct iovec *iov)
{
	iov[0] = (struct iovec){ a, sizeof(a) };
	iov[1] = (struct iovec){ b, sizeof(b) };
	iov[2] = (struct iovec){ c, sizeof(c) };
}

static void test_length(void **state)
{
	struct iovec iov[3];

	(void)state;
	three(iov);
	assert_int_equal(tcmu_iovec_length(iov, 3), 18);
	assert_int_equal(tcmu_iovec_length(iov, 0), 0);
}

static void test_into_consumes_and_truncates(void **state)
{
	struct iovec iov[3];
	unsigned char src[30];

	(void)state;
	for (int i = 0; i < 30; i++)
		src[i] = (unsigned char)(i + 1);
	memset(a, 0, sizeof(a)), memset(b, 0, sizeof(b)), memset(c, 0, sizeof(c));
	three(iov);
	/* two pieces: the second continues where the first stopped */
	assert_int_equal(tcmu_memcpy_into_iovec(iov, 3, src, 4), 4);
	assert_ptr_equal(iov[0].iov_base, a + 4);
	assert_int_equal(iov[0].iov_len, 6);
	assert_int_equal(tcmu_memcpy_into_iovec(iov, 3, src + 4, 9), 9);
	assert_int_equal(iov[0].iov_len, 0);
	assert_int_equal(iov[1].iov_len, 0);
	assert_int_equal(iov[2].iov_len, 5);
	assert_memory_equal(a, src, 10);
	assert_int_equal(b[0], 11);
	assert_memory_equal(c, src + 11, 2);
	/* more than fits: truncated to what is left */
	assert_int_equal(tcmu_memcpy_into_iovec(iov, 3, src + 13, 17), 5);
	assert_memory_equal(c, src + 11, 7);
	assert_int_equal(tcmu_iovec_length(iov, 3), 0);
}

static void test_from_consumes(void **state)
{
	struct iovec iov[3];
	unsigned char dst[18] = { 0 };

	(void)state;
	for (int i = 0; i < 10; i++)
		a[i] = (unsigned char)(100 + i);
	b[0] = 200;
	for (int i = 0; i < 7; i++)
		c[i] = (unsigned char)(50 + i);
	three(iov);
	assert_int_equal(tcmu_memcpy_from_iovec(dst, 11, iov, 3), 11);
	assert_int_equal(dst[10], 200);
	assert_int_equal(tcmu_iovec_length(iov, 3), 7);
	assert_int_equal(tcmu_memcpy_from_iovec(dst + 11, 100, iov, 3), 7);
	assert_int_equal(dst[11], 50);
	assert_int_equal(dst[17], 56);
	assert_int_equal(tcmu_memcpy_from_iovec(dst, 5, iov, 3), 0);
}

static void test_seek_and_cmd_seek(void **state)
{
	struct iovec iov[3];
	struct tcmulib_cmd cmd;

	(void)state;
	three(iov);
	assert_int_equal(tcmu_iovec_seek(iov, 3), 0);
	assert_ptr_equal(iov[0].iov_base, a + 3);
	assert_int_equal(iov[0].iov_len, 7);
	/* 7 empties a[], 1 empties b[], 2 more into c[] */
	assert_int_equal(tcmu_iovec_seek(iov, 10), 2);
	assert_int_equal(iov[0].iov_len, 0);
	assert_int_equal(iov[1].iov_len, 0);
	assert_ptr_equal(iov[2].iov_base, c + 2);
	assert_int_equal(iov[2].iov_len, 5);

	three(iov);
	memset(&cmd, 0, sizeof(cmd));
	cmd.iovec = iov;
	cmd.iov_cnt = 3;
	tcmu_cmd_seek(&cmd, 11);
	assert_int_equal(cmd.iov_cnt, 1);
	assert_ptr_equal(cmd.iovec, iov);
}

static void test_compare_offsets(void **state)
{
	struct iovec iov[3];
	unsigned char mem[18];

	(void)state;
	for (int i = 0; i < 10; i++)
		a[i] = (unsigned char)i;
	b[0] = 10;
	for (int i = 0; i < 7; i++)
		c[i] = (unsigned char)(11 + i);
	for (int i = 0; i < 18; i++)
		mem[i] = (unsigned char)i;
	three(iov);
	assert_int_equal(tcmu_iovec_compare(mem, iov, 18), -1);
	mem[0] = 99;
	assert_int_equal(tcmu_iovec_compare(mem, iov, 18), 0);
	mem[0] = 0;
	mem[10] = 99; /* in b[] */
	assert_int_equal(tcmu_iovec_compare(mem, iov, 18), 10);
	mem[10] = 10;
	mem[15] = 99; /* in c[] */
	assert_int_equal(tcmu_iovec_compare(mem, iov, 18), 15);
	/* an empty entry in the middle is skipped, not the end */
	struct iovec gap[4] = { { a, 10 }, { b, 0 }, { b, 1 }, { c, 7 } };

	assert_int_equal(tcmu_iovec_compare(mem, gap, 18), 15);
	/* only the first size bytes count, and compare does not consume */
	assert_int_equal(tcmu_iovec_compare(mem, iov, 15), -1);
	assert_int_equal(iov[0].iov_len, 10);
}

static void test_zero(void **state)
{
	struct iovec iov[3];

	(void)state;
	memset(a, 1, sizeof(a)), memset(b, 1, sizeof(b)), memset(c, 1, sizeof(c));
	three(iov);
	assert_false(tcmu_iovec_zeroed(iov, 3));
	tcmu_iovec_zero(iov, 2);
	assert_true(tcmu_iovec_zeroed(iov, 2));
	assert_false(tcmu_iovec_zeroed(iov, 3));
	assert_int_equal(c[0], 1);
	tcmu_iovec_zero(iov, 3);
	assert_true(tcmu_iovec_zeroed(iov, 3));
	c[6] = 5;
	assert_false(tcmu_iovec_zeroed(iov, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_into_consumes_and_truncates),
		cmocka_unit_test(test_from_consumes),
		cmocka_unit_test(test_seek_and_cmd_seek),
		cmocka_unit_test(test_compare_offsets),
		cmocka_unit_test(test_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
