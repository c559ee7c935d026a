/* pdu.c — header sanity checks and small codecs shared by every PDU family. */
#include "target/iscsi/pdu.h"

#include <string.h>

void pdu_init_rsp(uint8_t *bhs, uint8_t opcode, uint8_t flags1)
{
	memset(bhs, 0, ISCSI_BHS_LEN);
	bhs[0] = opcode;
	bhs[1] = flags1;
}

int pdu_validate_header(const uint8_t *bhs, uint32_t max_recv_dsl, const char **why)
{
	uint8_t op = bhs_opcode(bhs);
	uint32_t dlen = bhs_data_len(bhs);

	switch (op) {
	case ISCSI_OP_NOP_OUT:
	case ISCSI_OP_SCSI_CMD:
	case ISCSI_OP_TEXT_REQ:
	case ISCSI_OP_DATA_OUT:
	case ISCSI_OP_LOGIN_REQ:
		break;
	case ISCSI_OP_TMF_REQ:
	case ISCSI_OP_LOGOUT_REQ:
	case ISCSI_OP_SNACK_REQ:
		if (dlen) {
			*why = "DataSegmentLength must be 0 for this opcode";
			return ISCSI_REJECT_PROTOCOL_ERROR;
		}
		break;
	default:
		*why = "opcode not an initiator opcode";
		return ISCSI_REJECT_CMD_NOT_SUPPORTED;
	}
	if (dlen > max_recv_dsl) {
		*why = "DataSegmentLength exceeds MaxRecvDataSegmentLength";
		return ISCSI_REJECT_PROTOCOL_ERROR;
	}
	return 0;
}

const char *pdu_opcode_name(uint8_t op)
{
	switch (op) {
	case ISCSI_OP_NOP_OUT: return "NOP-Out";
	case ISCSI_OP_SCSI_CMD: return "SCSI Command";
	case ISCSI_OP_TMF_REQ: return "Task Management Request";
	case ISCSI_OP_LOGIN_REQ: return "Login Request";
	case ISCSI_OP_TEXT_REQ: return "Text Request";
	case ISCSI_OP_DATA_OUT: return "SCSI Data-Out";
	case ISCSI_OP_LOGOUT_REQ: return "Logout Request";
	case ISCSI_OP_SNACK_REQ: return "SNACK Request";
	default: return "unknown opcode";
	}
}

uint64_t pdu_lun_decode(const uint8_t f[8], bool *ok)
{
	uint8_t method = f[0] >> 6;

	*ok = true;
	/* second..fourth levels must be empty for a single-level LUN */
	for (int i = 2; i < 8; i++)
		if (f[i])
			*ok = false;
	if (method == 0) {
		if (f[0] & 0x3f) /* bus identifier != 0 */
			*ok = false;
		return f[1];
	}
	if (method == 1)
		return (uint64_t)(f[0] & 0x3f) << 8 | f[1];
	*ok = false;
	return UINT64_MAX;
}

void pdu_lun_encode(uint8_t f[8], uint64_t lun)
{
	memset(f, 0, 8);
	if (lun < 256) {
		f[1] = (uint8_t)lun;
	} else {
		f[0] = (uint8_t)(0x40 | ((lun >> 8) & 0x3f));
		f[1] = (uint8_t)lun;
	}
}
