/* test_cost_req.c — what each command kind charges the cost model
 * (cost_req.c, docs/models.md "For callers"): wire bytes in `bytes`, the
 * logical range WRITE SAME / UNMAP / VERIFY cover in `xcopy_bytes`, and the
 * map entries the x2 model derives from them (cost_service_of). */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "models/cost_virtual.h"
#include "models/profile.h"
#include "handlers/copy/copy.h"

static struct scsi_lu *lu;

static int setup(void **state) { lu = fix_lu_new("cost", FIX_BS, FIX_LBAS); return 0; }
static int teardown(void **state) { fix_lu_free(lu); return 0; }

/* Dispatch cdb with buf; return the request the handler would charge. */
static struct cost_req charge_of(const uint8_t *cdb, size_t cdblen, void *buf, size_t len, int want_status)
{
	struct fix_cmd fc;
	enum cost_kind kind;
	struct cost_req r;

	memset(&fc, 0, sizeof(fc));
	memcpy(fc.cdb, cdb, cdblen);
	fc.iov.iov_base = buf;
	fc.iov.iov_len = len;
	fc.c = (struct scsi_cmd){ .dev = &lu->dev, .cdb = fc.cdb, .iov = &fc.iov, .iov_cnt = buf ? 1 : 0,
				  .iov_len = buf ? len : 0, .sense = fc.sense };
	assert_int_equal(scsi_dispatch(&fc.c, &kind), want_status);
	scsi_cost_req(&fc.c, kind, &r);
	return r;
}

static uint64_t entries_x2(const struct cost_req *r)
{
	char *err = NULL;
	const struct lunlab_profile *p = profile_get("x2", &err);
	struct cost_service s;

	assert_non_null(p);
	assert_int_equal(p->dedup_block, 16384);
	cost_service_of(p, r, &s);
	return s.entries;
}

