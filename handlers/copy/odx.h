/* odx.h — the token copy offload commands (ODX; docs/xcopy.md "ODX"), as
 * opcodes.c's table calls them.  Each answers 05/20/00 INVALID COMMAND
 * OPERATION CODE when the LU's profile does not offer ODX (odx: false),
 * as for any command lunlab does not have. */
#ifndef LUNLAB_ODX_H
#define LUNLAB_ODX_H

#include "handlers/lunlab_dev.h"

/* THIRD-PARTY COPY OUT SA 10h (odx_exec.c) */
int odx_populate_token(struct scsi_cmd *cmd);
/* THIRD-PARTY COPY OUT SA 11h (odx_exec.c) */
int odx_write_using_token(struct scsi_cmd *cmd);
/* THIRD-PARTY COPY OUT SA 1Ch (odx_exec.c) */
int odx_copy_abort(struct scsi_cmd *cmd);
/* THIRD-PARTY COPY IN SA 07h (odx_rrti.c) */
int odx_rrti(struct scsi_cmd *cmd);
/* the RRTI parameter data of op into out (at least ODX_RRTI_MAX bytes);
 * returns its length (odx_rrti.c; the unit tests compare it byte by byte) */
#define ODX_RRTI_MAX (32u + 18u + 6u + 512u)
struct odx_op;
size_t odx_rrti_bytes(const struct odx_op *op, uint8_t *out);

#endif
