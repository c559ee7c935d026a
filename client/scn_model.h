/* scn_model.h - a scenario file (docs/scenarios.md) as the parser validated it: arrays,
 * workloads, a timeline of events and the expectations.  Everything the runner needs is
 * here and checked before anything starts; names refer to other entries by index. */
#ifndef LUNLAB_CLIENT_SCN_MODEL_H
#define LUNLAB_CLIENT_SCN_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define SCN_MAX_ARRAYS 4
#define SCN_MAX_LUNS 8
#define SCN_MAX_PORTALS 4
#define SCN_MAX_WORK 8
#define SCN_MAX_EVENTS 256
#define SCN_MAX_EXPECT 64
#define SCN_MAX_LIST 16
#define SCN_NAME 32
#define SCN_TEXT 512

/* where a value came from in the file, for messages after parsing (1-based) */
struct scn_mark {
	unsigned line, col;
};

struct scn_lun {
	char name[SCN_NAME];
	uint64_t size;
	unsigned block;                /* 512 or 4096 */
	bool volume;                   /* volumes: an XMS volume the runner makes through the API and
					* maps to the workloads' initiators (its LUN known at run time) */
};

struct scn_array {
	char name[SCN_NAME];
	struct scn_mark mark;
	bool external;                 /* url: an existing target the runner does not start */
	char url[SCN_TEXT];            /* external: iscsi://host:port/iqn (LUN numbers appended) */
	char api_url[SCN_TEXT];        /* external: https://host:port, may be empty */
	char api_user[SCN_NAME];       /* external: API user (password from $LUNLAB_API_PASSWORD) */
	char model[SCN_NAME];          /* started: built-in profile (x2) */
	char profile[SCN_TEXT];        /* started: a profile file instead */
	uint64_t capacity;             /* array_capacity, 0 = the profile's */
	int soft_threshold;            /* percent, -1 = the profile's */
	char time_scale[SCN_NAME];     /* "0", "1", "virtual", ... */
	unsigned host_streams;         /* virtual clock, 0 = not pinned */
	bool host_sessions;            /* host_streams: session (one stream per initiator session) */
	bool state_dir;                /* keep the arrays' state in a directory (kill + restart) */
	unsigned portals;              /* 1.. SCN_MAX_PORTALS, each its own portal group */
	char tpgs[SCN_NAME];           /* LUN key tpgs (ALUA), empty = the profile's */
	unsigned n_luns;               /* luns: and volumes: together, in file order */
	struct scn_lun luns[SCN_MAX_LUNS];
	unsigned n_faults;             /* fault rules at start */
	char faults[SCN_MAX_LIST][SCN_TEXT];
	unsigned n_alua;               /* ALUA states at start (--alua SPEC) */
	char alua[SCN_MAX_LIST][SCN_TEXT];
};

enum scn_work_kind { SCN_W_VERIFY, SCN_W_CLONE, SCN_W_SCALE, SCN_W_RUN, SCN_W_DRR };

/* a reference to one LUN of one array */
struct scn_lunref {
	int array, lun;                /* indexes; -1 = none */
};

struct scn_work {
	char name[SCN_NAME];
	struct scn_mark mark;
	enum scn_work_kind kind;
	double start_s;                /* when it starts, from the run's start */
	struct scn_mark start_mark;
	bool start_by_event;           /* start: event - a start_workload event starts it */
	struct scn_lunref lun;         /* verify, scale; clone: the source */
	struct scn_lunref dest;        /* clone: destination (-1: the source LU) */
	/* verify: a write-then-verify stream */
	uint64_t bs, size, offset;     /* I/O size, bytes written in all, where they start */
	unsigned sync_every;           /* SYNCHRONIZE CACHE after this many writes (0: at the end only) */
	double reconnect_s;            /* how long a lost session may stay lost */
	bool own_seed;                 /* seed: this stream's data, not the scenario's seed */
	uint64_t seed;
	bool read_only;                /* read_only: no writes, the region must hold the pattern */
	double reread_s;               /* reread_for: read again until it does, at most this long */
	/* clone */
	uint64_t template_size, chunk;
	unsigned clones;
	char mode[SCN_NAME];           /* auto, xcopy, odx, software, snapshot */
	uint64_t job;                  /* --plot-job: the job the clone samples (0: none) */
	/* scale */
	unsigned vms, qd;
	double duration_s;
	double warmup_s;               /* scale: I/O before the measured window (0: none) */
	unsigned commands;             /* scale: --count, commands per VM instead of a window (0: none) */
	bool keep_going;               /* scale: --keep-going, a failed command does not stop it */
	bool write, random;
	char data[SCN_NAME];           /* unique, repeat, zero, win10 */
	/* run */
	char command[SCN_TEXT];
	/* drr: a disk image to write (default: the synthetic win10 image of size bytes) */
	char image[SCN_TEXT];
};

