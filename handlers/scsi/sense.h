/* sense.h — fixed-format sense data (SPC-4 4.5.3) written into a command's
 * sense buffer.  Each function returns TCMU_STS_PASSTHROUGH_ERR so a module
 * can `return sense_set(cmd, ...)` straight out of handle_cmd. */
#ifndef LUNLAB_SENSE_H
#define LUNLAB_SENSE_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/lunlab_dev.h"
#include "lunlab/scsi_vocab.h"


/* key and ASC/ASCQ (a SCSI_ASC_* pair), nothing else. */
int sense_set(struct scsi_cmd *cmd, enum scsi_vocab_sense_key key, uint16_t asc_ascq);
/* ILLEGAL REQUEST with a sense-key-specific field pointer (SKSV=1):
 * in_cdb true -> C/D=1 (CDB), false -> parameter list; byte = field's byte
 * offset; bit = bit position (0..7) or -1 for "whole byte" (BPV=0). */
int sense_invalid_field(struct scsi_cmd *cmd, uint16_t asc_ascq, bool in_cdb, uint16_t byte, int bit);
/* shorthand: ILLEGAL REQUEST, INVALID FIELD IN CDB at byte/bit */
int sense_invalid_cdb_field(struct scsi_cmd *cmd, uint16_t byte, int bit);
/* set VALID and the INFORMATION field (e.g. MISCOMPARE offset) */
int sense_set_info(struct scsi_cmd *cmd, enum scsi_vocab_sense_key key, uint16_t asc_ascq, uint64_t info);

#endif
