/* cdb.c — libtcmu's CDB helpers: length from the group code (SPC-4 4.2.5.1)
 * and the LBA / TRANSFER LENGTH fields at their standard place per group.
 * Like upstream, 6-byte TRANSFER LENGTH 0 is returned as 0 (its meaning,
 * 256 blocks for READ(6), is the command's business). */
#include <errno.h>
#include <stdio.h>

#include "target/tcmu/host_priv.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

int tcmu_cdb_get_length(uint8_t *cdb)
{
	switch (cdb[0] >> 5) {
	case 0:
		return 6;
	case 1:
	case 2:
		return 10;
	case 3:
		/* variable length CDB: ADDITIONAL CDB LENGTH in byte 7 */
		if (cdb[0] == SCSI_OP_VARIABLE_LENGTH_CDB)
			return 8 + cdb[7];
		break;
	case 4:
		return 16;
	case 5:
		return 12;
	default: /* 6, 7: vendor specific */
		break;
	}
	tcmu_err_message(NULL, __func__, __LINE__, "CDB opcode 0x%02x: length not defined", cdb[0]);
	return -EINVAL;
}

uint64_t tcmu_cdb_get_lba(uint8_t *cdb)
{
	switch (tcmu_cdb_get_length(cdb)) {
	case 6:
		return (uint64_t)(cdb[1] & 0x1f) << 16 | get_be16(cdb + 2);
	case 10:
	case 12:
		return get_be32(cdb + 2);
	case 16:
		return get_be64(cdb + 2);
	default:
		/* upstream asserts here; a bad CDB must not kill the target */
		return 0;
	}
}

uint32_t tcmu_cdb_get_xfer_length(uint8_t *cdb)
{
	switch (tcmu_cdb_get_length(cdb)) {
	case 6:
		return cdb[4];
	case 10:
		return get_be16(cdb + 7);
	case 12:
		return get_be32(cdb + 6);
	case 16:
		return get_be32(cdb + 10);
	default:
		return 0;
	}
}

void tcmu_cdb_print_info(struct tcmu_device *dev, const struct tcmulib_cmd *cmd, const char *info)
{
	char buf[32 * 3 + 256];
	size_t n = 0;
	int len = tcmu_cdb_get_length(cmd->cdb);

	if (len < 0)
		return;
	if (len > LU_CDB_MAX) /* the host never holds a longer CDB */
		len = LU_CDB_MAX;
	for (int i = 0; i < len; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%x ", cmd->cdb[i]);
	snprintf(buf + n, sizeof(buf) - n, "%s", info ? info : "");
	/* upstream: with info at debug level, without at the per-CDB level */
	if (info)
		tcmu_dbg_message(dev, __func__, __LINE__, "%s", buf);
	else
		tcmu_dbg_scsi_cmd_message(dev, __func__, __LINE__, "%s", buf);
}
