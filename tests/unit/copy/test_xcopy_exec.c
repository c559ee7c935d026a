/* test_xcopy_exec.c — EXTENDED COPY end to end inside the handler: parameter
 * list in an iovec, CSCDs found by NAA in the device registry, the copy done
 * by the array store; data read back through volume_read and reference
 * counts checked through array_get_stats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/array_admin.h"
#include "handlers/copy/copy.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/host.h"
#include "handlers/scsi/scsi.h"
#include "tests/unit/copy/copy_fixture.h"
#include "tests/unit/copy/tcmu_log_capture.h"
#include "tests/unit/copy/xcopy_list_builder.h"
#include "tests/unit/handler/host_double.h"

#define DEDUP CFX_DEDUP

/* slu[0], slu[1]: 512-byte LUs of array A; slu[2]: 4096-byte LU of array A;
 * slu[3]: 512-byte LU of array B */
static struct array *arr_a, *arr_b;
/* struct scsi_lu, as handler.c allocates them: the copy manager reads the
 * destination's write protection from it */
static struct scsi_lu slu[4];

static uint8_t list[16 + 8192];
/* the command, its sense buffer in a library command (copy_fixture.h) */
static struct cfx_cmd cx;
#define SENSE (cx.lib.sense_buf)
/* the stand-in for lunlab-target's extension contract, adopted in setup:
 * its host_double_nexus is 0 (the host cannot tell, as tcmu-runner) or this
 * session's nexus id */
static struct lunlab_host_ops host;

static uint64_t rng = 0x5eed;

static void fill(uint8_t *p, size_t n) { cfx_fill(&rng, p, n); }
static void put_data(struct lunlab_dev *d, uint64_t off, const void *buf, size_t n) { cfx_put(d, off, buf, n); }
static void get_data(struct lunlab_dev *d, uint64_t off, void *buf, size_t n) { cfx_get(d, off, buf, n); }

static int setup(void **state)
{
	cfx_host(&host);
	arr_a = cfx_array("copy-test");
	arr_b = cfx_array("copy-test");
	cfx_lu(&slu[0], arr_a, 512, NULL, 1, false);
	cfx_lu(&slu[1], arr_a, 512, NULL, 2, false);
	cfx_lu(&slu[2], arr_a, 4096, NULL, 3, false);
	cfx_lu(&slu[3], arr_b, 512, NULL, 4, false);
	return 0;
}

static int teardown(void **state)
{
	cfx_lus_close(slu, 4);
	array_put(arr_a);
	array_put(arr_b);
	return 0;
}

static struct array_stats stats(struct array *a)
{
	struct array_stats s;
	array_get_stats(a, &s);
	return s;
}

/* Send the first len bytes of list as an EXTENDED COPY to LU d. */
static int xcopy_to(struct lunlab_dev *d, size_t len)
{
	memset(cx.cdb, 0, sizeof(cx.cdb));
	cx.cdb[0] = SCSI_OP_THIRD_PARTY_COPY_OUT;
	tb_put32(cx.cdb + 10, (uint32_t)len);
	return cfx_run(&cx, d, xcopy_handle, list, len);
}

/* COPY ABORTED sense: asc/ascq, segment number in COMMAND-SPECIFIC
 * INFORMATION, segment pointer (SD=1) to seg_field or none (-1). */
static void expect_aborted(uint8_t asc, uint8_t ascq, uint32_t segno, int seg_field)
{
	assert_int_equal(SENSE[0], 0x70);
	assert_int_equal(SENSE[2], 0x0A);
	assert_int_equal(SENSE[7], 10);
	assert_int_equal(SENSE[12], asc);
	assert_int_equal(SENSE[13], ascq);
	assert_int_equal((uint32_t)SENSE[8] << 24 | (uint32_t)SENSE[9] << 16 | (uint32_t)SENSE[10] << 8 | SENSE[11],
			 segno);
	if (seg_field < 0) {
		assert_int_equal(SENSE[15], 0);
	} else {
		assert_int_equal(SENSE[15], 0x80 | 0x20);
		assert_int_equal(SENSE[16] << 8 | SENSE[17], seg_field);
	}
}

