/* persist_check.c — what lunlab-target --state-dir keeps across a restart,
 * seen by an initiator (tests/integration/persist.sh drives it):
 *
 *   persist_check before PORTAL IQN   on LUN 0: REGISTER key 0xABC with APTPL=1
 *                                     and RESERVE Write Exclusive; MODE SELECT
 *                                     WCE=0 with SP=1 (saved); on LUN 1: MODE
 *                                     SELECT WCE=0 with SP=0 (current only)
 *   persist_check after PORTAL IQN    after a restart: LUN 1's first TEST UNIT
 *                                     READY gets 06/29/01 once; LUN 0 still has
 *                                     the registration and the reservation
 *                                     (READ KEYS, READ RESERVATION), REPORT
 *                                     CAPABILITIES says PTPL_C and PTPL_A; LUN 0's
 *                                     WCE is 0 (current and saved), LUN 1's is 1
 *                                     again (its change was not saved)
 *   persist_check memory PORTAL IQN   without --state-dir: PTPL_C 0, APTPL=1
 *                                     refused (05/26/00), PC=3 05/39/00
 *
 * Prints "ok: ..." per check, "FAIL: ..." otherwise; exit 0 when all pass. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"

static int failures;

__attribute__((format(printf, 2, 3)))
static void expect(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failures += !ok;
}

static struct iscsi_context *login(const char *portal, const char *iqn, int lun)
{
	struct iscsi_context *is = iscsi_create_context("iqn.2026-11.org.lunlab:persist-check");

	if (!is)
		return NULL;
	iscsi_set_targetname(is, iqn);
	iscsi_set_session_type(is, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(is, 30);
	if (iscsi_full_connect_sync(is, portal, lun) != 0) {
		fprintf(stderr, "login to %s: %s\n", portal, iscsi_get_error(is));
		iscsi_destroy_context(is);
		return NULL;
	}
	return is;
}

/* a raw CDB; data out (dout) or in (din_len); returns the task (caller frees) */
static struct scsi_task *raw(struct iscsi_context *is, int lun, const uint8_t *cdb, int cdb_len, const uint8_t *dout,
			     size_t dout_len, size_t din_len)
{
	struct scsi_task *t = calloc(1, sizeof(*t));
	struct iscsi_data d = { .size = dout_len, .data = (unsigned char *)dout };

	memcpy(t->cdb, cdb, (size_t)cdb_len);
	t->cdb_size = cdb_len;
	t->xfer_dir = dout_len ? SCSI_XFER_WRITE : din_len ? SCSI_XFER_READ : SCSI_XFER_NONE;
	t->expxferlen = (int)(dout_len ? dout_len : din_len);
	if (!iscsi_scsi_command_sync(is, lun, t, dout_len ? &d : NULL)) {
		scsi_free_scsi_task(t);
		return NULL;
	}
	return t;
}

static void drop(struct scsi_task **t)
{
	if (*t)
		scsi_free_scsi_task(*t);
	*t = NULL;
}

static bool check_cond(struct scsi_task *t, int key, int asc, int ascq)
{
	return t && t->status == SCSI_STATUS_CHECK_CONDITION && (int)t->sense.key == key &&
	       t->sense.ascq == (asc << 8 | ascq);
}

/* PERSISTENT RESERVE OUT with the 24-byte list */
static struct scsi_task *prout(struct iscsi_context *is, int lun, int sa, int type, uint64_t rk, uint64_t sark,
			       uint8_t flags)
{
	uint8_t cdb[10] = { SCSI_OP_PERSISTENT_RESERVE_OUT, (uint8_t)sa, (uint8_t)type, 0, 0, 0, 0, 0, 24, 0 }, pl[24] = { 0 };

	for (int i = 0; i < 8; i++) {
		pl[i] = (uint8_t)(rk >> (56 - 8 * i));
		pl[8 + i] = (uint8_t)(sark >> (56 - 8 * i));
	}
	pl[20] = flags;
	return raw(is, lun, cdb, 10, pl, 24, 0);
}

static struct scsi_task *prin(struct iscsi_context *is, int lun, int sa)
{
	uint8_t cdb[10] = { SCSI_OP_PERSISTENT_RESERVE_IN, (uint8_t)sa, 0, 0, 0, 0, 0, 1, 0, 0 };

	return raw(is, lun, cdb, 10, NULL, 0, 256);
}

/* MODE SELECT(10) of the caching page with WCE; sp: save */
static struct scsi_task *set_wce(struct iscsi_context *is, int lun, bool wce, bool sp)
{
	uint8_t cdb[10] = { SCSI_OP_MODE_SELECT_10, (uint8_t)(0x10 | (sp ? 1 : 0)), 0, 0, 0, 0, 0, 0, 28, 0 }, pl[28] = { 0 };

	pl[8] = 0x08;
	pl[9] = 18;
	pl[10] = wce ? 0x04 : 0;
	return raw(is, lun, cdb, 10, pl, 28, 0);
}

/* WCE of the caching page for page control pc (0 current, 3 saved); -1 error */
static int get_wce(struct iscsi_context *is, int lun, int pc, struct scsi_task **keep)
{
	uint8_t cdb[10] = { SCSI_OP_MODE_SENSE_10, 0x08, (uint8_t)(pc << 6 | 0x08), 0, 0, 0, 0, 0, 64, 0 };
	struct scsi_task *t = raw(is, lun, cdb, 10, NULL, 0, 64);
	int wce = -1;

	if (t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 11)
		wce = (t->datain.data[8 + 2] & 0x04) != 0;
	if (keep)
		*keep = t;
	else if (t)
		scsi_free_scsi_task(t);
	return wce;
}

