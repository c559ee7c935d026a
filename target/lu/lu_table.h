/* lu_table.h — the target's logical units: which LU each initiator sees at
 * which LUN, changeable while the target runs.
 *
 * Two kinds of LU.  The command line's --lun LUs are "global": LUN 0, 1, ...
 * in the order given, visible to every initiator (lu_table_add).  LUs made
 * by the management API (a volume or snapshot) are visible only through
 * LUN maps: lu_table_set_maps() says, for every initiator name, which LU it
 * sees at which LUN (LUN masking, as XMS lun-maps to initiator groups).
 *
 * Readers are the I/O threads, on every command, without a lock: the table
 * is an immutable snapshot behind one atomic pointer, replaced whole by a
 * writer, which frees the old one only after a grace period (lu_rcu.h).  A
 * session caches its initiator's view of the snapshot (struct lu_nexus), so
 * a lookup costs an atomic load, a compare and an index or a short binary
 * search.
 *
 * Unit attentions the table raises, posted to the LU's one unit attention
 * store (target/core/ua_queue.h, which says their priority):
 *   06/29/03 BUS DEVICE RESET FUNCTION OCCURRED  after a LUN RESET of the LU
 *   06/3F/0E REPORTED LUNS DATA HAS CHANGED      the initiator's LUN inventory
 *            changed (a map added or removed); REPORT LUNS clears it
 *   06/28/00 NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED
 *            the LU's data was replaced behind the host's back (an XMS
 *            snapshot refresh): SPC-4's code for "the medium may have
 *            changed", so a host drops what it cached of the LU
 *   06/2A/09 CAPACITY DATA HAS CHANGED           the LU was resized
 *   06/2A/06 ASYMMETRIC ACCESS STATE CHANGED     an ALUA state of the LU changed
 *            (target/lu/alua.h; not for the port whose SET TARGET PORT
 *            GROUPS changed it)
 * and, from their own modules, power on 06/29/01 (power_on.h) and the
 * reservation conditions 06/2A/03..05 (pr.h).  lu_nexus_take_ua takes them,
 * one per command. */
#ifndef LUNLAB_LU_TABLE_H
#define LUNLAB_LU_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/scsi_vocab.h"
#include "target/core/ua_queue.h"
#include "target/lu/lu_cmd.h"

#define LU_TABLE_MAX 16384 /* flat space addressing: LUN 0..16383 */
#define LU_IQN_MAX 223

/* One logical unit.  be, pr, ua and id never change. */
struct lu_entry {
	struct lu_backend *be;
	struct pr_state *pr;           /* reservations (target/lu/pr.h) */
	uint64_t id;                   /* unique for the life of the process */
	struct ua_queue *ua;           /* its unit attentions (target/core/ua_queue.h) */
	bool global;                   /* a --lun LU: every initiator sees it */
	struct lu_stats *stats;        /* what the target saw of its commands (lu_stats.h) */
	struct lu_alua *alua;          /* its ALUA states; NULL until first used */
};

/* ---- writers (start-up, the management API): one at a time ---- */

/* Appends a backend as the next global LUN (0, 1, ...); returns its LUN or -1. */
int lu_table_add(struct lu_backend *be);

/* A LU nobody sees yet (an API volume): NULL when out of memory. */
struct lu_entry *lu_entry_new(struct lu_backend *be);
/* Frees a LU made by lu_entry_new once no map names it (after
 * lu_table_set_maps without it, which waited for the grace period).  The
 * backend is the caller's to destroy afterwards. */
void lu_entry_free(struct lu_entry *e);
/* The LU's capacity changed: 06/2A/09 for every nexus that sees it. */
void lu_entry_capacity_changed(struct lu_entry *e);
/* The LU's data was replaced in place: 06/28/00 for every nexus that sees it. */
void lu_entry_medium_changed(struct lu_entry *e);

/* One LUN map: initiator iqn sees e at lun. */
struct lu_map_spec {
	const char *iqn;
	uint64_t lun;
	struct lu_entry *e;
};
/* Replaces every LUN map at once and returns when no I/O thread can still
 * see the old maps (entries dropped from them may then be freed).  -1 with
 * a reason in err: a LUN above LU_TABLE_MAX - 1, a LUN a global LU has, or
 * two LUs at one LUN of one initiator. */
int lu_table_set_maps(const struct lu_map_spec *maps, size_t n, char *err, size_t errlen);

/* Forgets every entry and map (the backends are not destroyed).  Only when
 * no I/O thread runs (shutdown, tests). */
void lu_table_reset(void);

/* ---- readers ---- */

/* The global LUs, as the command line gave them. */
struct lu_backend *lu_table_get(uint64_t lun);
size_t lu_table_count(void);
/* the global LU's reservation state; NULL for a LUN that does not exist */
struct pr_state *lu_table_pr(uint64_t lun);
struct lu_entry *lu_table_entry(uint64_t lun);

