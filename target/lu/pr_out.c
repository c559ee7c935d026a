/* pr_out.c — PERSISTENT RESERVE OUT (SPC-4 6.16, 5.13.7-5.13.11): REGISTER,
 * REGISTER AND IGNORE EXISTING KEY, RESERVE, RELEASE, CLEAR, PREEMPT and
 * PREEMPT AND ABORT.  The 24-byte basic parameter list is the only one: no
 * SPEC_I_PT or ALL_TG_PT (REPORT CAPABILITIES says so), no REGISTER AND
 * MOVE.  APTPL only where the LU can persist (PTPL_C, pr_persist.c): a
 * REGISTER's APTPL bit then decides whether the state survives a power loss
 * (SPC-4 5.13.5; other service actions ignore the bit). */
#include "target/lu/pr_internal.h"

#include <string.h>
#include "lunlab/cdb_decode.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

#define PARAM_LEN 24
#define FLAG_SPEC_I_PT 0x08
#define FLAG_ALL_TG_PT 0x04
#define FLAG_APTPL 0x01

/* Removes registration i; a holder's reservation goes with it (for the
 * all-registrants types only with the last registrant), and the
 * registrants-only types tell the other registrants (SPC-4 5.13.11.2.3). */
static void unregister(struct pr_state *st, size_t i)
{
	struct pr_port gone = st->regs[i].port;
	bool was_holder = pr_is_holder(st, &gone);

	pr_remove_reg(st, i);
	if (!was_holder)
		return;
	if (pr_type_all_registrants(st->type)) {
		if (st->nregs == 0)
			st->reserved = false;
		return;
	}
	st->reserved = false;
	if (st->type == PR_TYPE_WE_RO || st->type == PR_TYPE_EA_RO)
		pr_queue_ua_registrants(st, NULL, SCSI_ASC_RESERVATIONS_RELEASED);
}

static void do_register(struct pr_state *st, const struct pr_port *port, uint64_t nexus_id,
			uint64_t rk, uint64_t sark, bool ignore, struct pr_answer *ans)
{
	struct pr_reg *r = pr_find_reg(st, port);

	if (!r) {
		if (!ignore && rk != 0) {
			pr_ans_conflict(ans);
			return;
		}
		if (sark == 0) { /* nothing to register, nothing to remove */
			pr_ans_good(ans);
			return;
		}
		if (st->nregs == PR_REGS_MAX) {
			pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INSUFFICIENT_REGISTRATION_RESOURCES, -1);
			return;
		}
		r = &st->regs[st->nregs++];
		r->port = *port;
		r->key = sark;
		r->nexus_id = nexus_id;
		st->generation++;
		pr_ans_good(ans);
		return;
	}
	if (!ignore && rk != r->key) {
		pr_ans_conflict(ans);
		return;
	}
	if (sark == 0)
		unregister(st, (size_t)(r - st->regs));
	else
		r->key = sark;
	st->generation++;
	pr_ans_good(ans);
}

static void do_reserve(struct pr_state *st, const struct pr_port *port, uint8_t type,
		       struct pr_answer *ans)
{
	if (st->reserved) {
		/* the holder asking again for the same type: GOOD, nothing
		 * changes; anything else conflicts (SPC-4 5.13.9) */
		if (pr_is_holder(st, port) && st->type == type)
			pr_ans_good(ans);
		else
			pr_ans_conflict(ans);
		return;
	}
	st->reserved = true;
	st->type = type;
	st->holder = *port;
	pr_ans_good(ans);
}

static void do_release(struct pr_state *st, const struct pr_port *port, uint8_t type,
		       struct pr_answer *ans)
{
	if (!st->reserved || !pr_is_holder(st, port)) {
		pr_ans_good(ans); /* nothing of ours to release */
		return;
	}
	if (type != st->type) {
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_RELEASE_OF_PR, -1);
		return;
	}
	st->reserved = false;
	if (type != PR_TYPE_WE && type != PR_TYPE_EA)
		pr_queue_ua_registrants(st, port, SCSI_ASC_RESERVATIONS_RELEASED);
	pr_ans_good(ans);
}

static void do_clear(struct pr_state *st, const struct pr_port *port, struct pr_answer *ans)
{
	pr_queue_ua_registrants(st, port, SCSI_ASC_RESERVATIONS_PREEMPTED);
	st->nregs = 0;
	st->reserved = false;
	st->generation++;
	pr_ans_good(ans);
}

/* Removes every registration with key (key 0 with all_others: every one
 * but the issuer's), queues REGISTRATIONS PREEMPTED for each removed port
 * other than the issuer and notes its session for abort.  keep_self: the
 * issuer's own registration stays even if it has the key (preempting a
 * reservation, SPC-4 5.13.11.4.3); otherwise it goes like the others
 * (5.13.11.4.2, as LIO does; fence_scsi re-registers after such a PREEMPT).
 * Returns how many registrations the key identified, the issuer's included. */
