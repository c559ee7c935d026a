/* odx_ops.h — the token operations an LU knows by list identifier: the
 * running and completed POPULATE TOKEN and WRITE USING TOKEN commands that
 * RECEIVE ROD TOKEN INFORMATION reports and COPY OPERATION ABORT stops.
 *
 * As copy_lists.h for EXTENDED COPY (same scope rule: an I_T nexus when the
 * host tells it, copy_nexus.h, else the whole LU), but with SPC-4's 32-bit
 * list identifiers of these commands and what RRTI returns: the copy
 * operation status, the transfer count in blocks, the sense a failed
 * operation ended with, and the ROD token a POPULATE TOKEN created.
 * Bounded: ODX_CONCURRENT running and ODX_HELD_PER_DEV completed per LU (the
 * oldest completed one is dropped first).  Thread safe (one mutex). */
#ifndef LUNLAB_ODX_OPS_H
#define LUNLAB_ODX_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/copy/copy_lists.h"
#include "handlers/copy/odx_limits.h"

/* COPY OPERATION STATUS (SPC-4, RECEIVE ROD TOKEN INFORMATION) */
enum odx_op_status {
	ODX_OP_DONE = 0x01,            /* completed without errors */
	ODX_OP_DONE_ERRORS = 0x02,     /* completed with errors */
	ODX_OP_DONE_PARTIAL = 0x03,    /* without errors, partial ROD token usage */
	ODX_OP_RUNNING = 0x11,         /* in progress in foreground */
	ODX_OP_TERMINATED = 0x60,      /* aborted (COPY OPERATION ABORT) */
};

struct odx_op {
	uint8_t sa;                    /* the service action it answers (10h, 11h) */
	uint8_t status;                /* enum odx_op_status */
	uint64_t blocks;               /* TRANSFER COUNT, logical blocks */
	uint16_t segments;             /* range descriptors processed */
	uint8_t scsi_status;           /* what it ended with */
	uint8_t sense_len;
	uint8_t sense[COPY_SENSE_MAX];
	bool has_token;
	uint8_t token[ODX_TOKEN_LEN];
};

enum { ODX_BEGIN_BUSY = -1, ODX_BEGIN_DUPLICATE = -2 };

/* A new operation of list_id from nexus on dev: a slot >= 0, or busy, or
 * duplicate (that list id of that nexus still runs).  A completed one of
 * the same id and scope is replaced. */
int odx_ops_begin(const void *dev, uint64_t nexus, uint32_t list_id, uint8_t sa);
/* Progress while it runs (RRTI reads it). */
void odx_ops_progress(int slot, uint64_t blocks, uint16_t segments);
/* Whether COPY OPERATION ABORT asked the running operation to stop. */
bool odx_ops_aborted(int slot);
/* It ended: keep *op for RRTI. */
void odx_ops_end(int slot, const struct odx_op *op);
/* RRTI: a copy of what list_id of nexus on dev reports; false if unknown. */
bool odx_ops_get(const void *dev, uint64_t nexus, uint32_t list_id, struct odx_op *out);
/* COPY OPERATION ABORT: 1 the running operation will stop, 2 a completed
 * one is marked terminated (its token, if any, copied to token[] for the
 * caller to cancel), 0 unknown list id. */
int odx_ops_abort(const void *dev, uint64_t nexus, uint32_t list_id, uint8_t token[ODX_TOKEN_LEN], bool *has_token);
void odx_ops_forget_dev(const void *dev);

#endif