/* A LUN RESET of an entry: 06/29/03 for every nexus that sees it, the one
 * that sent it included (SAM-5 6.3.3). */
void lu_entry_lun_reset(struct lu_entry *e);

/* Calls fn on every LU of the current snapshot (global and mapped, each
 * once).  From an I/O thread (or with no writer running). */
void lu_table_each(void (*fn)(struct lu_entry *e, void *cls), void *cls);

/* A session's view of the table: what it saw last.  Zeroed at the start;
 * lu_nexus_free() at the end. */
struct lu_seen {
	uint64_t id;            /* entry id */
	uint64_t ua_seen;       /* the LU's unit attention generation at which this
	                         * nexus last had nothing pending (ua_queue_take) */
};
struct lu_view;
struct lu_nexus {
	uint64_t snap_gen;          /* snapshot the cache below belongs to; 0: none */
	const struct lu_view *view; /* the initiator's maps in it (NULL: none) */
	uint64_t inv_global;        /* the LUN inventory the nexus knows: the global LUs' */
	uint64_t inv_view;          /* generation and its own maps' (0: none) */
	bool started;               /* lu_nexus_start ran */
	const char *initiator;      /* its initiator name (the session's, not owned) */
	uint64_t port;              /* its initiator port's key (ua_port_key) */
	struct lu_seen *seen;       /* sorted by id */
	size_t nseen, capseen;
};

/* At the end of login: the nexus knows every LU it sees now (no attention
 * owed for what happened before it existed, but an armed power on and the
 * reservation conditions queued for its port).  isid: with initiator, the
 * initiator port. */
void lu_nexus_start(struct lu_nexus *nx, const char *initiator, const uint8_t isid[6]);
void lu_nexus_free(struct lu_nexus *nx);
/* The LU initiator sees at lun; NULL when none (lun_ok false: none). */
struct lu_entry *lu_nexus_lookup(struct lu_nexus *nx, const char *initiator, uint64_t lun, bool lun_ok);
/* The unit attention this command of the nexus to e must get, if any, from
 * e's one store (target/core/ua_queue.h), highest priority first: true
 * with the sense key/ASC/ASCQ in ua[3], the condition cleared.  INQUIRY and
 * REPORT LUNS never get one; REQUEST SENSE gets only a power on or a
 * reservation condition (the others stay pending, as lunlab always did).
 * A 06/3F/0E taken on one LU is told for the whole nexus. */
bool lu_nexus_take_ua(struct lu_nexus *nx, struct lu_entry *e, uint8_t opcode, uint8_t ua[3]);
/* The nexus knows its LUN inventory now (it took 06/3F/0E, or a REPORT
 * LUNS answered): 3F/0E cleared on every LU it sees. */
void lu_nexus_inventory_told(struct lu_nexus *nx);

/* What the target answers itself, as LIO does: REPORT LUNS on any LUN (the
 * nexus's own list; a REPORT LUNS clears its 06/3F/0E), and every command
 * to a LUN that does not exist (INQUIRY with peripheral qualifier 011b,
 * REQUEST SENSE with LOGICAL UNIT NOT SUPPORTED, anything else CHECK
 * CONDITION 05/25/00).  e: the LU at the command's LUN (NULL: none).
 * Returns false when the LU's backend must execute the command.  buf holds
 * buflen bytes; *data_len gets the bytes produced (may exceed buflen: the
 * excess is not stored).  nx NULL: the global LUNs only. */
bool lu_local_answer_nexus(struct lu_nexus *nx, const struct lu_entry *e, const uint8_t *cdb, size_t cdb_len, uint8_t *buf,
			   size_t buflen, size_t *data_len, uint8_t *status, uint8_t *sense, uint8_t *sense_len);
/* the same on the global table (lun_ok false: an undecodable LUN field) */
bool lu_local_answer(const uint8_t *cdb, size_t cdb_len, uint64_t lun, bool lun_ok, uint8_t *buf, size_t buflen,
		     size_t *data_len, uint8_t *status, uint8_t *sense, uint8_t *sense_len);

/* REPORT LUNS (SPC-4 6.33) of the n LUNs in luns[] (ascending): returns
 * the SCSI status. */
uint8_t report_luns_of(const uint64_t *luns, size_t n, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
		       size_t *data_len, uint8_t *sense, uint8_t *sense_len);
/* ... of the global LUNs */
uint8_t report_luns(const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen, size_t *data_len, uint8_t *sense,
		    uint8_t *sense_len);

/* Fixed-format sense data (18 bytes); field >= 0 adds a sense-key specific
 * field pointer into the CDB at that byte. */
uint8_t lu_sense_fixed(uint8_t *sense, enum scsi_vocab_sense_key key, uint16_t asc_ascq, int field);
/* ... and its INFORMATION field (SPC-4 4.5.3: VALID set), e.g. the first
 * failing LBA of a MEDIUM ERROR; info above 32 bits does not fit: left out. */
void lu_sense_set_info(uint8_t *sense, uint64_t info);

#endif
