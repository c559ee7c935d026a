/* fault_spec.h — one fault rule as text (--fault SPEC, the config file's
 * `fault:` entries, the API's rule bodies) and as the structure the rule set
 * (fault_rules.h) evaluates.  docs/faults.md is the reference for users.
 *
 * SPEC is comma-separated key[=value]; scripts depend on these names:
 *   match:   lun=N  op=read|write|xcopy|unmap|caw|tur|sync|any|HEX
 *            op=populate-token|write-using-token|rrti|copy-abort (ODX)
 *            lba=FIRST-LAST (or one LBA)  initiator=IQN  portal=HOST:PORT
 *   trigger: every=N  p=PROBABILITY  seed=N  count=N  window=START-END (s)
 *   action (exactly one):
 *            sense=KK/AA/QQ (hex) or a name (medium-error, not-ready, ...)
 *            status=busy|task-set-full|reservation-conflict
 *            delay=MS | delay=MIN-MAX | delay=exp:MEAN   (milliseconds)
 *            hold   drop[=before|after]   xcopy-fail-after=SEGMENTS   corrupt
 *            odx-fail-after=BLOCKS (WRITE USING TOKEN stops after BLOCKS blocks)
 *   sense= may also accompany xcopy-fail-after and odx-fail-after (the sense
 *   the copy ends with).
 *
 * The parser bounds-checks every field before it uses it and refuses
 * anything else with one line naming the key (fuzzed: tests/fuzz). */
#ifndef LUNLAB_LU_FAULT_SPEC_H
#define LUNLAB_LU_FAULT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAULT_SPEC_MAX 512        /* bytes of SPEC text accepted */
#define FAULT_IQN_MAX 224         /* iSCSI names are at most 223 bytes */
#define FAULT_PORTAL_MAX 72       /* "[v6addr]:port" */
#define FAULT_LUN_MAX 16383u      /* flat space addressing, as the LU table */
#define FAULT_DELAY_MAX_US 600000000ull  /* 10 minutes */
#define FAULT_WINDOW_MAX_MS (30ull * 86400 * 1000)

/* Command kinds a rule can name (op=). */
enum fault_op {
	FAULT_OP_ANY,     /* every command but INQUIRY, REPORT LUNS, REQUEST SENSE */
	FAULT_OP_READ,    /* READ(6/10/12/16) */
	FAULT_OP_WRITE,   /* WRITE(6/10/12/16), WRITE AND VERIFY, WRITE SAME, WRITE ATOMIC */
	FAULT_OP_XCOPY,   /* EXTENDED COPY */
	FAULT_OP_UNMAP,
	FAULT_OP_CAW,     /* COMPARE AND WRITE */
	FAULT_OP_TUR,     /* TEST UNIT READY */
	FAULT_OP_SYNC,    /* SYNCHRONIZE CACHE(10/16) */
	FAULT_OP_POPULATE_TOKEN,    /* ODX: THIRD-PARTY COPY OUT SA 10h */
	FAULT_OP_WRITE_USING_TOKEN, /* SA 11h */
	FAULT_OP_RRTI,              /* THIRD-PARTY COPY IN SA 07h, RECEIVE ROD TOKEN INFORMATION */
	FAULT_OP_COPY_ABORT,        /* SA 1Ch, COPY OPERATION ABORT */
	FAULT_OP_OPCODE,  /* one opcode, any service action */
};

enum fault_action {
	FAULT_ACT_SENSE,       /* CHECK CONDITION with key/asc/ascq */
	FAULT_ACT_STATUS,      /* BUSY, TASK SET FULL or RESERVATION CONFLICT */
	FAULT_ACT_DELAY,       /* the command runs late */
	FAULT_ACT_HOLD,        /* no response until aborted, reset or disconnected */
	FAULT_ACT_DROP,        /* the connection closes */
	FAULT_ACT_XCOPY_FAIL,  /* EXTENDED COPY stops after N segments (the array does it) */
	FAULT_ACT_CORRUPT,     /* silent corruption: data read or written is altered */
	FAULT_ACT_ODX_FAIL,    /* WRITE USING TOKEN stops after N blocks (the array does it) */
};
#define FAULT_ACTIONS (FAULT_ACT_ODX_FAIL + 1)

/* The action's name as a SPEC spells it ("sense", "xcopy-fail-after", ...). */
const char *fault_action_name(enum fault_action a);

enum fault_delay_kind { FAULT_DELAY_FIXED, FAULT_DELAY_UNIFORM, FAULT_DELAY_EXP };

struct fault_spec {
	/* match: a command must fit every key given */
	bool has_lun;
	uint32_t lun;
	enum fault_op op;
	uint8_t opcode;               /* FAULT_OP_OPCODE */
	bool has_lba;
	uint64_t lba_first, lba_last; /* inclusive; the command's blocks must overlap */
	char initiator[FAULT_IQN_MAX];  /* "" = any (compared case-insensitively) */
	char portal[FAULT_PORTAL_MAX];  /* "" = any; the portal's HOST:PORT or advertised one */

	/* trigger: fires on every `every`-th match, then with probability p,
	 * at most `count` times, only inside the window */
	uint64_t every;               /* >= 1 (default 1) */
	double p;                     /* (0, 1] (default 1) */
	uint64_t seed;                /* the rule's own random sequence (default 1) */
	bool has_p, has_seed;
	uint64_t count;               /* 0 = no limit */
	bool has_window;
	uint64_t window_start_ms, window_end_ms; /* after the rule was added; end > start */

	/* the action */
	enum fault_action action;
	bool has_sense;
	uint8_t key, asc, ascq;       /* FAULT_ACT_SENSE, or XCOPY_FAIL's / ODX_FAIL's own sense */
	uint8_t status;               /* FAULT_ACT_STATUS: 0x08, 0x28, 0x18 */
	enum fault_delay_kind delay_kind;
	uint64_t delay_a_us, delay_b_us; /* FIXED: a; UNIFORM: a..b; EXP: mean a */
	bool drop_after;              /* FAULT_ACT_DROP: after the data moved */
	uint32_t xcopy_segments;      /* FAULT_ACT_XCOPY_FAIL: segments; FAULT_ACT_ODX_FAIL: blocks */
};

/* Parses SPEC into *out.  false with one line in err naming the key, e.g.
 * "op=raed: unknown command kind (read, write, ...)". */
bool fault_spec_parse(const char *text, struct fault_spec *out, char *err, size_t errlen);

/* Sets one key of a spec being built (the config file's mapping form uses
 * it key by key); val is NULL for a key given without '=' (hold, drop,
 * corrupt).  fault_spec_init first, fault_spec_finish after the last key. */
void fault_spec_init(struct fault_spec *s);
bool fault_spec_key(struct fault_spec *s, const char *key, const char *val, char *err, size_t errlen);
bool fault_spec_finish(struct fault_spec *s, char *err, size_t errlen);

/* The rule in canonical SPEC form (keys in a fixed order, sense in hex):
 * parsing it gives the same rule.  Returns the length (snprintf rules). */
int fault_spec_format(const struct fault_spec *s, char *buf, size_t len);

/* "medium-error" -> 03/11/00 ...: false for a name not in the table. */
bool fault_sense_by_name(const char *name, uint8_t *key, uint8_t *asc, uint8_t *ascq);

#endif
