/* test_odx_exec.c — POPULATE TOKEN, RECEIVE ROD TOKEN INFORMATION, WRITE
 * USING TOKEN and COPY OPERATION ABORT inside the handler (odx_exec.c,
 * odx_rrti.c, odx_token.c, copy_registry.c) on real array volumes: the token read
 * back through RRTI, the data read back after WRITE USING TOKEN, the point
 * in time, a token used from another LU and another I_T nexus, every token
 * refusal with its exact sense (forged, unknown type, another array's,
 * unknown after a key change, expired on an injected clock, deleted,
 * cancelled), partial writes with RRTI's transfer count, the zero ROD
 * token, the cost fields and the array's accounting afterwards; the list
 * identifiers shared with EXTENDED COPY (one namespace per I_T nexus). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "handlers/array/array_admin.h"
#include "handlers/copy/copy.h"
#include "handlers/copy/odx.h"
#include "handlers/copy/odx_limits.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/copy/odx_token.h"
#include "handlers/host.h"
#include "handlers/scsi/scsi.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "models/profile.h"
#include "tests/unit/copy/odx_list_builder.h"
#include "tests/unit/copy/copy_fixture.h"
#include "tests/unit/copy/tcmu_log_capture.h"
#include "tests/unit/handler/host_double.h"

#define BS 512u

/* slu[0], slu[1]: LUs of array A (ODX offered); slu[2]: LU of array B;
 * slu[3]: LU of array C, whose profile has no ODX */
static struct array *arr[3];
static struct scsi_lu slu[4];
static struct lunlab_profile prof_odx = {
	.odx = true, .odx_max_ranges = 4, .odx_max_token_bytes = 4u << 20,
	.odx_default_timeout_s = 60, .odx_max_timeout_s = 600,
};
static struct lunlab_profile prof_plain;

/* the command, its sense buffer in a library command (copy_fixture.h) */
static struct cfx_cmd cx;
#define SENSE (cx.lib.sense_buf)
static uint8_t *const cdb = cx.cdb;
static struct lunlab_host_ops host;
static uint8_t list[536 + 16 * 32];
static uint64_t fake_ms;
static uint64_t rng = 0x0d0d;

static uint64_t fake_clock(void) { return fake_ms; }
static void fill(uint8_t *p, size_t n) { cfx_fill(&rng, p, n); }
static void put_data(struct lunlab_dev *d, uint64_t lba, const void *buf, size_t n) { cfx_put(d, lba * BS, buf, n); }
static void get_data(struct lunlab_dev *d, uint64_t lba, void *buf, size_t n) { cfx_get(d, lba * BS, buf, n); }

static int setup(void **state)
{
	cfx_host(&host);
	fake_ms = 1000000;
	odx_clock_set(fake_clock);
	for (int i = 0; i < 3; i++)
		arr[i] = cfx_array("odx-test");
	cfx_lu(&slu[0], arr[0], BS, &prof_odx, 1, true);
	cfx_lu(&slu[1], arr[0], BS, &prof_odx, 2, true);
	cfx_lu(&slu[2], arr[1], BS, &prof_odx, 3, true);
	cfx_lu(&slu[3], arr[2], BS, &prof_plain, 4, true);
	return 0;
}

static int teardown(void **state)
{
	cfx_lus_close(slu, 4);
	for (int i = 0; i < 3; i++)
		array_put(arr[i]);
	odx_clock_set(NULL);
	return 0;
}

static int run(struct lunlab_dev *d, int (*fn)(struct scsi_cmd *), void *data, size_t len)
{
	return cfx_run(&cx, d, fn, data, len);
}

static void expect_sense(uint8_t key, uint16_t asc_ascq)
{
	assert_int_equal(SENSE[0], 0x70);
	assert_int_equal(SENSE[2] & 0x0f, key);
	assert_int_equal(SENSE[12], scsi_asc(asc_ascq));
	assert_int_equal(SENSE[13], scsi_ascq(asc_ascq));
}

/* SPC-4's duplicate list identifier: exactly 70 00 05 .. 0A .. 00 16, no
 * field pointer */
static void expect_in_progress(void)
{
	const uint8_t want[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x00, 0x16, 0, 0, 0, 0 };

	assert_memory_equal(SENSE, want, sizeof(want));
}

