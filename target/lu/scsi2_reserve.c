/* scsi2_reserve.c — RESERVE(6)/(10) and RELEASE(6)/(10) (SPC-2 7.21-7.24),
 * the whole-LU reservations of one I_T nexus, and how they meet persistent
 * reservations: REPORT CAPABILITIES sets CRH, so SPC-4 5.13.3 applies
 * (a holder of the persistent reservation gets GOOD without effect, anyone
 * else RESERVATION CONFLICT). */
#include "lunlab/scsi_vocab.h"
#include "target/lu/pr_internal.h"

void scsi2_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
		   uint64_t nexus_id, struct pr_answer *ans)
{
	bool reserve = cdb[0] == SCSI_OP_RESERVE_6 || cdb[0] == SCSI_OP_RESERVE_10;

	/* third-party and extent reservations are obsolete: refused */
	if ((cdb[0] == SCSI_OP_RESERVE_6 && (cdb[1] & 0x01)) || (cdb[0] == SCSI_OP_RESERVE_10 && (cdb[1] & 0x12))) {
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 1);
		return;
	}
	if (st->reserved) {
		if (pr_is_holder(st, port))
			pr_ans_good(ans);
		else
			pr_ans_conflict(ans);
		return;
	}
	if (reserve) {
		if (st->scsi2 && !pr_port_eq(&st->scsi2_holder, port)) {
			pr_ans_conflict(ans);
			return;
		}
		st->scsi2 = true;
		st->scsi2_holder = *port;
		st->scsi2_nexus = nexus_id;
	} else if (st->scsi2 && pr_port_eq(&st->scsi2_holder, port)) {
		st->scsi2 = false;
	} /* RELEASE of somebody else's reservation, or of none: GOOD, no effect */
	pr_ans_good(ans);
}
