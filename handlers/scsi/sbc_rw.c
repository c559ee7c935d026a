/* sbc_rw.c — READ and WRITE (6)/(10)/(12)/(16), SBC-4 5.15-5.19, 5.39-5.43.
 * DPO is accepted and needs no action; FUA (and a write cache that is off)
 * is scsi_dispatch's: the command completes once the array synced. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

/* Map a volume error to sense. */
static int volume_error(struct scsi_cmd *cmd, int err, bool write)
{
	if (err == -ERANGE)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	if (err == -ENOMEM || err == -ENOSPC)
		return write ? sense_set(cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT)
			     : sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
	return sense_set(cmd, SCSI_SK_MEDIUM_ERROR, write ? SCSI_ASC_WRITE_ERROR : SCSI_ASC_UNRECOVERED_READ_ERROR);
}

int sbc_volume_error(struct scsi_cmd *cmd, int err, bool write)
{
	return volume_error(cmd, err, write);
}

/* Common decode: transfer length limit, then LBA range. */
static int decode(struct scsi_cmd *cmd, uint64_t *off, uint64_t *len)
{
	struct cdb_info ci;
	int rc;

	scsi_cdb_decode(cmd, &ci);
	uint64_t lba = ci.lba;
	uint32_t n = ci.length;
	if ((rc = cdb_check_xfer(cmd, &ci)) != TCMU_STS_OK)
		return rc;
	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;
	*off = lba * cmd->dev->block_size;
	*len = (uint64_t)n * cmd->dev->block_size;
	return TCMU_STS_OK;
}

/* READs of at least PIECES_MIN bytes, when the host can send data in
 * pieces (cmd->data_progress), are copied out of the volume PIECE bytes at a
 * time and each piece reported: at QD1 the wire transfer of a 4 MiB READ (a
 * 4 MiB sendmsg on loopback costs about twice the copy out of the volume)
 * then overlaps the copy instead of following it.  Every READ opcode gets
 * it, after the CDB passed every check. */
#define PIECES_MIN (2u << 20)
#define PIECE (1u << 20)

static int read_in_pieces(struct scsi_cmd *cmd, uint64_t off, uint64_t len)
{
	uint8_t *base = cmd->iov[0].iov_base;

	for (uint64_t done = 0; done < len;) {
		uint64_t n = len - done < PIECE ? len - done : PIECE;
		struct iovec v = { base + done, n };
		int rc = volume_read(cmd->dev->vol, off + done, n, &v, 1);

		if (rc)
			return rc; /* pieces already sent carried the bytes a whole read returns */
		done += n;
		if (done < len)
			cmd->data_progress(cmd, done);
	}
	return 0;
}

int sbc_read(struct scsi_cmd *cmd)
{
	uint64_t off, len;
	int rc = decode(cmd, &off, &len);

	if (rc != TCMU_STS_OK || len == 0)
		return rc;
	if (cmd->iov_len >= len && cmd->data_progress && len >= PIECES_MIN && cmd->iov_cnt == 1) {
		rc = read_in_pieces(cmd, off, len);
	} else if (cmd->iov_len >= len) {
		rc = volume_read(cmd->dev->vol, off, len, cmd->iov, cmd->iov_cnt);
	} else {
		/* the initiator expects less than the CDB asks for: read it all,
		 * send what fits (the transport reports the residual) */
		uint8_t *bounce = malloc(len);
		if (!bounce)
			return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
		struct iovec v = { bounce, len };
		rc = volume_read(cmd->dev->vol, off, len, &v, 1);
		if (rc == 0)
			scsi_datain(cmd, bounce, len);
		free(bounce);
	}
	if (rc)
		return volume_error(cmd, rc, false);
	cmd->bytes_moved = len;
	return TCMU_STS_OK;
}

int sbc_write(struct scsi_cmd *cmd)
{
	uint64_t off, len;
	int rc = decode(cmd, &off, &len);

	if (rc != TCMU_STS_OK || len == 0)
		return rc;
	if (cmd->iov_len >= len) {
		rc = volume_write_early(cmd->dev->vol, off, len, cmd->iov, cmd->iov_cnt, sbc_write_early_of(cmd->early));
	} else {
		/* The initiator's data ends inside the last block named:
		 * lunlab-target's transport trims a CDB to the blocks the EDTL
		 * reaches into (and reports the residual), so the write is
		 * carried out exactly as far as the data reaches, that block
		 * keeping its other bytes.  Less data than that is refused. */
		if ((rc = cdb_check_dataout(cmd, len - cmd->dev->block_size + 1)) != TCMU_STS_OK)
			return rc;
		len = cmd->iov_len;
		rc = volume_write_partial(cmd->dev->vol, off, len, cmd->iov, cmd->iov_cnt);
	}
	if (rc)
		return volume_error(cmd, rc, true);
	cmd->bytes_moved = len;
	return TCMU_STS_OK;
}
