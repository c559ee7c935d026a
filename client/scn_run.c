/* scn_run.c - one scenario run (scn_run.h).  Single-threaded on purpose: the runner polls
 * its children, its timed events and its conditions every 20 ms; the workloads are other
 * processes, so the runner's own cost is a few wake-ups a second (and a /metrics read
 * every 200 ms per array only while a metric condition is pending). */
#include "client/scn_run.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/scn_array.h"
#include "client/scn_proc.h"
#include "client/scn_work.h"

struct ev_rt {
	bool fired;
	double t;
	int rule_id;                   /* fault: the id the API gave the rule */
};

struct run {
	const struct scn_model *m;
	const struct scn_run_opts *o;
	struct scn_result *r;
	struct scn_array_rt arrays[SCN_MAX_ARRAYS];
	struct scn_work_rt work[SCN_MAX_WORK];
	struct ev_rt ev[SCN_MAX_EVENTS];
	double resume_at[SCN_MAX_ARRAYS]; /* a paused array: when it goes on (0: not paused) */
	double checked_t[SCN_MAX_EVENTS]; /* a metric condition's last /metrics read */
	bool start_now[SCN_MAX_WORK];     /* start: event workloads their event started */
	bool crashed;                     /* a target exited by itself: its log is kept */
	double t0;
};

static double now_rel(const struct run *R)
{
	return scn_now() - R->t0;
}

