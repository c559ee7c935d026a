/* odx_rrti.c — RECEIVE ROD TOKEN INFORMATION (THIRD-PARTY COPY IN SA 07h,
 * SPC-4): what a POPULATE TOKEN or WRITE USING TOKEN of a list identifier
 * came to, and the ROD token a POPULATE TOKEN made.
 *
 * Parameter data:
 *     0..3   AVAILABLE DATA (bytes after this field)
 *     4      RESPONSE TO SERVICE ACTION (10h or 11h)
 *     5      COPY OPERATION STATUS (copy_registry.h)
 *     6..7   OPERATION COUNTER (0)      8..11 ESTIMATED STATUS UPDATE DELAY (0)
 *     12     EXTENDED COPY COMPLETION STATUS (the SCSI status it ended with)
 *     13     LENGTH OF THE SENSE DATA FIELD (18)   14 SENSE DATA LENGTH
 *     15     TRANSFER COUNT UNITS F1h (logical blocks)
 *     16..23 TRANSFER COUNT          24..25 SEGMENTS PROCESSED
 *     32..49 SENSE DATA
 *     50..53 ROD TOKEN DESCRIPTORS LENGTH (514, or 0 without a token)
 *     56..567 the ROD token
 * Allocation length: the answer is cut to it, as any data-in command.  An
 * unknown list identifier: 05/24/00 at CDB byte 2. */
#include <string.h>

#include "handlers/copy/copy_iov.h"
#include "handlers/copy/copy_nexus.h"
#include "handlers/copy/odx.h"
#include "handlers/copy/odx_limits.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/scsi/sense.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

#define SENSE_FIELD_LEN 18u
#define TC_UNITS_BLOCKS 0xF1u

size_t odx_rrti_bytes(const struct odx_op *op, uint8_t *out)
{
	size_t tok_at = 32 + SENSE_FIELD_LEN;
	size_t n = tok_at + 4 + (op->has_token ? 2 + ODX_TOKEN_LEN : 0);

	memset(out, 0, ODX_RRTI_MAX);
	put_be32(out, (uint32_t)(n - 4));
	out[4] = op->sa & 0x1f;
	out[5] = op->status & 0x7f;
	out[12] = op->scsi_status;
	out[13] = SENSE_FIELD_LEN;
	out[14] = op->sense_len <= SENSE_FIELD_LEN ? op->sense_len : SENSE_FIELD_LEN;
	out[15] = TC_UNITS_BLOCKS;
	put_be64(out + 16, op->blocks);
	put_be16(out + 24, op->segments);
	memcpy(out + 32, op->sense, out[14]);
	if (op->has_token) {
		put_be32(out + tok_at, 2 + ODX_TOKEN_LEN);   /* 2 reserved bytes, then the token */
		memcpy(out + tok_at + 6, op->token, ODX_TOKEN_LEN);
	}
	return n;
}

int odx_rrti(struct scsi_cmd *cmd)
{
	uint8_t out[ODX_RRTI_MAX];
	struct odx_op op;

	if (!odx_offered(cmd->dev))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	uint32_t alloc = get_be32(cmd->cdb + 10);
	if (!copy_reg_odx_get(cmd->dev, copy_cmd_nexus(cmd), get_be32(cmd->cdb + 2), &op))
		return sense_invalid_cdb_field(cmd, 2, -1);
	size_t n = odx_rrti_bytes(&op, out);
	if (n > alloc)
		n = alloc;
	cmd->bytes_moved = copy_to_iov(cmd->iov, cmd->iov_cnt, out, n);
	return TCMU_STS_OK;
}
