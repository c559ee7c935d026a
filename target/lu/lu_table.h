/* lu_table.h — the target's logical units: LUN number -> backend.  Filled
 * once at start-up in the order the LUNs were given, read-only afterwards
 * (so every I/O thread reads it without a lock). */
#ifndef LUNLAB_LU_TABLE_H
#define LUNLAB_LU_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/lu/lu_cmd.h"

#define LU_TABLE_MAX 16384 /* flat space addressing: LUN 0..16383 */

/* Appends a backend as the next LUN (0, 1, ...); returns its LUN or -1. */
int lu_table_add(struct lu_backend *be);
struct lu_backend *lu_table_get(uint64_t lun);
size_t lu_table_count(void);
/* the LU's reservation state (target/lu/pr.h); NULL for a LUN that does not exist */
struct pr_state *lu_table_pr(uint64_t lun);
/* the LU's host-observed command figures (target/lu/lu_stats.h); NULL for a
 * LUN that does not exist */
struct lu_stats *lu_table_stats(uint64_t lun);
void lu_table_reset(void); /* forgets every entry (backends are not destroyed) */

/* LUN RESET generations: every LUN RESET bumps its LU's counter; a session
 * that has not seen the current value gets a UNIT ATTENTION 06/29/03 (BUS
 * DEVICE RESET FUNCTION OCCURRED) on its next command to that LU, so every
 * other I_T nexus learns that its tasks there may be gone.  Atomic: sessions
 * live on different I/O threads.  0 for a LUN that does not exist. */
uint64_t lu_table_reset_gen(uint64_t lun);
/* one more LUN RESET of lun: returns the generation it replaced */
uint64_t lu_table_bump_reset_gen(uint64_t lun);

/* What the target answers itself, as LIO does: REPORT LUNS on any LUN, and
 * every command to a LUN that does not exist (INQUIRY with peripheral
 * qualifier 011b, REQUEST SENSE with LOGICAL UNIT NOT SUPPORTED, anything
 * else CHECK CONDITION 05/25/00).  Returns false when the LU's backend must
 * execute the command.  buf holds buflen bytes; *data_len gets the bytes
 * produced (may exceed buflen: the excess is not stored). */
bool lu_local_answer(const uint8_t *cdb, uint64_t lun, bool lun_ok, uint8_t *buf,
		     size_t buflen, size_t *data_len, uint8_t *status, uint8_t *sense,
		     uint8_t *sense_len);

/* REPORT LUNS (SPC-4 6.33): returns the SCSI status. */
uint8_t report_luns(const uint8_t *cdb, uint8_t *buf, size_t buflen, size_t *data_len,
		    uint8_t *sense, uint8_t *sense_len);

/* Fixed-format sense data (18 bytes); field >= 0 adds a sense-key specific
 * field pointer into the CDB at that byte. */
uint8_t lu_sense_fixed(uint8_t *sense, uint8_t key, uint8_t asc, uint8_t ascq, int field);

#endif
