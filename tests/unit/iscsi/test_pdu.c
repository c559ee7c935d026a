/* test_pdu.c — BHS field codecs, LUN addressing, header validation, serial
 * number arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/pdu.h"

static void be_fields(void **state)
{
	uint8_t b[8];

	put_be24(b, 0x123456);
	assert_int_equal(b[0], 0x12);
	assert_int_equal(b[2], 0x56);
	assert_int_equal(get_be24(b), 0x123456);
	put_be64(b, 0x0102030405060708ull);
	assert_int_equal(b[0], 1);
	assert_int_equal(b[7], 8);
	assert_true(get_be64(b) == 0x0102030405060708ull);
	assert_int_equal(pdu_pad4(0), 0);
	assert_int_equal(pdu_pad4(1), 3);
	assert_int_equal(pdu_pad4(4), 0);
	assert_int_equal(pdu_pad4(514), 2);
}

static void lun_addressing(void **state)
{
	uint8_t f[8];
	bool ok;

	pdu_lun_encode(f, 5);
	assert_int_equal(f[0], 0x00); /* peripheral device addressing */
	assert_int_equal(f[1], 5);
	assert_int_equal(pdu_lun_decode(f, &ok), 5);
	assert_true(ok);
	pdu_lun_encode(f, 300);
	assert_int_equal(f[0], 0x41); /* flat space: 01b + high bits */
	assert_int_equal(f[1], 300 & 0xff);
	assert_int_equal(pdu_lun_decode(f, &ok), 300);
	assert_true(ok);
	/* a second level makes it a LUN we do not have */
	memset(f, 0, 8);
	f[3] = 1;
	pdu_lun_decode(f, &ok);
	assert_false(ok);
	/* extended addressing (11b) is not supported */
	memset(f, 0, 8);
	f[0] = 0xc0;
	pdu_lun_decode(f, &ok);
	assert_false(ok);
}

static void header_validation(void **state)
{
	uint8_t h[48];
	const char *why = NULL;

	memset(h, 0, sizeof(h));
	h[0] = ISCSI_OP_SCSI_CMD;
	put_be24(h + 5, 512);
	assert_int_equal(pdu_validate_header(h, 8192, &why), 0);
	put_be24(h + 5, 8193);
	assert_int_equal(pdu_validate_header(h, 8192, &why), ISCSI_REJECT_PROTOCOL_ERROR);
	assert_non_null(strstr(why, "MaxRecvDataSegmentLength"));
	h[0] = ISCSI_OP_TMF_REQ;
	put_be24(h + 5, 4);
	assert_int_equal(pdu_validate_header(h, 8192, &why), ISCSI_REJECT_PROTOCOL_ERROR);
	h[0] = ISCSI_OP_SCSI_RSP; /* a target opcode from the initiator */
	put_be24(h + 5, 0);
	assert_int_equal(pdu_validate_header(h, 8192, &why), ISCSI_REJECT_CMD_NOT_SUPPORTED);
	h[0] = 0x1c;
	assert_int_equal(pdu_validate_header(h, 8192, &why), ISCSI_REJECT_CMD_NOT_SUPPORTED);
}

static void serial_numbers(void **state)
{
	assert_true(sn_lt(1, 2));
	assert_false(sn_lt(2, 2));
	assert_true(sn_le(2, 2));
	assert_true(sn_lt(0xfffffff0u, 5)); /* across the wrap */
	assert_false(sn_lt(5, 0xfffffff0u));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(be_fields),
		cmocka_unit_test(lun_addressing),
		cmocka_unit_test(header_validation),
		cmocka_unit_test(serial_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
