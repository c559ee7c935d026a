/* cdb.c — libtcmu's CDB helpers: length from the group code (SPC-4 4.2.5.1)
 * and the LBA / TRANSFER LENGTH fields at their standard place per group, read
 * through the decoder's typical layouts (lunlab/cdb_decode.h).  Like upstream,
 * they follow the group code whatever the opcode, and 6-byte TRANSFER LENGTH 0
 * is returned as 0 (its meaning, 256 blocks for READ(6), is the command's
 * business). */
#include <errno.h>
#include <stdio.h>

#include "target/tcmu/host_priv.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

int tcmu_cdb_get_length(uint8_t *cdb)
{
	const struct cdb_layout *l = cdb_layout_typical(cdb[0]);

	if (l)
		return l->cdb_len;
	/* variable length CDB: ADDITIONAL CDB LENGTH in byte 7 */
	if (cdb[0] == SCSI_OP_VARIABLE_LENGTH_CDB)
		return 8 + cdb[7];
	tcmu_err_message(NULL, __func__, __LINE__, "CDB opcode 0x%02x: length not defined", cdb[0]);
	return -EINVAL;
}

uint64_t tcmu_cdb_get_lba(uint8_t *cdb)
{
	const struct cdb_layout *l = cdb_layout_typical(cdb[0]);

	/* upstream asserts on a length it has no LBA for; a bad CDB must not kill the target */
	return l ? cdb_layout_lba(l, cdb) : 0;
}

uint32_t tcmu_cdb_get_xfer_length(uint8_t *cdb)
{
	const struct cdb_layout *l = cdb_layout_typical(cdb[0]);

	return l ? cdb_layout_length(l, cdb) : 0;
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
