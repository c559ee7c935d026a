/* copy_registry.h — the copy manager's memory of third-party copy operations
 * by list identifier, per LU: EXTENDED COPY (LID1) and the token commands
 * (POPULATE TOKEN, WRITE USING TOKEN) in ONE table, because SPC-4 gives the
 * list identifiers of all third-party copy commands one namespace per I_T
 * nexus (docs/xcopy.md, "One list identifier namespace").  It keeps
 *  - operations in progress: to enforce the concurrency limits, to report
 *    progress, and to refuse a list id its I_T nexus already has running,
 *    whatever command runs it (a POPULATE TOKEN may not take the list id of
 *    a running EXTENDED COPY of its nexus, nor the reverse);
 *  - completed ones whose results are kept: an EXTENDED COPY sent with LIST
 *    ID USAGE 00b (hold) — a successful one's COPY STATUS (RECEIVE COPY
 *    RESULTS SA 0, returned once), a failed one's FAILED SEGMENT DETAILS (SA
 *    4, returned once) and no COPY STATUS: the CHECK CONDITION of the
 *    EXTENDED COPY already told its initiator everything COPY STATUS would,
 *    and SPC-4 leaves how long COPY STATUS data is kept to the copy manager
 *    ("Held data"); and every token command, for RECEIVE ROD TOKEN
 *    INFORMATION (RRTI) and COPY OPERATION ABORT.
 * Each answer finds only the kind it reports on: RECEIVE COPY RESULTS the
 * EXTENDED COPY (LID1) operations, RRTI and COPY OPERATION ABORT the token
 * operations; another kind's list id is unknown to it (docs/xcopy.md).
 *
 * Scope of a list id: SPC-4 makes it the I_T nexus.  `nexus` is the id
 * copy_cmd_nexus() found (lunlab-target), or 0 when the host cannot say
 * (tcmu-runner): then all initiators of the LU share one scope, a running
 * duplicate is NOT refused (it may be another host's: an ESXi cluster shares
 * LUs, and ESXi stops offloading after a CHECK CONDITION) and the results of
 * the operation that ended last are the ones kept.  A new operation with the
 * list id of kept results in its scope replaces them, of either kind.
 *
 * Bounded per LU and per kind: XCOPY_TOTAL_CONCURRENT running and
 * XCOPY_HELD_PER_DEV held EXTENDED COPY statuses, ODX_CONCURRENT running and
 * ODX_HELD_PER_DEV kept token operations; when a new completed one does not
 * fit, the oldest of that LU and kind is dropped (SPC-4 lets a copy manager
 * discard held results when it needs the resources; statuses of sessions
 * that ended go this way, as no nexus loss reaches a handler).  Thread safe:
 * one small mutex, touched a few times per command, never per block. */
#ifndef LUNLAB_COPY_REGISTRY_H
#define LUNLAB_COPY_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/copy/odx_limits.h"

#define COPY_SENSE_MAX 18

/* What started an operation: the THIRD-PARTY COPY OUT (83h) service action,
 * which is also what RRTI's RESPONSE TO SERVICE ACTION reports. */
enum copy_kind {
	COPY_KIND_XCOPY_LID1 = 0x00,          /* EXTENDED COPY (LID1) */
	COPY_KIND_POPULATE_TOKEN = 0x10,
	COPY_KIND_WRITE_USING_TOKEN = 0x11,
};

/* ---- EXTENDED COPY (LID1): what RECEIVE COPY RESULTS reports ---- */

enum copy_mgr_status {
	COPY_IN_PROGRESS = 0x00,    /* COPY MANAGER STATUS values (SPC-4 RCR SA 0) */
	COPY_DONE_OK = 0x01,
	COPY_DONE_ERROR = 0x02,
};

struct copy_status {
	uint8_t cm_status;          /* enum copy_mgr_status */
	uint16_t segments;          /* segments processed */
	uint64_t bytes;             /* bytes copied */
	uint8_t scsi_status;        /* status the EXTENDED COPY ended with */
	uint8_t sense_len;          /* sense it ended with (0 if GOOD) */
	uint8_t sense[COPY_SENSE_MAX];
};

/* ---- token operations: what RECEIVE ROD TOKEN INFORMATION reports ---- */

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

/* ---- the registry ---- */

enum { COPY_REG_BUSY = -1, COPY_REG_DUPLICATE = -2 };

/* Register an operation of kind starting on dev from nexus.  has_id: the
 * list id names it (always for the token commands; LIST ID USAGE 00b or 10b
 * for EXTENDED COPY); hold: keep its results when it ends (always for the
 * token commands, 00b for EXTENDED COPY).  A LID1 list id is the same
 * number as a 32-bit one (0..255).  Returns a slot >= 0, COPY_REG_BUSY (the
 * kind's limit of running operations on dev reached, or the table full of
 * running ones) or COPY_REG_DUPLICATE (nexus != 0 already runs an operation
 * of ANY kind with list_id on dev).  Kept results with the same list id in
 * the same scope are dropped. */
int copy_reg_begin(const void *dev, uint64_t nexus, enum copy_kind kind, bool has_id, uint32_t list_id, bool hold);
/* Progress while it runs: segments processed and bytes (EXTENDED COPY) or
 * logical blocks (token operations) done. */
void copy_reg_progress(int slot, uint16_t segments, uint64_t count);
/* Whether COPY OPERATION ABORT asked the running operation to stop. */
bool copy_reg_aborted(int slot);
/* The EXTENDED COPY of slot ended: keep *st if it was held, else free it. */
void copy_reg_end_xcopy(int slot, const struct copy_status *st);
/* The token operation of slot ended: keep *op for RRTI (TERMINATED if an
 * abort reached it while it ran). */
void copy_reg_end_odx(int slot, const struct odx_op *op);

/* RECEIVE COPY RESULTS SA 0: the EXTENDED COPY list_id of nexus on dev,
 * running or completed without error.  consume: the caller transfers the
 * whole status, so a completed one is released.  False if unknown. */
bool copy_reg_xcopy_status(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out);
/* SA 4: true with the status of a held EXTENDED COPY that ended with an
 * error; consume releases it. */
bool copy_reg_xcopy_failed(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out);
/* RRTI: what the token operation list_id of nexus on dev reports (running
 * or kept); false if unknown. */
bool copy_reg_odx_get(const void *dev, uint64_t nexus, uint32_t list_id, struct odx_op *out);
/* COPY OPERATION ABORT of a token operation: 1 the running one will stop,
 * 2 a completed one (marked terminated when it made a token, that token
 * copied to token[] for the caller to cancel), 0 unknown list id. */
int copy_reg_odx_abort(const void *dev, uint64_t nexus, uint32_t list_id, uint8_t token[ODX_TOKEN_LEN],
		       bool *has_token);

/* Forget everything about dev (LU closed). */
void copy_reg_forget_dev(const void *dev);
/* Number of operations running on dev: EXTENDED COPY (xcopy true) or token
 * ones (tests, trace). */
unsigned copy_reg_running(const void *dev, bool xcopy);

#endif
