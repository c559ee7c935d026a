/* pr_in.c — PERSISTENT RESERVE IN (SPC-4 6.15): READ KEYS, READ RESERVATION,
 * REPORT CAPABILITIES, READ FULL STATUS.  Each answer is built whole and
 * then cut to the ALLOCATION LENGTH and the buffer (the ADDITIONAL LENGTH
 * fields keep telling the full size, so an initiator can ask again). */
#include "target/lu/pr_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lunlab/cdb_decode.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* iSCSI TransportID, FORMAT CODE 01b (SPC-4 7.6.4.6): name ",i,0x" ISID,
 * NUL-terminated, padded to a multiple of 4 (at least 20 bytes). */
#define TID_MAX (4 + PR_IQN_MAX + 5 + 12 + 1 + 3)

static size_t transport_id(const struct pr_port *port, uint8_t *out)
{
	char name[PR_IQN_MAX + 5 + 12 + 1];
	int n = snprintf(name, sizeof(name), "%s,i,0x%02x%02x%02x%02x%02x%02x", port->iqn,
			 port->isid[0], port->isid[1], port->isid[2], port->isid[3],
			 port->isid[4], port->isid[5]);
	size_t len = (size_t)n + 1; /* with its NUL */

	len = (len + 3) & ~(size_t)3;
	if (len < 20)
		len = 20;
	memset(out, 0, 4 + len);
	out[0] = 0x40 | 0x05; /* FORMAT CODE 01b, PROTOCOL IDENTIFIER 5 = iSCSI */
	out[2] = (uint8_t)(len >> 8);
	out[3] = (uint8_t)len;
	memcpy(out + 4, name, (size_t)n);
	return 4 + len;
}

static size_t read_keys(struct pr_state *st, uint8_t *d)
{
	put_be32(d, st->generation);
	put_be32(d + 4, (uint32_t)(st->nregs * 8));
	for (size_t i = 0; i < st->nregs; i++)
		put_be64(d + 8 + 8 * i, st->regs[i].key);
	return 8 + st->nregs * 8;
}

static size_t read_reservation(struct pr_state *st, uint8_t *d)
{
	put_be32(d, st->generation);
	if (!st->reserved) {
		put_be32(d + 4, 0);
		return 8;
	}
	put_be32(d + 4, 16);
	memset(d + 8, 0, 16);
	if (!pr_type_all_registrants(st->type)) {
		struct pr_reg *r = pr_find_reg(st, &st->holder);
		put_be64(d + 8, r ? r->key : 0);
	} /* all registrants: the key reads 0 (SPC-4 6.15.3.3) */
	d[21] = st->type; /* SCOPE 0h: LU_SCOPE */
	return 24;
}

static size_t report_capabilities(struct pr_state *st, uint8_t *d)
{
	memset(d, 0, 8);
	d[1] = 8;        /* LENGTH */
	/* CRH: RESERVE/RELEASE follow SPC-4 5.13.3; no SIP_C, ATP_C; PTPL_C
	 * where the state can be persisted (a state directory) */
	d[2] = 0x10 | (st->persist ? 0x01 : 0);
	/* TMV: the type mask is valid; ALLOW COMMANDS 000b: see
	 * docs/reservations.md; PTPL_A: APTPL is active */
	d[3] = 0x80 | (st->aptpl ? 0x01 : 0);
	/* WR_EX_AR, EX_AC_RO, WR_EX_RO, EX_AC, WR_EX; then EX_AC_AR */
	d[4] = 0x80 | 0x40 | 0x20 | 0x08 | 0x02;
	d[5] = 0x01;
	return 8;
}

static size_t read_full_status(struct pr_state *st, uint8_t *d)
{
	size_t off = 8;

	put_be32(d, st->generation);
	for (size_t i = 0; i < st->nregs; i++) {
		uint8_t *e = d + off;
		bool holder = pr_is_holder(st, &st->regs[i].port);
		size_t tid;

		memset(e, 0, 24);
		put_be64(e, st->regs[i].key);
		if (holder) {
			e[12] = 0x01;        /* R_HOLDER; ALL_TG_PT 0 */
			e[13] = st->type;    /* SCOPE 0h */
		}
		e[19] = 1;                   /* RELATIVE TARGET PORT IDENTIFIER: our one port */
		tid = transport_id(&st->regs[i].port, e + 24);
		put_be32(e + 20, (uint32_t)tid);
		off += 24 + tid;
	}
	put_be32(d + 4, (uint32_t)(off - 8));
	return off;
}

void pr_in_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
		   struct pr_answer *ans)
{
	uint8_t sa = cdb[1] & 0x1f;
	size_t alloc = cdb_byte_length(cdb, cdb_len), n, room; /* cdb: a whole CDB */
	uint8_t *d;

	if (sa > SCSI_SA_PRIN_READ_FULL_STATUS) {
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 1);
		return;
	}
	/* the whole answer: READ FULL STATUS is the biggest */
	room = 8 + (size_t)PR_REGS_MAX * (24 + TID_MAX) + 32;
	d = malloc(room);
	if (!d) {
		/* INSUFFICIENT RESOURCES */
		pr_ans_check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INSUFFICIENT_RESOURCES, -1);
		return;
	}
	switch (sa) {
	case SCSI_SA_PRIN_READ_KEYS:
		n = read_keys(st, d);
		break;
	case SCSI_SA_PRIN_READ_RESERVATION:
		n = read_reservation(st, d);
		break;
	case SCSI_SA_PRIN_REPORT_CAPABILITIES:
		n = report_capabilities(st, d);
		break;
	default:
		n = read_full_status(st, d);
		break;
	}
	if (n > alloc)
		n = alloc;
	if (n > buflen)
		n = buflen;
	if (n)
		memcpy(buf, d, n);
	free(d);
	pr_ans_good(ans);
	ans->data_len = n;
}
