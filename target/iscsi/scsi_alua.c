/* scsi_alua.c — ALUA in the command flow (scsi_alua.h).  Order at delivery,
 * as LIO's target core: unit attentions first (lu_nexus_take_ua, 06/2A/06
 * among them), then the port's access state, then reservations
 * (lu_pr_gate) and fault rules. */
#include "target/iscsi/scsi_alua.h"
#include "lunlab/scsi_vocab.h"

#include <string.h>

#include "target/iscsi/target.h"
#include "target/lu/alua.h"
#include "target/lu/lu_table.h"

static void answer(struct conn *c, struct icmd *ic, const struct alua_answer *a)
{
	scsi_cmd_answer(c, ic, a->status, a->sense, a->sense_len, a->data_len);
}

bool scsi_alua_deliver(struct conn *c, struct icmd *ic)
{
	struct lu_entry *e = ic->lc.lu_entry;
	const uint8_t *cdb = ic->lc.cdb;
	struct alua_answer a;
	enum alua_state s;

	if (!alua_tpgs(e) || cdb[0] == SCSI_OP_REPORT_LUNS)
		return false;
	s = alua_state_of(e, ic->lun, target_portal_tpgt(c->portal), NULL);
	if (alua_refuses(s, cdb, &a)) {
		answer(c, ic, &a);
		return true;
	}
	if (alua_owns(cdb) && cdb[0] == SCSI_OP_MAINTENANCE_IN) {
		if (ic->edtl && !ic->buf && scsi_cmd_alloc_buf(c, ic, ic->edtl) < 0) {
			conn_close(c, "out of memory");
			return true;
		}
		alua_report_tpgs(e, ic->lun, cdb, ic->buf, ic->buf ? ic->buf_len : 0, &a);
		answer(c, ic, &a);
		return true;
	}
	if (cdb[0] == SCSI_OP_MAINTENANCE_OUT && alua_owns(cdb) && ic->lc.dir != LU_DIR_WRITE)
		return scsi_alua_data_complete(c, ic); /* no Data-Out: answered now */
	return false; /* SET TARGET PORT GROUPS with data waits for it */
}

bool scsi_alua_data_complete(struct conn *c, struct icmd *ic)
{
	struct lu_entry *e = ic->lc.lu_entry;
	struct alua_answer a;
	bool changed;
	size_t len;

	if (!alua_tpgs(e) || ic->lc.cdb[0] != SCSI_OP_MAINTENANCE_OUT || !alua_owns(ic->lc.cdb))
		return false;
	len = ic->buf ? (ic->got_total < ic->buf_len ? ic->got_total : ic->buf_len) : 0;
	alua_set_tpgs(e, ic->lun, ic->lc.cdb, ic->buf, len, &a, &changed);
	if (changed) {
		/* every other I_T nexus gets 06/2A/06; the one that asked knows */
		lu_nexus_alua_seen(&c->lunx, e);
		target_log("ALUA: SET TARGET PORT GROUPS on LUN %llu from %s", (unsigned long long)ic->lun,
			   c->initiator);
	}
	a.data_len = len; /* Data-Out consumed */
	answer(c, ic, &a);
	return true;
}

void scsi_alua_inquiry(struct conn *c, struct icmd *ic, size_t *produced)
{
	uint8_t tpgs = alua_tpgs(ic->lc.lu_entry);

	if (!tpgs || ic->lc.cdb[0] != SCSI_OP_INQUIRY || !ic->buf)
		return;
	*produced = alua_patch_inquiry(tpgs, target_portal_tpgt(c->portal), ic->lc.cdb, ic->buf, *produced,
				       ic->buf_len);
}
