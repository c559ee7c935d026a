/* test_ua.c — unit attentions from the array's events (ua.c) through
 * scsi_dispatch, with the I_T nexus the host would name, and the full-array
 * behaviour around them: 06/38/07 once per crossing on every nexus of every
 * LU of the array (INQUIRY passes it by, REQUEST SENSE reports and clears
 * it, a nexus born after the crossing owes nothing), WRITE refused with
 * 07/27/07 SPACE ALLOCATION FAILED WRITE PROTECT when the array is full while
 * READ, overwrites with data the array holds and UNMAP go on, writes resuming
 * once space is freed, 06/2A/01 after a change of capacity, and a second
 * crossing after the threshold re-arms. */
#include "fixture.h"
#include "handlers/array/array_admin.h"
#include "handlers/host.h"
#include "lunlab/be.h"
#include "tests/unit/handler/host_double.h"
#include "lunlab/scsi_vocab.h"

#define DB 16384u                 /* dedup block of the fixture's arrays */
#define LBAS_PER_DB (DB / FIX_BS)

/* lunlab-target's host names the nexus of each command (copy_nexus.h):
 * here a stand-in for its extension contract, adopted in setup, whose
 * host_double_nexus is the nexus */
static struct lunlab_host_ops host;

static struct scsi_lu *lu1, *lu2;

static int run_as(uint64_t nexus, struct fix_cmd *fc, struct scsi_lu *lu, const uint8_t *cdb, size_t n, void *buf,
		  size_t len)
{
	host_double_nexus = nexus;
	return fix_run(fc, lu, cdb, n, buf, len);
}

static int tur(uint64_t nexus, struct scsi_lu *lu, struct fix_cmd *fc)
{
	static const uint8_t cdb[6] = { 0 };
	return run_as(nexus, fc, lu, cdb, 6, NULL, 0);
}

/* WRITE(16) of whole dedup blocks, each random (incompressible: one block
 * of physical space each), seeds seed.. */
static int write_db(uint64_t nexus, struct scsi_lu *lu, uint64_t db, uint32_t n, uint64_t seed, struct fix_cmd *fc)
{
	uint8_t *d = malloc((size_t)n * DB);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s = seed + i;
		for (uint32_t j = 0; j < DB; j++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			d[(size_t)i * DB + j] = (uint8_t)(s >> 56);
		}
	}
	uint8_t cdb[16] = { SCSI_OP_WRITE_16 };
	put_be64(cdb + 2, db * LBAS_PER_DB);
	put_be32(cdb + 10, n * LBAS_PER_DB);
	int st = run_as(nexus, fc, lu, cdb, 16, d, (size_t)n * DB);
	free(d);
	return st;
}

static int unmap_db(uint64_t nexus, struct scsi_lu *lu, uint64_t db, uint32_t n, struct fix_cmd *fc)
{
	uint8_t list[24] = { 0, 22, 0, 16 };
	put_be64(list + 8, db * LBAS_PER_DB);
	put_be32(list + 16, n * LBAS_PER_DB);
	uint8_t cdb[10] = { SCSI_OP_UNMAP, 0, 0, 0, 0, 0, 0, 0, sizeof(list), 0 };
	return run_as(nexus, fc, lu, cdb, 10, list, sizeof(list));
}

static void assert_ua(const struct fix_cmd *fc, uint16_t asc_ascq)
{
	fix_assert_sense(fc, SCSI_SK_UNIT_ATTENTION, asc_ascq);
}

static int setup(void **state)
{
	char *err = NULL;
	host_double_fill(&host);
	assert_ptr_equal(host_ops_adopt(&host), &host);
	lu1 = fix_lu_new("ua-array", FIX_BS, FIX_LBAS);
	lu2 = fix_lu_new("ua-array", FIX_BS, FIX_LBAS);
	/* 40 blocks of capacity, the soft threshold at 20 */
	assert_int_equal(array_set_capacity(lu1->dev.array, 40 * DB, 20 * DB, &err), 0);
	return 0;
}

static int teardown(void **state)
{
	fix_lu_free(lu2);
	fix_lu_free(lu1);
	return 0;
}

