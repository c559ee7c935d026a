/* alua.h — asymmetric logical unit access (SPC-4 5.15), kept by the target
 * core as LIO keeps it (target_core_alua.c): the handler never learns the
 * port layout.
 *
 * Layout.  Every iSCSI portal group (--listen ...,tpg=N; default
 * --portal-group) is one SCSI target port and one target port group: the
 * target port group id and the relative target port identifier are both N.
 *
 * Which LUs.  A LU reports ALUA when its handler says so: handler_lunlab.so
 * declares its profile's `tpgs:` at open() through the host extension
 * contract's dev_set_tpgs (include/lunlab/host_ext.h), which lands in
 * lu_backend.tpgs.  The core then sets the TPGS field of the LU's standard
 * INQUIRY data, adds the relative target port and target port group
 * designators of the port a command came through to its VPD page 0x83,
 * answers REPORT TARGET PORT GROUPS (and, with explicit ALUA, SET TARGET
 * PORT GROUPS) itself, and refuses commands on ports whose group is in
 * standby, unavailable or transitioning with the sense SPC-4 gives.  LUs
 * with tpgs 0 (every XtremIO profile) are left exactly as they were.
 *
 * States are per LU (struct lu_entry: an API volume mapped at different
 * LUNs for different initiators has one set) and group.  Until set, a LU's
 * preferred group (round robin: the n-th group for global LUN n, by entry
 * id for API volumes) is active/optimized with PREF, the others
 * active/non-optimized: an active/active array with preferred paths.  A
 * change posts UNIT ATTENTION 06/2A/06 to the LU's store (UA_ALUA,
 * target/core/ua_queue.h) for every I_T nexus, except, for SET TARGET PORT
 * GROUPS, the port that sent it (the core clears its own). */
#ifndef LUNLAB_LU_ALUA_H
#define LUNLAB_LU_ALUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lu_entry;

#define ALUA_TPGS_IMPLICIT 1u
#define ALUA_TPGS_EXPLICIT 2u
#define ALUA_GROUPS_MAX 16

enum alua_state {
	ALUA_AO = 0x0,            /* active/optimized */
	ALUA_ANO = 0x1,           /* active/non-optimized */
	ALUA_STANDBY = 0x2,
	ALUA_UNAVAILABLE = 0x3,
	ALUA_TRANSITIONING = 0xf,
};

/* STATUS CODE of a group in REPORT TARGET PORT GROUPS */
#define ALUA_STATUS_NONE 0
#define ALUA_STATUS_EXPLICIT 1   /* altered by SET TARGET PORT GROUPS */
#define ALUA_STATUS_IMPLICIT 2   /* altered by the array (the API, --alua) */

/* The target port groups (distinct portal group tags, in order); called
 * once at start.  Ids 1..65535. */
void alua_set_groups(const uint16_t *ids, int n);
int alua_groups(uint16_t *ids, int max);

/* "ao", "active/optimized", "standby", ... -> state; false if unknown. */
bool alua_state_parse(const char *s, enum alua_state *out);
const char *alua_state_name(enum alua_state s);

/* The LU's TPGS (0 for none: its backend's lu_backend.tpgs). */
uint8_t alua_tpgs(const struct lu_entry *e);

/* The state of LU e (seen at LUN lun) on group tpg, and its PREF bit.  A
 * LU without ALUA, or a group that does not exist, is always AO. */
enum alua_state alua_state_of(struct lu_entry *e, uint64_t lun, uint16_t tpg, bool *pref);

/* Implicit change (the API, --alua): group tpg of e goes to state; with
 * transition_ms > 0 it is TRANSITIONING that long first (a second 06/2A/06
 * when it ends).  pref: -1 keeps the PREF bit, 0/1 sets it.  0, or -1 with
 * a one-line reason. */
int alua_set(struct lu_entry *e, uint64_t lun, uint16_t tpg, enum alua_state state, int pref,
	     unsigned transition_ms, char *err, size_t errlen);

/* One group of a LU as the API lists it. */
struct alua_group_info {
	uint16_t tpg;
	enum alua_state state;
	bool pref;
	uint8_t status;            /* ALUA_STATUS_* */
};
/* Up to max groups of e into out; returns how many there are (0: no ALUA). */
int alua_list(struct lu_entry *e, uint64_t lun, struct alua_group_info *out, int max);

/* What one command gets back from the ALUA layer. */
struct alua_answer {
	uint8_t status;
	uint8_t sense[18];
	uint8_t sense_len;
	size_t data_len;           /* Data-In bytes stored */
};

/* Would a command with this CDB be refused on a port in state s?  Fills
 * *ans with CHECK CONDITION NOT READY 04/0A..0C (SPC-4 5.15.2.4). */
bool alua_refuses(enum alua_state s, const uint8_t *cdb, size_t cdb_len, struct alua_answer *ans);

/* MAINTENANCE IN / REPORT TARGET PORT GROUPS (A3h/0Ah) of a LU with ALUA:
 * data into buf (buflen bytes, within the CDB's allocation length). */
void alua_report_tpgs(struct lu_entry *e, uint64_t lun, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
		      struct alua_answer *ans);
/* MAINTENANCE OUT / SET TARGET PORT GROUPS (A4h/0Ah): the Data-Out in buf.
 * On GOOD *changed is true when any state changed (the caller marks its own
 * nexus as having seen the new generation: lu_nexus_alua_seen). */
void alua_set_tpgs(struct lu_entry *e, uint64_t lun, const uint8_t *cdb, size_t cdb_len, const uint8_t *buf, size_t len,
		   struct alua_answer *ans, bool *changed);

/* Is this CDB one the ALUA layer answers itself (REPORT / SET TARGET PORT
 * GROUPS), for a LU with ALUA? */
bool alua_owns(const uint8_t *cdb, size_t cdb_len);

/* The LU's INQUIRY answer as the handler produced it (buf, len bytes
 * within an allocation of cap): the TPGS field of standard data, and on VPD
 * page 0x83 the relative target port and target port group designators of
 * port tpg.  Returns the new number of valid bytes (<= cap). */
size_t alua_patch_inquiry(uint8_t tpgs, uint16_t tpg, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len, size_t cap);

/* --alua SPEC (and the config file's alua: entries): one state change,
 * comma-separated key=value: lun=N (default: every LU with ALUA), tpg=N
 * (required), state=ao|ano|standby|unavailable|transitioning (or the long
 * names), pref=0|1, transition=MS (TRANSITIONING that long first). */
struct alua_spec {
	bool has_lun;
	uint32_t lun;
	uint16_t tpg;
	enum alua_state state;
	int pref;                  /* -1: unchanged */
	unsigned transition_ms;
};
bool alua_spec_parse(const char *text, struct alua_spec *out, char *err, size_t errlen);

/* Before a command's unit attentions are looked at: a timed transition of
 * e that is over settles now, so its 06/2A/06 is the very next one.  One
 * atomic load when no timed transition runs anywhere. */
void alua_settle(struct lu_entry *e);

/* the LU goes: its states with it (lu_table.c) */
void alua_free(struct lu_entry *e);
/* back to one group, 1 (tests, shutdown) */
void alua_reset(void);

#endif