__attribute__((format(printf, 3, 4)))
static void say(struct run *R, double t, const char *fmt, ...)
{
	char line[SCN_TEXT * 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (R->o->log) {
		fprintf(R->o->log, "[%8.3fs] %s\n", t, line);
		fflush(R->o->log);
	}
	json_object *e = json_object_new_object();
	json_object_object_add(e, "t", json_object_new_double((double)(long long)(t * 1000 + 0.5) / 1000));
	json_object_object_add(e, "what", json_object_new_string(line));
	json_object_array_add(R->r->timeline, e);
}

/* ---- events ---- */

static int fire(struct run *R, unsigned i, double t, char *err, size_t errlen)
{
	const struct scn_event *e = &R->m->events[i];
	struct scn_array_rt *a = &R->arrays[e->array];
	const char *an = a->cfg->name;
	json_object *j = NULL;
	char path[64], body[SCN_TEXT * 2];
	switch (e->kind) {
	case SCN_E_FAULT: {
		json_object *b = json_object_new_object();
		json_object_object_add(b, "spec", json_object_new_string(e->spec));
		snprintf(body, sizeof(body), "%s", json_object_to_json_string(b));
		json_object_put(b);
		if (!(j = scn_api(a, "POST", "/api/lunlab/faults", body, err, errlen)))
			return -1;
		json_object *id;
		R->ev[i].rule_id = json_object_object_get_ex(j, "id", &id) ? json_object_get_int(id) : -1;
		say(R, t, "array %s: fault rule %d on: %s", an, R->ev[i].rule_id, e->spec);
		break;
	}
	case SCN_E_FAULT_OFF:
		if (!R->ev[e->ref].fired) {
			snprintf(err, errlen, "fault_off %s: that rule was never added (its event did not happen)",
				 R->m->events[e->ref].name);
			return -1;
		}
		snprintf(path, sizeof(path), "/api/lunlab/faults/%d", R->ev[e->ref].rule_id);
		if (!(j = scn_api(a, "DELETE", path, NULL, err, errlen)))
			return -1;
		json_object *h;
		say(R, t, "array %s: fault rule %d (%s) off after %d hit(s)", an, R->ev[e->ref].rule_id,
		    R->m->events[e->ref].name, json_object_object_get_ex(j, "hits", &h) ? json_object_get_int(h) : -1);
		break;
	case SCN_E_RELEASE:
		if (!R->ev[e->ref].fired) {
			snprintf(err, errlen, "release %s: that rule was never added (its event did not happen)",
				 R->m->events[e->ref].name);
			return -1;
		}
		snprintf(path, sizeof(path), "/api/lunlab/faults/%d/release", R->ev[e->ref].rule_id);
		if (!(j = scn_api(a, "POST", path, "{}", err, errlen)))
			return -1;
		json_object *rh;
		say(R, t, "array %s: fault rule %d (%s) released after %d hit(s): what it held goes on", an,
		    R->ev[e->ref].rule_id, R->m->events[e->ref].name,
		    json_object_object_get_ex(j, "hits", &rh) ? json_object_get_int(rh) : -1);
		break;
	case SCN_E_FAULTS_CLEAR:
		if (!(j = scn_api(a, "DELETE", "/api/lunlab/faults", NULL, err, errlen)))
			return -1;
		say(R, t, "array %s: every fault rule removed", an);
		break;
	case SCN_E_PORTAL:
		/* portals count from 1 in the scenario file and in /api/lunlab/portals/N alike */
		snprintf(path, sizeof(path), "/api/lunlab/portals/%u", e->portal);
		snprintf(body, sizeof(body), "{\"state\": \"%s\"}", e->up ? "up" : "down");
		if (!(j = scn_api(a, "PUT", path, body, err, errlen)))
			return -1;
		say(R, t, "array %s: portal %u %s", an, e->portal, e->up ? "up" : "down");
		break;
	case SCN_E_ALUA: {
		json_object *b = json_object_new_object();
		if (e->lun >= 0)
			json_object_object_add(b, "lun", json_object_new_int(e->lun));
		json_object_object_add(b, "tpg", json_object_new_int((int)e->tpg));
		json_object_object_add(b, "state", json_object_new_string(e->state));
		if (e->pref >= 0)
			json_object_object_add(b, "pref", json_object_new_boolean(e->pref));
		if (e->transition_ms)
			json_object_object_add(b, "transition-ms", json_object_new_int((int)e->transition_ms));
		snprintf(body, sizeof(body), "%s", json_object_to_json_string(b));
		json_object_put(b);
		if (!(j = scn_api(a, "PUT", "/api/lunlab/alua", body, err, errlen)))
			return -1;
		say(R, t, "array %s: ALUA port group %u -> %s%s", an, e->tpg, e->state,
		    e->transition_ms ? " (transitioning first)" : "");
		break;
	}
	case SCN_E_KILL:
		scn_array_kill(a);
		R->resume_at[e->array] = 0;
		say(R, t, "array %s: SIGKILL", an);
		break;
	case SCN_E_RESTART:
		if (scn_array_restart(a, err, errlen))
			return -1;
		say(R, t, "array %s: restarted on its state directory (pid %d), listening again", an, (int)a->pid);
		break;
	case SCN_E_API: {
		char *text = NULL;
		if (scn_api_text(a, e->method, e->path, e->body[0] ? e->body : NULL, &text, err, errlen))
			return -1;
		say(R, t, "array %s: %s %s: %.200s", an, e->method, e->path, text);
		free(text);
		break;
	}
	case SCN_E_START:
		R->start_now[e->start] = true;
		say(R, t, "workload %s: its start event", R->m->work[e->start].name);
		break;
	case SCN_E_PAUSE:
		if (!a->pid) {
			snprintf(err, errlen, "pause: array %s is not running", an);
			return -1;
		}
		kill(a->pid, SIGSTOP);
		a->paused = true;
		R->resume_at[e->array] = t + e->pause_s;
		say(R, t, "array %s: paused (SIGSTOP) for %.3gs", an, e->pause_s);
		break;
	}
	json_object_put(j);
	return 0;
}

static bool cond_met(struct run *R, unsigned i, double t)
{
	const struct scn_event *e = &R->m->events[i];
	switch (e->cond) {
	case SCN_C_TIME:
		return t >= e->at_s;
	case SCN_C_FINISHED:
		return R->work[e->work].done;
	case SCN_C_AFTER:
		return R->ev[e->after].fired && t >= R->ev[e->after].t + e->delay_s;
	case SCN_C_API: {
		struct scn_array_rt *a = &R->arrays[e->array];
		if ((!a->pid && !a->cfg->external) || a->paused || (R->checked_t[i] > 0 && t - R->checked_t[i] < 0.2))
			return false;
		R->checked_t[i] = t;
		char *text = NULL, err[SCN_TEXT];
		regex_t re;
		bool met = false;
		if (!scn_api_text(a, "GET", e->metric, NULL, &text, err, sizeof(err)) &&
		    !regcomp(&re, e->match, REG_EXTENDED | REG_NOSUB)) {
			met = !regexec(&re, text, 0, NULL, 0);
			regfree(&re);
		}
		free(text);
		return met;
	}
	case SCN_C_PROGRESS: {
		const struct scn_progress *p = R->work[e->work].progress;
		return p && p->total && (double)p->done / (double)p->total >= e->min;
	}
	case SCN_C_METRIC: {
		struct scn_array_rt *a = &R->arrays[e->array];
		/* at most 5 reads a second: the condition is for events of the order of a second */
		if ((!a->pid && !a->cfg->external) || a->paused || (R->checked_t[i] > 0 && t - R->checked_t[i] < 0.2))
			return false;
		R->checked_t[i] = t;
		double v;
		char err[SCN_TEXT];
		return !scn_metric(a, e->metric, &v, err, sizeof(err)) && v >= e->min;
	}
	}
	return false;
}

static const char *cond_text(const struct scn_event *e, const struct scn_model *m, char *buf, size_t len)
{
	switch (e->cond) {
	case SCN_C_TIME: snprintf(buf, len, "at %.3gs", e->at_s); break;
	case SCN_C_FINISHED: snprintf(buf, len, "when %s finished", m->work[e->work].name); break;
	case SCN_C_PROGRESS: snprintf(buf, len, "when %s reached %.0f%%", m->work[e->work].name, e->min * 100); break;
	case SCN_C_METRIC: snprintf(buf, len, "when %s >= %g", e->metric, e->min); break;
	case SCN_C_AFTER: snprintf(buf, len, "%.3gs after %s", e->delay_s, m->events[e->after].name); break;
	case SCN_C_API: snprintf(buf, len, "when GET %.200s matches /%.200s/", e->metric, e->match); break;
	}
	return buf;
}

/* ---- expectations ---- */

int scn_json_number(json_object *j, const char *path, double *out)
{
	char buf[SCN_TEXT], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && j; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(j, json_type_array)) {
			char *end;
			long idx = strtol(k, &end, 10);
			if (*end || idx < 0 || (size_t)idx >= json_object_array_length(j))
				return -1;
			j = json_object_array_get_idx(j, (size_t)idx);
		} else if (!json_object_is_type(j, json_type_object) || !json_object_object_get_ex(j, k, &j)) {
			return -1;
		}
	}
	if (!j)
		return -1;
	if (json_object_is_type(j, json_type_boolean))
		*out = json_object_get_boolean(j);
	else if (json_object_is_type(j, json_type_int) || json_object_is_type(j, json_type_double))
		*out = json_object_get_double(j);
	else
		return -1;
	return 0;
}

