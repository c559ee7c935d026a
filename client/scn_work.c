/* scn_work.c - start, watch and stop a scenario's workloads (scn_work.h).  Each child is
 * its own process group, so stopping a run: command stops what it started too. */
#include "client/scn_work.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/scn_proc.h"
#include "lunlab/read_file.h"

static void lun_url(const struct scn_env *env, struct scn_lunref r, unsigned portal, char *out, size_t len)
{
	const struct scn_array_rt *a = &env->arrays[r.array];
	if (a->cfg->external || portal == 0) {
		scn_array_lun_url(a, r.lun, out, len);
		return;
	}
	snprintf(out, len, "iscsi://127.0.0.1:%u/%s/%d", a->ports[portal], a->iqn, a->lun_no[r.lun]);
}

static void upper(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

/* the environment a run: command gets (docs/scenarios.md "run: workloads") */
static void set_env(const struct scn_env *env)
{
	char k[128], v[SCN_TEXT * 2];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)env->seed);
	setenv("LUNLAB_SEED", v, 1);
	setenv("LUNLAB_BENCH", env->self, 1);
	/* the name volumes: are mapped to (lunlab-bench's default --initiator) */
	setenv("LUNLAB_INITIATOR", SCN_BENCH_INITIATOR, 1);
	for (unsigned i = 0; i < env->m->n_arrays; i++) {
		const struct scn_array_rt *a = &env->arrays[i];
		char n[SCN_NAME];
		snprintf(n, sizeof(n), "%s", a->cfg->name);
		upper(n);
		snprintf(k, sizeof(k), "LUNLAB_%s_URL", n);
		setenv(k, a->url, 1);
		for (unsigned l = 0; l < a->cfg->n_luns; l++) {
			char ln[SCN_NAME];
			snprintf(ln, sizeof(ln), "%s", a->cfg->luns[l].name);
			upper(ln);
			snprintf(k, sizeof(k), "LUNLAB_%s_%s_URL", n, ln);
			scn_array_lun_url(a, (int)l, v, sizeof(v));
			setenv(k, v, 1);
		}
		if (!a->cfg->external) {
			size_t off = 0;
			v[0] = 0;
			for (unsigned p = 0; p < a->cfg->portals; p++)
				off += (size_t)snprintf(v + off, sizeof(v) - off, "%s127.0.0.1:%u", p ? " " : "", a->ports[p]);
			snprintf(k, sizeof(k), "LUNLAB_%s_PORTALS", n);
			setenv(k, v, 1);
		}
		if (a->api[0]) {
			snprintf(k, sizeof(k), "LUNLAB_%s_API", n);
			setenv(k, a->api, 1);
			snprintf(k, sizeof(k), "LUNLAB_%s_API_USER", n);
			setenv(k, a->user, 1);
			snprintf(k, sizeof(k), "LUNLAB_%s_API_PASSWORD", n);
			setenv(k, a->password, 1);
			if (i == 0) { /* lunlab-bench --api reads $LUNLAB_API_PASSWORD */
				setenv("LUNLAB_API", a->api, 1);
				setenv("LUNLAB_API_USER", a->user, 1);
				setenv("LUNLAB_API_PASSWORD", a->password, 1);
			}
		}
	}
}

#define ARG(...) do { if (n < 40 && asprintf(&argv[n], __VA_ARGS__) >= 0) n++; } while (0)

/* the initiator a clone by snapshot logs in as: its own, so the runner can map the
 * template volume (and --verify the clones) to it alone */
static void snap_initiator(const struct scn_work *w, char *out, size_t len)
{
	snprintf(out, len, "iqn.2026-11.org.lunlab:scenario-snap-%s", w->name);
	for (char *c = out; *c; c++)
		if (*c == '_')
			*c = '-';              /* an iSCSI name has no '_' */
}

/* Clone by snapshot: lunlab-bench clone --mode snapshot clones a volume of the array's API
 * (found by its serial number), not a --lun LU, so the runner makes one first, in the
 * parent (the array's API connection is the parent's), named WORKLOAD_template, sized for the
 * template, maps it to the workload's own initiator and remembers its LUN. */
