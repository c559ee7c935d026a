/* test_lunlab_handler.c — the host serving the real handler_lunlab.so, the
 * same file Debian's tcmu-runner would load: registration, check_config
 * refusal text, and a few SCSI commands through the worker threads
 * (INQUIRY, READ CAPACITY(16), WRITE(10) + READ(10) data read back,
 * unknown opcode -> 05/20/00). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "target/tcmu/host.h"
#include "tcmu_test_util.h"

static struct lu_backend *be;

static int setup_all(void **state)
{
	char *err = NULL;

	(void)state;
	if (tcmu_host_load_handlers(LUNLAB_HANDLER_DIR, &err) < 1) {
		fprintf(stderr, "load: %s\n", err ? err : "no handler");
		return -1;
	}
	struct tcmu_host_dev_cfg cfg = {
		.cfgstring = "lunlab/model=x2;serial=abc", .size_bytes = 64ull << 20, .block_size = 512,
		.wwn = "abc", .name = "lun0",
	};

	be = tcmu_host_create_device(&cfg, &err);
	if (!be) {
		fprintf(stderr, "create: %s\n", err ? err : "?");
		return -1;
	}
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	tcmu_host_shutdown();
	return 0;
}

static struct tcmd *run(const uint8_t *cdb, size_t cdb_len, enum lu_dir dir, size_t len)
{
	struct tcmd *t = tcmd_new(cdb, cdb_len, dir, len, len > 1 ? 2 : 1);

	be->ops->submit(be, &t->lu);
	tcmd_wait(t);
	return t;
}

static void test_refused_config_named(void **state)
{
	char *err = NULL;
	struct tcmu_host_dev_cfg cfg = {
		.cfgstring = "lunlab/colour=blue", .size_bytes = 1 << 20, .block_size = 512, .name = "lun9",
	};

	(void)state;
	assert_null(tcmu_host_create_device(&cfg, &err));
	assert_non_null(err);
	/* "lun9: <the handler's reason>", and the reason names the key */
	assert_true(strncmp(err, "lun9: ", 6) == 0);
	assert_non_null(strstr(err, "colour"));
	free(err);
}

static void test_inquiry_capacity(void **state)
{
	static const uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	static const uint8_t rc16[16] = { 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 };

	(void)state;
	struct tcmd *t = run(inq, 6, LU_DIR_READ, 36);

	assert_int_equal(t->lu.status, 0);
	assert_int_equal(t->buf[0] & 0x1f, 0); /* direct access block device */
	tcmd_free(t);
	t = run(rc16, 16, LU_DIR_READ, 32);
	assert_int_equal(t->lu.status, 0);
	uint64_t last = 0;

	for (int i = 0; i < 8; i++)
		last = last << 8 | t->buf[i];
	assert_true(last == (64ull << 20) / 512 - 1);
	assert_int_equal(t->buf[8] << 24 | t->buf[9] << 16 | t->buf[10] << 8 | t->buf[11], 512);
	tcmd_free(t);
}

static void test_write_read_back(void **state)
{
	static const uint8_t w10[10] = { 0x2a, 0, 0, 0, 0x10, 0, 0, 0, 4, 0 };
	static const uint8_t r10[10] = { 0x28, 0, 0, 0, 0x10, 0, 0, 0, 4, 0 };

	(void)state;
	struct tcmd *w = tcmd_new(w10, 10, LU_DIR_WRITE, 2048, 3);

	for (int i = 0; i < 2048; i++)
		w->buf[i] = (unsigned char)(i * 13 + 5);
	be->ops->submit(be, &w->lu);
	tcmd_wait(w);
	assert_int_equal(w->lu.status, 0);
	struct tcmd *r = run(r10, 10, LU_DIR_READ, 2048);

	assert_int_equal(r->lu.status, 0);
	assert_int_equal(r->lu.data_len, 2048);
	assert_memory_equal(r->buf, w->buf, 2048);
	tcmd_free(w);
	tcmd_free(r);
}

static void test_unknown_opcode(void **state)
{
	static const uint8_t bad[6] = { 0x02 };
	static const uint8_t expect[14] = { 0x70, 0, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x20, 0x00 };

	(void)state;
	struct tcmd *t = run(bad, 6, LU_DIR_NONE, 0);

	assert_int_equal(t->lu.status, 0x02);
	assert_true(t->lu.sense_len >= 18);
	assert_memory_equal(t->lu.sense, expect, 14);
	tcmd_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_config_named),
		cmocka_unit_test(test_inquiry_capacity),
		cmocka_unit_test(test_write_read_back),
		cmocka_unit_test(test_unknown_opcode),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
