/* copy_sense.h — the two kinds of sense a copy manager returns, on top of
 * handlers/scsi/sense.h (fixed format, 18 bytes). */
#ifndef LUNLAB_COPY_SENSE_H
#define LUNLAB_COPY_SENSE_H

#include <stdint.h>

#include "handlers/copy/xcopy_parse.h"
#include "handlers/lunlab_dev.h"

/* A parameter list error from xcopy_parse(): ILLEGAL REQUEST with the field
 * pointer into the parameter list (C/D = 0) when the parser gave one. */
int copy_sense_param(struct scsi_cmd *cmd, const struct xcopy_err *e);

/* COPY ABORTED while processing segment descriptor number seg (0 = first):
 * COMMAND-SPECIFIC INFORMATION = seg (its third and fourth bytes name the
 * segment, SPC-4 segment pointer), and when seg_field >= 0 the
 * sense-key-specific segment pointer (SKSV=1, SD=1: field_pointer relative
 * to the start of that segment descriptor). */
int copy_sense_aborted(struct scsi_cmd *cmd, uint16_t asc_ascq, uint16_t seg, int seg_field);

#endif