enum scn_ev_kind { SCN_E_FAULT, SCN_E_FAULT_OFF, SCN_E_RELEASE, SCN_E_FAULTS_CLEAR, SCN_E_PORTAL, SCN_E_ALUA,
		   SCN_E_KILL, SCN_E_RESTART, SCN_E_PAUSE, SCN_E_START, SCN_E_API };
enum scn_cond_kind { SCN_C_TIME, SCN_C_METRIC, SCN_C_PROGRESS, SCN_C_FINISHED, SCN_C_AFTER, SCN_C_API };

struct scn_event {
	struct scn_mark mark;
	enum scn_cond_kind cond;
	double at_s;                   /* SCN_C_TIME */
	char metric[SCN_TEXT];         /* SCN_C_METRIC: a /metrics series name, with {labels};
					* SCN_C_API: the path GET */
	char match[SCN_TEXT];          /* SCN_C_API: a regex its answer must match */
	char method[8];                /* api action: GET, POST, PUT, DELETE ... */
	char path[SCN_TEXT];           /* ... on this path ... */
	char body[SCN_TEXT * 2];       /* ... with this JSON body (empty: none) */
	double min;                    /* metric >= min (progress: fraction >= min) */
	int work;                      /* SCN_C_PROGRESS / SCN_C_FINISHED */
	int after;                     /* SCN_C_AFTER: an earlier event ... */
	double delay_s;                /* ... and how long after it happened */
	enum scn_ev_kind kind;
	int array;
	char name[SCN_NAME];           /* names it for fault_off (a fault) and for after: */
	int start;                     /* start_workload: the workload */
	char spec[SCN_TEXT];           /* fault SPEC */
	int ref;                       /* fault_off, release: the event that added the rule */
	unsigned portal;               /* portal: 1-based */
	bool up;                       /* portal: up or down */
	int lun;                       /* alua: -1 = every ALUA LUN */
	unsigned tpg;
	char state[SCN_NAME];          /* alua state */
	int pref;                      /* alua pref: -1 unset */
	unsigned transition_ms;
	double pause_s;                /* pause: SIGSTOP for that long */
};

enum scn_exp_kind { SCN_X_STATUS, SCN_X_SENSE, SCN_X_VERIFIED, SCN_X_DURATION, SCN_X_JSON,
		    SCN_X_EXIT, SCN_X_OUTPUT, SCN_X_METRIC, SCN_X_SAW_SENSE, SCN_X_API };

struct scn_expect {
	struct scn_mark mark;
	char name[SCN_TEXT];           /* what the JUnit test case is called */
	enum scn_exp_kind kind;
	int work;                      /* workload expectations */
	int array;                     /* metric expectations */
	bool want_finished;            /* status */
	char text[SCN_TEXT];           /* sense KK/AA/QQ, output regex, json path, metric series, API path */
	char match[SCN_TEXT];          /* api: the regex the answer must match */
	bool have_min, have_max;
	double min, max;               /* duration, json, metric bounds */
	int exit_code;
	int over_work;                 /* json: divided by this workload's ... (-1: no ratio) */
	char over_path[SCN_TEXT];      /* ... number at this path ("X is 2.25x Y") */
	char skip_if[SCN_TEXT];        /* a dot path of the workload's JSON report: when it is true
					* (machine_limited), the check is skipped, not judged */
};

struct scn_model {
	char file[SCN_TEXT];
	char name[SCN_TEXT];
	uint64_t seed;
	double timeout_s;              /* the whole run's limit */
	unsigned n_arrays, n_work, n_events, n_expect;
	struct scn_array arrays[SCN_MAX_ARRAYS];
	struct scn_work work[SCN_MAX_WORK];
	struct scn_event events[SCN_MAX_EVENTS];
	struct scn_expect expect[SCN_MAX_EXPECT];
};

#endif
