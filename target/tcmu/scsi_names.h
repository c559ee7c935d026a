/* scsi_names.h — what --trace needs to print a command: the names (opcodes with service
 * actions, statuses, sense keys, ASC/ASCQ) come from the one vocabulary,
 * include/lunlab/scsi_vocab.h; this adds how a CDB carries its LBA and length. */
#ifndef LUNLAB_TCMU_SCSI_NAMES_H
#define LUNLAB_TCMU_SCSI_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "lunlab/scsi_vocab.h"

/* How an opcode's CDB carries LBA and length, for decoding. */
enum scsi_cdb_shape {
	SHAPE_OTHER = 0,   /* show the allocation/parameter length if known */
	SHAPE_LBA_BLOCKS,  /* LBA + TRANSFER LENGTH (blocks) at the group's place */
};
enum scsi_cdb_shape scsi_opcode_shape(uint8_t opcode);

#endif
