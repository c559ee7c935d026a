/* sense.h — fixed-format sense data (SPC-4 4.5.3) written into a command's
 * sense buffer.  Each function returns TCMU_STS_PASSTHROUGH_ERR so a module
 * can `return sense_set(cmd, ...)` straight out of handle_cmd. */
#ifndef LUNLAB_SENSE_H
#define LUNLAB_SENSE_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/lunlab_dev.h"

enum {
	SK_NO_SENSE = 0x0, SK_RECOVERED_ERROR = 0x1, SK_NOT_READY = 0x2, SK_MEDIUM_ERROR = 0x3,
	SK_HARDWARE_ERROR = 0x4, SK_ILLEGAL_REQUEST = 0x5, SK_UNIT_ATTENTION = 0x6,
	SK_DATA_PROTECT = 0x7, SK_COPY_ABORTED = 0xA, SK_ABORTED_COMMAND = 0xB, SK_MISCOMPARE = 0xE,
};

/* key/asc/ascq, nothing else. */
int sense_set(struct scsi_cmd *cmd, uint8_t key, uint8_t asc, uint8_t ascq);
/* ILLEGAL REQUEST with a sense-key-specific field pointer (SKSV=1):
 * in_cdb true -> C/D=1 (CDB), false -> parameter list; byte = field's byte
 * offset; bit = bit position (0..7) or -1 for "whole byte" (BPV=0). */
int sense_invalid_field(struct scsi_cmd *cmd, uint8_t asc, uint8_t ascq, bool in_cdb, uint16_t byte, int bit);
/* shorthand: 05/24/00 INVALID FIELD IN CDB at byte/bit */
int sense_invalid_cdb_field(struct scsi_cmd *cmd, uint16_t byte, int bit);
/* set VALID and the INFORMATION field (e.g. MISCOMPARE offset) */
int sense_set_info(struct scsi_cmd *cmd, uint8_t key, uint8_t asc, uint8_t ascq, uint64_t info);

#endif
