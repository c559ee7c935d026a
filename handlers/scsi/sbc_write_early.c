/* sbc_write_early.c — a WRITE's blocks stored while its Data-Out still
 * arrives (lunlab-target only: host_ext.h dev_set_data_arrived;
 * the store side is handlers/array/volume_early.c, which says why).
 *
 * The host calls sbc_write_early_feed on its I/O thread each time another
 * burst of a WRITE(10/12/16)'s data has landed, before the command reaches
 * handle_cmd; the state it keeps rides with the command and sbc_write uses
 * it.  The CDB is not checked here beyond what finding the blocks needs: a
 * WRITE that is then refused (range, protection, reservation, a fault rule)
 * never runs, and the host drops the state, releasing the blocks. */
#include <stdlib.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/array_admin.h"
#include "handlers/scsi/scsi.h"

struct sbc_early {
	struct array *array;   /* a reference: the blocks' store outlives a closed LU */
	struct vio_early *vio;
};

static bool early_opcode(uint8_t op)
{
	return op == SCSI_OP_WRITE_10 || op == SCSI_OP_WRITE_12 || op == SCSI_OP_WRITE_16;
}

void sbc_write_early_feed(struct lunlab_dev *d, const uint8_t *cdb, const struct iovec *iov, size_t iovcnt,
			  size_t bytes, void **state)
{
	struct sbc_early *se = *state;
	if (!se) {
		struct cdb_info ci;
		cdb_decode(cdb, CDB_MAX_LEN, d->block_size, &ci); /* the host's LU_CDB_MAX bytes */
		uint64_t lba = ci.lba, n = ci.length;
		uint64_t lbas = __atomic_load_n(&d->num_lbas, __ATOMIC_ACQUIRE);
		if (!early_opcode(cdb[0]) || scsi_lu(d)->readonly || !n || lba >= lbas || n > lbas - lba)
			return;
		if (!(se = calloc(1, sizeof(*se))))
			return;
		se->vio = vio_early_new(d->vol, lba * d->block_size, n * d->block_size);
		if (!se->vio) {
			free(se);
			return;
		}
		array_ref(d->array);
		se->array = d->array;
		*state = se;
	}
	vio_early_feed(se->vio, iov, iovcnt, bytes);
}

struct vio_early *sbc_write_early_of(void *state)
{
	return state ? ((struct sbc_early *)state)->vio : NULL;
}

void sbc_write_early_drop(void *state)
{
	struct sbc_early *se = state;
	if (!se)
		return;
	vio_early_free(se->vio);
	array_put(se->array);
	free(se);
}