static void test_write_same_covers_its_range(void **state)
{
	uint8_t cdb[16] = { SCSI_OP_WRITE_SAME_16 }, pat[FIX_BS];
	memset(pat, 0x5c, sizeof(pat));
	put_be64(cdb + 2, 64);
	put_be32(cdb + 10, 128);                          /* 64 KiB */
	struct cost_req r = charge_of(cdb, 16, pat, sizeof(pat), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_WRITE_SAME);
	assert_int_equal(r.bytes, FIX_BS);                /* one block on the wire */
	assert_int_equal(r.xcopy_bytes, 128 * FIX_BS);
	assert_int_equal(entries_x2(&r), 4);

	/* UNMAP=1 NDOB=1: nothing on the wire, the same range covered */
	cdb[1] = 0x09;
	r = charge_of(cdb, 16, NULL, 0, TCMU_STS_OK);
	assert_int_equal(r.bytes, 0);
	assert_int_equal(r.xcopy_bytes, 128 * FIX_BS);
	assert_int_equal(entries_x2(&r), 4);

	/* WRITE SAME(10), 3 blocks: a partial dedup block is one entry */
	uint8_t ws10[10] = { SCSI_OP_WRITE_SAME_10 };
	put_be32(ws10 + 2, 7);
	put_be16(ws10 + 7, 3);
	r = charge_of(ws10, 10, pat, sizeof(pat), TCMU_STS_OK);
	assert_int_equal(r.xcopy_bytes, 3 * FIX_BS);
	assert_int_equal(entries_x2(&r), 1);

	/* refused (past the end): nothing covered */
	put_be32(ws10 + 2, FIX_LBAS - 1);
	r = charge_of(ws10, 10, pat, sizeof(pat), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(r.xcopy_bytes, 0);
}

static void test_unmap_covers_its_descriptors(void **state)
{
	uint8_t cdb[10] = { SCSI_OP_UNMAP }, list[8 + 2 * 16] = { 0 };
	put_be16(list, sizeof(list) - 2);
	put_be16(list + 2, 32);
	put_be64(list + 8, 0);
	put_be32(list + 16, 32);                          /* 16 KiB: one entry */
	put_be64(list + 24, 1024);
	put_be32(list + 32, 96);                          /* 48 KiB: three */
	put_be16(cdb + 7, sizeof(list));
	struct cost_req r = charge_of(cdb, 10, list, sizeof(list), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_UNMAP);
	assert_int_equal(r.bytes, sizeof(list));          /* the parameter list */
	assert_int_equal(r.xcopy_bytes, 128 * FIX_BS);
	assert_int_equal(entries_x2(&r), 4);
}

static void test_verify_covers_the_medium_it_checks(void **state)
{
	uint8_t cdb[16] = { SCSI_OP_VERIFY_16 }, buf[32 * FIX_BS];
	put_be64(cdb + 2, 100);
	put_be32(cdb + 10, 32);
	struct cost_req r = charge_of(cdb, 16, NULL, 0, TCMU_STS_OK);   /* BYTCHK 0 */
	assert_int_equal(r.kind, COST_VERIFY);
	assert_int_equal(r.bytes, 0);
	assert_int_equal(r.xcopy_bytes, 32 * FIX_BS);
	cdb[1] = 0x02;                                    /* BYTCHK 01b: the data crosses the wire */
	memset(buf, 0, sizeof(buf));
	r = charge_of(cdb, 16, buf, sizeof(buf), TCMU_STS_OK);
	assert_int_equal(r.bytes, 32 * FIX_BS);
	assert_int_equal(r.xcopy_bytes, 32 * FIX_BS);
	cdb[1] = 0x06;                                    /* BYTCHK 11b: one block on the wire */
	r = charge_of(cdb, 16, buf, FIX_BS, TCMU_STS_OK);
	assert_int_equal(r.bytes, FIX_BS);
	assert_int_equal(r.xcopy_bytes, 32 * FIX_BS);
}

static void test_data_commands_and_others(void **state)
{
	uint8_t buf[8 * FIX_BS], cdb[16] = { SCSI_OP_WRITE_16 };
	memset(buf, 0x11, sizeof(buf));
	put_be64(cdb + 2, 8);
	put_be32(cdb + 10, 8);
	struct cost_req r = charge_of(cdb, 16, buf, sizeof(buf), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_WRITE);
	assert_int_equal(r.bytes, sizeof(buf));
	assert_int_equal(r.xcopy_bytes, 0);
	cdb[0] = SCSI_OP_READ_16;
	r = charge_of(cdb, 16, buf, sizeof(buf), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_READ);
	assert_int_equal(r.bytes, sizeof(buf));
	assert_int_equal(r.xcopy_bytes, 0);

	/* COMPARE AND WRITE, 1 block: compare + write data on the wire */
	uint8_t caw[16] = { SCSI_OP_COMPARE_AND_WRITE }, cw[2 * FIX_BS];
	memcpy(cw, buf, FIX_BS);
	memset(cw + FIX_BS, 0x22, FIX_BS);
	put_be64(caw + 2, 8);
	caw[13] = 1;
	r = charge_of(caw, 16, cw, sizeof(cw), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_CAW);
	assert_int_equal(r.bytes, 2 * FIX_BS);

	/* parameter data in: its length; RECEIVE COPY RESULTS too */
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 255, 0 }, rcr[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS }, out[1024];
	r = charge_of(inq, 6, out, 255, TCMU_STS_OK);
	assert_int_equal(r.kind, COST_OTHER);
	assert_int_equal(r.bytes, 96);
	put_be32(rcr + 10, sizeof(out));
	r = charge_of(rcr, 16, out, sizeof(out), TCMU_STS_OK);
	assert_int_equal(r.bytes, 4 + get_be32(out));

	/* refused by the table (reserved bit): other, nothing moved */
	uint8_t bad[10] = { SCSI_OP_READ_10, 0x01 };
	r = charge_of(bad, 10, buf, sizeof(buf), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(r.kind, COST_OTHER);
	assert_int_equal(r.bytes, 0);
	assert_int_equal(r.xcopy_bytes, 0);
}

/* ODX on an x2 LU: POPULATE TOKEN is one command (OTHER); WRITE USING
 * TOKEN a metadata copy charged as an EXTENDED COPY: per command, per map
 * entry of what it wrote, per range descriptor beyond the first. */
static void test_odx_charges(void **state)
{
	char *err = NULL;
	const struct lunlab_profile *x2 = profile_get("x2", &err);
	const struct lunlab_profile *saved = lu->dev.profile;
	uint8_t pt[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN };
	uint8_t rrti[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION };
	uint8_t wut[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_WRITE_USING_TOKEN };
	static uint8_t ptl[32], info[568], wutl[568];

	assert_non_null(x2);
	lu->dev.profile = x2;
	put_be16(ptl, 30);
	put_be16(ptl + 14, 16);
	put_be32(ptl + 24, 128);                          /* LBA 0, 64 KiB */
	put_be32(pt + 6, 1);
	put_be32(pt + 10, sizeof(ptl));
	struct cost_req r = charge_of(pt, 16, ptl, sizeof(ptl), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_OTHER);
	assert_int_equal(r.bytes, 32);
	assert_int_equal(entries_x2(&r), 0);

	put_be32(rrti + 2, 1);
	put_be32(rrti + 10, sizeof(info));
	r = charge_of(rrti, 16, info, sizeof(info), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_OTHER);
	assert_int_equal(r.bytes, 568);

	/* two ranges of 32 KiB, each on a 16 KiB boundary */
	put_be16(wutl, sizeof(wutl) - 2);
	memcpy(wutl + 16, info + 56, 512);
	put_be16(wutl + 534, 32);
	put_be64(wutl + 536, 1024);
	put_be32(wutl + 544, 64);
	put_be64(wutl + 552, 2048);
	put_be32(wutl + 560, 64);
	put_be32(wut + 6, 2);
	put_be32(wut + 10, sizeof(wutl));
	r = charge_of(wut, 16, wutl, sizeof(wutl), TCMU_STS_OK);
	assert_int_equal(r.kind, COST_XCOPY);
	assert_int_equal(r.bytes, 568);
	assert_int_equal(r.xcopy_bytes, 128 * FIX_BS);
	assert_int_equal(r.xcopy_segments, 2);
	assert_int_equal(entries_x2(&r), 4);
	struct cost_service two, one;
	cost_service_of(x2, &r, &two);
	r.xcopy_segments = 1;
	cost_service_of(x2, &r, &one);
	assert_int_equal(two.cpu_work_ns - one.cpu_work_ns, 20000);   /* x2's cpu_segment_ns */
	copy_dev_forget(&lu->dev);                         /* its token goes */
	lu->dev.profile = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_same_covers_its_range),
		cmocka_unit_test(test_unmap_covers_its_descriptors),
		cmocka_unit_test(test_verify_covers_the_medium_it_checks),
		cmocka_unit_test(test_data_commands_and_others),
		cmocka_unit_test(test_odx_charges),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
