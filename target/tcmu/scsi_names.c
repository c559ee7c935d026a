/* scsi_names.c — which opcodes --trace decodes as LBA + block count.  The names it prints
 * are the vocabulary's (include/lunlab/scsi_vocab.h), not a table of its own. */
#include "target/tcmu/scsi_names.h"

enum scsi_cdb_shape scsi_opcode_shape(uint8_t op)
{
	switch (op) {
	case SCSI_OP_READ_6: case SCSI_OP_WRITE_6:
	case SCSI_OP_READ_10: case SCSI_OP_WRITE_10: case SCSI_OP_WRITE_AND_VERIFY_10:
	case SCSI_OP_VERIFY_10:
	case SCSI_OP_PRE_FETCH_10: case SCSI_OP_SYNCHRONIZE_CACHE_10: case SCSI_OP_WRITE_SAME_10:
	case SCSI_OP_READ_16: case SCSI_OP_WRITE_16: case SCSI_OP_WRITE_AND_VERIFY_16:
	case SCSI_OP_VERIFY_16:
	case SCSI_OP_PRE_FETCH_16: case SCSI_OP_SYNCHRONIZE_CACHE_16: case SCSI_OP_WRITE_SAME_16:
	case SCSI_OP_READ_12: case SCSI_OP_WRITE_12: case SCSI_OP_WRITE_AND_VERIFY_12:
	case SCSI_OP_VERIFY_12:
		return SHAPE_LBA_BLOCKS;
	default:
		return SHAPE_OTHER;
	}
}