/* RECEIVE COPY RESULTS (84h) of sa and a LID1 list id on d into out; the status. */
static int rcr(struct lunlab_dev *d, uint8_t sa, uint8_t id, uint8_t *out, uint32_t alloc)
{
	memset(cx.cdb, 0, sizeof(cx.cdb));
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_IN;
	cdb[1] = sa;
	cdb[2] = id;
	put_be32(cdb + 10, alloc);
	memset(out, 0xcc, alloc);
	return run(d, rcr_handle, out, alloc);
}

/* POPULATE TOKEN of n ranges on d with list id; the status. */
static int pt(struct lunlab_dev *d, uint32_t id, uint32_t timeout, unsigned n, const uint64_t *lba,
	      const uint32_t *nb)
{
	size_t len = ob_pt(list, false, false, timeout, 0, n, lba, nb);
	ob_cdb_out(cdb, SCSI_SA_POPULATE_TOKEN, id, (uint32_t)len);
	return run(d, odx_populate_token, list, len);
}

/* RRTI of id on d into out[ODX_RRTI_MAX]; the status. */
static int rrti(struct lunlab_dev *d, uint32_t id, uint8_t *out)
{
	memset(out, 0xcc, ODX_RRTI_MAX);
	ob_cdb_rrti(cdb, id, ODX_RRTI_MAX);
	return run(d, odx_rrti, out, ODX_RRTI_MAX);
}

/* PT of one range and the token it made, through RRTI. */
static void pt_token(struct lunlab_dev *d, uint32_t id, uint64_t lba, uint32_t nb, uint8_t tok[512])
{
	uint8_t r[ODX_RRTI_MAX];

	assert_int_equal(pt(d, id, 0, 1, &lba, &nb), TCMU_STS_OK);
	assert_int_equal(rrti(d, id, r), TCMU_STS_OK);
	assert_int_equal(get_be32(r + 50), 514);
	memcpy(tok, r + 56, 512);
}

static int wut(struct lunlab_dev *d, uint32_t id, bool del_tkn, uint64_t rod_off, const uint8_t *tok, unsigned n,
	       const uint64_t *lba, const uint32_t *nb)
{
	size_t len = ob_wut(list, false, del_tkn, rod_off, tok, n, lba, nb);
	ob_cdb_out(cdb, SCSI_SA_WRITE_USING_TOKEN, id, (uint32_t)len);
	return run(d, odx_write_using_token, list, len);
}

static int wut1(struct lunlab_dev *d, const uint8_t *tok, uint64_t lba, uint32_t nb)
{
	return wut(d, 99, false, 0, tok, 1, &lba, &nb);
}

