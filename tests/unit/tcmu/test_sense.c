/* test_sense.c — sense helpers byte for byte as tcmu-runner 1.5.4 writes
 * them, and the sense length the host reports for fixed/descriptor sense. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host_priv.h"

static void test_set_data(void **state)
{
	uint8_t s[TCMU_SENSE_BUFFERSIZE];
	static const uint8_t expect[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x24, 0x00, 0, 0, 0, 0 };
	uint8_t zero[TCMU_SENSE_BUFFERSIZE] = { 0 };

	(void)state;
	memset(s, 0xAA, sizeof(s));
	assert_int_equal(tcmu_sense_set_data(s, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB), TCMU_STS_PASSTHROUGH_ERR);
	assert_memory_equal(s, expect, 18);
	/* the whole buffer is cleared */
	assert_memory_equal(s + 18, zero, sizeof(s) - 18);
}

static void test_set_info(void **state)
{
	uint8_t s[TCMU_SENSE_BUFFERSIZE];

	(void)state;
	memset(s, 0xAA, sizeof(s));
	tcmu_sense_set_info(s, 0x01020304);
	/* first 18 bytes cleared, VALID + INFORMATION (bytes 3..6) */
	static const uint8_t expect[18] = { 0x80, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

	assert_memory_equal(s, expect, 18);
	assert_int_equal(s[18], 0xAA);
}

static void test_set_key_specific(void **state)
{
	uint8_t s[TCMU_SENSE_BUFFERSIZE];

	(void)state;
	memset(s, 0xAA, sizeof(s));
	tcmu_sense_set_key_specific_info(s, 0x1234);
	static const uint8_t expect[18] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x12, 0x34 };

	assert_memory_equal(s, expect, 18);
}

static void test_fill_keeps_fields(void **state)
{
	uint8_t s[TCMU_SENSE_BUFFERSIZE];

	(void)state;
	memset(s, 0xAA, sizeof(s));
	/* the MISCOMPARE pattern: INFORMATION first, then key/ASC kept */
	tcmu_sense_set_info(s, 0x10);
	__tcmu_sense_set_data(s, 0xE, 0x1D00);
	static const uint8_t expect[18] = { 0xF0, 0, 0xE, 0, 0, 0, 0x10, 0x0a, 0, 0, 0, 0, 0x1D, 0, 0, 0, 0, 0 };

	assert_memory_equal(s, expect, 18);
	assert_int_equal(s[18], 0xAA);
}

static void test_sts_to_scsi_direct(void **state)
{
	uint8_t s[TCMU_SENSE_BUFFERSIZE] = { 0 };

	(void)state;
	assert_int_equal(host_sts_to_scsi(NULL, TCMU_STS_OK, s), 0x00);
	assert_int_equal(host_sts_to_scsi(NULL, TCMU_STS_NO_RESOURCE, s), 0x28);
	assert_int_equal(host_sts_to_scsi(NULL, TCMU_STS_BUSY, s), 0x08);
	assert_int_equal(host_sts_to_scsi(NULL, TCMU_STS_TIMEOUT, s), 0x08);
	memset(s, 0xAA, sizeof(s));
	assert_int_equal(host_sts_to_scsi(NULL, TCMU_STS_RANGE, s), 0x02);
	assert_int_equal(s[0], 0x70);
	assert_int_equal(s[2], 0x05);
	assert_int_equal(s[12], 0x21);
	assert_int_equal(s[20], 0);
}

static void test_sense_len(void **state)
{
	uint8_t s[TCMU_SENSE_BUFFERSIZE] = { 0 };

	(void)state;
	tcmu_sense_set_data(s, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	assert_int_equal(host_sense_len(s, 96), 18);
	s[7] = 0x20; /* handler appended more fixed-format bytes */
	assert_int_equal(host_sense_len(s, 96), 40);
	s[7] = 0xff; /* claims more than the buffer: capped */
	assert_int_equal(host_sense_len(s, 96), 96);
	s[7] = 0; /* too short for fixed format: 18 anyway */
	assert_int_equal(host_sense_len(s, 96), 18);
	memset(s, 0, sizeof(s));
	s[0] = 0x72; /* descriptor format with one 12-byte descriptor */
	s[7] = 12;
	assert_int_equal(host_sense_len(s, 96), 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_data),
		cmocka_unit_test(test_set_info),
		cmocka_unit_test(test_set_key_specific),
		cmocka_unit_test(test_fill_keeps_fields),
		cmocka_unit_test(test_sts_to_scsi_direct),
		cmocka_unit_test(test_sense_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