static struct scsi_task *tur(struct iscsi_context *is, int lun)
{
	uint8_t cdb[6] = { 0 };

	return raw(is, lun, cdb, 6, NULL, 0, 0);
}

static int before(struct iscsi_context *is)
{
	struct scsi_task *t;

	t = tur(is, 1); /* LUN 1's power-on unit attention (LUN 0's went to the login's TEST UNIT READY) */
	drop(&t);
	t = prout(is, 0, 0, 0, 0, 0xabc, 0x01);
	expect(t && t->status == SCSI_STATUS_GOOD, "REGISTER with APTPL=1 accepted");
	drop(&t);
	t = prout(is, 0, 1, 1, 0xabc, 0, 0);
	expect(t && t->status == SCSI_STATUS_GOOD, "RESERVE Write Exclusive");
	drop(&t);
	t = set_wce(is, 0, false, true);
	expect(t && t->status == SCSI_STATUS_GOOD, "LUN 0: MODE SELECT WCE=0 SP=1 (saved)");
	drop(&t);
	t = set_wce(is, 1, false, false);
	expect(t && t->status == SCSI_STATUS_GOOD, "LUN 1: MODE SELECT WCE=0 SP=0 (current only)");
	drop(&t);
	expect(get_wce(is, 1, 0, NULL) == 0, "LUN 1: current WCE 0");
	expect(get_wce(is, 1, 3, NULL) == 1, "LUN 1: saved WCE still 1");
	return 0;
}

static int after(struct iscsi_context *is)
{
	struct scsi_task *t = tur(is, 1);

	expect(check_cond(t, 6, 0x29, 0x01), "LUN 1: first TEST UNIT READY after the restart: 06/29/01 POWER ON OCCURRED");
	drop(&t);
	t = tur(is, 1);
	expect(t && t->status == SCSI_STATUS_GOOD, "LUN 1: reported once");
	drop(&t);
	t = prin(is, 0, 0);
	expect(t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 16 && t->datain.data[7] == 8 &&
		       t->datain.data[14] == 0x0a && t->datain.data[15] == 0xbc,
	       "READ KEYS: the APTPL registration 0xABC is back");
	drop(&t);
	t = prin(is, 0, 1);
	expect(t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 24 && t->datain.data[7] == 16 &&
		       t->datain.data[21] == 1,
	       "READ RESERVATION: Write Exclusive is held");
	drop(&t);
	t = prin(is, 0, 2);
	expect(t && t->status == SCSI_STATUS_GOOD && t->datain.size >= 4 && (t->datain.data[2] & 1) &&
		       (t->datain.data[3] & 1),
	       "REPORT CAPABILITIES: PTPL_C and PTPL_A");
	drop(&t);
	expect(get_wce(is, 0, 0, NULL) == 0, "LUN 0: current WCE 0 (the saved value at power on)");
	expect(get_wce(is, 0, 3, NULL) == 0, "LUN 0: saved WCE 0");
	expect(get_wce(is, 1, 0, NULL) == 1, "LUN 1: current WCE 1 again (its change was not saved)");
	/* the registration is the old session's initiator port (its ISID):
	 * this session is another port, fenced off by the reservation */
	uint8_t w10[10] = { SCSI_OP_WRITE_10, 0, 0, 0, 0, 0, 0, 0, 1, 0 }, blk[512] = { 0 };
	t = raw(is, 0, w10, 10, blk, sizeof(blk), 0);
	expect(t && t->status == SCSI_STATUS_RESERVATION_CONFLICT, "WRITE(10) from another initiator port: RESERVATION CONFLICT");
	drop(&t);
	return 0;
}

static int memory(struct iscsi_context *is)
{
	struct scsi_task *t = prin(is, 0, 2), *m = NULL;

	expect(t && t->status == SCSI_STATUS_GOOD && !(t->datain.data[2] & 1), "in memory: PTPL_C 0");
	drop(&t);
	t = prout(is, 0, 0, 0, 0, 0xabc, 0x01);
	expect(check_cond(t, 5, 0x26, 0x00), "in memory: APTPL=1 refused 05/26/00");
	drop(&t);
	(void)get_wce(is, 0, 3, &m);
	expect(check_cond(m, 5, 0x39, 0x00), "in memory: MODE SENSE saved values 05/39/00");
	drop(&m);
	t = set_wce(is, 0, true, true);
	expect(check_cond(t, 5, 0x24, 0x00), "in memory: MODE SELECT SP=1 05/24/00");
	drop(&t);
	return 0;
}

int main(int argc, char **argv)
{
	struct iscsi_context *is;

	if (argc != 4) {
		fprintf(stderr, "usage: persist_check before|after|memory PORTAL IQN\n");
		return 2;
	}
	is = login(argv[2], argv[3], 0);
	if (!is)
		return 1;
	if (!strcmp(argv[1], "before"))
		before(is);
	else if (!strcmp(argv[1], "after"))
		after(is);
	else
		memory(is);
	iscsi_logout_sync(is);
	iscsi_destroy_context(is);
	return failures ? 1 : 0;
}
