/* test_log.c — tcmu_*_message: one line per message on stderr, level and
 * device name first, the handler's trailing newline dropped, debug levels
 * only when asked for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host_priv.h"
#include "tcmu_test_util.h"

static void test_levels_and_prefix(void **state)
{
	struct tcmu_device dev = { .name = "lun4" };
	struct capture c;

	(void)state;
	tcmu_host_set_log_level(6);
	capture_begin(&c);
	tcmu_err_message(&dev, "fn", 12, "bad %s %d\n", "thing", 7);
	tcmu_warn_message(NULL, "fn", 13, "no device");
	tcmu_info_message(&dev, "fn", 14, "hello");
	tcmu_dbg_message(&dev, "fn", 15, "hidden");
	tcmu_dbg_scsi_cmd_message(&dev, "fn", 16, "hidden too");
	assert_string_equal(capture_end(&c),
			    "tcmu ERROR lun4: bad thing 7\n"
			    "tcmu WARN -: no device\n"
			    "tcmu INFO lun4: hello\n");

	tcmu_host_set_log_level(8);
	capture_begin(&c);
	tcmu_dbg_message(&dev, "fn", 15, "shown");
	tcmu_crit_message(&dev, "fn", 1, "crit");
	tcmu_dbg_scsi_cmd_message(&dev, "fn", 16, "per cmd\n\n");
	assert_string_equal(capture_end(&c),
			    "tcmu DEBUG lun4: fn:15: shown\n"
			    "tcmu CRIT lun4: crit\n"
			    "tcmu DEBUG_SCSI_CMD lun4: fn:16: per cmd\n");

	tcmu_host_set_log_level(3);
	capture_begin(&c);
	tcmu_warn_message(&dev, "fn", 1, "quiet");
	tcmu_err_message(&dev, "fn", 1, "loud");
	assert_string_equal(capture_end(&c), "tcmu ERROR lun4: loud\n");
	tcmu_host_set_log_level(6);
}

static void test_cdb_print_info(void **state)
{
	struct tcmu_device dev = { .name = "lun5" };
	uint8_t cdb[10] = { SCSI_OP_READ_10, 0, 0, 0, 0x10, 0, 0, 0, 8, 0 };
	struct tcmulib_cmd cmd = { .cdb = cdb };
	struct capture c;

	(void)state;
	tcmu_host_set_log_level(8);
	capture_begin(&c);
	tcmu_cdb_print_info(&dev, &cmd, NULL);
	tcmu_cdb_print_info(&dev, &cmd, "is bad");
	const char *out = capture_end(&c);

	tcmu_host_set_log_level(6);
	assert_non_null(strstr(out, "tcmu DEBUG_SCSI_CMD lun5: tcmu_cdb_print_info:"));
	assert_non_null(strstr(out, ": 28 0 0 0 10 0 0 0 8 0 \n"));
	assert_non_null(strstr(out, "tcmu DEBUG lun5: tcmu_cdb_print_info:"));
	assert_non_null(strstr(out, ": 28 0 0 0 10 0 0 0 8 0 is bad\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_and_prefix),
		cmocka_unit_test(test_cdb_print_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