static const char *jstr(json_object *j, const char *k)
{
	json_object *v;
	return j && json_object_object_get_ex(j, k, &v) && v ? json_object_get_string(v) : NULL;
}

static void bounds(const struct scn_expect *x, double v, struct scn_xresult *res, const char *unit)
{
	res->ok = (!x->have_min || v >= x->min) && (!x->have_max || v <= x->max);
	char want[128] = "";
	if (x->have_min && x->have_max)
		snprintf(want, sizeof(want), "want %.10g..%.10g", x->min, x->max);
	else if (x->have_min)
		snprintf(want, sizeof(want), "want >= %.10g", x->min);
	else
		snprintf(want, sizeof(want), "want <= %.10g", x->max);
	snprintf(res->observed, sizeof(res->observed), "%.10g%s (%s)", v, unit, want);
}

/* the last non-empty line of text, for a message */
static void last_line(const char *text, char *out, size_t len)
{
	out[0] = 0;
	if (!text)
		return;
	const char *end = text + strlen(text);
	while (end > text && isspace((unsigned char)end[-1]))
		end--;
	const char *b = end;
	while (b > text && b[-1] != '\n')
		b--;
	snprintf(out, len, "%.*s", (int)(end - b) > 200 ? 200 : (int)(end - b), b);
}