/* list: header + the CSCDs named by tgts + nseg segments written by caller */
static size_t begin_list(uint8_t list_id, uint8_t usage, const struct lunlab_dev *const *tgts, unsigned ntgt,
			 unsigned nseg)
{
	memset(list, 0, sizeof(list));
	tb_header(list, list_id, usage, (uint16_t)(ntgt * 32), nseg * 28, 0);
	for (unsigned i = 0; i < ntgt; i++)
		tb_tgt(list + 16 + i * 32, tgts[i]->naa, tgts[i]->block_size);
	return 16 + ntgt * 32 + nseg * 28;
}

static uint8_t *seg_at(unsigned ntgt, unsigned i)
{
	return list + 16 + ntgt * 32 + i * 28;
}

static void test_same_lun_copy(void **state)
{
	uint8_t src[65536], back[65536];
	const struct lunlab_dev *t[] = { &slu[0].dev };

	fill(src, sizeof(src));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	struct array_stats before = stats(arr_a);

	size_t len = begin_list(1, 2, t, 1, 1);
	tb_seg(seg_at(1, 0), 0, 0, false, 128, 0, 4096);   /* 64 KiB to 2 MiB */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	assert_int_equal(cx.cmd.xcopy_bytes, sizeof(src));
	assert_int_equal(cx.cmd.xcopy_segments, 1);

	get_data(&slu[0].dev, 4096 * 512, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
	/* metadata copy: 8 more map entries, no new unique block, the 8
	 * source blocks now have two references each */
	struct array_stats after = stats(arr_a);
	assert_int_equal(after.unique_blocks, before.unique_blocks);
	assert_int_equal(after.mapped_blocks, before.mapped_blocks + sizeof(src) / DEDUP);
	assert_int_equal(after.single_ref_blocks, before.single_ref_blocks - sizeof(src) / DEDUP);
	assert_int_equal(after.logical_bytes, before.logical_bytes + sizeof(src));
	assert_non_null(strstr(tcmu_log_last, "EXTENDED COPY"));
}

static void test_two_lun_copy(void **state)
{
	uint8_t src[32768], back[32768];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };

	fill(src, sizeof(src));
	put_data(&slu[0].dev, 1 << 20, src, sizeof(src));
	struct array_stats before = stats(arr_a);

	/* sg_xcopy / ESXi style: source index 0, destination index 1, sent to
	 * the source LU */
	size_t len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 64, 2048, 6144);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	get_data(&slu[1].dev, 6144 * 512, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
	struct array_stats after = stats(arr_a);
	assert_int_equal(after.unique_blocks, before.unique_blocks);
	assert_int_equal(after.mapped_blocks, before.mapped_blocks + sizeof(src) / DEDUP);

	/* the same list sent to the destination LU works as well */
	tb_seg(seg_at(2, 0), 0, 1, false, 64, 2048, 8192);
	assert_int_equal(xcopy_to(&slu[1].dev, len), TCMU_STS_OK);
	get_data(&slu[1].dev, 8192 * 512, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
	assert_int_equal(stats(arr_a).unique_blocks, before.unique_blocks);
}

static void test_unaligned_edges(void **state)
{
	uint8_t src[DEDUP * 2], old[DEDUP * 2], back[DEDUP * 2];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };

	fill(src, sizeof(src));
	fill(old, sizeof(old));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	put_data(&slu[1].dev, 64 * 512, old, sizeof(old));

	/* 3 blocks from LBA 1 to LBA 65: partial dedup blocks on both ends */
	size_t len = begin_list(0, 3, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 3, 1, 65);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	get_data(&slu[1].dev, 64 * 512, back, sizeof(back));
	assert_memory_equal(back, old, 512);                   /* LBA 64 untouched */
	assert_memory_equal(back + 512, src + 512, 3 * 512);   /* LBAs 65..67 copied */
	assert_memory_equal(back + 2048, old + 2048, sizeof(old) - 2048);
}

