/*
 * edtl_check: every command that carries data, sent with an iSCSI Expected Data Transfer
 * Length (EDTL) that does not match what its CDB describes, against a real LUN; the data is
 * read back each time.  A command is carried out exactly as far as its data reaches or refused
 * with nothing changed, never acknowledged with its data dropped or replaced by zeros.
 *
 *   edtl_check URL
 *
 *   WRITE(10)/(16), WRITE AND VERIFY(10)/(16): EDTL 1.5 blocks, 200 bytes and 0 for 2 blocks:
 *     GOOD, residual overflow, exactly EDTL bytes written (the rest of a block partly covered
 *     keeps its bytes); EDTL 3 blocks for 2: GOOD, residual underflow, 2 blocks written
 *   WRITE SAME(16), COMPARE AND WRITE, ORWRITE(16), WRITE ATOMIC(16), VERIFY(16) BYTCHK=1:
 *     less (or, for WRITE SAME and COMPARE AND WRITE, more) data than the CDB needs:
 *     CHECK CONDITION 05/0E/03 INVALID FIELD IN COMMAND INFORMATION UNIT, nothing written
 *   UNMAP, MODE SELECT(10): fewer bytes than the PARAMETER LIST LENGTH: CHECK CONDITION
 *     05/24/00 INVALID FIELD IN CDB, nothing unmapped or changed
 *
 * Exit status: 0 every case as above, 1 a case failed (printed), 2 usage or connection error.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "tests/lib/check_fail.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static struct iscsi_context *iscsi;
static int lun;
static uint32_t bs;


struct answer {
	int status, key, asc, ascq;
	enum scsi_residual rs;
	uint32_t residual;
};

/* Send cdb (cdblen bytes) with edtl bytes of data from data (write direction). */
static struct answer send_write(const uint8_t *cdb, int cdblen, uint8_t *data, uint32_t edtl)
{
	struct scsi_task *t = calloc(1, sizeof(*t));
	struct iscsi_data d = { .size = edtl, .data = data };
	struct answer a = { .status = -1 };

	memcpy(t->cdb, cdb, (size_t)cdblen);
	t->cdb_size = cdblen;
	t->xfer_dir = SCSI_XFER_WRITE;
	t->expxferlen = edtl;
	if (!iscsi_scsi_command_sync(iscsi, lun, t, edtl ? &d : NULL)) {
		ll_check_fail("command 0x%02x not sent: %s", cdb[0], iscsi_get_error(iscsi));
		scsi_free_scsi_task(t);
		return a;
	}
	a.status = t->status;
	a.key = t->sense.key;
	a.asc = (t->sense.ascq >> 8) & 0xff;
	a.ascq = t->sense.ascq & 0xff;
	a.rs = t->residual_status;
	a.residual = (uint32_t)t->residual;
	scsi_free_scsi_task(t);
	return a;
}

static void write16(uint64_t lba, const uint8_t *buf, uint32_t n)
{
	struct scsi_task *t = iscsi_write16_sync(iscsi, lun, lba, (uint8_t *)buf, n * bs, (int)bs, 0, 0, 0, 0, 0);
	if (!t || t->status != SCSI_STATUS_GOOD)
		ll_check_fail("WRITE(16) of %u blocks at %" PRIu64 ": %s", n, lba, iscsi_get_error(iscsi));
	if (t)
		scsi_free_scsi_task(t);
}

static void read16(uint64_t lba, uint8_t *buf, uint32_t n)
{
	struct scsi_task *t = iscsi_read16_sync(iscsi, lun, lba, n * bs, (int)bs, 0, 0, 0, 0, 0);
	if (!t || t->status != SCSI_STATUS_GOOD || t->datain.size != (int)(n * bs)) {
		ll_check_fail("READ(16) of %u blocks at %" PRIu64 ": %s", n, lba, iscsi_get_error(iscsi));
		memset(buf, 0, (size_t)n * bs);
	} else {
		memcpy(buf, t->datain.data, (size_t)n * bs);
	}
	if (t)
		scsi_free_scsi_task(t);
}

static void expect(const char *what, struct answer a, int status, int key, int asc, int ascq,
		   enum scsi_residual rs, uint32_t residual)
{
	if (a.status != status || (status == SCSI_STATUS_CHECK_CONDITION &&
				   (a.key != key || a.asc != asc || a.ascq != ascq)))
		ll_check_fail("%s: status 0x%02x sense %x/%02x/%02x, want 0x%02x %x/%02x/%02x", what, a.status, a.key, a.asc,
		     a.ascq, status, key, asc, ascq);
	else if (rs != (enum scsi_residual)-1 && (a.rs != rs || a.residual != residual))
		ll_check_fail("%s: residual kind %d count %u, want kind %d count %u", what, a.rs, a.residual, rs, residual);
	else
		printf("ok: %s\n", what);
}

