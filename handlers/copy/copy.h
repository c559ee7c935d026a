/* copy.h — third-party copy (SPC-4 6.4 EXTENDED COPY, 6.18 RECEIVE COPY
 * RESULTS, VPD 0x8F) for lunlab: the copy is a metadata copy in the array. */
#ifndef LUNLAB_COPY_H
#define LUNLAB_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "handlers/lunlab_dev.h"

/* EXTENDED COPY (0x83, SA 0x00 LID1).  Returns a TCMU_STS_* (sense filled via
 * sense.h on error).  Sets cmd->xcopy_bytes / xcopy_segments for the model. */
int xcopy_handle(struct scsi_cmd *cmd);
/* RECEIVE COPY RESULTS (0x84), service actions 0x00, 0x03 (and 0x04). */
int rcr_handle(struct scsi_cmd *cmd);
/* Body of VPD page 0x8F (third-party copy) into buf (page header included);
 * returns the full page length (may exceed len: caller truncates). */
size_t copy_vpd_8f(const struct lunlab_dev *dev, uint8_t *buf, size_t len);
/* Called from close(): forget list ids held for this device. */
void copy_dev_forget(const struct lunlab_dev *dev);

#endif