static size_t preempt_regs(struct pr_state *st, const struct pr_port *self, uint64_t key,
			   bool all_others, bool keep_self, bool abort, struct pr_answer *ans)
{
	size_t matched = 0, i = 0;

	while (i < st->nregs) {
		struct pr_reg *r = &st->regs[i];
		bool is_self = pr_port_eq(&r->port, self);

		if (all_others ? is_self : r->key != key) {
			i++;
			continue;
		}
		matched++;
		if (is_self && keep_self) {
			i++;
			continue;
		}
		if (!is_self) {
			pr_queue_ua(st, &r->port, SCSI_ASC_REGISTRATIONS_PREEMPTED);
			if (abort && ans->n_abort < PR_REGS_MAX)
				ans->abort_nexus[ans->n_abort++] = r->nexus_id;
		}
		pr_remove_reg(st, i);
	}
	return matched;
}

/* the registrations of key go; an all-registrants reservation goes with the
 * last registrant */
static bool preempt_registrations(struct pr_state *st, const struct pr_port *port, uint64_t sark,
				  bool abort, struct pr_answer *ans)
{
	if (!preempt_regs(st, port, sark, false, false, abort, ans))
		return false;
	/* a single holder's key is never sark here (that preempts the
	 * reservation instead), so only all-registrants can lose its last */
	if (st->reserved && pr_type_all_registrants(st->type) && st->nregs == 0)
		st->reserved = false;
	return true;
}

static void do_preempt(struct pr_state *st, const struct pr_port *port, uint8_t type,
		       uint64_t sark, bool abort, struct pr_answer *ans)
{
	struct pr_reg *h = st->reserved && !pr_type_all_registrants(st->type) ?
			   pr_find_reg(st, &st->holder) : NULL;

	if (st->reserved && (pr_type_all_registrants(st->type) ? sark == 0 : h && h->key == sark)) {
		/* preempt the reservation (5.13.11.4.3; all registrants with
		 * SARK 0: 5.13.11.4.4): the holders' registrations go, the
		 * issuer holds a reservation of the new type; a changed type
		 * is news to the registrants that stay */
		uint8_t old = st->type;

		if (sark == 0)
			preempt_regs(st, port, 0, true, true, abort, ans);
		else
			preempt_regs(st, port, sark, false, true, abort, ans);
		st->type = type;
		st->holder = *port;
		if (old != type)
			pr_queue_ua_registrants(st, port, SCSI_ASC_RESERVATIONS_RELEASED);
	} else if (sark == 0) {
		/* only an all-registrants reservation gives SARK 0 a meaning */
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, -1);
		return;
	} else if (!preempt_registrations(st, port, sark, abort, ans)) {
		pr_ans_conflict(ans); /* the key identifies nobody */
		return;
	}
	st->generation++;
	pr_ans_good(ans);
}

void pr_out_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
		    uint64_t nexus_id, const uint8_t *buf, size_t buflen, struct pr_answer *ans)
{
	uint8_t sa = cdb[1] & 0x1f, scope = cdb[2] >> 4, type = cdb[2] & 0x0f;
	uint32_t plen = cdb_byte_length(cdb, cdb_len); /* cdb: a whole CDB */
	uint64_t rk, sark;
	struct pr_reg *r;

	if (sa > SCSI_SA_PROUT_REGISTER_AND_IGNORE) { /* REGISTER AND MOVE, REPLACE LOST RESERVATION, reserved */
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 1);
		return;
	}
	/* unsupported flags first: a SPEC_I_PT list is longer than 24 bytes and
	 * must be refused for its flag, not for its length */
	if (buf && plen >= PARAM_LEN && buflen >= PARAM_LEN &&
	    (buf[20] & (FLAG_SPEC_I_PT | FLAG_ALL_TG_PT | (st->persist ? 0 : FLAG_APTPL)))) {
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, -1);
		return;
	}
	/* without SPEC_I_PT the list is always the basic 24 bytes */
	if (plen != PARAM_LEN || buflen < PARAM_LEN || !buf) {
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR, -1);
		return;
	}
	if (sa == SCSI_SA_PROUT_RESERVE || sa == SCSI_SA_PROUT_RELEASE || sa == SCSI_SA_PROUT_PREEMPT ||
	    sa == SCSI_SA_PROUT_PREEMPT_AND_ABORT) {
		if (scope != 0 || (sa != SCSI_SA_PROUT_RELEASE && !pr_type_valid(type))) {
			pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 2);
			return;
		}
	}
	rk = get_be64(buf);
	sark = get_be64(buf + 8);
	if (sa == SCSI_SA_PROUT_REGISTER || sa == SCSI_SA_PROUT_REGISTER_AND_IGNORE) {
		do_register(st, port, nexus_id, rk, sark, sa == SCSI_SA_PROUT_REGISTER_AND_IGNORE, ans);
		/* the most recent valid APTPL of any nexus governs (SPC-4 5.13.5) */
		if (ans->status == 0x00 && st->persist)
			st->aptpl = buf[20] & FLAG_APTPL;
		return;
	}
	/* every other service action needs a registration with this key */
	r = pr_find_reg(st, port);
	if (!r || r->key != rk) {
		pr_ans_conflict(ans);
		return;
	}
	r->nexus_id = nexus_id;
	switch (sa) {
	case SCSI_SA_PROUT_RESERVE:
		do_reserve(st, port, type, ans);
		break;
	case SCSI_SA_PROUT_RELEASE:
		do_release(st, port, type, ans);
		break;
	case SCSI_SA_PROUT_CLEAR:
		do_clear(st, port, ans);
		break;
	default:
		do_preempt(st, port, type, sark, sa == SCSI_SA_PROUT_PREEMPT_AND_ABORT, ans);
		break;
	}
}
