/* test_trace.c — the --trace line: opcode names (service actions included),
 * LBA/length decoded per CDB group, status and sense in words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host_priv.h"
#include "lunlab/scsi_vocab.h"

static void test_opcode_names(void **state)
{
	static const struct { uint8_t cdb[16]; size_t len; const char *name; } cases[] = {
		{ { 0x00 }, 6, "TEST UNIT READY" },
		{ { 0x08 }, 6, "READ(6)" },
		{ { 0x2a }, 10, "WRITE(10)" },
		{ { 0xa8 }, 12, "READ(12)" },
		{ { 0x8a }, 16, "WRITE(16)" },
		{ { 0x9e, 0x10 }, 16, "READ CAPACITY(16)" },
		{ { 0x9e, 0x12 }, 16, "GET LBA STATUS" },
		{ { 0x9e, 0x1f }, 16, "SERVICE ACTION IN(16)" },
		{ { 0xa3, 0x0c }, 12, "REPORT SUPPORTED OPERATION CODES" },
		{ { 0xa3, 0x0a }, 12, "REPORT TARGET PORT GROUPS" },
		{ { 0x83, 0x00 }, 16, "EXTENDED COPY(LID1)" },
		{ { 0x83, 0x11 }, 16, "WRITE USING TOKEN" },
		{ { 0x84, 0x03 }, 16, "RECEIVE COPY OPERATING PARAMETERS" },
		{ { 0x84, 0x00 }, 16, "RECEIVE COPY STATUS(LID1)" },
		{ { 0xa0 }, 12, "REPORT LUNS" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(scsi_opcode_name(cases[i].cdb, cases[i].len), cases[i].name);
	uint8_t vendor = 0xc5;

	assert_null(scsi_opcode_name(&vendor, 1));
	/* too short to hold a service action: the plain name */
	uint8_t sai = 0x9e;

	assert_string_equal(scsi_opcode_name(&sai, 1), "SERVICE ACTION IN(16)");
}

static void test_sense_names(void **state)
{
	(void)state;
	assert_string_equal(scsi_sense_key_name(0x5), "ILLEGAL REQUEST");
	assert_string_equal(scsi_sense_key_name(0xE), "MISCOMPARE");
	assert_null(scsi_sense_key_name(0x10));
	assert_string_equal(scsi_asc_name(0x24, 0x00), "INVALID FIELD IN CDB");
	assert_string_equal(scsi_asc_name(0x2a, 0x09), "CAPACITY DATA HAS CHANGED");
	assert_null(scsi_asc_name(0x7e, 0x7e));
	assert_string_equal(scsi_status_name(0x28), "TASK SET FULL");
}

/* run host_trace_cmd with stderr sent to a file; return the line with
 * the timestamp and the latency cut off */
