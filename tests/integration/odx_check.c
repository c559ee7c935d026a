/* odx_check.c — ODX (docs/xcopy.md) over iSCSI against lunlab-target, with
 * raw CDBs through libiscsi: odx_run.sh starts the target (LUNs below) and
 * runs
 *
 *   odx_check PORTAL IQN
 *
 *   LUN 0, 1: x2, array "odx" (ODX offered)     LUN 2: x2, array "other"
 *   LUN 3: unlimited (no ODX)                    LUN 4: x2, array "odx", with the
 *   rule lun=4,odx-fail-after=8 (every WRITE USING TOKEN to it stops after 8 blocks)
 *
 * Checks: VPD 8Fh offers ROD tokens on LUN 0 and not on LUN 3; a token
 * populated on LUN 0, the source overwritten, WRITE USING TOKEN on LUN 1
 * from a second session still writes the old data (read back), RRTI's
 * transfer count; another array's LUN refuses it (05/23/05); a partial
 * write by the fault rule (0A/0D/02, transfer count 8, 8 blocks written);
 * COPY OPERATION ABORT cancels the token (05/23/08); expiry after a 1 s
 * inactivity timeout (05/23/07, waited 2.5 s: a bound, not a race); no ODX
 * on LUN 3 (05/20/00).  One "ok:"/"FAIL:" line per check; exit 0 only if
 * none failed.  Data is small (256 KiB). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_util.h"
#include "lunlab/be.h"

#define BS 512
#define BLOCKS 512u   /* 256 KiB */
#define INI1 "iqn.2026-11.org.lunlab:odx-check-1"
#define INI2 "iqn.2026-11.org.lunlab:odx-check-2"
#define RRTI_LEN 568

static const char *g_portal, *g_iqn;

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t k = 0; k < n; k++)
		b[k] = (uint8_t)(seed * 131 + k * 7 + (k >> 9));
}

static struct outcome write10(struct iscsi_context *i, int lun, uint32_t lba, uint8_t *data, uint32_t blocks)
{
	return outcome_of(iscsi_write10_sync(i, lun, lba, data, blocks * BS, BS, 0, 0, 0, 0, 0));
}

static bool read_equals(struct iscsi_context *i, int lun, uint32_t lba, const uint8_t *want, uint32_t blocks)
{
	struct scsi_task *t = iscsi_read10_sync(i, lun, lba, blocks * BS, BS, 0, 0, 0, 0, 0);
	bool same = t && t->status == ST_GOOD && t->datain.size >= (int)(blocks * BS) &&
		    memcmp(t->datain.data, want, blocks * BS) == 0;

	if (t)
		scsi_free_scsi_task(t);
	return same;
}

/* POPULATE TOKEN of one range */
static struct outcome populate(struct iscsi_context *i, int lun, uint32_t list_id, uint32_t timeout, uint64_t lba,
			       uint32_t blocks)
{
	uint8_t cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN }, pl[32];

	memset(pl, 0, sizeof(pl));
	put_be16(pl, 30);
	put_be32(pl + 4, timeout);
	put_be16(pl + 14, 16);
	put_be64(pl + 16, lba);
	put_be32(pl + 24, blocks);
	put_be32(cdb + 6, list_id);
	put_be32(cdb + 10, sizeof(pl));
	return raw_cdb(i, lun, cdb, 16, SCSI_XFER_WRITE, sizeof(pl), pl);
}

static struct outcome write_using(struct iscsi_context *i, int lun, uint32_t list_id, const uint8_t tok[512],
				  uint64_t lba, uint32_t blocks)
{
	uint8_t cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_WRITE_USING_TOKEN }, pl[552];

	memset(pl, 0, sizeof(pl));
	put_be16(pl, sizeof(pl) - 2);
	memcpy(pl + 16, tok, 512);
	put_be16(pl + 534, 16);
	put_be64(pl + 536, lba);
	put_be32(pl + 544, blocks);
	put_be32(cdb + 6, list_id);
	put_be32(cdb + 10, sizeof(pl));
	return raw_cdb(i, lun, cdb, 16, SCSI_XFER_WRITE, sizeof(pl), pl);
}

/* RECEIVE ROD TOKEN INFORMATION into out[RRTI_LEN]; its status */
static int rrti(struct iscsi_context *i, int lun, uint32_t list_id, uint8_t *out)
{
	uint8_t cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION };
	struct scsi_task *t;

	put_be32(cdb + 2, list_id);
	put_be32(cdb + 10, RRTI_LEN);
	memset(out, 0, RRTI_LEN);
	t = scsi_create_task(16, cdb, SCSI_XFER_READ, RRTI_LEN);
	if (!t)
		return -1;
	if (!iscsi_scsi_command_sync(i, lun, t, NULL)) {
		scsi_free_scsi_task(t);
		return -1;
	}
	int st = t->status;
	if (st == ST_GOOD)
		memcpy(out, t->datain.data, t->datain.size < RRTI_LEN ? (size_t)t->datain.size : RRTI_LEN);
	scsi_free_scsi_task(t);
	return st;
}