static void judge(struct run *R, unsigned i)
{
	const struct scn_expect *x = &R->m->expect[i];
	struct scn_xresult *res = &R->r->x[i];
	res->ok = false;
	if (x->kind == SCN_X_API) {
		struct scn_array_rt *a = &R->arrays[x->array];
		char *text = NULL, err[SCN_TEXT];
		regex_t re;
		if (!a->pid && !a->cfg->external) {
			snprintf(res->observed, sizeof(res->observed), "array %s is not running at the end", a->cfg->name);
		} else if (scn_api_text(a, "GET", x->text, NULL, &text, err, sizeof(err))) {
			snprintf(res->observed, sizeof(res->observed), "%s", err);
		} else if (!regcomp(&re, x->match, REG_EXTENDED | REG_NOSUB)) {
			res->ok = !regexec(&re, text, 0, NULL, 0);
			regfree(&re);
			snprintf(res->observed, sizeof(res->observed), res->ok ? "matched" : "the answer: %.300s", text);
		}
		free(text);
		return;
	}
	if (x->kind == SCN_X_METRIC) {
		struct scn_array_rt *a = &R->arrays[x->array];
		double v;
		char err[SCN_TEXT];
		if (!a->pid && !a->cfg->external)
			snprintf(res->observed, sizeof(res->observed), "array %s is not running at the end", a->cfg->name);
		else if (scn_metric(a, x->text, &v, err, sizeof(err)))
			snprintf(res->observed, sizeof(res->observed), "%s", err);
		else
			bounds(x, v, res, "");
		return;
	}
	const struct scn_work_rt *w = &R->work[x->work];
	char ll[256];
	last_line(w->output, ll, sizeof(ll));
	if (!w->started) {
		snprintf(res->observed, sizeof(res->observed), "workload %s never started", R->m->work[x->work].name);
		return;
	}
	res->time_s = w->t_end - w->t_start;
	double skip;
	if (x->skip_if[0] && !scn_json_number(w->json, x->skip_if, &skip) && skip != 0) {
		/* the workload itself says this figure is not the array's (scale's machine_limited:
		 * this machine set the pace), so it is neither a pass nor a failure */
		res->ok = res->skipped = true;
		snprintf(res->observed, sizeof(res->observed), "%s is true in its report: the figure is this machine's, not the array's",
			 x->skip_if);
		return;
	}
	char st[300];
	if (w->timed_out)
		snprintf(st, sizeof(st), "stopped at the scenario's timeout");
	else if (w->exit_code == 0)
		snprintf(st, sizeof(st), "finished (exit status 0)");
	else
		snprintf(st, sizeof(st), "exit status %d%s%.200s", w->exit_code, ll[0] ? ": " : "", ll);
	switch (x->kind) {
	case SCN_X_STATUS:
		res->ok = (w->exit_code == 0 && !w->timed_out) == x->want_finished;
		snprintf(res->observed, sizeof(res->observed), "%s", w->exit_code == 0 && !w->timed_out ? "finished" : st);
		break;
	case SCN_X_SENSE:
	case SCN_X_SAW_SENSE: {
		bool seen = false;
		if (w->cfg->kind == SCN_W_VERIFY) {
			const char *s = jstr(w->json, "sense");
			seen = s && !strcasecmp(s, x->text);
			json_object *arr;
			if (x->kind == SCN_X_SAW_SENSE && w->json && json_object_object_get_ex(w->json, "senses_seen", &arr))
				for (size_t k = 0; k < json_object_array_length(arr); k++)
					seen |= !strcasecmp(json_object_get_string(json_object_array_get_idx(arr, k)), x->text);
			if (x->kind == SCN_X_SAW_SENSE)
				snprintf(res->observed, sizeof(res->observed), "senses met: %s",
					 w->json && json_object_object_get_ex(w->json, "senses_seen", &arr)
						 ? json_object_to_json_string_ext(arr, JSON_C_TO_STRING_NOSLASHESCAPE) : "(no report)");
			else
				snprintf(res->observed, sizeof(res->observed), "%s", s ? s : st);
		} else {
			seen = w->output && strcasestr(w->output, x->text);
			snprintf(res->observed, sizeof(res->observed), "%s%s", st, seen ? "" : " (no such sense in its output)");
		}
		res->ok = seen && (x->kind == SCN_X_SAW_SENSE || w->exit_code != 0);
		if (x->kind == SCN_X_SENSE && seen && w->exit_code == 0)
			snprintf(res->observed, sizeof(res->observed), "finished (met %s but went on)", x->text);
		break;
	}
	case SCN_X_VERIFIED: {
		double ok = 0, mism = 0, acked = 0, ver = 0, unr = 0;
		bool have = !scn_json_number(w->json, "data_verified", &ok);
		scn_json_number(w->json, "mismatches", &mism);
		scn_json_number(w->json, "unreadable", &unr);
		scn_json_number(w->json, "acked", &acked);
		scn_json_number(w->json, "verified", &ver);
		res->ok = have && ok == 1;
		if (!have)
			snprintf(res->observed, sizeof(res->observed), "no report (%s)", st);
		else if (w->cfg->read_only)
			snprintf(res->observed, sizeof(res->observed),
				 "%.0f of %llu pieces hold the seed's data, %.0f other%s%s%s", ver,
				 (unsigned long long)(w->cfg->size / w->cfg->bs), mism,
				 jstr(w->json, "first_mismatch_lba") ? ", the first at LBA " : "",
				 jstr(w->json, "first_mismatch_lba") ? jstr(w->json, "first_mismatch_lba") : "",
				 unr > 0 ? ", some could not be read" : "");
		else
			snprintf(res->observed, sizeof(res->observed),
				 "%.0f of %.0f acknowledged pieces read back right, %.0f wrong%s%s%s", ver, acked, mism,
				 jstr(w->json, "first_mismatch_lba") ? ", the first at LBA " : "",
				 jstr(w->json, "first_mismatch_lba") ? jstr(w->json, "first_mismatch_lba") : "",
				 unr > 0 ? ", some could not be read" : "");
		break;
	}
	case SCN_X_DURATION:
		bounds(x, res->time_s, res, " s");
		break;
	case SCN_X_JSON: {
		double v, d;
		if (scn_json_number(w->json, x->text, &v)) {
			snprintf(res->observed, sizeof(res->observed), "no number at %s in its report (%s)", x->text, st);
		} else if (x->over_work < 0) {
			bounds(x, v, res, "");
		} else if (!R->work[x->over_work].started ||
			   scn_json_number(R->work[x->over_work].json, x->over_path, &d)) {
			snprintf(res->observed, sizeof(res->observed), "no number at %s in workload %s's report", x->over_path,
				 R->m->work[x->over_work].name);
		} else if (d == 0) {
			snprintf(res->observed, sizeof(res->observed), "%g / 0 (workload %s %s is 0)", v,
				 R->m->work[x->over_work].name, x->over_path);
		} else {
			bounds(x, v / d, res, "");
		}
		break;
	}
	case SCN_X_EXIT:
		res->ok = !w->timed_out && w->exit_code == x->exit_code;
		snprintf(res->observed, sizeof(res->observed), "%s", st);
		break;
	case SCN_X_OUTPUT: {
		regex_t re;
		res->ok = !regcomp(&re, x->text, REG_EXTENDED | REG_NOSUB) && w->output && !regexec(&re, w->output, 0, NULL, 0);
		regfree(&re);
		snprintf(res->observed, sizeof(res->observed), "%s", res->ok ? "matched" : st);
		break;
	}
	case SCN_X_METRIC:
	case SCN_X_API:
		break;
	}
}