static void test_multi_segment_and_dc(void **state)
{
	uint8_t src[3 * DEDUP], back[DEDUP];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[2].dev };

	fill(src, sizeof(src));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	size_t len = begin_list(3, 2, t, 2, 3);
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 10);   /* 16 x 512 B into the 4 KiB LU */
	tb_seg(seg_at(2, 1), 0, 1, true, 2, 16, 20);    /* DC: 2 x 4096 B */
	tb_seg(seg_at(2, 2), 0, 0, false, 16, 32, 1024); /* same-LU segment */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	assert_int_equal(cx.cmd.xcopy_segments, 3);
	assert_int_equal(cx.cmd.xcopy_bytes, 3 * DEDUP);

	get_data(&slu[2].dev, 10 * 4096, back, DEDUP);
	assert_memory_equal(back, src, DEDUP);
	get_data(&slu[2].dev, 20 * 4096, back, DEDUP);
	assert_memory_equal(back, src + DEDUP, DEDUP);
	get_data(&slu[0].dev, 1024 * 512, back, DEDUP);
	assert_memory_equal(back, src + 2 * DEDUP, DEDUP);
}

/* A full array: a metadata copy of whole blocks needs no space and works; a
 * copy that must write new blocks (source and destination at different
 * offsets within a block: a data copy) is refused like a WRITE, 07/27/07,
 * with nothing written. */
static void test_full_array(void **state)
{
	uint8_t src[DEDUP * 4], back[DEDUP * 4], zero[DEDUP * 4];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };
	char *err = NULL;

	fill(src, sizeof(src));
	memset(zero, 0, sizeof(zero));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	struct array_space sp;
	array_flush_accounting(arr_a);
	array_get_space(arr_a, &sp);
	assert_int_equal(array_set_capacity(arr_a, sp.used_bytes, 0, &err), 0);

	size_t len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 64, 0, 1024);        /* aligned: map entries */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	get_data(&slu[1].dev, 1024 * 512, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
	tb_seg(seg_at(2, 0), 0, 1, false, 64, 0, 2049);        /* 512 bytes off: data */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[2], 0x07);                      /* DATA PROTECT */
	assert_int_equal(SENSE[12], 0x27);
	assert_int_equal(SENSE[13], 0x07);                     /* SPACE ALLOCATION FAILED WRITE PROTECT */
	get_data(&slu[1].dev, 2049 * 512, back, sizeof(back));
	assert_memory_equal(back, zero, sizeof(back));
}

static void test_copy_across_arrays_refused(void **state)
{
	uint8_t src[DEDUP], back[DEDUP], zero[DEDUP];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[3].dev };

	fill(src, sizeof(src));
	memset(zero, 0, sizeof(zero));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	size_t len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x02, 0, 6);
	get_data(&slu[3].dev, 0, back, sizeof(back));
	assert_memory_equal(back, zero, sizeof(zero));
	assert_int_equal(cx.cmd.xcopy_bytes, 0);
}

static void test_unknown_cscd_index(void **state)
{
	const struct lunlab_dev *t[] = { &slu[0].dev };

	/* libiscsi ValidSegDescr: destination index 1 with one descriptor */
	size_t len = begin_list(1, 0, t, 1, 1);
	tb_seg(seg_at(1, 0), 0, 1, false, 1, 0, 1);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x02, 0, 6);
	/* a designator that names no LU at all */
	len = begin_list(1, 2, t, 1, 1);
	list[16 + 8 + 15] = 0x99;
	tb_seg(seg_at(1, 0), 0, 0, false, 1, 0, 1);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x02, 0, 4);
}

static void test_range_past_end(void **state)
{
	uint8_t before[DEDUP], after[DEDUP];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };
	uint64_t last = slu[0].dev.num_lbas;

	get_data(&slu[1].dev, 0, before, sizeof(before));
	size_t len = begin_list(1, 2, t, 2, 2);
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 0);          /* fine ... */
	tb_seg(seg_at(2, 1), 0, 1, false, 16, 0, last - 15);  /* ... destination past the end */
	uint8_t src[DEDUP];
	fill(src, sizeof(src));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x02, 1, 20);
	/* validated before anything moved: segment 0 was not copied either */
	get_data(&slu[1].dev, 0, after, sizeof(after));
	assert_memory_equal(after, before, sizeof(before));
	assert_int_equal(cx.cmd.xcopy_segments, 0);

	tb_seg(seg_at(2, 1), 0, 1, false, 16, last - 15, 0);  /* source past the end */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x02, 1, 12);
	tb_seg(seg_at(2, 1), 0, 1, false, 16, UINT64_MAX - 3, 0); /* no wrap-around */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x02, 1, 12);
	tb_seg(seg_at(2, 1), 0, 1, false, 16, last - 16, last - 16); /* exactly the end: fine */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
}

