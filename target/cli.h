/* cli.h — lunlab-target's options: the command line and, through
 * config_file.h, a YAML file (--config).  Both go through cli_set() so a value
 * means the same and is checked the same wherever it is written. */
#ifndef LUNLAB_TARGET_CLI_H
#define LUNLAB_TARGET_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_LUNS 1024
#define CLI_MAX_LISTEN 16     /* = TARGET_MAX_PORTALS */
#define CLI_MAX_ALLOW 4096    /* = AUTH_MAX_ALLOW */
#define CLI_MAX_FAULTS 256    /* = FAULT_RULES_MAX */
#define CLI_MAX_CLUSTERS 16   /* = XMS_MAX_CLUSTERS */

struct cli_lun {
	uint64_t size;
	uint32_t block;
	char handler[64];
	char cfgstring[1024]; /* "<handler>/k=v;k=v" */
	char serial[256];     /* empty: generate one */
	unsigned line;        /* where the LUN starts in the config file; 0: command line */
};

/* Every option, by the name it has on the command line (without "--") and in
 * the config file.  The value is also its bit in struct cli.given. */
enum cli_opt {
	CLI_LISTEN,
	CLI_IQN,
	CLI_LUN,
	CLI_HANDLER_PATH,
	CLI_IO_THREADS,
	CLI_PORTAL_GROUP,
	CLI_MAX_SESSIONS,
	CLI_LOGIN_TIMEOUT,
	CLI_STALL_TIMEOUT,
	CLI_ALIAS,
	CLI_ALLOW,
	CLI_AUTH_FILE,
	CLI_TRACE,
	CLI_QUIET,
	CLI_CONFIG,
	CLI_STATE_DIR,
	CLI_CHECK_STATE,
	CLI_API,
	CLI_API_CERT,
	CLI_API_KEY,
	CLI_API_METRICS_OPEN,
	CLI_CLUSTER,
	CLI_FAULT,
	CLI_ALUA,
	CLI_HANDLER_THREADS,
	CLI_NO_HUGEPAGES,
	CLI_API_NICE,
	CLI_PREALLOC_MIB,
	CLI_NOPTS
};

enum cli_kind {
	CLI_K_TEXT, /* one string */
	CLI_K_UINT, /* decimal, lo..hi */
	CLI_K_FLAG, /* present on the command line; true/false in the file */
	CLI_K_LIST, /* repeatable string: a sequence in the file */
	CLI_K_LUN,  /* repeatable --lun SPEC: a sequence of mappings in the file */
};

struct cli_optdef {
	const char *name;
	enum cli_opt id;
	enum cli_kind kind;
	unsigned lo, hi; /* CLI_K_UINT range; CLI_K_LIST/LUN: most entries (hi) */
};

/* The one place the names, kinds and ranges live; NULL-name terminated. */
extern const struct cli_optdef cli_options[];
/* NULL when no option has that name. */
const struct cli_optdef *cli_option(const char *name);

/* A config file LUN key and its line, for naming the line of a key the
 * handler refuses only when main() creates the LU (cli_lun_blame()). */
struct cli_keyline {
	int lun;
	unsigned line;
	char key[32];
};

struct cli_str; /* strings a config file brought in, freed by cli_free() */

struct cli {
	const char *listen[CLI_MAX_LISTEN]; /* --listen, repeatable; default 127.0.0.1:3260 */
	int nlisten;
	const char *auth_file;    /* --auth-file: CHAP credentials and allow-list */
	const char **allow;       /* --allow-initiator, repeatable */
	int nallow;
	const char *faults[CLI_MAX_FAULTS]; /* --fault SPEC, repeatable (target/lu/fault_spec.h) */
	int nfaults;
	/* --fault hw=...: the API's hardware failed from the start
	 * (target/api/xms_hw_fault_spec.h); needs --api */
	const char *hw_faults[CLI_MAX_FAULTS];
	int nhw_faults;
	const char *alua[CLI_MAX_FAULTS];   /* --alua SPEC, repeatable (target/lu/alua.h) */
	int nalua;
	const char *iqn;
	const char *alias;
	const char *handler_path;
	int io_threads;
	unsigned handler_threads; /* the tcmu host's worker pool; 0: its default */
	bool no_hugepages;        /* --no-hugepages: array payloads never from the hugetlb pool */
	unsigned prealloc_mib;    /* --prealloc-mib N: payload memory populated when an array opens */
	unsigned portal_group;
	unsigned max_sessions;
	long login_timeout;     /* seconds, -1 = not given */
	long stall_timeout;     /* seconds, -1 = not given */
	bool trace;
	bool quiet;
	bool api_metrics_open; /* --api-metrics-open: /metrics and the dashboard without auth */
	unsigned api_nice;     /* --api-nice N: the API's threads N nice steps below the I/O
	                        * threads (target/api/api_nice.h) */
	int nluns;
	struct cli_lun *luns;