static char *trace_line(const struct lu_cmd *lu)
{
	static char out[1024];
	struct tcmu_device dev = { .name = "lun3" };
	struct timespec t0;
	char path[] = "/tmp/lunlab-trace-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);

	assert_true(fd >= 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fflush(stderr);
	dup2(fd, 2);
	host_trace_cmd(&dev, lu, &t0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fdopen(fd, "r");

	rewind(f);
	assert_non_null(fgets(out, sizeof(out), f));
	fclose(f);
	unlink(path);
	/* "HH:MM:SS.uuuuuu " */
	assert_true(strlen(out) > 16);
	assert_int_equal(out[2], ':');
	assert_int_equal(out[8], '.');
	assert_int_equal(out[15], ' ');
	char *lat = strrchr(out, '(');

	assert_non_null(lat);
	assert_non_null(strstr(lat, " us)\n"));
	lat[-1] = 0;
	return out + 16;
}

static void test_trace_lines(void **state)
{
	struct lu_cmd lu;

	(void)state;
	memset(&lu, 0, sizeof(lu));
	uint8_t r10[10] = { 0x28, 0, 0, 0, 0x08, 0x00, 0, 0, 0x08, 0 };

	memcpy(lu.cdb, r10, 10);
	lu.cdb_len = 10;
	lu.dir = LU_DIR_READ;
	lu.xfer_len = 4096;
	assert_string_equal(trace_line(&lu), "lun3 READ(10) lba=2048 blocks=8 xfer=4096 in -> GOOD");

	uint8_t w6[6] = { 0x0a, 0x01, 0x02, 0x03, 0x00, 0 };

	memset(&lu, 0, sizeof(lu));
	memcpy(lu.cdb, w6, 6);
	lu.cdb_len = 6;
	lu.dir = LU_DIR_WRITE;
	lu.xfer_len = 131072;
	assert_string_equal(trace_line(&lu), "lun3 WRITE(6) lba=66051 blocks=256 xfer=131072 out -> GOOD");

	uint8_t w16[16] = { 0x8a, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0 };

	memset(&lu, 0, sizeof(lu));
	memcpy(lu.cdb, w16, 16);
	lu.cdb_len = 16;
	lu.status = 0x02;
	tcmu_sense_set_data(lu.sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	lu.sense_len = 18;
	assert_string_equal(trace_line(&lu),
			    "lun3 WRITE(16) lba=4294967296 blocks=16 -> CHECK CONDITION ILLEGAL REQUEST: "
			    "LOGICAL BLOCK ADDRESS OUT OF RANGE (05/21/00)");

	uint8_t inq[6] = { 0x12, 0x01, 0x99, 0, 0xff, 0 };

	memset(&lu, 0, sizeof(lu));
	memcpy(lu.cdb, inq, 6);
	lu.cdb_len = 6;
	lu.dir = LU_DIR_READ;
	lu.xfer_len = 255;
	lu.status = 0x02;
	tcmu_sense_set_data(lu.sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	lu.sense[15] = 0x80 | 0x40 | 0x08 | 0; /* CDB byte 2 bit 0 */
	lu.sense[17] = 2;
	lu.sense_len = 18;
	assert_string_equal(trace_line(&lu),
			    "lun3 INQUIRY vpd=0x99 xfer=255 in -> CHECK CONDITION ILLEGAL REQUEST: INVALID FIELD IN CDB "
			    "(05/24/00) [CDB byte 2 bit 0]");

	uint8_t ms[6] = { 0x1a, 0x08, 0x08, 0, 0xff, 0 };

	memset(&lu, 0, sizeof(lu));
	memcpy(lu.cdb, ms, 6);
	lu.cdb_len = 6;
	lu.dir = LU_DIR_READ;
	lu.xfer_len = 255;
	assert_string_equal(trace_line(&lu), "lun3 MODE SENSE(6) page=0x08 current xfer=255 in -> GOOD");
	uint8_t ms10[10] = { 0x5a, 0, 0x7f, 0xff, 0, 0, 0, 0x10, 0, 0 };

	memcpy(lu.cdb, ms10, 10);
	lu.cdb_len = 10;
	lu.xfer_len = 4096;
	assert_string_equal(trace_line(&lu), "lun3 MODE SENSE(10) page=0x3f/0xff changeable xfer=4096 in -> GOOD");

	uint8_t cw[16] = { 0x89, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 2 }; /* LBA 4096, 2 blocks */

	memset(&lu, 0, sizeof(lu));
	memcpy(lu.cdb, cw, 16);
	lu.cdb_len = 16;
	lu.status = 0x02;
	tcmu_sense_set_info(lu.sense, 0x200);
	host_sts_to_scsi(NULL, TCMU_STS_MISCOMPARE, lu.sense);
	lu.sense_len = 18;
	assert_string_equal(trace_line(&lu),
			    "lun3 COMPARE AND WRITE lba=4096 blocks=2 -> CHECK CONDITION MISCOMPARE: MISCOMPARE DURING VERIFY "
			    "OPERATION (0E/1D/00) information=0x00000200");

	uint8_t vendor[6] = { 0xc4 };

	memset(&lu, 0, sizeof(lu));
	memcpy(lu.cdb, vendor, 6);
	lu.cdb_len = 6;
	lu.status = 0x28;
	assert_string_equal(trace_line(&lu), "lun3 OPCODE 0xC4 -> TASK SET FULL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opcode_names),
		cmocka_unit_test(test_sense_names),
		cmocka_unit_test(test_trace_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