/* A write-protected destination refuses the copy as a WRITE to it would,
 * before anything moved; a write-protected source is only read: fine. */
static void test_write_protected_destination(void **state)
{
	uint8_t src[DEDUP], before[DEDUP], back[DEDUP];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };

	fill(src, sizeof(src));
	put_data(&slu[0].dev, 0, src, sizeof(src));
	get_data(&slu[1].dev, 0, before, sizeof(before));
	size_t len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 0);

	slu[1].readonly = true;                 /* readonly=1 */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[2] & 0x0f, 0x07);
	assert_int_equal(SENSE[12], 0x27);
	assert_int_equal(SENSE[13], 0x00);
	slu[1].readonly = false;
	atomic_store(&slu[1].swp, true);        /* control mode page SWP */
	assert_int_equal(xcopy_to(&slu[1].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[2] & 0x0f, 0x07);
	assert_int_equal(SENSE[12], 0x27);
	assert_int_equal(SENSE[13], 0x02);
	atomic_store(&slu[1].swp, false);
	get_data(&slu[1].dev, 0, back, sizeof(back));
	assert_memory_equal(back, before, sizeof(before));

	slu[0].readonly = true;                 /* read-only source, sent to it */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	get_data(&slu[1].dev, 0, back, sizeof(back));
	assert_memory_equal(back, src, sizeof(src));
}

static void test_block_size_rules(void **state)
{
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[2].dev };

	/* DISK BLOCK LENGTH that is not the LU's */
	size_t len = begin_list(1, 2, t, 2, 1);
	list[16 + 32 + 30] = 0x02;                             /* says 512, the LU has 4096 */
	tb_seg(seg_at(2, 0), 0, 1, false, 8, 0, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x03, 0, 6);

	/* 3 x 512 bytes cannot land on 4096-byte blocks */
	len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 3, 0, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x26, 0x0A, 0, 10);

	/* a CSCD that is not a block device */
	len = begin_list(1, 2, t, 2, 1);
	list[16 + 1] = 0x01;                                   /* sequential access */
	tb_seg(seg_at(2, 0), 0, 1, false, 8, 0, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	expect_aborted(0x0D, 0x03, 0, 4);

	/* longer than the advertised maximum segment length */
	len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 1, 1, false, XCOPY_MAX_SEG_BYTES / 4096 + 1, 0, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[2], 0x05);
	assert_int_equal(SENSE[12], 0x26);
	assert_int_equal(SENSE[13], 0x00);
	assert_int_equal(SENSE[15], 0x80);
	assert_int_equal(SENSE[16] << 8 | SENSE[17], 16 + 64 + 10);

	/* zero blocks: nothing to do, GOOD */
	len = begin_list(1, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 0, 0, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	assert_int_equal(cx.cmd.xcopy_bytes, 0);
}

static void test_parameter_list_errors_through_handler(void **state)
{
	const struct lunlab_dev *t[] = { &slu[0].dev };

	assert_int_equal(xcopy_to(&slu[0].dev, 0), TCMU_STS_OK);    /* no parameter data: GOOD */
	size_t len = begin_list(1, 2, t, 1, 1);
	tb_seg(seg_at(1, 0), 0, 0, false, 1, 0, 1);
	tb_put32(list + 12, 8);                                 /* inline data */
	assert_int_equal(xcopy_to(&slu[0].dev, len + 8), TCMU_STS_PASSTHROUGH_ERR);
	const uint8_t want[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x26, 0x00, 0, 0x80, 0, 12 };
	assert_memory_equal(SENSE, want, sizeof(want));
	assert_int_equal(xcopy_to(&slu[0].dev, 15), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[12], 0x1A);
	assert_int_equal(SENSE[15], 0);
	/* the CDB claims more than was sent (EDTL below the PARAMETER LIST
	 * LENGTH): refused, INVALID FIELD IN CDB at the length, nothing copied */
	tb_put32(list + 12, 0);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	cx.cmd.iov_len = len - 1;
	cx.iov.iov_len = len - 1;
	assert_int_equal(xcopy_handle(&cx.cmd), TCMU_STS_PASSTHROUGH_ERR);
	const uint8_t short_list[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x00, 0, 0xc0, 0, 10 };
	assert_memory_equal(SENSE, short_list, sizeof(short_list));
	assert_int_equal(cx.cmd.xcopy_segments, 0);
}

