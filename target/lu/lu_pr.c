/* lu_pr.c — LUN number and initiator port to reservation state (lu_pr.h). */
#include "target/lu/lu_pr.h"
#include "lunlab/scsi_vocab.h"

#include "target/lu/lu_table.h"

static void port_of(const struct lu_cmd *lc, struct pr_port *p)
{
	pr_port_set(p, lc->initiator, lc->isid);
}

/* the command's LU: the entry the transport found, else a global LUN */
static struct pr_state *pr_of(const struct lu_cmd *lc)
{
	const struct lu_entry *e = lc->lu_entry;

	return e ? e->pr : lu_table_pr(lc->lun);
}

bool lu_pr_gate(const struct lu_cmd *lc, uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	struct pr_state *st = pr_of(lc);
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
	return pr_gate(st, lc->cdb, lc->cdb_len, &p, buf, buflen, ans);
}

bool lu_pr_conflict(const struct lu_cmd *lc, struct pr_answer *ans)
{
	struct pr_state *st = pr_of(lc);
	struct pr_port p;

	if (!pr_state_active(st)) {
		ans->status = 0;
		ans->sense_len = 0;
		ans->data_len = 0;
		ans->n_abort = 0;
		return false;
	}
	port_of(lc, &p);
	return pr_conflict(st, lc->cdb, lc->cdb_len, &p, ans);
}

void lu_pr_execute(const struct lu_cmd *lc, uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	struct pr_state *st = pr_of(lc);
	struct pr_port p;

	if (!st) { /* the transport only calls this for a LUN that exists */
		ans->status = SCSI_STAT_CHECK_CONDITION;
		ans->sense_len = lu_sense_fixed(ans->sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1);
		ans->data_len = 0;
		ans->n_abort = 0;
		return;
	}
	port_of(lc, &p);
	pr_execute(st, lc->cdb, lc->cdb_len, &p, lc->nexus_id, buf, buflen, ans);
}

struct lost {
	struct pr_port p;
	uint64_t nexus_id;
};

static void lost_on(struct lu_entry *e, void *cls)
{
	struct lost *l = cls;

	pr_nexus_lost(e->pr, &l->p, l->nexus_id);
}

void lu_pr_nexus_lost(const char *initiator, const uint8_t isid[6], uint64_t nexus_id)
{
	struct lost l = { .nexus_id = nexus_id };

	pr_port_set(&l.p, initiator, isid);
	lu_table_each(lost_on, &l);
}

void lu_pr_entry_reset(struct lu_entry *e)
{
	if (e)
		pr_lun_reset(e->pr);
}

void lu_pr_lun_reset(uint64_t lun)
{
	lu_pr_entry_reset(lu_table_entry(lun));
}

static void warm_reset(struct lu_entry *e, void *cls)
{
	(void)cls;
	pr_lun_reset(e->pr);
}

static void cold_reset(struct lu_entry *e, void *cls)
{
	(void)cls;
	pr_power_on(e->pr);
}

void lu_pr_target_reset(bool cold)
{
	lu_table_each(cold ? cold_reset : warm_reset, NULL);
}