/* ---- the run ---- */

static void workloads_json(struct run *R)
{
	for (unsigned i = 0; i < R->m->n_work; i++) {
		const struct scn_work_rt *w = &R->work[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "kind", json_object_new_string(
			(const char *[]){ "verify", "clone", "scale", "run", "drr" }[R->m->work[i].kind]));
		json_object_object_add(o, "started", json_object_new_boolean(w->started));
		if (w->started) {
			json_object_object_add(o, "exit", json_object_new_int(w->exit_code));
			json_object_object_add(o, "seconds", json_object_new_double(w->t_end - w->t_start));
			json_object_object_add(o, "cpu_s", json_object_new_double(w->cpu_s));
			json_object_object_add(o, "timed_out", json_object_new_boolean(w->timed_out));
			json_object_object_add(o, "report", w->json ? json_object_get(w->json) : NULL);
		}
		json_object_object_add(R->r->workloads, R->m->work[i].name, o);
	}
}

static int make_rundir(struct scn_result *r, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(r->rundir, sizeof(r->rundir), "%s/lunlab-scenario-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->rundir)) {
		snprintf(err, errlen, "cannot make a run directory %s: %s", r->rundir, strerror(errno));
		return -1;
	}
	return 0;
}

static void rm_rf(const char *dir)
{
	/* the run directory holds only what this run made: files and the state directories */
	pid_t pid = fork();
	if (pid == 0) {
		execlp("rm", "rm", "-rf", "--", dir, (char *)NULL);
		_exit(127);
	}
	int st;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
}