/* RECEIVE COPY RESULTS (SA 0 / SA 4) after copies held with usage 00b */
static int rcr_to(struct lunlab_dev *d, uint8_t sa, uint8_t list_id, uint8_t *out, uint32_t alloc)
{
	memset(cx.cdb, 0, sizeof(cx.cdb));
	cx.cdb[0] = SCSI_OP_THIRD_PARTY_COPY_IN;
	cx.cdb[1] = sa;
	cx.cdb[2] = list_id;
	tb_put32(cx.cdb + 10, alloc);
	return cfx_run(&cx, d, rcr_handle, out, alloc);
}

static void test_held_list_then_copy_status(void **state)
{
	uint8_t out[128];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };

	size_t len = begin_list(1, 0, t, 2, 2);               /* LIST ID 1, hold */
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 100);
	tb_seg(seg_at(2, 1), 0, 1, false, 32, 16, 200);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	/* status is per LU: the LU that received the command holds it */
	assert_int_equal(rcr_to(&slu[1].dev, 0, 1, out, sizeof(out)), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(rcr_to(&slu[0].dev, 0, 1, out, sizeof(out)), TCMU_STS_OK);
	const uint8_t want[12] = { 0, 0, 0, 8, 0x01, 0, 2, 0x00, 0, 0, (48 * 512) >> 8, 0 };
	assert_memory_equal(out, want, sizeof(want));

	/* same list id again (libiscsi sends list id 1 repeatedly): replaces */
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
	/* a failing held copy replaces the good one: no COPY STATUS (unknown
	 * list id, as libiscsi's CopyStatus expects after ValidSegDescr), its
	 * sense in FAILED SEGMENT DETAILS */
	tb_seg(seg_at(2, 1), 0, 5, false, 32, 16, 200);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	uint8_t failed_sense[18];
	memcpy(failed_sense, SENSE, sizeof(failed_sense));
	assert_int_equal(rcr_to(&slu[0].dev, 0, 1, out, sizeof(out)), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[2], 0x05);
	assert_int_equal(SENSE[12], 0x24);
	assert_int_equal(rcr_to(&slu[0].dev, 4, 1, out, sizeof(out)), TCMU_STS_OK);
	assert_int_equal(out[56], 0x02);
	assert_int_equal(out[59], 18);
	assert_memory_equal(out + 60, failed_sense, 18);
}

static void test_busy_and_same_list_id(void **state)
{
	const struct lunlab_dev *t[] = { &slu[0].dev };
	int running[XCOPY_TOTAL_CONCURRENT];

	/* a copy with list id 5 is running on slu[0].dev (another host's, on another
	 * worker thread): the same id is not refused, initiators are unknown */
	running[0] = copy_reg_begin(&slu[0].dev, 0, COPY_KIND_XCOPY_LID1, true, 5, true);
	assert_true(running[0] >= 0);
	size_t len = begin_list(5, 2, t, 1, 1);
	tb_seg(seg_at(1, 0), 0, 0, false, 1, 0, 1);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);

	for (unsigned i = 1; i < XCOPY_TOTAL_CONCURRENT; i++) {
		running[i] = copy_reg_begin(&slu[0].dev, 0, COPY_KIND_XCOPY_LID1, false, 0, false);
		assert_true(running[i] >= 0);
	}
	len = begin_list(0, 3, t, 1, 1);
	tb_seg(seg_at(1, 0), 0, 0, false, 1, 0, 1);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_NO_RESOURCE);   /* TASK SET FULL */
	/* the limit is per receiving LU: slu[1].dev still copies (slu[0].dev -> slu[0].dev) */
	assert_int_equal(xcopy_to(&slu[1].dev, len), TCMU_STS_OK);
	struct copy_status st = { .cm_status = COPY_DONE_OK };
	for (unsigned i = 0; i < XCOPY_TOTAL_CONCURRENT; i++)
		copy_reg_end_xcopy(running[i], &st);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);
}

