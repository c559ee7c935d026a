/* lu_pr.c — LUN number and initiator port to reservation state (lu_pr.h). */
#include "target/lu/lu_pr.h"

#include "target/lu/lu_table.h"

static void port_of(const struct lu_cmd *lc, struct pr_port *p)
{
	pr_port_set(p, lc->initiator, lc->isid);
}

bool lu_pr_gate(const struct lu_cmd *lc, uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	struct pr_state *st = lu_table_pr(lc->lun);
	struct pr_port p;

	ans->status = 0;
	ans->sense_len = 0;
	ans->data_len = 0;
	ans->n_abort = 0;
	/* the common case, on every command: no PR state on this LU, so no
	 * initiator port is built (a ~230-byte copy) and no lock is taken */
	if (!pr_state_active(st))
		return false;
	port_of(lc, &p);
	return pr_gate(st, lc->cdb, &p, buf, buflen, ans);
}

void lu_pr_execute(const struct lu_cmd *lc, uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	struct pr_state *st = lu_table_pr(lc->lun);
	struct pr_port p;

	if (!st) { /* the transport only calls this for a LUN that exists */
		ans->status = 0x02;
		ans->sense_len = lu_sense_fixed(ans->sense, 0x05, 0x25, 0x00, -1);
		ans->data_len = 0;
		ans->n_abort = 0;
		return;
	}
	port_of(lc, &p);
	pr_execute(st, lc->cdb, &p, lc->nexus_id, buf, buflen, ans);
}

void lu_pr_nexus_lost(const char *initiator, const uint8_t isid[6], uint64_t nexus_id)
{
	struct pr_port p;

	pr_port_set(&p, initiator, isid);
	for (size_t i = 0; i < lu_table_count(); i++)
		pr_nexus_lost(lu_table_pr(i), &p, nexus_id);
}

void lu_pr_lun_reset(uint64_t lun)
{
	struct pr_state *st = lu_table_pr(lun);

	if (st)
		pr_lun_reset(st);
}

void lu_pr_target_reset(bool cold)
{
	for (size_t i = 0; i < lu_table_count(); i++) {
		if (cold)
			pr_power_on(lu_table_pr(i));
		else
			pr_lun_reset(lu_table_pr(i));
	}
}
