/* cli.h - lunlab-bench command line: subcommand, target URLs and options. */
#ifndef LUNLAB_CLIENT_CLI_H
#define LUNLAB_CLIENT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/synthetic_image.h"
#include "client/write_data.h"

#define CLI_MAX_LIST 32

enum bench_cmd { CMD_NONE, CMD_INFO, CMD_SCALE, CMD_CLONE, CMD_DRR, CMD_WATCH, CMD_CALIBRATE };
enum out_format { OUT_TABLE, OUT_JSON, OUT_CSV };
enum clone_mode { MODE_AUTO, MODE_XCOPY, MODE_SOFTWARE, MODE_SNAPSHOT, MODE_ODX };

struct bench_opts {
	enum bench_cmd cmd;
	const char *url;
	const char *dest_url;          /* clone --dest */
	enum out_format format;
	const char *plot_path;         /* --plot FILE.svg */
	bool quiet;                    /* --quiet: no progress bar even on a TTY */
	const char *initiator;         /* --initiator IQN prefix */
	const char *metrics_url;       /* --metrics-url: record the target's /metrics.json during the run */
	bool metrics_insecure;         /* --metrics-insecure: accept a self-signed certificate */
	double interval_s;             /* watch --interval (and the --metrics-url sampling period) */
	unsigned count;                /* watch --count: readings, 0 = until killed; scale --count:
	                                * commands per VM instead of a --duration window */
	double timeout_s;              /* --timeout: re-login window and per-command limit (conn.h) */

	/* scale */
	unsigned vms_list[CLI_MAX_LIST];
	unsigned n_vms;
	uint64_t bs;                   /* --bs bytes */
	unsigned qd;
	double duration_s;
	double warmup_s;
	bool keep_going;               /* --keep-going: a failed command is counted, the VM goes on */
	bool write;
	enum write_data data;          /* --data: what scale --write sends (default unique) */
	bool random;                   /* --random: random offsets within each VM's region */

	/* clone */
	uint64_t template_size;
	uint64_t plot_job_bytes;       /* --plot-job SIZE: plot durations scaled to a job of SIZE cloned */
	enum template_content template_content;
	uint64_t chunk;                /* --chunk bytes (MaxHWTransferSize) */
	uint64_t sweep[CLI_MAX_LIST];  /* --sweep sizes; n_sweep == 0: just --chunk */
	unsigned n_sweep;
	unsigned clones;               /* --vms for clone: number of clones */
	unsigned parallel;
	unsigned outstanding;
	enum clone_mode mode;
	bool explain;
	unsigned explain_count;
	bool skip_template;            /* --no-template: template already written */
	bool verify;                   /* --verify: read clones back and compare with the template */

	/* drr */
	const char *image_path;
	bool synthetic;
	uint64_t image_size;
	uint64_t seed;
	double settle_timeout_s;       /* wait for pending_blocks == 0 */
	uint64_t write_size;           /* drr write size per command */

	/* calibrate (docs/calibrate.md) */
	const char *out_path;          /* --out PROFILE.yaml */
	const char *profile_name;      /* --name: the profile's name (default: from --out) */
	double budget_s;               /* --budget: measuring time, 10m by default */
	uint64_t capacity_use;         /* --capacity-use: bytes of the LU calibrate may write */
	uint64_t offset;               /* --offset: where that region starts */
	bool dataloss;                 /* --dataloss: the region's content may be destroyed */
	double calib_time_scale;       /* --time-scale: the LU runs this much slower than the array */
	bool sparse_writes;            /* --write-data sparse: unique, almost all-zero WRITE data */
	uint64_t max_io;               /* --max-io: no command covers more (0: the LU's limits only) */
	/* the array's management API (XMS REST; password from $LUNLAB_API_PASSWORD) */
	const char *api_url;           /* --api https://HOST:PORT */
	const char *api_user;          /* --api-user (default admin) */
	const char *api_cacert;        /* --api-cacert FILE */
	bool api_insecure;             /* --api-insecure: accept any certificate */
	bool keep_clones;              /* clone --mode snapshot --keep-clones */
	bool keep_tokens;              /* clone --mode odx --keep-tokens: WUT without DEL_TKN */
};

/* Parse argv into opts.  Returns 0, or -1 with a one-line message naming the argument in err.
 * Returns 1 when help was requested: print cli_usage(). */
int cli_parse(int argc, char **argv, struct bench_opts *opts, char *err, size_t errlen);

/* "64k,1m" -> list; every entry a size by ll_size_parse's rule (include/lunlab/size_parse.h),
 * none zero.  The uint list: positive integers. */
int cli_parse_size_list(const char *s, uint64_t *out, unsigned max, unsigned *n);
int cli_parse_uint_list(const char *s, unsigned *out, unsigned max, unsigned *n);

/* The full usage text (every option cli_parse accepts), ending in a newline. */
const char *cli_usage(void);

#endif
