/* scsi_names.h — names a person reads in --trace output: SCSI opcodes
 * (with service actions), statuses, sense keys and ASC/ASCQ. */
#ifndef LUNLAB_TCMU_SCSI_NAMES_H
#define LUNLAB_TCMU_SCSI_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* "READ(16)", "REPORT SUPPORTED OPERATION CODES", or NULL if unknown */
const char *scsi_opcode_name(const uint8_t *cdb, size_t cdb_len);
/* "GOOD", "CHECK CONDITION", ...; NULL if unknown */
const char *scsi_status_name(uint8_t status);
/* "ILLEGAL REQUEST", ...; NULL if unknown */
const char *scsi_sense_key_name(uint8_t key);
/* "INVALID FIELD IN CDB", ...; NULL if unknown */
const char *scsi_asc_name(uint8_t asc, uint8_t ascq);

/* How an opcode's CDB carries LBA and length, for decoding. */
enum scsi_cdb_shape {
	SHAPE_OTHER = 0,   /* show the allocation/parameter length if known */
	SHAPE_LBA_BLOCKS,  /* LBA + TRANSFER LENGTH (blocks) at the group's place */
};
enum scsi_cdb_shape scsi_opcode_shape(uint8_t opcode);

#endif
