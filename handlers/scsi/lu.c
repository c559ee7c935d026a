/* lu.c — SCSI-side state of one LU and values derived from its array. */
#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "models/profile.h"

void scsi_lu_init(struct scsi_lu *lu)
{
	atomic_init(&lu->swp, false);
	atomic_init(&lu->wce, lu->dev.write_cache);
}

uint32_t scsi_dedup_blocks(const struct lunlab_dev *d)
{
	uint32_t dedup = 0;

	if (d->array)
		dedup = array_params(d->array)->dedup_block;
	else if (d->profile)
		dedup = d->profile->dedup_block;
	if (!d->block_size || dedup < d->block_size)
		return 1;
	return dedup / d->block_size;
}

uint32_t scsi_max_write_same(const struct lunlab_dev *d)
{
	return d->block_size ? SCSI_MAX_WRITE_SAME_BYTES / d->block_size : 0;
}