/* lunlab-target tells the nexus: list ids and held statuses are per session
 * (libiscsi opens a session per test and expects a fresh one to know no
 * list id), and a session may not reuse a list id it still has running. */
static void test_list_ids_per_nexus(void **state)
{
	uint8_t out[64];
	const struct lunlab_dev *t[] = { &slu[0].dev, &slu[1].dev };
	size_t len = begin_list(1, 0, t, 2, 1);

	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 100);
	host_double_nexus = 7;
	host_double_nexus_cmd = NULL;
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);        /* held for session 7 */
	assert_ptr_equal(host_double_nexus_cmd, &cx.lib);              /* found from scsi_cmd.sense */
	host_double_nexus = 8;
	assert_int_equal(rcr_to(&slu[0].dev, 0, 1, out, sizeof(out)), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[12], 0x24);                           /* unknown to session 8 */
	tb_seg(seg_at(2, 0), 0, 1, false, 32, 0, 100);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);        /* session 8's own list 1 */
	assert_int_equal(rcr_to(&slu[0].dev, 0, 1, out, sizeof(out)), TCMU_STS_OK);
	assert_int_equal(out[11] | out[10] << 8, 32 * 512);
	host_double_nexus = 7;
	assert_int_equal(rcr_to(&slu[0].dev, 0, 1, out, sizeof(out)), TCMU_STS_OK);
	assert_int_equal(out[11] | out[10] << 8, 16 * 512);

	/* session 7 still running list 2 on slu[0].dev: its second list 2 is refused */
	int running = copy_reg_begin(&slu[0].dev, 7, COPY_KIND_XCOPY_LID1, true, 2, false);
	assert_true(running >= 0);
	len = begin_list(2, 2, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 100);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(SENSE[2], 0x05);
	assert_int_equal(SENSE[12], 0x00);
	assert_int_equal(SENSE[13], 0x16);                           /* OPERATION IN PROGRESS */
	host_double_nexus = 8;
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);        /* another session: fine */
	struct copy_status st = { .cm_status = COPY_DONE_OK };
	copy_reg_end_xcopy(running, &st);

	/* one namespace with the token commands (SPC-4): session 7's running
	 * WRITE USING TOKEN with list id 3 makes its EXTENDED COPY list 3 a
	 * duplicate, exactly 70 00 05 .. 0A .. 00 16 with no field pointer */
	int wut = copy_reg_begin(&slu[0].dev, 7, COPY_KIND_WRITE_USING_TOKEN, true, 3, true);
	assert_true(wut >= 0);
	host_double_nexus = 7;
	len = begin_list(3, 0, t, 2, 1);
	tb_seg(seg_at(2, 0), 0, 1, false, 16, 0, 100);
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_PASSTHROUGH_ERR);
	const uint8_t in_progress[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x00, 0x16, 0, 0, 0, 0 };
	assert_memory_equal(SENSE, in_progress, sizeof(in_progress));
	host_double_nexus = 8;
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);        /* session 8's list 3 */
	struct odx_op done = { .sa = COPY_KIND_WRITE_USING_TOKEN, .status = ODX_OP_DONE };
	copy_reg_end_odx(wut, &done);
	host_double_nexus = 7;
	assert_int_equal(xcopy_to(&slu[0].dev, len), TCMU_STS_OK);        /* ended: free again */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_lun_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_lun_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_protected_destination, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unaligned_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multi_segment_and_dc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_array, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_across_arrays_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_cscd_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_range_past_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_size_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parameter_list_errors_through_handler, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_list_then_copy_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_and_same_list_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_ids_per_nexus, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
