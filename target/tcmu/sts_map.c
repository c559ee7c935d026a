/* sts_map.c — turn a handler's TCMU_STS_* into the SCSI status and sense
 * tcmu-runner 1.5.4 sends (facts table; upstream libtcmu's completion).
 * Statuses that reuse the handler's sense (PASSTHROUGH_ERR) or part of it
 * (MISCOMPARE keeps INFORMATION, FRMT_IN_PROGRESS keeps the progress
 * indication) fill the buffer without clearing it; all others start from a
 * clean buffer. */
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host_priv.h"

struct sts_sense {
	uint8_t key;
	uint16_t asc_ascq;
	bool keep;          /* fill without clearing the handler's buffer */
};

/* indexed by TCMU_STS_* value; key 0 = not a sense-producing entry */
static const struct sts_sense sts_table[] = {
	[TCMU_STS_WR_ERR] = { SCSI_SK_MEDIUM_ERROR, SCSI_ASC_WRITE_ERROR, false },
	[TCMU_STS_RD_ERR] = { SCSI_SK_MEDIUM_ERROR, SCSI_ASC_UNRECOVERED_READ_ERROR, false },
	[TCMU_STS_MISCOMPARE] = { SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY, true },
	[TCMU_STS_INVALID_CMD] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE, false },
	[TCMU_STS_INVALID_CDB] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, false },
	[TCMU_STS_INVALID_PARAM_LIST] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false },
	[TCMU_STS_INVALID_PARAM_LIST_LEN] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR, false },
	[TCMU_STS_FENCED] = { SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY, false },
	[TCMU_STS_HW_ERR] = { SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE, false },
	[TCMU_STS_RANGE] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE, false },
	[TCMU_STS_FRMT_IN_PROGRESS] = { SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_READY_FORMAT_IN_PROGRESS, true },
	[TCMU_STS_CAPACITY_CHANGED] = { SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED, false },
	[TCMU_STS_NOTSUPP_SAVE_PARAMS] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_SAVING_PARAMETERS_NOT_SUPPORTED, false },
	[TCMU_STS_WR_ERR_INCOMPAT_FRMT] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_CANNOT_WRITE_INCOMPATIBLE_FORMAT, false },
	[TCMU_STS_TRANSITION] = { SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_TRANSITION, false },
	[TCMU_STS_IMPL_TRANSITION_ERR] = { SCSI_SK_UNIT_ATTENTION, SCSI_ASC_ALUA_TRANSITION_FAILED, false },
	[TCMU_STS_EXPL_TRANSITION_ERR] = { SCSI_SK_HARDWARE_ERROR, SCSI_ASC_SET_TPG_FAILED, false },
	[TCMU_STS_NOTSUPP_SEG_DESC_TYPE] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_UNSUPPORTED_SEGMENT_DESCRIPTOR, false },
	[TCMU_STS_NOTSUPP_TGT_DESC_TYPE] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_UNSUPPORTED_TARGET_DESCRIPTOR, false },
	[TCMU_STS_CP_TGT_DEV_NOTCONN] = { SCSI_SK_COPY_ABORTED, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, false },
	[TCMU_STS_INVALID_CP_TGT_DEV_TYPE] = { SCSI_SK_COPY_ABORTED, SCSI_ASC_INCORRECT_COPY_TARGET_TYPE, false },
	[TCMU_STS_TOO_MANY_SEG_DESC] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOO_MANY_SEGMENT_DESCRIPTORS, false },
	[TCMU_STS_TOO_MANY_TGT_DESC] = { SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_TOO_MANY_TARGET_DESCRIPTORS, false },
};

/* A CHECK CONDITION whose sense the handler did not provide (an unmapped
 * status such as NO_LOCK_HOLDERS, or PASSTHROUGH_ERR with an empty buffer):
 * upstream leaves it to the kernel, which reports LOGICAL UNIT
 * COMMUNICATION FAILURE; NOT READY makes initiators retry a few times. */
static void lu_comm_failure(uint8_t *sense_buf)
{
	tcmu_sense_set_data(sense_buf, SCSI_SK_NOT_READY, SCSI_ASC_LU_COMMUNICATION_FAILURE);
}

static bool sense_valid(const uint8_t *s)
{
	uint8_t rc = s[0] & 0x7f;

	return rc >= SCSI_SENSE_FMT_FIXED_CURRENT && rc <= SCSI_SENSE_FMT_DESC_DEFERRED;
}

uint8_t host_sts_to_scsi(struct tcmu_device *dev, int sts, uint8_t *sense_buf)
{
	switch (sts) {
	case TCMU_STS_OK:
		return SCSI_STAT_GOOD;
	case TCMU_STS_NO_RESOURCE:
		return SCSI_STAT_TASK_SET_FULL;
	case TCMU_STS_BUSY:
	case TCMU_STS_TIMEOUT:
		return SCSI_STAT_BUSY;
	case TCMU_STS_PASSTHROUGH_ERR:
		if (!sense_valid(sense_buf)) {
			tcmu_err_message(dev, __func__, __LINE__,
					 "handler returned PASSTHROUGH_ERR without sense data");
			lu_comm_failure(sense_buf);
		}
		return SCSI_STAT_CHECK_CONDITION;
	case TCMU_STS_NOT_HANDLED:
		tcmu_sense_set_data(sense_buf, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
		return SCSI_STAT_CHECK_CONDITION;
	default:
		break;
	}
	if (sts >= 0 && (size_t)sts < sizeof(sts_table) / sizeof(sts_table[0]) && sts_table[sts].key) {
		const struct sts_sense *e = &sts_table[sts];

		if (e->keep)
			host_sense_fill(sense_buf, e->key, e->asc_ascq);
		else
			tcmu_sense_set_data(sense_buf, e->key, e->asc_ascq);
		return SCSI_STAT_CHECK_CONDITION;
	}
	tcmu_err_message(dev, __func__, __LINE__, "handler returned unmapped status %d", sts);
	lu_comm_failure(sense_buf);
	return SCSI_STAT_CHECK_CONDITION;
}

uint8_t host_sense_len(const uint8_t *buf, size_t cap)
{
	/* fixed (0x70/0x71) and descriptor (0x72/0x73) formats both keep the
	 * ADDITIONAL SENSE LENGTH in byte 7 */
	size_t len = 8 + (size_t)buf[7];
	uint8_t rc = buf[0] & 0x7f;

	if ((rc == SCSI_SENSE_FMT_FIXED_CURRENT || rc == SCSI_SENSE_FMT_FIXED_DEFERRED) && len < 18)
		len = 18;
	if (len > cap)
		len = cap;
	return (uint8_t)len;
}
