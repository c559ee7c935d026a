/* xfer_len.h — how many bytes a CDB says it moves.  The transport needs this
 * for iSCSI residuals (EDTL vs the SCSI transfer length) and to trim a
 * READ/WRITE whose EDTL is shorter than its CDB. */
#ifndef LUNLAB_ISCSI_XFER_LEN_H
#define LUNLAB_ISCSI_XFER_LEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XFER_LEN_UNKNOWN UINT64_MAX

/* Bytes the CDB transfers (cdb: an LU command's LU_CDB_MAX-byte buffer): its
 * allocation length, fixed response size or, for READ/WRITE, blocks x block_size; 0 for
 * commands that move nothing.  XFER_LEN_UNKNOWN for a command the CDB layout table does
 * not know and for data-out commands other than the READ/WRITE family (their data is
 * what the initiator sends).  *rw: the command's blocks may be cut short to EDTL
 * (CDB_L_DIVISIBLE: READ/WRITE/WRITE AND VERIFY 6/10/12/16). */
uint64_t cdb_xfer_len(const uint8_t *cdb, uint32_t block_size, bool *rw);

/* Rewrites the block count of a READ/WRITE family (CDB_L_DIVISIBLE) CDB; false for
 * other commands or if it does not fit the field (READ/WRITE(6): 1..256). */
bool cdb_set_blocks(uint8_t *cdb, uint32_t blocks);

/* Self-describing responses (INQUIRY standard and VPD pages, MODE SENSE 6/10,
 * LOG SENSE, REQUEST SENSE, RECEIVE COPY RESULTS, GET LBA STATUS, REPORT
 * SUPPORTED OPERATION CODES) say how long
 * they are; a TCMU-style LU reports its whole buffer as produced, so the
 * transport trims to the real length to get the residual right.  Returns
 * produced when the answer does not describe itself. */
size_t cdb_response_len(const uint8_t *cdb, const uint8_t *buf, size_t produced);

#endif