/* VPD 8Fh: whether a Block Device ROD Token Limits descriptor (0000h) is in it */
static bool vpd_has_rod_limits(struct iscsi_context *i, int lun, uint16_t *max_ranges)
{
	struct scsi_task *t = iscsi_inquiry_sync(i, lun, 1, 0x8f, 1024);
	bool found = false;

	if (!t || t->status != ST_GOOD) {
		if (t)
			scsi_free_scsi_task(t);
		return false;
	}
	const uint8_t *p = t->datain.data;
	size_t total = t->datain.size < 4 ? 0 : 4 + (size_t)get_be16(p + 2);
	if (total > (size_t)t->datain.size)
		total = (size_t)t->datain.size;
	for (size_t off = 4; off + 4 <= total; off += 4 + get_be16(p + off + 2)) {
		if (get_be16(p + off) == 0x0000 && off + 12 <= total) {
			found = true;
			*max_ranges = get_be16(p + off + 10);
		}
	}
	scsi_free_scsi_task(t);
	return found;
}

int main(int argc, char **argv)
{
	static uint8_t a[BLOCKS * BS], b[BLOCKS * BS], r[RRTI_LEN];
	uint8_t tok[512];
	struct outcome o;
	uint16_t ranges = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: %s PORTAL IQN\n", argv[0]);
		return 2;
	}
	g_portal = argv[1];
	g_iqn = argv[2];
	struct iscsi_context *s1 = session(g_portal, g_iqn, INI1, 0, false);
	struct iscsi_context *s2 = session(g_portal, g_iqn, INI2, 1, false);
	if (!s1 || !s2) {
		printf("FAIL: login\n");
		return 1;
	}

	bool has = vpd_has_rod_limits(s1, 0, &ranges);
	check(has && ranges == 16, "VPD 8Fh of an x2 LU: Block Device ROD Token Limits, 16 ranges (got %u)", ranges);
	check(!vpd_has_rod_limits(s1, 3, &ranges), "VPD 8Fh of an unlimited LU: no ROD descriptors");

	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	check(write10(s1, 0, 0, a, BLOCKS).status == ST_GOOD, "source written");
	o = populate(s1, 0, 1, 0, 0, BLOCKS);
	check(o.status == ST_GOOD, "POPULATE TOKEN on LUN 0 (status %d sense %06x)", o.status, o.sense);
	check(rrti(s1, 0, 1, r) == ST_GOOD && r[4] == SCSI_SA_POPULATE_TOKEN && r[5] == 0x01 &&
	      get_be64(r + 16) == BLOCKS && get_be32(r + 50) == 514,
	      "RRTI after POPULATE TOKEN: completed, %u blocks, a 512-byte token", BLOCKS);
	memcpy(tok, r + 56, 512);
	check(get_be32(tok) == 0x00800000, "the token's ROD type is point in time copy - default");
	check(write10(s1, 0, 0, b, BLOCKS).status == ST_GOOD, "source overwritten after POPULATE TOKEN");

	o = write_using(s2, 1, 2, tok, 1024, BLOCKS);
	check(o.status == ST_GOOD, "WRITE USING TOKEN on LUN 1 from a second session (status %d sense %06x)",
	      o.status, o.sense);
	check(read_equals(s2, 1, 1024, a, BLOCKS), "LUN 1 holds the data of the point in time, not the overwrite");
	check(rrti(s2, 1, 2, r) == ST_GOOD && r[4] == SCSI_SA_WRITE_USING_TOKEN && get_be64(r + 16) == BLOCKS,
	      "RRTI after WRITE USING TOKEN: transfer count %u", BLOCKS);
	check(rrti(s1, 1, 2, r) == ST_CHECK, "list id 2 is the second session's: the first gets CHECK CONDITION");

	o = write_using(s1, 2, 3, tok, 0, 8);
	check(o.status == ST_CHECK && o.sense == 0x052305, "another array's LU refuses the token 05/23/05 (got %06x)",
	      o.sense);

	o = write_using(s1, 4, 4, tok, 0, 64);
	check(o.status == ST_CHECK && o.sense == 0x0a0d02, "odx-fail-after=8: COPY ABORTED 0D/02 (got %d %06x)",
	      o.status, o.sense);
	int st = rrti(s1, 4, 4, r);
	check(st == ST_GOOD && r[5] == 0x02 && get_be64(r + 16) == 8,
	      "RRTI of the partial write: completed with errors, transfer count 8 (got %u)",
	      (unsigned)get_be64(r + 16));
	check(read_equals(s1, 4, 0, a, 8), "the 8 blocks before the break are written");

	uint8_t abort_cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_COPY_OPERATION_ABORT };
	put_be32(abort_cdb + 2, 1);
	o = raw_cdb(s1, 0, abort_cdb, 16, SCSI_XFER_NONE, 0, NULL);
	check(o.status == ST_GOOD, "COPY OPERATION ABORT of list 1");
	o = write_using(s2, 1, 5, tok, 0, 8);
	check(o.status == ST_CHECK && o.sense == 0x052308, "the aborted list's token is cancelled 05/23/08 (got %06x)",
	      o.sense);

	check(populate(s1, 0, 6, 1, 0, 8).status == ST_GOOD && rrti(s1, 0, 6, r) == ST_GOOD,
	      "a token with a 1 s inactivity timeout");
	memcpy(tok, r + 56, 512);
	usleep(2500 * 1000);
	o = write_using(s1, 1, 7, tok, 0, 8);
	check(o.status == ST_CHECK && o.sense == 0x052307, "unused for 2.5 s it has expired 05/23/07 (got %06x)",
	      o.sense);

	o = populate(s1, 3, 8, 0, 0, 8);
	check(o.status == ST_CHECK && o.sense == 0x052000, "no ODX on an unlimited LU: 05/20/00 (got %06x)", o.sense);

	session_end(s1);
	session_end(s2);
	return g_failed ? 1 : 0;
}