int scn_run(const struct scn_model *m, const struct scn_run_opts *o, struct scn_result *r)
{
	static struct run R;
	memset(&R, 0, sizeof(R));
	memset(r, 0, sizeof(*r));
	R.m = m;
	R.o = o;
	R.r = r;
	r->timeline = json_object_new_array();
	r->workloads = json_object_new_object();
	char err[SCN_TEXT * 2] = "";
	double start = scn_now();
	R.t0 = start;
	struct scn_env env = { .self = o->self, .seed = o->seed, .m = m, .arrays = R.arrays };

	if (make_rundir(r, err, sizeof(err)))
		goto could_not;
	env.rundir = r->rundir;
	say(&R, 0, "scenario %s (%s), seed %llu, run directory %s", m->name, m->file, (unsigned long long)o->seed, r->rundir);
	for (unsigned i = 0; i < m->n_arrays; i++) {
		if (scn_array_start(&R.arrays[i], &m->arrays[i], o->target_bin, r->rundir, err, sizeof(err))) {
			char e2[sizeof(err)];
			snprintf(e2, sizeof(e2), "array %s: %s", m->arrays[i].name, err);
			snprintf(err, sizeof(err), "%s", e2);
			goto could_not;
		}
		const struct scn_array_rt *a = &R.arrays[i];
		if (m->arrays[i].external)
			say(&R, scn_now() - start, "array %s: existing target %s%s%s", a->cfg->name, a->url,
			    a->api[0] ? ", API " : "", a->api);
		else
		{
			char ps[SCN_MAX_PORTALS * 24] = "";
			size_t off = 0;
			for (unsigned p = 0; p < a->cfg->portals; p++)
				off += (size_t)snprintf(ps + off, sizeof(ps) - off, "%s127.0.0.1:%u", p ? " " : "", a->ports[p]);
			say(&R, scn_now() - start, "array %s: lunlab-target pid %d, %s (portals %s), API %s, %s clock%s",
			    a->cfg->name, (int)a->pid, a->url, ps, a->api,
			    !strcmp(a->cfg->time_scale, "virtual") ? "virtual" : "real",
			    !strcmp(a->cfg->time_scale, "virtual") ? "" : " (figures depend on this machine)");
		}
		unsigned scale_vms = 0; /* the most VMs a scale workload runs on a volume of this array */
		for (unsigned w = 0; w < m->n_work; w++) {
			const struct scn_work *wk = &m->work[w];
			if (wk->kind == SCN_W_SCALE && wk->lun.array == (int)i && m->arrays[i].luns[wk->lun.lun].volume &&
			    wk->vms > scale_vms)
				scale_vms = wk->vms;
		}
		if (scn_array_make_volumes(&R.arrays[i], scale_vms, err, sizeof(err))) {
			char e2[sizeof(err)];
			snprintf(e2, sizeof(e2), "array %s: %s", m->arrays[i].name, err);
			snprintf(err, sizeof(err), "%s", e2);
			goto could_not;
		}
		for (unsigned l = 0; l < a->cfg->n_luns; l++)
			if (a->cfg->luns[l].volume)
				say(&R, scn_now() - start, "array %s: volume %s (%llu MiB) made through the API, LUN %d for the workloads",
				    a->cfg->name, a->cfg->luns[l].name, (unsigned long long)(a->cfg->luns[l].size >> 20), a->lun_no[l]);
	}
	if (scn_proc_interrupted()) {
		snprintf(err, sizeof(err), "interrupted");
		goto could_not;
	}
	R.t0 = scn_now();
	say(&R, 0, "timeline starts");
	for (;;) {
		double t = now_rel(&R);
		if (scn_proc_interrupted()) {
			snprintf(err, sizeof(err), "interrupted at %.3fs", t);
			say(&R, t, "interrupted: stopping everything");
			goto could_not;
		}
		for (unsigned i = 0; i < m->n_arrays; i++) {
			int st;
			if (R.arrays[i].pid && waitpid(R.arrays[i].pid, &st, WNOHANG) == R.arrays[i].pid) {
				/* the target went by itself (a crash, a refused restart): said, not hidden */
				say(&R, t, "array %s: lunlab-target (pid %d) exited by itself with %s %d; its log: %s",
				    m->arrays[i].name, (int)R.arrays[i].pid, WIFSIGNALED(st) ? "signal" : "status",
				    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), R.arrays[i].log);
				scn_proc_forget(R.arrays[i].pid);
				R.arrays[i].pid = 0;
				R.resume_at[i] = 0;
				R.crashed = true;
			}
		}
		for (unsigned i = 0; i < m->n_arrays; i++)
			if (R.resume_at[i] > 0 && t >= R.resume_at[i]) {
				kill(R.arrays[i].pid, SIGCONT);
				R.arrays[i].paused = false;
				R.resume_at[i] = 0;
				say(&R, t, "array %s: goes on (SIGCONT)", m->arrays[i].name);
			}
		bool all_done = true;
		for (unsigned i = 0; i < m->n_work; i++) {
			struct scn_work_rt *w = &R.work[i];
			if (!w->started && (m->work[i].start_by_event ? R.start_now[i] : t >= m->work[i].start_s)) {
				if (scn_work_start(w, &m->work[i], &env, t, err, sizeof(err)))
					goto could_not;
				say(&R, t, "workload %s (%s): started, pid %d", m->work[i].name,
				    (const char *[]){ "verify", "clone", "scale", "run", "drr" }[m->work[i].kind], (int)w->pid);
			}
			if (w->started && !w->done && scn_work_poll(w, t)) {
				char ll[256];
				last_line(w->output, ll, sizeof(ll));
				if (w->exit_code == 0)
					say(&R, t, "workload %s: finished in %.3fs", m->work[i].name, w->t_end - w->t_start);
				else
					say(&R, t, "workload %s: failed (exit %d) after %.3fs: %s", m->work[i].name, w->exit_code,
					    w->t_end - w->t_start, ll);
			}
			/* a start: event workload whose event has not come may never start */
			all_done &= w->done || (!w->started && m->work[i].start_by_event);
		}
		bool timed_pending = false;
		for (unsigned i = 0; i < m->n_events; i++) {
			if (R.ev[i].fired)
				continue;
			if (cond_met(&R, i, t)) {
				t = now_rel(&R); /* a metric read may have taken a moment */
				R.ev[i].fired = true;
				R.ev[i].t = t;
				if (fire(&R, i, t, err, sizeof(err))) {
					char e2[sizeof(err)];
					snprintf(e2, sizeof(e2), "%s:%u:%u: timeline[%u]: %s", m->file, m->events[i].mark.line,
						 m->events[i].mark.col, i, err);
					snprintf(err, sizeof(err), "%s", e2);
					say(&R, t, "%s", err);
					goto could_not;
				}
			} else if (m->events[i].cond == SCN_C_TIME) {
				timed_pending = true;
			}
		}
		for (unsigned i = 0; i < m->n_work; i++)
			if (R.start_now[i] && !R.work[i].started)
				all_done = false; /* its start event came in this pass: it starts in the next */
		if (all_done && !timed_pending)
			break;
		if (t >= m->timeout_s) {
			say(&R, t, "timeout (%.3gs): stopping what still runs", m->timeout_s);
			for (unsigned i = 0; i < m->n_work; i++)
				if (R.work[i].started && !R.work[i].done) {
					scn_work_stop(&R.work[i], t);
					say(&R, t, "workload %s: stopped", m->work[i].name);
				}
			break;
		}
		scn_sleep(0.02);
	}
	{
		double t = now_rel(&R);
		for (unsigned i = 0; i < m->n_events; i++)
			if (!R.ev[i].fired) {
				char c[SCN_TEXT];
				say(&R, t, "timeline[%u] (line %u) never happened: %s", i, m->events[i].mark.line,
				    cond_text(&m->events[i], m, c, sizeof(c)));
			}
		for (unsigned i = 0; i < m->n_arrays; i++)
			if (R.arrays[i].paused) {
				kill(R.arrays[i].pid, SIGCONT);
				R.arrays[i].paused = false;
			}
		for (unsigned i = 0; i < m->n_expect; i++) {
			judge(&R, i);
			if (!r->x[i].ok)
				r->status = 1;
			if (r->x[i].skipped)
				say(&R, now_rel(&R), "SKIP %s: %s", m->expect[i].name, r->x[i].observed);
			else
				say(&R, now_rel(&R), "%s %s%s%s", r->x[i].ok ? "PASS" : "FAIL", m->expect[i].name,
				    r->x[i].ok ? "" : ": observed ", r->x[i].ok ? "" : r->x[i].observed);
		}
	}
	workloads_json(&R);
	goto out;
could_not:
	r->status = 2;
	snprintf(r->error, sizeof(r->error), "%s", err);
	workloads_json(&R);
out:
	for (unsigned i = 0; i < m->n_work; i++) {
		if (R.work[i].started && !R.work[i].done)
			scn_work_stop(&R.work[i], now_rel(&R));
		r->workloads_cpu_s += R.work[i].cpu_s;
		scn_work_free(&R.work[i]);
	}
	for (unsigned i = 0; i < m->n_arrays; i++) {
		scn_array_stop(&R.arrays[i]);
		scn_array_free(&R.arrays[i]);
	}
	scn_proc_stop_all();
	r->seconds = scn_now() - start;
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru))
		r->runner_cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
				  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;

	if (r->rundir[0]) {
		/* kept when the run could not start (the target's log says why), not after Ctrl-C */
		if (o->keep_dir || R.crashed || (r->status == 2 && !scn_proc_interrupted()))
			say(&R, now_rel(&R), "logs and outputs kept in %s", r->rundir);
		else
			rm_rf(r->rundir);
	}
	return r->status;
}

void scn_result_free(struct scn_result *r)
{
	json_object_put(r->timeline);
	json_object_put(r->workloads);
	r->timeline = r->workloads = NULL;
}
