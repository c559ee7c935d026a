/* spc_misc.c — TEST UNIT READY, REQUEST SENSE and REPORT SUPPORTED OPERATION
 * CODES (SPC-4 6.37, 6.39, 6.35). */
#include <stdlib.h>
#include <string.h>

#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int spc_test_unit_ready(struct scsi_cmd *cmd)
{
	return TCMU_STS_OK; /* an in-memory LU is always ready */
}

/* lunlab keeps no deferred sense (errors are reported with the failing
 * command), so REQUEST SENSE reports NO SENSE, or the unit attention the
 * nexus is owed (ua.h), in the format the DESC bit asks for. */
int spc_request_sense(struct scsi_cmd *cmd)
{
	uint8_t buf[18];
	size_t len;
	uint8_t alloc = cmd->cdb[4];

	uint8_t key = SCSI_SK_NO_SENSE, asc = 0, ascq = 0;

	/* a pending unit attention is reported here, and so cleared (SPC-4 6.39) */
	if (scsi_ua_take(cmd, &asc, &ascq))
		key = SCSI_SK_UNIT_ATTENTION;
	memset(buf, 0, sizeof(buf));
	if (cmd->cdb[1] & 0x01) {       /* descriptor format */
		buf[0] = 0x72;
		buf[1] = key;
		buf[2] = asc;
		buf[3] = ascq;
		len = 8;
	} else {
		buf[0] = 0x70;
		buf[2] = key;
		buf[7] = 10;
		buf[12] = asc;
		buf[13] = ascq;
		len = 18;
	}
	if (len > alloc)
		len = alloc;
	cmd->bytes_moved = scsi_datain(cmd, buf, len);
	return TCMU_STS_OK;
}

#define TIMEOUTS_LEN 12

static void put_timeouts(uint8_t *p, const struct scsi_op *op)
{
	memset(p, 0, TIMEOUTS_LEN);
	put_be16(p, 0x0a);
	put_be32(p + 4, op->nominal_timeout_s);
	put_be32(p + 8, op->recommended_timeout_s);
}

/* usage data as reported: the service action bits carry the SA value */
static void put_usage(uint8_t *p, const struct scsi_op *op)
{
	memcpy(p, op->usage, scsi_op_cdb_len(op));
	if (scsi_op_has_sa(op))
		p[1] = (uint8_t)((p[1] & 0xe0) | (op->sa & 0x1f));
}

static int report_all(struct scsi_cmd *cmd, bool rctd, uint8_t **out, size_t *len)
{
	size_t desc = 8 + (rctd ? TIMEOUTS_LEN : 0);
	size_t n = scsi_op_count();
	uint8_t *b = calloc(1, 4 + n * desc);

	if (!b)
		return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
	size_t p = 4;
	for (size_t i = 0; i < n; i++) {
		const struct scsi_op *op = scsi_op_at(i);
		if (!scsi_op_offered(op, cmd->dev))
			continue;      /* ODX of an array without it: not a command of this LU */
		b[p] = op->opcode;
		put_be16(b + p + 2, scsi_op_has_sa(op) ? op->sa : 0);
		b[p + 5] = (uint8_t)((rctd ? 0x02 : 0) | (scsi_op_has_sa(op) ? 0x01 : 0)); /* CTDP, SERVACTV */
		put_be16(b + p + 6, scsi_op_cdb_len(op));
		if (rctd)
			put_timeouts(b + p + 8, op);
		p += desc;
	}
	put_be32(b, (uint32_t)(p - 4));
	*out = b;
	*len = p;
	return TCMU_STS_OK;
}

int spc_report_supported_opcodes(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	bool rctd = cdb[2] & 0x80;
	uint8_t options = cdb[2] & 0x07;
	uint8_t opcode = cdb[3];
	uint16_t sa = get_be16(cdb + 4);
	uint32_t alloc = get_be32(cdb + 6);
	uint8_t one[4 + 16 + TIMEOUTS_LEN];
	uint8_t *b = one;
	size_t len = 0;
	int rc;

	if (options == 0) {
		if ((rc = report_all(cmd, rctd, &b, &len)) != TCMU_STS_OK)
			return rc;
	} else if (options <= 3) {
		bool has_sa = false, known = false;
		const struct scsi_op *op = scsi_op_find(opcode, sa, &has_sa, &known);
		/* 1: opcode without service actions; 2: opcode + SA of an opcode
		 * that has service actions; 3: either (SPC-4 6.35.2). */
		if (options == 1 && known && has_sa)
			return sense_invalid_cdb_field(cmd, 2, 2);
		if (options == 2 && known && !has_sa)
			return sense_invalid_cdb_field(cmd, 2, 2);
		if (options == 3 && known && !has_sa && sa != 0)
			op = NULL;          /* no such service action: not supported */
		if (op && !scsi_op_offered(op, cmd->dev))
			op = NULL;          /* ODX of an array without it */
		memset(one, 0, sizeof(one));
		if (!op) {
			one[1] = 0x01;      /* SUPPORT 001b: not supported */
			len = 4;
		} else {
			one[1] = (uint8_t)((rctd ? 0x80 : 0) | 0x03); /* CTDP, SUPPORT 011b */
			put_be16(one + 2, scsi_op_cdb_len(op));
			put_usage(one + 4, op);
			len = 4 + scsi_op_cdb_len(op);
			if (rctd) {
				put_timeouts(one + len, op);
				len += TIMEOUTS_LEN;
			}
		}
	} else {
		return sense_invalid_cdb_field(cmd, 2, 2);
	}
	size_t n = len < alloc ? len : alloc;
	cmd->bytes_moved = scsi_datain(cmd, b, n);
	if (b != one)
		free(b);
	return TCMU_STS_OK;
}