	const char *api;        /* --api ADDR:PORT: the HTTPS management API; NULL: off */
	const char *api_cert;   /* --api-cert / --api-key: PEM files; NULL: self-signed */
	const char *api_key;
	const char *clusters[CLI_MAX_CLUSTERS]; /* --cluster SPEC: the API's clusters (arrays) */
	int nclusters;
	const char *config;     /* --config FILE, NULL: none */
	const char *state_dir;  /* --state-dir DIR: keep the arrays and the target's state there
	                         * (docs/persistence.md); NULL: everything in memory */
	const char *check_state; /* --check-state DIR: verify that state offline and exit */
	unsigned given;         /* bit (1u << enum cli_opt) per option set */
	unsigned line[CLI_NOPTS]; /* the config file's line of each option it set;
	                           * 0: not from the file (or the command line won) */
	struct cli_keyline *keylines; /* config file LUN keys (cli_lun_blame) */
	int nkeylines, capkeylines;
	struct cli_str *strings;
};

/* Defaults, no option given.  -1: out of memory (cli_free() still safe). */
int cli_init(struct cli *c);

/* 0: run; 1: --help/--version printed (exit 0); -1: error printed (exit 2).
 * With --config FILE: command-line scalars win over the file's; a list given
 * on the command line (--listen, --lun, --allow-initiator, --fault, --alua) replaces
 * the file's list (docs/config.md). */
int cli_parse(int argc, char **argv, struct cli *out);
void cli_free(struct cli *c);

/* Set one option from its text, with the same checks wherever it comes from.
 * value must live as long as c (see cli_keep).  Flags take "true"/"false";
 * CLI_LUN takes a --lun SPEC.  false with the reason in err (the caller names
 * the option and where it came from). */
bool cli_set(struct cli *c, enum cli_opt id, const char *value, char *err, size_t errlen);

/* A NUL-terminated copy of len bytes owned by c; NULL: out of memory. */
const char *cli_keep(struct cli *c, const char *s, size_t len);

/* One --lun spec into *lun; false with a one-line reason in err. */
bool cli_parse_lun(const char *spec, struct cli_lun *lun, char *err, size_t errlen);

/* A LUN built key by key: the --lun SPEC parser and the config file both use
 * it, so the keys are checked in one place. */
struct cli_lun_build {
	struct cli_lun *lun;
	char rest[sizeof(((struct cli_lun *)0)->cfgstring)]; /* handler keys: k=v;k=v */
	size_t rl;
	bool have_size;
};
void cli_lun_begin(struct cli_lun_build *b, struct cli_lun *lun);
/* a LUN key: 1.. of [A-Za-z0-9_.-] (no '=', ';', ',' to break the SPEC or cfgstring) */
bool cli_lun_key_name_ok(const char *k);
#define CLI_LUN_KEY_NAME_RULE "not a key name (letters, digits, _ - .)"
/* false with the reason (without key and value) in err */
bool cli_lun_key(struct cli_lun_build *b, const char *key, const char *val, char *err, size_t errlen);
/* the cross-key checks (size given, size a multiple of block) and the cfgstring */
bool cli_lun_end(struct cli_lun_build *b, char *err, size_t errlen);

/* The handler refused LUN i with reason (main, at LU creation): for a LUN
 * from the config file, the line and key the reason is about ("model 'x9':
 * ..." names model), else the LUN's own line and key "".  false for a LUN
 * from the command line. */
bool cli_lun_blame(const struct cli *c, int i, const char *reason, unsigned *line, const char **key);

#endif
