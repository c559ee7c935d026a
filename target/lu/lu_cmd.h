/* lu_cmd.h — the one structure that crosses from the iSCSI transport to a
 * logical unit's backend (the libtcmu-compatible host in target/tcmu/).
 *
 * Ownership: the transport fills a struct lu_cmd (CDB, data buffer), calls
 * backend submit, and must not touch it until cmd->done(cmd) runs.  done() is
 * called exactly once, on ANY thread (a handler worker thread in general), so
 * the transport hands the completion back to its own event loop itself. */
#ifndef LUNLAB_LU_CMD_H
#define LUNLAB_LU_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define LU_CDB_MAX 32
#define LU_SENSE_MAX 96

enum lu_dir { LU_DIR_NONE = 0, LU_DIR_READ = 1 /* Data-In */, LU_DIR_WRITE = 2 /* Data-Out */ };

struct lu_cmd {
	/* in: filled by the transport */
	uint8_t cdb[LU_CDB_MAX];
	uint8_t cdb_len;
	enum lu_dir dir;
	struct iovec *iov;      /* the command's data buffer: for WRITE it holds the
	                           Data-Out, for READ the handler fills it */
	size_t iov_cnt;
	size_t xfer_len;        /* EDTL: bytes the initiator expects to move */
	uint64_t lun;
	uint64_t itt_tag;       /* for TMF ABORT TASK / tracing */
	const char *initiator;  /* initiator IQN (for PR/ACL; not owned) */
	uint64_t nexus_id;      /* I_T nexus identity, unique per session */

	/* out: filled by the backend before done() */
	uint8_t status;         /* SCSI status: 0x00 GOOD, 0x02 CHECK CONDITION, 0x08 BUSY, 0x28 TASK SET FULL */
	uint8_t sense[LU_SENSE_MAX];
	uint8_t sense_len;      /* 0 unless CHECK CONDITION */
	size_t data_len;        /* Data-In bytes actually produced (<= xfer_len); for
	                           writes, bytes consumed.  Residuals derive from it. */

	void (*done)(struct lu_cmd *cmd);
	void *priv;             /* transport's own pointer */
	void *backend_priv;     /* backend's own pointer (e.g. its tcmur_cmd) */

	/* Optional, set by the transport (NULL: not offered).  For a READ-type
	 * command the backend may call it at most once, on any thread, before
	 * done(), when the buffer already holds every byte it will return and
	 * GOOD status is expected: the transport then starts sending Data-In
	 * while the status waits for done().  A paced LU that holds completion
	 * until its modeled service time would otherwise add the whole wire
	 * transfer on top of that time.  done() may still report an error: the
	 * status then follows the data (RFC 7143 allows it). */
	void (*data_ready)(struct lu_cmd *cmd);

	/* in: the initiator port's ISID (with initiator, the I_T nexus's
	 * initiator port: persistent reservations key registrations on it) */
	uint8_t isid[6];

	/* Optional, set by the transport with data_ready (NULL: not offered).
	 * For a READ-type command the backend may call it any number of times,
	 * on any thread, before done(): the first `bytes` of the buffer hold
	 * their final data.  The transport may start sending them, so a large
	 * READ's wire transfer overlaps the backend's filling of the rest. */
	void (*data_progress)(struct lu_cmd *cmd, size_t bytes);

	/* in: what the LU must get wrong itself because a fault rule says so
	 * (target/lu/fault_rules.h): only the array can stop an EXTENDED COPY
	 * part way.  All zero: nothing.  The tcmu host hands it to the handler
	 * through lunlab_host_cmd_xcopy_fault (include/lunlab/host_ext.h). */
	struct {
		bool xcopy_fail;          /* stop after xcopy_segments segments */
		uint32_t xcopy_segments;
		uint8_t key, asc, ascq;   /* the sense it ends with; key 0: the LU's own */
		uint64_t delay_ns;        /* a delay= rule held it this long before delivery
		                           * (lunlab_host_cmd_fault_delay_ns) */
	} fault;
	/* in: the LU layer's entry for lun (struct lu_entry, target/lu), set by
	 * the transport for the LU layer's own use (reservations); NULL: look
	 * lun up among the global LUNs.  Backends ignore it. */
	void *lu_entry;

	/* in: when the transport received the command (its SCSI Command PDU's
	 * header), CLOCK_MONOTONIC ns; 0 when unknown.  A WRITE reaches the
	 * backend only once all its data has arrived: a paced LU starts the
	 * command's modeled service time here, so the data transfer overlaps it
	 * as on a real array instead of adding to it. */
	uint64_t arrival_ns;

	/* A WRITE's early work (lu_backend_ops.data_arrived): state the
	 * backend keeps while the data arrives, and the function that frees
	 * it.  The transport calls early_drop(early) when it frees the command,
	 * after done() or instead of submitting it, on its own thread, before
	 * the data buffer goes (the state may still read it until then). */
	void *early;
	void (*early_drop)(void *early);
};

/* A backend device that executes CDBs (one LU). */
struct lu_backend;

struct lu_backend_ops {
	void (*submit)(struct lu_backend *be, struct lu_cmd *cmd);
	/* best effort: ask the backend to finish (or drop) commands of this
	 * nexus before they complete; commands still complete via done(). */
	void (*abort_nexus)(struct lu_backend *be, uint64_t nexus_id);
	void (*destroy)(struct lu_backend *be);
	/* Optional pair (both or neither): submit_deferred takes a command like
	 * submit but may leave it queued until kick(), which the transport calls
	 * once after each batch of commands it read in one go.  A backend that
	 * hands commands to worker threads then wakes a worker once per batch,
	 * not once per command. */
	void (*submit_deferred)(struct lu_backend *be, struct lu_cmd *cmd);
	void (*kick)(struct lu_backend *be);
	/* Optional, called only for LUs whose wants_data_arrived (struct
	 * lu_backend) is set: the first `bytes` of this WRITE's data buffer (cmd->iov,
	 * the whole buffer, xfer_len bytes) are final, the rest still on the
	 * wire; cmd->cdb, dir and lun are set, the command is not submitted
	 * yet.  Called on the transport's thread, any number of times with
	 * growing values; the backend may set cmd->early and cmd->early_drop
	 * (above), and must not block. */
	void (*data_arrived)(struct lu_backend *be, struct lu_cmd *cmd, size_t bytes);
};

struct lu_backend {
	const struct lu_backend_ops *ops;
	uint32_t block_size;
	uint64_t num_lbas;
	/* the LU's asymmetric access support (TPGS: 1 implicit, 2 explicit,
	 * 3 both; 0 none), as its handler declares it; the target core does
	 * the rest (target/lu/alua.h) */
	uint8_t tpgs;
	/* ops->data_arrived does something for this LU (its handler asked
	 * for it); set before the first command.  The transport looks at it
	 * once per command, not once per burst. */
	bool wants_data_arrived;
};

#endif