static int snap_prepare(struct scn_work_rt *rt, const struct scn_work *w, const struct scn_env *env, char *err,
			size_t errlen)
{
	struct scn_array_rt *a = &env->arrays[w->lun.array];
	char body[SCN_TEXT * 2], ini[SCN_TEXT], path[SCN_TEXT], e[SCN_TEXT];
	json_object *j;
	snap_initiator(w, ini, sizeof(ini));
	unsigned long long mib = (w->template_size + (1u << 20) - 1) >> 20;
	static const char *const types[4] = { "volumes", "initiator-groups", "initiators", "lun-maps" };
	for (unsigned i = 0; i < 4; i++) {
		if (i == 0)
			snprintf(body, sizeof(body), "{\"vol-name\": \"%s_template\", \"vol-size\": \"%llum\", \"cluster-id\": \"%s\"}",
				 w->name, mib, a->cfg->name);
		else if (i == 1)
			snprintf(body, sizeof(body), "{\"ig-name\": \"scn-%s\"}", w->name);
		else if (i == 2)
			snprintf(body, sizeof(body), "{\"ig-id\": \"scn-%s\", \"initiator-name\": \"scn-%s\", \"port-address\": \"%s\"}",
				 w->name, w->name, ini);
		else
			snprintf(body, sizeof(body), "{\"vol-id\": \"%s_template\", \"ig-id\": \"scn-%s\"}", w->name, w->name);
		snprintf(path, sizeof(path), "/api/json/v2/types/%s", types[i]);
		if (!(j = scn_api(a, "POST", path, body, e, sizeof(e)))) {
			snprintf(err, errlen, "workload %s: the template volume: POST %s: %s", w->name, path, e);
			return -1;
		}
		json_object_put(j);
	}
	snprintf(path, sizeof(path), "/api/json/v2/types/lun-maps?full=1&prop=lun&filter=vol-name:eq:%s_template", w->name);
	json_object *maps, *lun;
	if (!(j = scn_api(a, "GET", path, NULL, e, sizeof(e)))) {
		snprintf(err, errlen, "workload %s: the template volume's LUN: %s", w->name, e);
		return -1;
	}
	if (!json_object_object_get_ex(j, "lun-maps", &maps) || !json_object_is_type(maps, json_type_array) ||
	    json_object_array_length(maps) != 1 ||
	    !json_object_object_get_ex(json_object_array_get_idx(maps, 0), "lun", &lun) ||
	    !json_object_is_type(lun, json_type_int)) {
		snprintf(err, errlen, "workload %s: the template volume's LUN map has no LUN", w->name);
		json_object_put(j);
		return -1;
	}
	rt->snap_lun = json_object_get_int(lun);
	json_object_put(j);
	return 0;
}

