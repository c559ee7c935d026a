/* fault_rules.h — the target's fault rules: which commands misbehave and how
 * (docs/faults.md).  As scsi_debug and LIO do it, faults act in the target
 * core before a command reaches its LU's backend, so every handler gets
 * them; only what the array alone can do (an EXTENDED COPY that stops after
 * N segments) travels with the command to the backend (lu_cmd.fault).
 *
 * The rule set is process-wide, added to and removed from any thread (the
 * command line at start, the API at run time), and checked by every I/O
 * thread for every command that would go to an LU.  With no rule the check
 * is one atomic load.  Rules are tried in the order they were added; the
 * first that fires decides, later ones do not see the command. */
#ifndef LUNLAB_LU_FAULT_RULES_H
#define LUNLAB_LU_FAULT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/lu/fault_spec.h"

#define FAULT_RULES_MAX 256

/* What a rule can see of one command. */
struct fault_cmd {
	uint64_t lun;
	const uint8_t *cdb;
	size_t cdb_len;            /* bytes of cdb the transport received */
	const char *initiator;     /* IQN of the I_T nexus */
	const char *portal;        /* "HOST:PORT" the connection came in on; NULL: unknown */
	const char *portal_adv;    /* that portal's advertised address; NULL: none */
	const uint8_t *data;       /* Data-Out received (UNMAP's descriptors); may be NULL */
	size_t data_len;
};

/* The rule that fired and what the transport must do. */
struct fault_hit {
	unsigned rule;             /* its id */
	bool first;                /* its first hit (log it) */
	enum fault_action action;
	bool has_sense;
	uint8_t key, asc, ascq;
	uint8_t status;
	uint64_t delay_us;         /* drawn from the rule's distribution */
	bool drop_after;
	uint32_t xcopy_segments;
	bool has_info;             /* MEDIUM ERROR: the first failing LBA for INFORMATION */
	uint64_t info_lba;
	uint64_t lba_first, lba_last; /* the rule's LBA range (0..UINT64_MAX without lba=) */
};

/* One rule as listed. */
struct fault_rule_info {
	unsigned id;
	char spec[FAULT_SPEC_MAX + 64]; /* canonical SPEC (fault_spec_format) */
	uint64_t matches;          /* commands that fitted while it was live */
	uint64_t hits;             /* times it fired */
	bool spent;                /* count reached, or its window is over */
	uint64_t age_ms;           /* since it was added */
};

/* Adds a rule (SPEC text, or a parsed spec); returns its id (> 0), or -1
 * with the reason in err (a bad SPEC, or FAULT_RULES_MAX rules). */
int fault_rules_add(const char *spec, char *err, size_t errlen);
int fault_rules_add_spec(const struct fault_spec *s, char *err, size_t errlen);
/* 0, or -1 when no rule has that id.  Commands a hold rule holds stay held
 * (until aborted): removing a rule changes only what comes next. */
int fault_rules_remove(unsigned id);
void fault_rules_clear(void);
/* Up to max rules in order into out; returns how many exist. */
size_t fault_rules_list(struct fault_rule_info *out, size_t max);
bool fault_rules_get(unsigned id, struct fault_rule_info *out);

/* Times rules fired since the start, by action (out[FAULT_ACTIONS]); unlike
 * a rule's own hits these stay counted when the rule is removed, so
 * /metrics can offer a counter that never goes back. */
void fault_rules_hit_totals(uint64_t out[FAULT_ACTIONS]);

/* Whether any rule exists: one relaxed atomic load (the hot path's test). */
bool fault_rules_any(void);

/* The verdict for one command: true when a rule fired (*hit says what to
 * do).  Counts matches and hits. */
bool fault_rules_check(const struct fault_cmd *cmd, struct fault_hit *hit);

/* Tests: a clock of their own (milliseconds, monotonic); NULL: the real one. */
void fault_rules_set_clock(uint64_t (*now_ms)(void));

/* fault_cdb.c: what the rules know of CDBs, through the one decoder
 * (lunlab/cdb_decode.h); cdb is an LU command's LU_CDB_MAX-byte buffer */
/* The command kind of a CDB (FAULT_OP_OPCODE: none of the named ones). */
enum fault_op fault_cdb_kind(const uint8_t *cdb, size_t cdb_len);
/* INQUIRY, REPORT LUNS, REQUEST SENSE: op=any leaves them alone, so an
 * initiator can still find out what is wrong with a failing LU. */
bool fault_cdb_exempt(const uint8_t *cdb, size_t cdb_len);
/* The blocks a CDB addresses: false for commands without an LBA field and a
 * length in blocks. */
bool fault_cdb_range(const uint8_t *cdb, size_t cdb_len, uint64_t *lba, uint64_t *blocks);
/* UNMAP: whether a block descriptor of its parameter list (data, len bytes,
 * bounds-checked) overlaps first..last; *at: the first LBA inside. */
bool fault_unmap_overlaps(const uint8_t *data, size_t len, uint64_t first, uint64_t last, uint64_t *at);

#endif
