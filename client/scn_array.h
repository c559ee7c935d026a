/* scn_array.h - the arrays of a scenario at run time: lunlab-target children the runner
 * starts on 127.0.0.1 (free ports, their own API user, a state directory), or an existing
 * target; their management API's /api/lunlab/ endpoints and /metrics. */
#ifndef LUNLAB_CLIENT_SCN_ARRAY_H
#define LUNLAB_CLIENT_SCN_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "client/scn_model.h"

/* The iSCSI names the built-in workloads log in as: a volumes: volume is mapped to both
 * (lunlab-bench's own default, which scale, clone, drr and a run: command's $LUNLAB_BENCH
 * use; and the verify stream's). */
#define SCN_BENCH_INITIATOR "iqn.2026-11.org.lunlab:bench"
#define SCN_VERIFY_INITIATOR "iqn.2026-11.org.lunlab:scenario-verify"

struct scn_array_rt {
	const struct scn_array *cfg;
	pid_t pid;                     /* 0: not running (external, or killed) */
	bool paused;
	char iqn[128];
	char url[SCN_TEXT];            /* iscsi://127.0.0.1:PORT/IQN (first portal) */
	unsigned ports[SCN_MAX_PORTALS];
	char api[SCN_TEXT];            /* https://127.0.0.1:PORT, "" without */
	char user[SCN_NAME], password[128];
	char log[SCN_TEXT];            /* the target's output */
	char state_dir[SCN_TEXT];
	char *argv[128];               /* kept for a restart on the same ports */
	unsigned argc;
	void *curl;                    /* one libcurl handle per array: its TLS connection is reused */
	int lun_no[SCN_MAX_LUNS];      /* the LUN number of each of cfg->luns (a volume's: its map's) */
};

/* Starts a runner's array (target_bin: lunlab-target), or fills an external one's URLs.
 * rundir holds the auth file, the log and the state directory.  0, or -1 with err. */
int scn_array_start(struct scn_array_rt *a, const struct scn_array *cfg, const char *target_bin,
		    const char *rundir, char *err, size_t errlen);
/* Makes the array's volumes: through its API (POST volumes in its cluster), an initiator
 * group "scenario" holding the built-in workloads' initiators, and a LUN map of each;
 * lun_no[] gets each map's LUN.  scale_vms: the most VMs of a scale workload on one of
 * them (scale logs its VMs in as SCN_BENCH_INITIATOR-0 .. -N-1 when N > 1), whose names
 * the group holds too.  0, or -1 with err naming the refused request. */
int scn_array_make_volumes(struct scn_array_rt *a, unsigned scale_vms, char *err, size_t errlen);
int scn_array_restart(struct scn_array_rt *a, char *err, size_t errlen);
void scn_array_kill(struct scn_array_rt *a);            /* SIGKILL, reaped */
void scn_array_stop(struct scn_array_rt *a);            /* SIGTERM (SIGKILL after 10 s) */
void scn_array_free(struct scn_array_rt *a);
/* the URL of LUN index lun */
void scn_array_lun_url(const struct scn_array_rt *a, int lun, char *out, size_t len);

/* METHOD path [body]: the answer's JSON (caller puts it), or NULL with err naming the
 * HTTP status and the array's message */
json_object *scn_api(struct scn_array_rt *a, const char *method, const char *path, const char *body,
		     char *err, size_t errlen);
/* METHOD path [body]: 0 with the answer's text in *text (caller frees) when it is 2xx, or
 * -1 with err naming the HTTP status and the array's message */
int scn_api_text(struct scn_array_rt *a, const char *method, const char *path, const char *body, char **text,
		 char *err, size_t errlen);
/* the sum of /metrics series matching "name" or "name{k=\"v\",...}" (every label given must
 * be on the series); 0, or -1 with err (no such series, no answer) */
int scn_metric(struct scn_array_rt *a, const char *series, double *out, char *err, size_t errlen);
/* the same over a /metrics text already fetched (unit tests) */
int scn_metric_sum(const char *text, const char *series, double *out);

#endif
