/* test_sense.c — exact fixed-format sense bytes from handlers/scsi/sense.c. */
#include "lunlab/scsi_vocab.h"
#include "fixture.h"

static void test_plain(void **state)
{
	uint8_t s[96];
	struct scsi_cmd c = { .sense = s };
	memset(s, 0xee, sizeof(s));
	assert_int_equal(sense_set(&c, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE), TCMU_STS_PASSTHROUGH_ERR);
	const uint8_t want[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0x00, 0, 0, 0, 0 };
	assert_memory_equal(s, want, sizeof(want));
}

static void test_field_pointer_cdb_bit(void **state)
{
	uint8_t s[96];
	struct scsi_cmd c = { .sense = s };
	sense_invalid_cdb_field(&c, 1, 5);
	assert_int_equal(s[2], 0x05);
	assert_int_equal(s[12], 0x24);
	assert_int_equal(s[15], 0x80 | 0x40 | 0x08 | 5);
	assert_int_equal(s[16], 0);
	assert_int_equal(s[17], 1);
}

static void test_field_pointer_param_byte(void **state)
{
	uint8_t s[96];
	struct scsi_cmd c = { .sense = s };
	sense_invalid_field(&c, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 0x0123, -1);
	assert_int_equal(s[12], 0x26);
	assert_int_equal(s[15], 0x80);           /* SKSV, C/D=0, BPV=0 */
	assert_int_equal(s[16], 0x01);
	assert_int_equal(s[17], 0x23);
}

static void test_info(void **state)
{
	uint8_t s[96];
	struct scsi_cmd c = { .sense = s };
	sense_set_info(&c, SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY, 0x01020304);
	assert_int_equal(s[0], 0xf0);            /* VALID */
	assert_int_equal(s[2], 0x0e);
	assert_int_equal(s[3], 1);
	assert_int_equal(s[4], 2);
	assert_int_equal(s[5], 3);
	assert_int_equal(s[6], 4);
	assert_int_equal(s[12], 0x1d);
	/* too large for 4 bytes: VALID stays 0 */
	sense_set_info(&c, SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY, 1ull << 32);
	assert_int_equal(s[0], 0x70);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_field_pointer_cdb_bit),
		cmocka_unit_test(test_field_pointer_param_byte),
		cmocka_unit_test(test_info),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
