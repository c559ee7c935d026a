/* power_on.h — the unit attention of a power on (SAM-5 6.3.1, SPC-4 table
 * 51: 06/29/01 POWER ON OCCURRED).  An LU owes it once to every I_T nexus,
 * i.e. to every initiator port (iSCSI: initiator name + ISID), when an
 * initiator may hold state of it from before the power on: after a restart
 * on a state directory that was there before (--state-dir: the target ran
 * on it already; its volatile state - write cache, reservations without
 * APTPL, mode pages - is gone while the data is back), and after a TARGET
 * COLD RESET (a power on of a running target, its sessions still there).
 *
 * A fresh array, never persisted, owes it to nobody: no initiator can have
 * seen it before, so nothing it believes can have been lost.  LIO does the
 * same: target_core raises no power-on unit attention at start or for a new
 * nexus (it raises 3F/0E when a LUN is mapped or unmapped, 29/03 after a
 * LUN RESET, 2A/xx for reservation, ALUA and mode changes).  A real array
 * booting raises 29/00 or 29/01 to the initiators that knew it; lunlab's
 * equivalent is the restart on a state directory.  A first command that is
 * not refused is also what initiators that do not retry unit attentions need
 * (iscsi-ls -s, docs/access-control.md's first commands).
 *
 * A port is "told" once a command of one of its sessions has been answered
 * with the unit attention; a session that logs out before sending anything
 * leaves it owed to the port's next session.  INQUIRY and REPORT LUNS never
 * see it (SAM-5 5.14); REQUEST SENSE returns it as its sense data.
 *
 * The condition lives in the LU's one unit attention store
 * (target/core/ua_queue.h: UA_POWER_ON, the highest priority): arming it
 * owes it to every port, known or not yet; the functions here are that
 * store's power-on questions by LUN number or entry. */
#ifndef LUNLAB_LU_POWER_ON_H
#define LUNLAB_LU_POWER_ON_H

#include <stdbool.h>
#include <stdint.h>

/* Is the port still owed the unit attention on lun?  (False for a LUN
 * that does not exist.) */
bool lu_power_on_owed(uint64_t lun, const char *iqn, const uint8_t isid[6]);

/* Takes it for the port: true when it was owed (the port is now told);
 * false when it was not, or another session of the same port took it
 * first.  (The SCSI core takes it with every other condition through
 * lu_nexus_take_ua.) */
bool lu_power_on_claim(uint64_t lun, const char *iqn, const uint8_t isid[6]);

/* Mapped LUs (API volumes) are not numbered.  A volume reopened from a
 * state directory at start owes the power on like a --lun LU does; one created while the target runs does not (its
 * initiators learn of it by 06/3F/0E).  Arm: e now owes it to every port
 * (always true). */
struct lu_entry;
bool lu_entry_power_on_arm(struct lu_entry *e);
/* lu_power_on_claim for a mapped LU: false when e owes none. */
bool lu_entry_power_on_claim(struct lu_entry *e, const char *iqn, const uint8_t isid[6]);

/* The --lun LU lun owes it to every port from now on (main: a target
 * restarted on its state directory).  Until then a --lun LU owes none
 * (lu_table_reset() forgets it with the LU). */
void lu_power_on_arm(uint64_t lun);

/* TARGET COLD RESET: every LU owes it to every port again (mapped LUs
 * too: from an I/O thread, lu_table_each). */
void lu_power_on_rearm(void);

#endif