/* The 4 blocks at lba must hold new[0..changed) then old[changed..). */
static void expect_data(const char *what, uint64_t lba, const uint8_t *old, const uint8_t *neu, size_t changed)
{
	uint8_t *got = malloc(4 * (size_t)bs);
	read16(lba, got, 4);
	for (size_t i = 0; i < 4 * (size_t)bs; i++) {
		uint8_t want = i < changed ? neu[i] : old[i];
		if (got[i] != want) {
			ll_check_fail("%s: byte %zu of LBA %" PRIu64 ".. is 0x%02x, want 0x%02x (%s)", what, i, lba, got[i], want,
			     i < changed ? "written" : "untouched");
			break;
		}
	}
	free(got);
}

static void rw_cdb(uint8_t *cdb, uint8_t op, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	if (op == SCSI_OP_WRITE_10 || op == SCSI_OP_WRITE_AND_VERIFY_10) {
		put_be32(cdb + 2, (uint32_t)lba);
		put_be16(cdb + 7, (uint16_t)n);
	} else {
		put_be64(cdb + 2, lba);
		put_be32(cdb + 10, n);
	}
}

static void writes(uint64_t lba, uint8_t *old, uint8_t *neu)
{
	static const struct { uint8_t op; int len; const char *name; } ops[] = {
		{ 0x2a, 10, "WRITE(10)" }, { 0x8a, 16, "WRITE(16)" },
		{ 0x2e, 10, "WRITE AND VERIFY(10)" }, { 0x8e, 16, "WRITE AND VERIFY(16)" },
	};
	const uint32_t edtls[] = { bs + bs / 2, 200, 0, 3 * bs };
	char what[128];
	uint8_t cdb[16];

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		for (size_t e = 0; e < sizeof(edtls) / sizeof(edtls[0]); e++) {
			uint32_t edtl = edtls[e];
			write16(lba, old, 4);
			rw_cdb(cdb, ops[k].op, lba, 2);
			snprintf(what, sizeof(what), "%s of 2 blocks with EDTL %u (block %u)", ops[k].name, edtl, bs);
			struct answer a = send_write(cdb, ops[k].len, neu, edtl);
			if (edtl < 2 * bs)
				expect(what, a, SCSI_STATUS_GOOD, 0, 0, 0, SCSI_RESIDUAL_OVERFLOW, 2 * bs - edtl);
			else
				expect(what, a, SCSI_STATUS_GOOD, 0, 0, 0, SCSI_RESIDUAL_UNDERFLOW, edtl - 2 * bs);
			expect_data(what, lba, old, neu, edtl < 2 * bs ? edtl : 2 * bs);
		}
}

/* Block-data commands other than READ/WRITE: the data must be all there. */
static void refused_block_data(uint64_t lba, uint8_t *old, uint8_t *neu)
{
	uint8_t cdb[16];
	char what[128];

	write16(lba, old, 4);
	/* WRITE SAME(16) of 4 blocks: half a block, then two blocks of data */
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_WRITE_SAME_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, 4);
	snprintf(what, sizeof(what), "WRITE SAME(16) with half a block of data");
	expect(what, send_write(cdb, 16, neu, bs / 2), SCSI_STATUS_CHECK_CONDITION, 5, 0x0e, 0x03, -1, 0);
	snprintf(what, sizeof(what), "WRITE SAME(16) with two blocks of data");
	expect(what, send_write(cdb, 16, neu, 2 * bs), SCSI_STATUS_CHECK_CONDITION, 5, 0x0e, 0x03, -1, 0);
	expect_data("WRITE SAME(16) refused", lba, old, neu, 0);
	/* COMPARE AND WRITE of 1 block needs 2 blocks of data: send 1.5, then the right verify
	 * data but only half the write data */
	uint8_t *caw = malloc(2 * (size_t)bs);
	memcpy(caw, old, bs);
	memcpy(caw + bs, neu, bs);
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_COMPARE_AND_WRITE;
	put_be64(cdb + 2, lba);
	cdb[13] = 1;
	expect("COMPARE AND WRITE with 1.5 of 2 blocks of data",
	       send_write(cdb, 16, caw, bs + bs / 2), SCSI_STATUS_CHECK_CONDITION, 5, 0x0e, 0x03, -1, 0);
	expect_data("COMPARE AND WRITE refused", lba, old, neu, 0);
	free(caw);
	/* ORWRITE(16) and WRITE ATOMIC(16) of 2 blocks with 1.5 blocks of data */
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_ORWRITE_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, 2);
	expect("ORWRITE(16) of 2 blocks with 1.5 blocks of data", send_write(cdb, 16, neu, bs + bs / 2),
	       SCSI_STATUS_CHECK_CONDITION, 5, 0x0e, 0x03, -1, 0);
	expect_data("ORWRITE(16) refused", lba, old, neu, 0);
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_WRITE_ATOMIC_16;
	put_be64(cdb + 2, lba);
	put_be16(cdb + 12, 2);
	expect("WRITE ATOMIC(16) of 2 blocks with 1.5 blocks of data", send_write(cdb, 16, neu, bs + bs / 2),
	       SCSI_STATUS_CHECK_CONDITION, 5, 0x0e, 0x03, -1, 0);
	expect_data("WRITE ATOMIC(16) refused", lba, old, neu, 0);
	/* VERIFY(16) BYTCHK=01b of 2 blocks with one block of (matching) data: not GOOD */
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_VERIFY_16;
	cdb[1] = 0x02;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, 2);
	expect("VERIFY(16) BYTCHK=1 of 2 blocks with 1 block of data", send_write(cdb, 16, old, bs),
	       SCSI_STATUS_CHECK_CONDITION, 5, 0x0e, 0x03, -1, 0);
	expect("VERIFY(16) BYTCHK=1 of 2 blocks with all the data", send_write(cdb, 16, old, 2 * bs),
	       SCSI_STATUS_GOOD, 0, 0, 0, -1, 0);
}