static void soft_threshold_and_full_array(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];

	/* nexuses 1 and 2 know LU 1, nexus 1 knows LU 2 */
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_OK);
	assert_int_equal(tur(2, lu1, &fc), TCMU_STS_OK);
	assert_int_equal(tur(1, lu2, &fc), TCMU_STS_OK);
	assert_int_equal(write_db(1, lu1, 0, 19, 100, &fc), TCMU_STS_OK);
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_OK);
	/* the 20th block reaches the threshold: that WRITE itself succeeds */
	assert_int_equal(write_db(1, lu1, 19, 1, 119, &fc), TCMU_STS_OK);
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD);
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_OK);        /* once */
	/* nexus 2: INQUIRY passes it by, REQUEST SENSE reports and clears it */
	const uint8_t inq[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 36, 0 };
	assert_int_equal(run_as(2, &fc, lu1, inq, 6, b, 36), TCMU_STS_OK);
	const uint8_t rs[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 18, 0 };
	assert_int_equal(run_as(2, &fc, lu1, rs, 6, b, 18), TCMU_STS_OK);
	assert_int_equal(b[0], 0x70);
	assert_int_equal(b[2], SCSI_SK_UNIT_ATTENTION);
	assert_int_equal(b[12], 0x38);
	assert_int_equal(b[13], 0x07);
	assert_int_equal(run_as(2, &fc, lu1, rs, 6, b, 18), TCMU_STS_OK);
	assert_int_equal(b[2], SCSI_SK_NO_SENSE);                     /* cleared */
	assert_int_equal(tur(2, lu1, &fc), TCMU_STS_OK);
	/* LU 2 of the same array tells its own nexuses, even before an unknown opcode */
	const uint8_t bad[6] = { 0xff };
	assert_int_equal(run_as(1, &fc, lu2, bad, 6, NULL, 0), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD);
	assert_int_equal(run_as(1, &fc, lu2, bad, 6, NULL, 0), TCMU_STS_PASSTHROUGH_ERR);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	/* a nexus that logs in now owes nothing for the past */
	assert_int_equal(tur(3, lu1, &fc), TCMU_STS_OK);

	/* fill it: 20 more blocks, then the array is full */
	assert_int_equal(write_db(1, lu1, 20, 20, 200, &fc), TCMU_STS_OK);
	assert_int_equal(write_db(1, lu1, 40, 1, 300, &fc), TCMU_STS_PASSTHROUGH_ERR);
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT);
	/* a multi-block write that needs more than is left fails whole: nothing mapped */
	assert_int_equal(write_db(1, lu1, 41, 3, 400, &fc), TCMU_STS_PASSTHROUGH_ERR);
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT);
	assert_false(volume_mapped_bytes(lu1->dev.vol) > 40 * DB);
	/* still the one crossing: no second 06/38/07 while above */
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_OK);
	/* reads, and writes of data the array holds, work when full */
	uint8_t *d = malloc(DB);
	uint8_t rd16[16] = { SCSI_OP_READ_16 };
	put_be64(rd16 + 2, 41 * LBAS_PER_DB);
	put_be32(rd16 + 10, LBAS_PER_DB);
	assert_int_equal(run_as(1, &fc, lu1, rd16, 16, d, DB), TCMU_STS_OK);
	for (uint32_t i = 0; i < DB; i++)
		assert_int_equal(d[i], 0);                       /* the refused write left zeros */
	free(d);
	assert_int_equal(write_db(2, lu2, 0, 20, 100, &fc), TCMU_STS_OK); /* lu1's first 20 blocks' data */
	assert_int_equal(volume_mapped_bytes(lu2->dev.vol), 20 * DB);
	/* UNMAP works when full and gives the space back; writes resume */
	assert_int_equal(unmap_db(1, lu1, 20, 10, &fc), TCMU_STS_OK);
	assert_int_equal(write_db(1, lu1, 40, 1, 300, &fc), TCMU_STS_OK);

	/* a capacity change: MODE PARAMETERS CHANGED on each nexus, once */
	char *err = NULL;
	assert_int_equal(array_set_capacity(lu1->dev.array, 48 * DB, 20 * DB, &err), 0);
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_MODE_PARAMETERS_CHANGED);
	assert_int_equal(tur(1, lu1, &fc), TCMU_STS_OK);
	assert_int_equal(tur(3, lu1, &fc), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_MODE_PARAMETERS_CHANGED);
	/* descriptor-format REQUEST SENSE (DESC=1) reports it the same way */
	const uint8_t rsd[6] = { SCSI_OP_REQUEST_SENSE, 0x01, 0, 0, 8, 0 };
	assert_int_equal(run_as(2, &fc, lu1, rsd, 6, b, 8), TCMU_STS_OK);
	const uint8_t want[8] = { 0x72, SCSI_SK_UNIT_ATTENTION, 0x2a, 0x01, 0, 0, 0, 0 };
	assert_memory_equal(b, want, 8);

	/* below the threshold by more than 1% of the capacity: re-armed; the
	 * next crossing is told again */
	assert_int_equal(unmap_db(1, lu1, 0, 41, &fc), TCMU_STS_OK);
	struct array_space sp;
	array_get_space(lu1->dev.array, &sp);
	assert_int_equal(sp.used_bytes, 20 * DB);                 /* what lu2 still maps */
	assert_int_equal(unmap_db(2, lu2, 0, 2, &fc), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_MODE_PARAMETERS_CHANGED);                               /* LU 2 had not told nexus 2 yet */
	assert_int_equal(unmap_db(2, lu2, 0, 2, &fc), TCMU_STS_OK);
	assert_int_equal(write_db(1, lu1, 0, 2, 500, &fc), TCMU_STS_OK);
	assert_int_equal(tur(2, lu1, &fc), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD);
	assert_int_equal(tur(1, lu2, &fc), TCMU_STS_PASSTHROUGH_ERR);
	assert_ua(&fc, SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(soft_threshold_and_full_array),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
