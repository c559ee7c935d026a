/* sts_map.c — turn a handler's TCMU_STS_* into the SCSI status and sense
 * tcmu-runner 1.5.4 sends (facts table; upstream libtcmu's completion).
 * Statuses that reuse the handler's sense (PASSTHROUGH_ERR) or part of it
 * (MISCOMPARE keeps INFORMATION, FRMT_IN_PROGRESS keeps the progress
 * indication) fill the buffer without clearing it; all others start from a
 * clean buffer. */
#include <string.h>

#include "target/tcmu/host_priv.h"

enum {
	ST_GOOD = 0x00, ST_CHECK_CONDITION = 0x02, ST_BUSY = 0x08, ST_TASK_SET_FULL = 0x28,
};

struct sts_sense {
	uint8_t key;
	uint16_t asc_ascq;
	bool keep;          /* fill without clearing the handler's buffer */
};

/* indexed by TCMU_STS_* value; key 0 = not a sense-producing entry */
static const struct sts_sense sts_table[] = {
	[TCMU_STS_WR_ERR] = { 0x3, 0x0C00, false },
	[TCMU_STS_RD_ERR] = { 0x3, 0x1100, false },
	[TCMU_STS_MISCOMPARE] = { 0xE, 0x1D00, true },
	[TCMU_STS_INVALID_CMD] = { 0x5, 0x2000, false },
	[TCMU_STS_INVALID_CDB] = { 0x5, 0x2400, false },
	[TCMU_STS_INVALID_PARAM_LIST] = { 0x5, 0x2600, false },
	[TCMU_STS_INVALID_PARAM_LIST_LEN] = { 0x5, 0x1A00, false },
	[TCMU_STS_FENCED] = { 0x2, 0x040B, false },
	[TCMU_STS_HW_ERR] = { 0x4, 0x4400, false },
	[TCMU_STS_RANGE] = { 0x5, 0x2100, false },
	[TCMU_STS_FRMT_IN_PROGRESS] = { 0x2, 0x0404, true },
	[TCMU_STS_CAPACITY_CHANGED] = { 0x6, 0x2A09, false },
	[TCMU_STS_NOTSUPP_SAVE_PARAMS] = { 0x5, 0x3900, false },
	[TCMU_STS_WR_ERR_INCOMPAT_FRMT] = { 0x5, 0x3005, false },
	[TCMU_STS_TRANSITION] = { 0x2, 0x040A, false },
	[TCMU_STS_IMPL_TRANSITION_ERR] = { 0x6, 0x2A07, false },
	[TCMU_STS_EXPL_TRANSITION_ERR] = { 0x4, 0x670A, false },
	[TCMU_STS_NOTSUPP_SEG_DESC_TYPE] = { 0x5, 0x2609, false },
	[TCMU_STS_NOTSUPP_TGT_DESC_TYPE] = { 0x5, 0x2607, false },
	[TCMU_STS_CP_TGT_DEV_NOTCONN] = { 0xA, 0x0D02, false },
	[TCMU_STS_INVALID_CP_TGT_DEV_TYPE] = { 0xA, 0x0D03, false },
	[TCMU_STS_TOO_MANY_SEG_DESC] = { 0x5, 0x2608, false },
	[TCMU_STS_TOO_MANY_TGT_DESC] = { 0x5, 0x2606, false },
};

/* A CHECK CONDITION whose sense the handler did not provide (an unmapped
 * status such as NO_LOCK_HOLDERS, or PASSTHROUGH_ERR with an empty buffer):
 * upstream leaves it to the kernel, which reports LOGICAL UNIT
 * COMMUNICATION FAILURE; NOT READY makes initiators retry a few times. */
static void lu_comm_failure(uint8_t *sense_buf)
{
	tcmu_sense_set_data(sense_buf, 0x2, 0x0800);
}

static bool sense_valid(const uint8_t *s)
{
	uint8_t rc = s[0] & 0x7f;

	return rc >= 0x70 && rc <= 0x73;
}

uint8_t host_sts_to_scsi(struct tcmu_device *dev, int sts, uint8_t *sense_buf)
{
	switch (sts) {
	case TCMU_STS_OK:
		return ST_GOOD;
	case TCMU_STS_NO_RESOURCE:
		return ST_TASK_SET_FULL;
	case TCMU_STS_BUSY:
	case TCMU_STS_TIMEOUT:
		return ST_BUSY;
	case TCMU_STS_PASSTHROUGH_ERR:
		if (!sense_valid(sense_buf)) {
			tcmu_err_message(dev, __func__, __LINE__,
					 "handler returned PASSTHROUGH_ERR without sense data");
			lu_comm_failure(sense_buf);
		}
		return ST_CHECK_CONDITION;
	case TCMU_STS_NOT_HANDLED:
		tcmu_sense_set_data(sense_buf, 0x5, 0x2000);
		return ST_CHECK_CONDITION;
	default:
		break;
	}
	if (sts >= 0 && (size_t)sts < sizeof(sts_table) / sizeof(sts_table[0]) && sts_table[sts].key) {
		const struct sts_sense *e = &sts_table[sts];

		if (e->keep)
			host_sense_fill(sense_buf, e->key, e->asc_ascq);
		else
			tcmu_sense_set_data(sense_buf, e->key, e->asc_ascq);
		return ST_CHECK_CONDITION;
	}
	tcmu_err_message(dev, __func__, __LINE__, "handler returned unmapped status %d", sts);
	lu_comm_failure(sense_buf);
	return ST_CHECK_CONDITION;
}

uint8_t host_sense_len(const uint8_t *buf, size_t cap)
{
	/* fixed (0x70/0x71) and descriptor (0x72/0x73) formats both keep the
	 * ADDITIONAL SENSE LENGTH in byte 7 */
	size_t len = 8 + (size_t)buf[7];
	uint8_t rc = buf[0] & 0x7f;

	if ((rc == 0x70 || rc == 0x71) && len < 18)
		len = 18;
	if (len > cap)
		len = cap;
	return (uint8_t)len;
}
