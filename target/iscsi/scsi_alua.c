/* scsi_alua.c — ALUA in the command flow (scsi_alua.h).  Order at delivery,
 * as LIO's target core: unit attentions first (LUN RESET, then ASYMMETRIC
 * ACCESS STATE CHANGED), then the port's access state, then reservations
 * (lu_pr_gate) and fault rules. */
#include "target/iscsi/scsi_alua.h"

#include <stdlib.h>
#include <string.h>

#include "target/iscsi/target.h"
#include "target/lu/alua.h"
#include "target/lu/lu_table.h"

void scsi_alua_nexus_start(struct conn *c, size_t n)
{
	c->alua_seen = n ? calloc(n, sizeof(*c->alua_seen)) : NULL;
	c->alua_seen_n = c->alua_seen ? n : 0;
	for (size_t i = 0; i < c->alua_seen_n; i++)
		c->alua_seen[i] = alua_gen(i);
}

static void answer(struct conn *c, struct icmd *ic, const struct alua_answer *a)
{
	scsi_cmd_answer(c, ic, a->status, a->sense, a->sense_len, a->data_len);
}

bool scsi_alua_deliver(struct conn *c, struct icmd *ic)
{
	uint8_t tpgs = ic->be ? ic->be->tpgs : 0;
	const uint8_t *cdb = ic->lc.cdb;
	struct alua_answer a;
	enum alua_state s;

	if (!tpgs || cdb[0] == 0xa0)
		return false;
	if (ic->lun < c->alua_seen_n && cdb[0] != 0x12 && cdb[0] != 0x03) {
		uint64_t gen = alua_gen(ic->lun);
		if (c->alua_seen[ic->lun] != gen) {
			c->alua_seen[ic->lun] = gen;
			memset(&a, 0, sizeof(a));
			a.status = 0x02;
			a.sense_len = lu_sense_fixed(a.sense, 0x06, 0x2a, 0x06, -1); /* ASYMMETRIC ACCESS STATE CHANGED */
			answer(c, ic, &a);
			return true;
		}
	}
	s = alua_state_of(ic->lun, tpgs, target_portal_tpgt(c->portal), NULL);
	if (alua_refuses(s, cdb, &a)) {
		answer(c, ic, &a);
		return true;
	}
	if (alua_owns(cdb) && cdb[0] == 0xa3) { /* REPORT TARGET PORT GROUPS */
		if (ic->edtl && !ic->buf && scsi_cmd_alloc_buf(c, ic, ic->edtl) < 0) {
			conn_close(c, "out of memory");
			return true;
		}
		alua_report_tpgs(ic->lun, tpgs, cdb, ic->buf, ic->buf ? ic->buf_len : 0, &a);
		answer(c, ic, &a);
		return true;
	}
	if (cdb[0] == 0xa4 && alua_owns(cdb) && ic->lc.dir != LU_DIR_WRITE)
		return scsi_alua_data_complete(c, ic); /* no Data-Out: answered now */
	return false; /* SET TARGET PORT GROUPS with data waits for it */
}

bool scsi_alua_data_complete(struct conn *c, struct icmd *ic)
{
	uint8_t tpgs = ic->be ? ic->be->tpgs : 0;
	struct alua_answer a;
	bool changed;
	size_t len;

	if (!tpgs || ic->lc.cdb[0] != 0xa4 || !alua_owns(ic->lc.cdb))
		return false;
	len = ic->buf ? (ic->got_total < ic->buf_len ? ic->got_total : ic->buf_len) : 0;
	alua_set_tpgs(ic->lun, tpgs, ic->lc.cdb, ic->buf, len, &a, &changed);
	if (changed) {
		/* every other I_T nexus gets 06/2A/06; the one that asked knows */
		if (ic->lun < c->alua_seen_n)
			c->alua_seen[ic->lun] = alua_gen(ic->lun);
		target_log("ALUA: SET TARGET PORT GROUPS on LUN %llu from %s", (unsigned long long)ic->lun,
			   c->initiator);
	}
	a.data_len = len; /* Data-Out consumed */
	answer(c, ic, &a);
	return true;
}

void scsi_alua_inquiry(struct conn *c, struct icmd *ic, size_t *produced)
{
	uint8_t tpgs = ic->be ? ic->be->tpgs : 0;

	if (!tpgs || ic->lc.cdb[0] != 0x12 || !ic->buf)
		return;
	*produced = alua_patch_inquiry(tpgs, target_portal_tpgt(c->portal), ic->lc.cdb, ic->buf, *produced,
				       ic->buf_len);
}
