/* lu.c — SCSI-side state of one LU and values derived from its array. */
#include "handlers/array/array_admin.h"
#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "models/profile.h"

void scsi_lu_init(struct scsi_lu *lu)
{
	atomic_init(&lu->swp, false);
	atomic_init(&lu->wce, lu->dev.write_cache);
	scsi_ua_init(&lu->ua);
}

void scsi_lu_fini(struct scsi_lu *lu)
{
	scsi_ua_fini(&lu->ua);
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

uint32_t scsi_lbppb(const struct lunlab_dev *d)
{
	return 1u << scsi_lu((struct lunlab_dev *)d)->lbppbe;
}

uint32_t scsi_opt_gran(const struct lunlab_dev *d)
{
	uint32_t dedup = scsi_dedup_blocks(d), pb = scsi_lbppb(d);
	return dedup > pb ? dedup : pb;
}

int scsi_lu_set_physical_block(struct scsi_lu *lu, uint32_t physical_block)
{
	uint32_t bs = lu->dev.block_size;
	uint8_t e = 0;

	lu->lbppbe = 0;
	if (physical_block == 0)
		return 0;
	if (!bs || physical_block < bs || physical_block % bs)
		return -1;
	while ((bs << e) < physical_block && e < 15)
		e++;
	if ((bs << e) != physical_block)
		return -1;
	lu->lbppbe = e;
	return 0;
}

/* One threshold set per dedup block (physical space is allocated per block),
 * at least 2 logical blocks (the exponent must not be 0), more when the LU
 * would count 2^32 sets or more (SBC-4: capacity / 2^exponent < 2^32). */
uint8_t scsi_threshold_exponent(const struct lunlab_dev *d)
{
	struct array_space sp;

	if (!d->array)
		return 0;
	array_get_space(d->array, &sp);
	if (!sp.capacity_bytes)
		return 0;
	uint8_t e = 1;
	while ((1u << e) < scsi_dedup_blocks(d) && e < 31)
		e++;
	while (e < 63 && (d->num_lbas >> e) >= (1ull << 32))
		e++;
	return e;
}

uint64_t scsi_threshold_set_bytes(const struct lunlab_dev *d)
{
	uint64_t bs = d->block_size ? d->block_size : 512;
	uint8_t e = scsi_threshold_exponent(d);

	return e >= 48 ? UINT64_MAX : bs << e;
}

bool scsi_write_protected(const struct lunlab_dev *d)
{
	struct scsi_lu *lu = scsi_lu((struct lunlab_dev *)d);
	return lu->readonly || atomic_load(&lu->swp);
}