static void test_populate_rrti_write(void **state)
{
	static uint8_t src[64 * BS], back[64 * BS];
	uint8_t r[ODX_RRTI_MAX], tok[512];
	uint64_t lba = 16;
	uint32_t nb = 64;

	fill(src, sizeof(src));
	put_data(&slu[0].dev, lba, src, sizeof(src));
	assert_int_equal(pt(&slu[0].dev, 5, 0, 1, &lba, &nb), TCMU_STS_OK);
	/* the cost model's view: a metadata copy of one range */
	assert_int_equal(cx.cmd.xcopy_bytes, 64 * BS);
	assert_int_equal(cx.cmd.xcopy_segments, 1);
	assert_int_equal(cx.cmd.bytes_moved, 32);

	assert_int_equal(rrti(&slu[0].dev, 5, r), TCMU_STS_OK);
	assert_int_equal(cx.cmd.bytes_moved, 568);
	assert_int_equal(get_be32(r), 564);          /* AVAILABLE DATA */
	assert_int_equal(r[4], 0x10);                /* RESPONSE TO SERVICE ACTION: POPULATE TOKEN */
	assert_int_equal(r[5], 0x01);                /* completed without errors */
	assert_int_equal(r[12], 0x00);               /* GOOD */
	assert_int_equal(r[13], 18);
	assert_int_equal(r[14], 0);                  /* no sense */
	assert_int_equal(r[15], 0xF1);               /* transfer count in blocks */
	assert_int_equal(get_be64(r + 16), 64);
	assert_int_equal(get_be16(r + 24), 1);
	assert_int_equal(get_be32(r + 50), 514);
	memcpy(tok, r + 56, 512);
	/* the token: SPC-4 header, the creator LU, the bytes it stands for */
	assert_int_equal(get_be32(tok), 0x00800000);
	assert_int_equal(get_be16(tok + 6), 0x01F8);
	assert_int_equal(tok[16], 0x01);
	assert_int_equal(tok[17], 0x03);
	assert_memory_equal(tok + 20, slu[0].dev.naa, 16);
	assert_int_equal(get_be64(tok + 56), 64 * BS);
	assert_int_equal(odx_tokens_live(&slu[0].dev), 1);

	/* WRITE USING TOKEN to another LU of the array, aligned to the dedup blocks */
	struct array_stats before, after;
	/* the source's writes are accounted in the background (physical bytes lag
	 * until the accounting worker compressed them): settle them first, or the
	 * worker may finish between the two readings and move physical_bytes */
	array_flush_accounting(arr[0]);
	array_get_stats(arr[0], &before);
	assert_int_equal(wut1(&slu[1].dev, tok, 1024, 64), TCMU_STS_OK);
	assert_int_equal(cx.cmd.xcopy_bytes, 64 * BS);
	assert_int_equal(cx.cmd.xcopy_segments, 1);
	assert_int_equal(cx.cmd.bytes_moved, 552);
	get_data(&slu[1].dev, 1024, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
	/* a metadata copy: no new block stored, 64 x 512 B = 4 more 8 KiB map entries */
	array_flush_accounting(arr[0]);
	array_get_stats(arr[0], &after);
	assert_int_equal(after.unique_blocks, before.unique_blocks);
	assert_int_equal(after.physical_bytes, before.physical_bytes);
	assert_int_equal(after.mapped_blocks, before.mapped_blocks + 4);
	assert_int_equal(after.logical_bytes, before.logical_bytes + 64 * BS);

	assert_int_equal(rrti(&slu[1].dev, 99, r), TCMU_STS_OK);
	assert_int_equal(r[4], 0x11);
	assert_int_equal(r[5], 0x01);
	assert_int_equal(get_be64(r + 16), 64);
	assert_int_equal(get_be32(r + 50), 0);       /* no token in a WUT's answer */
	assert_int_equal(get_be32(r), 54 - 4);
	/* allocation length cuts the answer */
	ob_cdb_rrti(cdb, 99, 8);
	assert_int_equal(run(&slu[1].dev, odx_rrti, r, sizeof(r)), TCMU_STS_OK);
	assert_int_equal(cx.cmd.bytes_moved, 8);
}

static void test_point_in_time(void **state)
{
	static uint8_t old[32 * BS], neu[32 * BS], back[32 * BS];
	uint8_t tok[512];

	fill(old, sizeof(old));
	fill(neu, sizeof(neu));
	put_data(&slu[0].dev, 0, old, sizeof(old));
	pt_token(&slu[0].dev, 1, 0, 32, tok);
	put_data(&slu[0].dev, 0, neu, sizeof(neu));      /* the source overwritten */
	assert_int_equal(wut1(&slu[0].dev, tok, 4096, 32), TCMU_STS_OK);
	get_data(&slu[0].dev, 4096, back, sizeof(back));
	assert_memory_equal(back, old, sizeof(old));
	get_data(&slu[0].dev, 0, back, sizeof(back));
	assert_memory_equal(back, neu, sizeof(neu));
}

/* A token is the array's: usable from its other LU and another I_T nexus;
 * list identifiers are the nexus's. */
static void test_other_lu_and_nexus(void **state)
{
	static uint8_t src[16 * BS], back[16 * BS];
	uint8_t tok[512], r[ODX_RRTI_MAX];

	fill(src, sizeof(src));
	put_data(&slu[1].dev, 200, src, sizeof(src));
	host_double_nexus = 7;
	pt_token(&slu[1].dev, 3, 200, 16, tok);
	host_double_nexus = 8;
	/* nexus 8 has no list 3 */
	assert_int_equal(rrti(&slu[1].dev, 3, r), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(SENSE[15], 0x80 | 0x40);
	assert_int_equal(get_be16(SENSE + 16), 2);
	assert_int_equal(wut1(&slu[0].dev, tok, 300, 16), TCMU_STS_OK);
	get_data(&slu[0].dev, 300, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
	/* nexus 7 still reads its list 3 */
	host_double_nexus = 7;
	assert_int_equal(rrti(&slu[1].dev, 3, r), TCMU_STS_OK);
	assert_int_equal(r[4], 0x10);
	/* a list id nexus 7 still runs is refused: 05/00/16 OPERATION IN PROGRESS */
	int running = copy_reg_begin(&slu[1].dev, 7, COPY_KIND_POPULATE_TOKEN, true, 4, true);
	assert_true(running >= 0);
	uint64_t lba = 0;
	uint32_t nb = 1;
	assert_int_equal(pt(&slu[1].dev, 4, 0, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_in_progress();
	host_double_nexus = 8;
	assert_int_equal(pt(&slu[1].dev, 4, 0, 1, &lba, &nb), TCMU_STS_OK);
	struct odx_op done = { .status = ODX_OP_DONE };
	copy_reg_end_odx(running, &done);
	host_double_nexus = 0;
}

/* SPC-4 gives EXTENDED COPY and the token commands one list identifier
 * namespace per I_T nexus: a POPULATE TOKEN with the list id of an EXTENDED
 * COPY its nexus still runs is a duplicate (05/00/16, as for two EXTENDED
 * COPYs), another nexus may use it; RRTI knows no EXTENDED COPY and RECEIVE
 * COPY RESULTS no token operation (05/24/00 at CDB byte 2 each). */
static void test_list_ids_shared_with_extended_copy(void **state)
{
	uint8_t tok[512], r[ODX_RRTI_MAX], out[64];
	uint64_t lba = 0;
	uint32_t nb = 1;

	host_double_nexus = 7;
	int xcopy = copy_reg_begin(&slu[0].dev, 7, COPY_KIND_XCOPY_LID1, true, 4, true);
	assert_true(xcopy >= 0);
	assert_int_equal(pt(&slu[0].dev, 4, 0, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_in_progress();
	host_double_nexus = 8;
	assert_int_equal(pt(&slu[0].dev, 4, 0, 1, &lba, &nb), TCMU_STS_OK);
	host_double_nexus = 7;
	/* the EXTENDED COPY ends held: RRTI of its list id knows nothing */
	struct copy_status st = { .cm_status = COPY_DONE_OK, .segments = 1, .bytes = 4096 };
	copy_reg_end_xcopy(xcopy, &st);
	assert_int_equal(rrti(&slu[0].dev, 4, r), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(SENSE[15], 0x80 | 0x40);
	assert_int_equal(get_be16(SENSE + 16), 2);
	/* ... and RECEIVE COPY RESULTS reports it */
	assert_int_equal(rcr(&slu[0].dev, 0x00, 4, out, sizeof(out)), TCMU_STS_OK);
	const uint8_t want[12] = { 0, 0, 0, 8, 0x01, 0, 1, 0x00, 0, 0, 0x10, 0x00 };
	assert_memory_equal(out, want, sizeof(want));

	/* a POPULATE TOKEN's list id: RECEIVE COPY RESULTS knows nothing */
	pt_token(&slu[0].dev, 6, 0, 8, tok);
	assert_int_equal(rcr(&slu[0].dev, 0x00, 6, out, sizeof(out)), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(SENSE[15], 0x80 | 0x40);
	assert_int_equal(get_be16(SENSE + 16), 2);
	assert_int_equal(rcr(&slu[0].dev, 0x04, 6, out, sizeof(out)), TCMU_STS_OK);
	assert_memory_equal(out, "\0\0\0\0", 4);      /* no failed segment details */
	/* ... and RRTI reports it */
	assert_int_equal(rrti(&slu[0].dev, 6, r), TCMU_STS_OK);
	assert_int_equal(r[4], 0x10);
	assert_int_equal(r[5], ODX_OP_DONE);
	host_double_nexus = 0;
}

static void test_ranges_offset_partial(void **state)
{
	static uint8_t src[96 * BS], back[96 * BS];
	uint8_t tok[512], r[ODX_RRTI_MAX];
	uint64_t slba[2] = { 100, 500 };
	uint32_t snb[2] = { 32, 64 };

	fill(src, sizeof(src));
	put_data(&slu[0].dev, 100, src, 32 * BS);
	put_data(&slu[0].dev, 500, src + 32 * BS, 64 * BS);
	assert_int_equal(pt(&slu[0].dev, 6, 0, 2, slba, snb), TCMU_STS_OK);
	assert_int_equal(cx.cmd.xcopy_segments, 2);
	assert_int_equal(rrti(&slu[0].dev, 6, r), TCMU_STS_OK);
	assert_int_equal(get_be64(r + 16), 96);
	memcpy(tok, r + 56, 512);

	/* offset 16 blocks into the ROD, three destination ranges of 40 blocks:
	 * the token has 80 left, so 80 are written and the third range is not */
	uint64_t dlba[3] = { 2000, 3000, 4000 };
	uint32_t dnb[3] = { 40, 40, 40 };
	memset(back, 0, sizeof(back));
	put_data(&slu[1].dev, 4000, back, 40 * BS);
	assert_int_equal(wut(&slu[1].dev, 7, false, 16, tok, 3, dlba, dnb), TCMU_STS_OK);
	assert_int_equal(cx.cmd.xcopy_bytes, 80 * BS);
	assert_int_equal(rrti(&slu[1].dev, 7, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x01);
	assert_int_equal(get_be64(r + 16), 80);      /* TRANSFER COUNT: fewer than asked */
	get_data(&slu[1].dev, 2000, back, 40 * BS);
	assert_memory_equal(back, src + 16 * BS, 40 * BS);
	get_data(&slu[1].dev, 3000, back, 40 * BS);
	assert_memory_equal(back, src + 56 * BS, 40 * BS);

	/* the ROD used only in part: COPY OPERATION STATUS 03h */
	assert_int_equal(wut(&slu[1].dev, 8, false, 0, tok, 1, dlba, dnb), TCMU_STS_OK);
	assert_int_equal(rrti(&slu[1].dev, 8, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x03);
	assert_int_equal(get_be64(r + 16), 40);
	get_data(&slu[1].dev, 2000, back, 40 * BS);
	assert_memory_equal(back, src, 40 * BS);

	/* a token of no blocks (its one range empty): nothing to write from it */
	uint64_t zl = 7;
	uint32_t zn = 0;
	uint8_t empty[512];
	assert_int_equal(pt(&slu[0].dev, 10, 0, 1, &zl, &zn), TCMU_STS_OK);
	assert_int_equal(rrti(&slu[0].dev, 10, r), TCMU_STS_OK);
	assert_int_equal(get_be64(r + 16), 0);
	memcpy(empty, r + 56, 512);
	assert_int_equal(wut(&slu[1].dev, 11, false, 0, empty, 1, dlba, dnb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	assert_int_equal(rrti(&slu[0].dev, 6, r), TCMU_STS_OK);
	memcpy(tok, r + 56, 512);

	/* an offset at or past the end of the ROD: 05/26/00 at byte 8 */
	assert_int_equal(wut(&slu[1].dev, 9, false, 96, tok, 1, dlba, dnb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	assert_int_equal(SENSE[15], 0x80);
	assert_int_equal(get_be16(SENSE + 16), 8);
	assert_int_equal(rrti(&slu[1].dev, 9, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x02);                /* completed with errors */
	assert_int_equal(r[12], 0x02);               /* CHECK CONDITION */
	assert_int_equal(r[14], 18);
	assert_int_equal(r[32 + 2], 0x05);
	assert_int_equal(r[32 + 12], 0x26);
}

static void test_token_refusals(void **state)
{
	uint8_t tok[512], bad[512], other[512];

	pt_token(&slu[0].dev, 1, 0, 8, tok);
	/* forged: one byte of the body changed, the MAC no longer verifies */
	memcpy(bad, tok, 512);
	bad[130] ^= 1;
	assert_int_equal(wut1(&slu[1].dev, bad, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_CORRUPT);
	memcpy(bad, tok, 512);
	bad[511] ^= 0x80;                                   /* the MAC itself */
	assert_int_equal(wut1(&slu[1].dev, bad, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_CORRUPT);
	/* a ROD type lunlab does not take: 05/23/01 */
	memcpy(bad, tok, 512);
	put_be32(bad, 0x00800001);
	assert_int_equal(wut1(&slu[1].dev, bad, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_UNSUPPORTED_TYPE);
	/* another array's token (another key): corrupt */
	pt_token(&slu[2].dev, 1, 0, 8, other);
	assert_int_equal(wut1(&slu[1].dev, other, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_CORRUPT);
	assert_int_equal(wut1(&slu[2].dev, other, 64, 8), TCMU_STS_OK);   /* fine on its own array */
	/* the genuine one still works: nothing above harmed it */
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_OK);
	/* a key change, as a restart: this array's old tokens are unknown */
	odx_array_rekey(&slu[0].dev);
	assert_int_equal(odx_tokens_live(&slu[0].dev), 0);
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_UNKNOWN);
}

static void test_expiry(void **state)
{
	uint8_t tok[512], tok2[512];
	uint64_t lba = 0;
	uint32_t nb = 8;

	/* inactivity timeout 10 s; each use restarts it */
	assert_int_equal(pt(&slu[0].dev, 1, 10, 1, &lba, &nb), TCMU_STS_OK);
	uint8_t r[ODX_RRTI_MAX];
	assert_int_equal(rrti(&slu[0].dev, 1, r), TCMU_STS_OK);
	memcpy(tok, r + 56, 512);
	fake_ms += 9000;
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_OK);
	fake_ms += 9000;
	assert_int_equal(odx_tokens_reap(), 0);
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_OK);
	/* 10 s unused: the reaper releases it, later uses are refused as expired */
	fake_ms += 10000;
	assert_int_equal(odx_tokens_live(&slu[0].dev), 1);
	assert_int_equal(odx_tokens_reap(), 1);
	assert_int_equal(odx_tokens_live(&slu[0].dev), 0);
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_EXPIRED);
	/* expired before the reaper came: the use itself says so */
	pt_token(&slu[0].dev, 2, 0, 8, tok2);     /* the default, 60 s */
	fake_ms += 60000;
	assert_int_equal(wut1(&slu[1].dev, tok2, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_EXPIRED);
	assert_int_equal(odx_tokens_live(&slu[0].dev), 0);
}

static void test_deleted_and_cancelled(void **state)
{
	uint8_t tok[512], r[ODX_RRTI_MAX];
	uint64_t lba = 0;
	uint32_t nb = 8;

	pt_token(&slu[0].dev, 1, 0, 8, tok);
	assert_int_equal(wut(&slu[1].dev, 2, true, 0, tok, 1, &lba, &nb), TCMU_STS_OK);   /* DEL_TKN */
	assert_int_equal(odx_tokens_live(&slu[0].dev), 0);
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_DELETED);

	/* COPY OPERATION ABORT of a completed POPULATE TOKEN: its token is cancelled */
	pt_token(&slu[0].dev, 3, 0, 8, tok);
	ob_cdb_abort(cdb, 3);
	assert_int_equal(run(&slu[0].dev, odx_copy_abort, NULL, 0), TCMU_STS_OK);
	assert_int_equal(rrti(&slu[0].dev, 3, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x60);                /* operation terminated */
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 8), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOKEN_CANCELLED);
	/* an unknown list identifier: 05/24/00 at CDB byte 2 */
	ob_cdb_abort(cdb, 12345);
	assert_int_equal(run(&slu[0].dev, odx_copy_abort, NULL, 0), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(get_be16(SENSE + 16), 2);
	/* a running one is told to stop: its write ends TERMINATED */
	int slot = copy_reg_begin(&slu[1].dev, 0, COPY_KIND_WRITE_USING_TOKEN, true, 77, true);
	ob_cdb_abort(cdb, 77);
	assert_int_equal(run(&slu[1].dev, odx_copy_abort, NULL, 0), TCMU_STS_OK);
	assert_true(copy_reg_aborted(slot));
	struct odx_op op = { .sa = SCSI_SA_WRITE_USING_TOKEN, .status = ODX_OP_DONE, .blocks = 3 };
	copy_reg_end_odx(slot, &op);
	assert_int_equal(rrti(&slu[1].dev, 77, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x60);
	assert_int_equal(get_be64(r + 16), 3);
}

static void test_zero_token(void **state)
{
	static uint8_t data[16 * BS], back[16 * BS], zero[16 * BS];
	uint8_t tok[512], r[ODX_RRTI_MAX];

	fill(data, sizeof(data));
	put_data(&slu[1].dev, 50, data, sizeof(data));
	memset(tok, 0, sizeof(tok));
	put_be32(tok, 0xFFFF0001);                   /* block device zero ROD token */
	assert_int_equal(wut1(&slu[1].dev, tok, 50, 16), TCMU_STS_OK);
	get_data(&slu[1].dev, 50, back, sizeof(back));
	assert_memory_equal(back, zero, sizeof(zero));
	assert_int_equal(rrti(&slu[1].dev, 99, r), TCMU_STS_OK);
	assert_int_equal(get_be64(r + 16), 16);
}

static void test_cdb_and_offer(void **state)
{
	uint8_t r[ODX_RRTI_MAX];
	uint64_t lba = 0;
	uint32_t nb = 8;

	/* PARAMETER LIST LENGTH below a header and one range, or above the most
	 * ranges: 05/24/00 at CDB byte 10 */
	ob_cdb_out(cdb, SCSI_SA_POPULATE_TOKEN, 1, 31);
	assert_int_equal(run(&slu[0].dev, odx_populate_token, list, 31), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(get_be16(SENSE + 16), 10);
	ob_cdb_out(cdb, SCSI_SA_WRITE_USING_TOKEN, 1, 536 + 16 * 25);
	assert_int_equal(run(&slu[0].dev, odx_write_using_token, list, sizeof(list)), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	/* the data that arrived falls short of the PARAMETER LIST LENGTH */
	size_t len = ob_pt(list, false, false, 0, 0, 1, &lba, &nb);
	ob_cdb_out(cdb, SCSI_SA_POPULATE_TOKEN, 1, (uint32_t)len);
	assert_int_equal(run(&slu[0].dev, odx_populate_token, list, len - 1), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	/* a parameter list error through the command, recorded for RRTI */
	nb = 100000;
	assert_int_equal(pt(&slu[0].dev, 2, 0, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	assert_int_equal(rrti(&slu[0].dev, 2, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x02);
	assert_int_equal(r[32 + 12], 0x21);
	/* an array whose profile has no ODX: no such commands */
	nb = 8;
	assert_int_equal(pt(&slu[3].dev, 1, 0, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	assert_int_equal(rrti(&slu[3].dev, 1, r), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
}

/* The per-array cap on live tokens: POPULATE TOKEN beyond it is 05/55/0C;
 * one dying makes room. */
static void test_live_token_cap(void **state)
{
	uint64_t lba = 0;
	uint32_t nb = 1;
	uint8_t tok[512], r[ODX_RRTI_MAX];

	for (unsigned i = 0; i < ODX_LIVE_TOKENS_MAX; i++)
		assert_int_equal(pt(&slu[0].dev, i, 0, 1, &lba, &nb), TCMU_STS_OK);
	assert_int_equal(odx_tokens_live(&slu[0].dev), ODX_LIVE_TOKENS_MAX);
	assert_int_equal(pt(&slu[1].dev, 1000, 0, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES_FOR_ROD);
	assert_int_equal(rrti(&slu[0].dev, ODX_LIVE_TOKENS_MAX - 1, r), TCMU_STS_OK);
	memcpy(tok, r + 56, 512);
	odx_token_kill(&slu[0].dev, tok, ODX_TOK_DELETED);
	assert_int_equal(pt(&slu[1].dev, 1000, 0, 1, &lba, &nb), TCMU_STS_OK);
	/* the source LU closing ends its tokens: slu[1]'s one is left */
	copy_dev_forget(&slu[0].dev);
	assert_int_equal(odx_tokens_live(&slu[0].dev), 1);
}

/* A fault rule (odx-fail-after=N, from the host) stops WRITE USING TOKEN
 * after N blocks: those are written, RRTI says N, the rest is untouched;
 * with IMMED the status is GOOD and RRTI tells the failure. */
static void test_fail_after_blocks(void **state)
{
	static uint8_t src[64 * BS], back[64 * BS], old[64 * BS];
	uint8_t tok[512], r[ODX_RRTI_MAX];
	uint64_t lba = 1024;
	uint32_t nb = 64;

	fill(src, sizeof(src));
	fill(old, sizeof(old));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	put_data(&slu[1].dev, lba, old, sizeof(old));
	pt_token(&slu[0].dev, 1, 0, 64, tok);
	host_double_fault = true;
	host_double_fault_count = 24;
	memset(host_double_fault_sense, 0, 3);
	assert_int_equal(wut(&slu[1].dev, 2, false, 0, tok, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_COPY_ABORTED, SCSI_ASC_COPY_TARGET_NOT_REACHABLE);
	assert_int_equal(cx.cmd.xcopy_bytes, 24 * BS);
	assert_int_equal(rrti(&slu[1].dev, 2, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x02);
	assert_int_equal(get_be64(r + 16), 24);
	get_data(&slu[1].dev, lba, back, sizeof(back));
	assert_memory_equal(back, src, 24 * BS);
	assert_memory_equal(back + 24 * BS, old + 24 * BS, 40 * BS);
	/* the rule's own sense; IMMED: GOOD, the failure in RRTI */
	host_double_fault_count = 8;
	host_double_fault_sense[0] = SCSI_SK_ABORTED_COMMAND;
	host_double_fault_sense[1] = scsi_asc(SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE);
	host_double_fault_sense[2] = scsi_ascq(SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE);
	size_t len = ob_wut(list, true, false, 0, tok, 1, &lba, &nb);
	ob_cdb_out(cdb, SCSI_SA_WRITE_USING_TOKEN, 3, (uint32_t)len);
	assert_int_equal(run(&slu[1].dev, odx_write_using_token, list, len), TCMU_STS_OK);
	assert_int_equal(rrti(&slu[1].dev, 3, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x02);
	assert_int_equal(get_be64(r + 16), 8);
	assert_int_equal(r[32 + 2], SCSI_SK_ABORTED_COMMAND);
	assert_int_equal(r[32 + 12], scsi_asc(SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE));
	assert_int_equal(r[32 + 13], scsi_ascq(SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE));
	host_double_fault = false;
}

/* COPY OPERATION ABORT arriving while a WRITE USING TOKEN runs (sent from
 * the host double's hook, which the command calls once it is under way):
 * the write stops before its next piece, RRTI says terminated. */
static void abort_list_9(void)
{
	struct scsi_cmd c = { .dev = &slu[1].dev, .sense = cx.lib.sense_buf };
	uint8_t acdb[16];

	ob_cdb_abort(acdb, 9);
	c.cdb = acdb;
	assert_int_equal(odx_copy_abort(&c), TCMU_STS_OK);
}

static void test_abort_running(void **state)
{
	uint8_t tok[512], r[ODX_RRTI_MAX];
	uint64_t lba = 0;
	uint32_t nb = 64;

	pt_token(&slu[0].dev, 1, 0, 64, tok);
	host_double_fault_hook = abort_list_9;
	assert_int_equal(wut(&slu[1].dev, 9, false, 0, tok, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	host_double_fault_hook = NULL;
	expect_sense(SCSI_SK_ABORTED_COMMAND, SCSI_ASC_COMMANDS_CLEARED_BY_ANOTHER_INITIATOR);
	assert_int_equal(rrti(&slu[1].dev, 9, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x60);
	assert_int_equal(get_be64(r + 16), 0);
	/* the token itself is not the operation: it still writes */
	assert_int_equal(wut1(&slu[1].dev, tok, 0, 64), TCMU_STS_OK);
}

/* The destination array fills part way: 07/27/07 as a WRITE gets, the
 * blocks before written, RRTI's transfer count says how many.  The source
 * sits one block off the destination's dedup alignment, so every block is
 * stored anew (a data copy inside the array), 2 MiB at a time. */
static void test_out_of_space(void **state)
{
	static uint8_t src[6144 * BS], back[6144 * BS];
	uint8_t tok[512], r[ODX_RRTI_MAX];
	uint64_t lba = 0;
	uint32_t nb = 6144;
	struct array_space sp;
	char *err = NULL;

	fill(src, sizeof(src));
	put_data(&slu[0].dev, 1, src, sizeof(src));
	pt_token(&slu[0].dev, 1, 1, 6144, tok);
	array_flush_accounting(arr[0]);
	array_get_space(arr[0], &sp);
	assert_int_equal(array_set_capacity(arr[0], sp.used_bytes + (5u << 19), 0, &err), 0);  /* 2.5 MiB */
	assert_int_equal(wut(&slu[1].dev, 2, false, 0, tok, 1, &lba, &nb), TCMU_STS_PASSTHROUGH_ERR);
	expect_sense(SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT);
	assert_int_equal(rrti(&slu[1].dev, 2, r), TCMU_STS_OK);
	assert_int_equal(r[5], 0x02);
	assert_int_equal(get_be64(r + 16), 4096);    /* 2 MiB of 512-byte blocks */
	assert_int_equal(get_be16(r + 24), 1);
	assert_int_equal(r[32 + 12], scsi_asc(SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT));
	get_data(&slu[1].dev, 0, back, sizeof(back));
	assert_memory_equal(back, src, 4096 * BS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_populate_rrti_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_in_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_lu_and_nexus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ranges_offset_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expiry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_and_cancelled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cdb_and_offer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_token_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail_after_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_space, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_ids_shared_with_extended_copy, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
