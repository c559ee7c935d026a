/* sbc_lba_status.c — GET LBA STATUS (SBC-4 5.8): runs of mapped and
 * deallocated blocks starting at the requested LBA, as the volume map has
 * them. */
#include <string.h>

#include "handlers/array/volume.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

#define MAX_DESCRIPTORS 64

int sbc_get_lba_status(struct scsi_cmd *cmd)
{
	struct lunlab_dev *d = cmd->dev;
	struct cdb_info ci;
	uint8_t buf[8 + 16 * MAX_DESCRIPTORS];
	size_t p = 8;

	scsi_cdb_decode(cmd, &ci);
	uint64_t lba = ci.lba;     /* STARTING LOGICAL BLOCK ADDRESS */
	uint32_t alloc = ci.length;

	if (lba >= d->num_lbas)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	memset(buf, 0, sizeof(buf));
	/* as many descriptors as the allocation length has room for (at least one) */
	size_t want = alloc > 8 ? (alloc - 8) / 16 : 0;
	if (want < 1)
		want = 1;
	if (want > MAX_DESCRIPTORS)
		want = MAX_DESCRIPTORS;
	for (size_t i = 0; i < want && lba < d->num_lbas; i++) {
		bool mapped = false;
		uint64_t run = 0;
		int err = volume_get_status(d->vol, lba * d->block_size, &mapped, &run);
		if (err)
			return sbc_volume_error(cmd, err, false);
		uint64_t blocks = run / d->block_size;
		if (blocks == 0)
			blocks = 1;
		if (blocks > d->num_lbas - lba)
			blocks = d->num_lbas - lba;
		if (blocks > 0xffffffffu)
			blocks = 0xffffffffu;
		put_be64(buf + p, lba);
		put_be32(buf + p + 8, (uint32_t)blocks);
		buf[p + 12] = mapped ? 0x00 : 0x01;   /* mapped / deallocated */
		p += 16;
		lba += blocks;
	}
	put_be32(buf, (uint32_t)(p - 4));
	size_t n = p < alloc ? p : alloc;
	cmd->bytes_moved = scsi_datain(cmd, buf, n);
	return TCMU_STS_OK;
}