/* in the child: exec the workload (never returns) */
static _Noreturn void child(const struct scn_work *w, const struct scn_work_rt *rt, const struct scn_env *env,
			    struct scn_progress *pg)
{
	char *argv[48] = { 0 };
	int n = 0;
	char src[SCN_TEXT], dst[SCN_TEXT];
	switch (w->kind) {
	case SCN_W_VERIFY: {
		struct scn_verify_opts o = { .bs = w->bs, .size = w->size, .offset = w->offset, .sync_every = w->sync_every,
					     .reconnect_s = w->reconnect_s, .seed = w->own_seed ? w->seed : env->seed,
					     .read_only = w->read_only, .reread_s = w->reread_s,
					     .initiator = SCN_VERIFY_INITIATOR };
		static char paths[SCN_MAX_PORTALS][SCN_TEXT];
		const struct scn_array_rt *a = &env->arrays[w->lun.array];
		unsigned np = a->cfg->external ? 1 : a->cfg->portals;
		for (unsigned p = 0; p < np; p++) {
			lun_url(env, w->lun, p, paths[p], sizeof(paths[p]));
			o.paths[p] = paths[p];
		}
		o.n_paths = np;
		int rc = scn_verify_run(&o, pg, stdout);
		fflush(stdout);
		_exit(rc);
	}
	case SCN_W_CLONE:
		if (!strcmp(w->mode, "snapshot")) {
			const struct scn_array_rt *a = &env->arrays[w->lun.array];
			char ini[SCN_TEXT];
			snap_initiator(w, ini, sizeof(ini));
			/* lunlab-bench --api reads the password from $LUNLAB_API_PASSWORD */
			setenv("LUNLAB_API_PASSWORD", a->password, 1);
			ARG("%s", env->self);
			ARG("clone");
			ARG("%s/%d", a->url, rt->snap_lun);
			ARG("--mode");
			ARG("snapshot");
			ARG("--api");
			ARG("%s", a->api);
			ARG("--api-user");
			ARG("%s", a->user);
			ARG("--api-insecure");
			ARG("--initiator");
			ARG("%s", ini);
			ARG("--template-size");
			ARG("%llu", (unsigned long long)w->template_size);
			ARG("--vms");
			ARG("%u", w->clones);
			ARG("--verify");
			ARG("--json");
			ARG("--quiet");
			break;
		}
		lun_url(env, w->lun, 0, src, sizeof(src));
		ARG("%s", env->self);
		ARG("clone");
		ARG("%s", src);
		if (w->dest.array >= 0) {
			lun_url(env, w->dest, 0, dst, sizeof(dst));
			ARG("--dest");
			ARG("%s", dst);
		}
		ARG("--template-size");
		ARG("%llu", (unsigned long long)w->template_size);
		ARG("--vms");
		ARG("%u", w->clones);
		ARG("--chunk");
		ARG("%llu", (unsigned long long)w->chunk);
		ARG("--mode");
		ARG("%s", w->mode);
		if (w->job) { /* modeled.job_duration_s: the duration scaled to the job */
			ARG("--plot-job");
			ARG("%llu", (unsigned long long)w->job);
		}
		ARG("--verify");
		ARG("--json");
		ARG("--quiet");
		break;
	case SCN_W_SCALE:
		lun_url(env, w->lun, 0, src, sizeof(src));
		ARG("%s", env->self);
		ARG("scale");
		ARG("%s", src);
		ARG("--vms");
		ARG("%u", w->vms);
		ARG("--bs");
		ARG("%llu", (unsigned long long)w->bs);
		ARG("--qd");
		ARG("%u", w->qd);
		if (w->commands) {
			ARG("--count");
			ARG("%u", w->commands);
		} else {
			ARG("--duration");
			ARG("%g", w->duration_s);
			ARG("--warmup");
			ARG("%g", w->warmup_s);
		}
		if (w->keep_going)
			ARG("--keep-going");
		if (w->write) {
			ARG("--write");
			ARG("--data");
			ARG("%s", w->data);
		}
		if (w->random)
			ARG("--random");
		ARG("--json");
		ARG("--quiet");
		break;
	case SCN_W_DRR:
		lun_url(env, w->lun, 0, src, sizeof(src));
		ARG("%s", env->self);
		ARG("drr");
		ARG("%s", src);
		if (w->image[0]) {
			ARG("--image");
			ARG("%s", w->image);
		} else {
			ARG("--synthetic");
			ARG("win10");
			ARG("--size");
			ARG("%llu", (unsigned long long)w->size);
		}
		ARG("--seed");
		ARG("%llu", (unsigned long long)env->seed);
		ARG("--json");
		ARG("--quiet");
		break;
	case SCN_W_RUN:
		ARG("/bin/sh");
		ARG("-c");
		ARG("%s", w->command);
		break;
	}
	argv[n] = NULL;
	execv(argv[0], argv);
	fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int scn_work_start(struct scn_work_rt *w, const struct scn_work *cfg, const struct scn_env *env, double t,
		   char *err, size_t errlen)
{
	w->cfg = cfg;
	snprintf(w->out_path, sizeof(w->out_path), "%s/%s.out", env->rundir, cfg->name);
	snprintf(w->err_path, sizeof(w->err_path), "%s/%s.err", env->rundir, cfg->name);
	if (cfg->kind == SCN_W_VERIFY) {
		void *p = mmap(NULL, sizeof(struct scn_progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			snprintf(err, errlen, "mmap: %s", strerror(errno));
			return -1;
		}
		w->progress = p;
	}
	if (cfg->kind == SCN_W_CLONE && !strcmp(cfg->mode, "snapshot") && snap_prepare(w, cfg, env, err, errlen))
		return -1;
	int fo = open(w->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int fe = open(w->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fo < 0 || fe < 0) {
		snprintf(err, errlen, "%s: %s", w->out_path, strerror(errno));
		if (fo >= 0)
			close(fo);
		if (fe >= 0)
			close(fe);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(fo);
		close(fe);
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		dup2(fo, 1);
		dup2(fe, 2);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		set_env(env);
		child(cfg, w, env, w->progress);
	}
	setpgid(pid, pid); /* both sides: no race with the kill of the group */
	close(fo);
	close(fe);
	w->pid = pid;
	w->started = true;
	w->t_start = t;
	scn_proc_track(pid, true);
	return 0;
}

/* a step's captured output: its first max bytes (NULL if it cannot be read) */
static char *slurp(const char *path, size_t max)
{
	const struct ll_read_rules rules = { .max = max, .truncate = true };
	char err[256];
	size_t len;

	return ll_read_file(path, &rules, &len, err, sizeof(err));
}

static void finish(struct scn_work_rt *w, int st, double t)
{
	w->done = true;
	w->t_end = t;
	w->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	scn_proc_forget(w->pid);
	w->pid = 0;
	char *o = slurp(w->out_path, 1 << 20), *e = slurp(w->err_path, 64 << 10);
	if (o && w->cfg->kind != SCN_W_RUN)
		w->json = json_tokener_parse(o);
	size_t lo = o ? strlen(o) : 0, le = e ? strlen(e) : 0;
	w->output = malloc(lo + le + 1);
	if (w->output) {
		memcpy(w->output, o ? o : "", lo);
		memcpy(w->output + lo, e ? e : "", le);
		w->output[lo + le] = 0;
	}
	free(o);
	free(e);
}

bool scn_work_poll(struct scn_work_rt *w, double t)
{
	if (!w->started || w->done)
		return w->done;
	int st;
	struct rusage ru;
	pid_t r = wait4(w->pid, &st, WNOHANG, &ru);
	if (r == w->pid) {
		w->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
			   (double)ru.ru_stime.tv_usec / 1e6;
		finish(w, st, t);
	}
	return w->done;
}

void scn_work_stop(struct scn_work_rt *w, double t)
{
	if (!w->started || w->done)
		return;
	int st = scn_proc_stop(w->pid, 3);
	w->timed_out = true;
	finish(w, st < 0 ? 0 : st, t);
}

void scn_work_free(struct scn_work_rt *w)
{
	if (w->progress)
		munmap(w->progress, sizeof(*w->progress));
	json_object_put(w->json);
	free(w->output);
	memset(w, 0, sizeof(*w));
}
