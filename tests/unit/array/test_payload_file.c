/* test_payload_file.c — handlers/array/payload_file.c: payloads written to
 * their slots read back through the returned pointer and from a reopened
 * file; a reloaded slot is checked once against its CRC32C (a flipped byte:
 * -EIO, never its bytes); a slot past the end of a cut file is refused; the
 * offline check reads the file itself; space is reserved ahead; the mapped
 * pages are let go of when over the budget. */
#include "array_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "handlers/array/payload.h"
#include "handlers/array/payload_file.h"
#include "state/state_crc.h"

#define B 16384u

static char path[256];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/lunlab-payload-file.%d", (int)getpid());
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void fill(uint8_t *p, uint32_t seed)
{
	uint64_t s = seed;
	fill_random(p, B, &s);
}

static void test_put_read_reopen(void **state)
{
	char err[512];
	uint8_t a[B], b[B];
	struct payload_store *ps = payload_file_open(path, B, false, err, sizeof(err));

	(void)state;
	assert_null(ps); /* not there and not to be created */
	assert_non_null(strstr(err, "missing"));
	ps = payload_file_open(path, B, true, err, sizeof(err));
	assert_non_null(ps);
	assert_true(payload_is_file(ps));
	fill(a, 1);
	fill(b, 2);
	const uint8_t *pa = payload_put(ps, 3, a), *pb = payload_put(ps, 700, b);
	assert_non_null(pa);
	assert_non_null(pb);
	assert_memory_equal(pa, a, B);
	assert_memory_equal(pb, b, B);
	assert_int_equal(payload_verify(ps, 3), 0); /* written here: trusted */
	assert_int_equal(payload_file_crc(ps, 700), ll_crc32c(0, b, B));
	assert_int_equal(payload_file_sync(ps), 0);
	uint64_t size, disk;
	payload_file_usage(ps, &size, &disk);
	assert_true(size >= 701ull * B);   /* reserved ahead of the highest slot */
	assert_true(disk >= 701ull * B);   /* with real blocks (fallocate) */
	payload_free(ps, 3, (void *)pa);
	assert_int_equal(payload_verify(ps, 3), -EIO); /* freed: nothing to serve */
	payload_close(ps);

	ps = payload_file_open(path, B, false, err, sizeof(err));
	assert_non_null(ps);
	pb = payload_file_attach(ps, 700, ll_crc32c(0, b, B), err, sizeof(err));
	assert_non_null(pb);
	assert_int_equal(payload_verify(ps, 700), 0);
	assert_memory_equal(pb, b, B);
	assert_int_equal(payload_file_check(ps, 700, ll_crc32c(0, b, B)), 0);
	payload_close(ps);
}

static void test_damage(void **state)
{
	char err[512];
	uint8_t a[B];
	struct payload_store *ps = payload_file_open(path, B, true, err, sizeof(err));
	uint32_t crc;

	(void)state;
	assert_non_null(ps);
	fill(a, 9);
	crc = ll_crc32c(0, a, B);
	assert_non_null(payload_put(ps, 5, a));
	payload_close(ps);
	/* one flipped byte in slot 5 */
	int fd = open(path, O_RDWR);
	uint8_t x;
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &x, 1, 5 * B + 77), 1);
	x ^= 1;
	assert_int_equal(pwrite(fd, &x, 1, 5 * B + 77), 1);
	close(fd);
	ps = payload_file_open(path, B, false, err, sizeof(err));
	assert_non_null(payload_file_attach(ps, 5, crc, err, sizeof(err)));
	assert_int_equal(payload_verify(ps, 5), -EIO);
	assert_int_equal(payload_verify(ps, 5), -EIO); /* stays refused */
	assert_int_equal(payload_file_check(ps, 5, crc), -EIO);
	/* a slot past the end of the file */
	assert_null(payload_file_attach(ps, 100000, crc, err, sizeof(err)));
	assert_non_null(strstr(err, "the file was cut"));
	assert_int_equal(payload_file_check(ps, 100000, crc), -ERANGE);
	payload_close(ps);
	/* not a regular file */
	assert_null(payload_file_open("/tmp", B, false, err, sizeof(err)));
}

static uint64_t mapped_bytes(void)
{
	unsigned long a, b, shared = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu %lu", &a, &b, &shared) != 3)
			shared = 0;
		fclose(f);
	}
	return (uint64_t)shared * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void test_mapped_budget(void **state)
{
	char err[512];
	uint8_t a[B];
	struct payload_store *ps = payload_file_open(path, B, true, err, sizeof(err));
	const uint8_t *p[2048];
	volatile uint8_t sum = 0;

	(void)state;
	assert_non_null(ps);
	for (uint32_t i = 1; i < 2048; i++) { /* 32 MiB */
		fill(a, i);
		p[i] = payload_put(ps, i, a);
		assert_non_null(p[i]);
	}
	payload_file_set_mapped_budget(256ull << 20);
	uint64_t before = mapped_bytes();
	for (uint32_t i = 1; i < 2048; i++)
		for (uint32_t k = 0; k < B; k += 4096)
			sum ^= p[i][k]; /* map every page */
	assert_true(mapped_bytes() >= before + (24ull << 20));
	/* a budget below what is mapped: the governor lets go (within ~200 ms on an idle
	 * machine; waited for without a limit, as a loaded one can take longer: a governor that
	 * never lets go ends the test on meson's timeout) */
	payload_file_set_mapped_budget(1ull << 20);
	while (mapped_bytes() > before + (8ull << 20))
		usleep(50000);
	/* and the data is still there, mapped again on use */
	fill(a, 1000);
	assert_memory_equal(p[1000], a, B);
	payload_file_set_mapped_budget(256ull << 20);
	payload_close(ps);
	(void)sum;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_read_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapped_budget, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
