/* pr_state.c — one LU's reservation state: registrations, the reservation,
 * SCSI-2 RESERVE, the unit attentions the standard queues for other
 * initiator ports, and the gate every command passes (see pr.h). */
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "target/lu/pr_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "target/lu/lu_table.h"

struct pr_state *pr_state_new(struct ua_queue *ua)
{
	struct pr_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->ua = ua;
	pthread_mutex_init(&st->lock, NULL);
	atomic_init(&st->active, false);
	return st;
}

void pr_state_free(struct pr_state *st)
{
	if (!st)
		return;
	if (st->persist_free)
		st->persist_free(st->persist_ctx);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

void pr_port_set(struct pr_port *p, const char *iqn, const uint8_t isid[6])
{
	memset(p, 0, sizeof(*p));
	if (iqn) {
		size_t n = strnlen(iqn, PR_IQN_MAX - 1);
		memcpy(p->iqn, iqn, n);
	}
	if (isid)
		memcpy(p->isid, isid, 6);
}

bool pr_port_eq(const struct pr_port *a, const struct pr_port *b)
{
	/* iSCSI names compare case-insensitively only after stringprep, which
	 * the initiator already applied: byte equality is what LIO does too */
	return memcmp(a->isid, b->isid, 6) == 0 && strcmp(a->iqn, b->iqn) == 0;
}

struct pr_reg *pr_find_reg(struct pr_state *st, const struct pr_port *port)
{
	for (size_t i = 0; i < st->nregs; i++)
		if (pr_port_eq(&st->regs[i].port, port))
			return &st->regs[i];
	return NULL;
}

bool pr_type_all_registrants(uint8_t type) { return type == PR_TYPE_WE_AR || type == PR_TYPE_EA_AR; }

bool pr_type_valid(uint8_t type)
{
	return type == PR_TYPE_WE || type == PR_TYPE_EA || type == PR_TYPE_WE_RO ||
	       type == PR_TYPE_EA_RO || type == PR_TYPE_WE_AR || type == PR_TYPE_EA_AR;
}

bool pr_is_holder(struct pr_state *st, const struct pr_port *port)
{
	if (!st->reserved)
		return false;
	if (pr_type_all_registrants(st->type))
		return pr_find_reg(st, port) != NULL;
	return pr_port_eq(&st->holder, port);
}

bool pr_state_active(const struct pr_state *st)
{
	return st && atomic_load(&st->active);
}

void pr_update_active(struct pr_state *st)
{
	atomic_store(&st->active, st->nregs > 0 || st->reserved || st->scsi2);
}

void pr_queue_ua(struct pr_state *st, const struct pr_port *port, uint16_t asc_ascq)
{
	ua_queue_post_port(st->ua, ua_port_key(port->iqn, port->isid), ua_kind_of(asc_ascq));
}

void pr_queue_ua_registrants(struct pr_state *st, const struct pr_port *except, uint16_t asc_ascq)
{
	for (size_t i = 0; i < st->nregs; i++)
		if (!except || !pr_port_eq(&st->regs[i].port, except))
			pr_queue_ua(st, &st->regs[i].port, asc_ascq);
}

void pr_remove_reg(struct pr_state *st, size_t i)
{
	memmove(&st->regs[i], &st->regs[i + 1], (st->nregs - i - 1) * sizeof(st->regs[0]));
	st->nregs--;
}

void pr_ans_good(struct pr_answer *ans)
{
	ans->status = 0x00;
	ans->sense_len = 0;
}

void pr_ans_conflict(struct pr_answer *ans)
{
	ans->status = SCSI_STAT_RESERVATION_CONFLICT;
	ans->sense_len = 0;
	ans->data_len = 0;
}

void pr_ans_check(struct pr_answer *ans, enum scsi_vocab_sense_key key, uint16_t asc_ascq, int field)
{
	ans->status = SCSI_STAT_CHECK_CONDITION;
	ans->sense_len = lu_sense_fixed(ans->sense, key, asc_ascq, field);
	ans->data_len = 0;
}

static void ans_init(struct pr_answer *ans)
{
	memset(ans, 0, offsetof(struct pr_answer, abort_nexus));
	ans->n_abort = 0;
}

bool pr_owns_opcode(uint8_t op)
{
	return op == SCSI_OP_PERSISTENT_RESERVE_IN || op == SCSI_OP_PERSISTENT_RESERVE_OUT || op == SCSI_OP_RESERVE_6 ||
	       op == SCSI_OP_RELEASE_6 || op == SCSI_OP_RESERVE_10 || op == SCSI_OP_RELEASE_10;
}

/* How a command meets a persistent reservation it does not hold (SPC-4
 * table 66 and SBC-3 table 13): allowed whatever the type, medium read
 * (allowed under the Write Exclusive types), or anything else (conflicts
 * under every type). */
enum cmd_class { CLS_ALLOWED, CLS_READ, CLS_WRITE };

/* THIRD-PARTY COPY OUT (83h): SBC-3 table 13 makes POPULATE TOKEN a read
 * of its LU (a token of it) and WRITE USING TOKEN a write; EXTENDED COPY
 * writes its destination (SPC-4 table 66: conflict but for registrants of
 * the RO/AR types).  COPY OPERATION ABORT moves no data and stops only an
 * operation of the same I_T nexus (list ids are the nexus's,
 * docs/xcopy.md): allowed, as the reports below. */
static enum cmd_class classify_copy_out(uint8_t sa)
{
	switch (sa) {
	case SCSI_SA_POPULATE_TOKEN:
		return CLS_READ;
	case SCSI_SA_COPY_OPERATION_ABORT:
		return CLS_ALLOWED;
	default:
		return CLS_WRITE;
	}
}

/* THIRD-PARTY COPY IN (84h): the reports on copy operations and the copy
 * manager's parameters touch no medium and are of the asking nexus's own
 * operations (SPC-4 table 66: allowed under every type; LIO, which goes by
 * data direction, allows them under the Write Exclusive types too).  They
 * were write-class here before, so a stranger under Write Exclusive got
 * RESERVATION CONFLICT for RECEIVE COPY RESULTS.  RECEIVE COPY DATA returns
 * data a copy read from a medium: a read (lunlab holds no such data, the
 * service action is refused after the gate anyway). */
static enum cmd_class classify_copy_in(uint8_t sa)
{
	switch (sa) {
	case SCSI_SA_RECEIVE_COPY_DATA_LID1:
	case SCSI_SA_RECEIVE_COPY_DATA_LID4:
		return CLS_READ;
	default:
		return CLS_ALLOWED;
	}
}

static enum cmd_class classify(const uint8_t *cdb, size_t cdb_len)
{
	switch (cdb[0]) {
	case SCSI_OP_TEST_UNIT_READY:
	case SCSI_OP_REQUEST_SENSE:
	case SCSI_OP_INQUIRY:
	case SCSI_OP_READ_CAPACITY_10:
	case SCSI_OP_LOG_SENSE:
	case SCSI_OP_PERSISTENT_RESERVE_IN:
	case SCSI_OP_PERSISTENT_RESERVE_OUT: /* PERSISTENT RESERVE OUT: each service action checks the key */
	case SCSI_OP_REPORT_LUNS:
	case SCSI_OP_MAINTENANCE_IN: /* MAINTENANCE IN: REPORT TARGET PORT GROUPS, supported opcodes... */
	case SCSI_OP_SERVICE_ACTION_IN_12:
	case SCSI_OP_RESERVE_6: case SCSI_OP_RELEASE_6:
	case SCSI_OP_RESERVE_10: case SCSI_OP_RELEASE_10: /* RESERVE/RELEASE: own rules */
		return CLS_ALLOWED;
	case SCSI_OP_SERVICE_ACTION_IN_16:
		return cdb_len > 1 && (cdb[1] & SCSI_SA_MASK) == SCSI_SA_READ_CAPACITY_16 ? CLS_ALLOWED : CLS_READ;
	case SCSI_OP_READ_6: case SCSI_OP_READ_10: case SCSI_OP_READ_12: case SCSI_OP_READ_16:
	case SCSI_OP_VERIFY_10: case SCSI_OP_VERIFY_12: case SCSI_OP_VERIFY_16:
	case SCSI_OP_PRE_FETCH_10: case SCSI_OP_PRE_FETCH_16:
	case SCSI_OP_MODE_SENSE_6: case SCSI_OP_MODE_SENSE_10: /* MODE SENSE: changes nothing */
		return CLS_READ;
	case SCSI_OP_THIRD_PARTY_COPY_OUT:
		return classify_copy_out(cdb[1] & SCSI_SA_MASK);
	case SCSI_OP_THIRD_PARTY_COPY_IN:
		return classify_copy_in(cdb[1] & SCSI_SA_MASK);
	default:
		return CLS_WRITE;
	}
}

static bool type_write_exclusive(uint8_t type)
{
	return type == PR_TYPE_WE || type == PR_TYPE_WE_RO || type == PR_TYPE_WE_AR;
}

/* true: RESERVATION CONFLICT */
static bool conflicts(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port)
{
	uint8_t op = cdb[0];

	if (st->scsi2 && !pr_port_eq(&st->scsi2_holder, port)) {
		/* SPC-2 5.5.1: another nexus's RESERVE shuts out everything
		 * but the commands that cannot disturb it */
		return !(op == SCSI_OP_INQUIRY || op == SCSI_OP_REPORT_LUNS || op == SCSI_OP_REQUEST_SENSE ||
			 op == SCSI_OP_RELEASE_6 || op == SCSI_OP_RELEASE_10);
	}
	if (!st->reserved || pr_is_holder(st, port))
		return false;
	switch (classify(cdb, cdb_len)) {
	case CLS_ALLOWED:
		return false;
	case CLS_READ:
		if (type_write_exclusive(st->type))
			return false;
		/* Exclusive Access: registrants of the RO/AR types read too */
		return !((st->type == PR_TYPE_EA_RO || st->type == PR_TYPE_EA_AR) && pr_find_reg(st, port));
	case CLS_WRITE:
	default:
		/* registrants-only / all-registrants: a registrant writes */
		return !((st->type == PR_TYPE_WE_RO || st->type == PR_TYPE_EA_RO ||
			  pr_type_all_registrants(st->type)) && pr_find_reg(st, port));
	}
}

bool pr_take_ua(struct pr_state *st, const struct pr_port *port, uint8_t *asc, uint8_t *ascq)
{
	enum ua_kind k;

	if (!st || !ua_queue_take(st->ua, ua_port_key(port->iqn, port->isid), UA_RESERVATION, NULL, &k))
		return false;
	*asc = scsi_asc(ua_kind_asc(k));
	*ascq = scsi_ascq(ua_kind_asc(k));
	return true;
}

bool pr_conflict(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port, struct pr_answer *ans)
{
	bool hit;

	ans_init(ans);
	if (!pr_state_active(st))
		return false;
	pthread_mutex_lock(&st->lock);
	hit = conflicts(st, cdb, cdb_len, port);
	if (hit)
		pr_ans_conflict(ans);
	pthread_mutex_unlock(&st->lock);
	return hit;
}

bool pr_gate(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
	     uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	uint8_t asc, ascq;

	ans_init(ans);
	/* SAM-5 5.14: INQUIRY and REPORT LUNS neither see nor clear a unit
	 * attention; REQUEST SENSE reports it as its sense data */
	if (!cdb_len)
		return false;
	if (cdb[0] != SCSI_OP_INQUIRY && cdb[0] != SCSI_OP_REPORT_LUNS && pr_take_ua(st, port, &asc, &ascq)) {
		if (cdb[0] == SCSI_OP_REQUEST_SENSE) {
			uint8_t s[18];
			size_t n = lu_sense_fixed(s, SCSI_SK_UNIT_ATTENTION, scsi_asc_pair(asc, ascq), -1),
			       alloc = cdb_byte_length(cdb, cdb_len); /* cdb: a whole CDB */

			if (n > alloc)
				n = alloc;
			if (n > buflen)
				n = buflen;
			if (n)
				memcpy(buf, s, n);
			pr_ans_good(ans);
			ans->data_len = n;
		} else {
			pr_ans_check(ans, SCSI_SK_UNIT_ATTENTION, scsi_asc_pair(asc, ascq), -1);
		}
		return true;
	}
	return pr_conflict(st, cdb, cdb_len, port, ans);
}

/* The fields a PERSISTENT RESERVE OUT may change, generation .. aptpl: laid
 * out one after another in struct pr_state, so a failed save can put them
 * back with one copy (the lock and the hook around them stay). */
#define PR_UNDO_FIRST offsetof(struct pr_state, generation)
#define PR_UNDO_END offsetof(struct pr_state, persist)

/* PERSISTENT RESERVE OUT on an LU that can persist: the state before the
 * command, its encoding, the command, then the save; a save that fails puts
 * the state back and the command fails (04/44/00 INTERNAL TARGET FAILURE). */
static void pr_out_persisting(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
			      uint64_t nexus_id, uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	uint8_t *undo = malloc(PR_UNDO_END - PR_UNDO_FIRST), *enc = malloc(PR_ENCODED_MAX);
	size_t elen;

	if (!undo || !enc) {
		free(undo);
		free(enc);
		pr_ans_check(ans, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE, -1);
		return;
	}
	memcpy(undo, (uint8_t *)st + PR_UNDO_FIRST, PR_UNDO_END - PR_UNDO_FIRST);
	elen = pr_state_encode(st, enc, PR_ENCODED_MAX);
	pr_out_execute(st, cdb, cdb_len, port, nexus_id, buf, buflen, ans);
	if (!pr_persist_changes(st, enc, elen)) {
		memcpy((uint8_t *)st + PR_UNDO_FIRST, undo, PR_UNDO_END - PR_UNDO_FIRST);
		pr_ans_check(ans, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE, -1);
		ans->n_abort = 0;
	}
	free(undo);
	free(enc);
}

void pr_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
		uint64_t nexus_id, uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	const struct cdb_layout *l = cdb_len ? cdb_layout_typical(cdb[0]) : NULL;

	ans_init(ans);
	/* every field below is read within the CDB's length: one shorter than
	 * its operation code's group says (6 or 10 bytes) is refused whole; a
	 * service action the LU does not know is each command's own answer */
	if (!l || cdb_len < l->cdb_len) {
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, -1);
		return;
	}
	pthread_mutex_lock(&st->lock);
	switch (cdb[0]) {
	case SCSI_OP_PERSISTENT_RESERVE_IN:
		pr_in_execute(st, cdb, cdb_len, buf, buflen, ans);
		break;
	case SCSI_OP_PERSISTENT_RESERVE_OUT:
		if (st->persist)
			pr_out_persisting(st, cdb, cdb_len, port, nexus_id, buf, buflen, ans);
		else
			pr_out_execute(st, cdb, cdb_len, port, nexus_id, buf, buflen, ans);
		break;
	default:
		scsi2_execute(st, cdb, cdb_len, port, nexus_id, ans);
		break;
	}
	pr_update_active(st);
	pthread_mutex_unlock(&st->lock);
}