/* Parameter lists cut short by the EDTL. */
static void refused_param_lists(uint64_t lba, uint8_t *old, uint8_t *neu)
{
	uint8_t cdb[16], list[24];

	write16(lba, old, 4);
	memset(list, 0, sizeof(list));
	put_be16(list, 22);
	put_be16(list + 2, 16);
	put_be64(list + 8, lba);
	put_be32(list + 16, 4);
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_UNMAP;
	put_be16(cdb + 7, sizeof(list));
	expect("UNMAP with 20 of its 24 parameter bytes", send_write(cdb, 10, list, 20),
	       SCSI_STATUS_CHECK_CONDITION, 5, 0x24, 0x00, -1, 0);
	expect_data("UNMAP refused", lba, old, neu, 0);
	/* MODE SELECT(10): header + caching page (20 bytes), 4 bytes short */
	uint8_t ms[28];
	memset(ms, 0, sizeof(ms));
	ms[8] = 0x08;
	ms[9] = 0x12;
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_MODE_SELECT_10;
	cdb[1] = 0x10;
	put_be16(cdb + 7, sizeof(ms));
	expect("MODE SELECT(10) with 24 of its 28 parameter bytes", send_write(cdb, 10, ms, 24),
	       SCSI_STATUS_CHECK_CONDITION, 5, 0x24, 0x00, -1, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s URL\n", argv[0]);
		return 2;
	}
	iscsi = iscsi_create_context("iqn.2026-11.org.lunlab:edtl-check");
	struct iscsi_url *u = iscsi ? iscsi_parse_full_url(iscsi, argv[1]) : NULL;
	if (!u) {
		fprintf(stderr, "bad URL '%s'\n", argv[1]);
		return 2;
	}
	iscsi_set_targetname(iscsi, u->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(iscsi, 60);
	if (iscsi_full_connect_sync(iscsi, u->portal, u->lun) != 0) {
		fprintf(stderr, "login to %s failed: %s\n", argv[1], iscsi_get_error(iscsi));
		return 2;
	}
	lun = u->lun;
	iscsi_destroy_url(u);
	struct scsi_task *t = iscsi_readcapacity16_sync(iscsi, lun);
	struct scsi_readcapacity16 *rc16 = t && t->status == SCSI_STATUS_GOOD ? scsi_datain_unmarshall(t) : NULL;
	if (!rc16) {
		fprintf(stderr, "READ CAPACITY(16) failed: %s\n", iscsi_get_error(iscsi));
		return 2;
	}
	bs = rc16->block_length;
	scsi_free_scsi_task(t);

	uint8_t *old = malloc(4 * (size_t)bs), *neu = malloc(4 * (size_t)bs);
	for (size_t i = 0; i < 4 * (size_t)bs; i++) {
		old[i] = (uint8_t)(0x11 + i * 7 + (i >> 9));
		neu[i] = (uint8_t)(0xa0 + i * 13 + (i >> 8));
	}
	/* LBA 1000: not aligned to the array's dedup block, so partial blocks go through
	 * read-modify-write of stored content */
	writes(1000, old, neu);
	refused_block_data(2000, old, neu);
	refused_param_lists(3000, old, neu);
	free(old);
	free(neu);
	iscsi_logout_sync(iscsi);
	iscsi_destroy_context(iscsi);
	printf("%s\n", ll_check_failures ? "edtl_check: FAIL" : "edtl_check: PASS");
	return ll_check_failures ? 1 : 0;
}