void pr_nexus_lost(struct pr_state *st, const struct pr_port *port, uint64_t nexus_id)
{
	pthread_mutex_lock(&st->lock);
	/* the session, not just the port: a reinstated session (same name and
	 * ISID) may have reserved again before the old one is torn down */
	if (st->scsi2 && st->scsi2_nexus == nexus_id && pr_port_eq(&st->scsi2_holder, port))
		st->scsi2 = false;
	pr_update_active(st);
	pthread_mutex_unlock(&st->lock);
}

void pr_lun_reset(struct pr_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->scsi2 = false;
	pr_update_active(st);
	pthread_mutex_unlock(&st->lock);
}

void pr_power_on(struct pr_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->scsi2 = false;
	if (!st->aptpl) { /* with APTPL they persist through the power loss */
		st->reserved = false;
		st->nregs = 0;
	}
	for (size_t i = 0; i < st->nregs; i++)
		st->regs[i].nexus_id = 0; /* every session is gone */
	ua_queue_clear(st->ua, 0, UA_RESERVATION); /* a power on replaces them */
	st->generation = 0;
	pr_update_active(st);
	pthread_mutex_unlock(&st->lock);
}

uint32_t pr_generation(struct pr_state *st)
{
	uint32_t g;

	pthread_mutex_lock(&st->lock);
	g = st->generation;
	pthread_mutex_unlock(&st->lock);
	return g;
}

size_t pr_registrations(struct pr_state *st)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	n = st->nregs;
	pthread_mutex_unlock(&st->lock);
	return n;
}
