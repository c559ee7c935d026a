/* scn_array.c - start, kill, restart and stop lunlab-target for a scenario, and talk to
 * its API.  Ports: the kernel picks a free one (bind to port 0), the runner hands it to the
 * target; another process may take it between the two, so a target that exits at start is
 * tried again on new ports (as ci/lib/target-ctl.sh does). */
#include "client/scn_array.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include "client/scn_proc.h"

static unsigned free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(sin);
	unsigned port = 0;
	if (s >= 0 && !bind(s, (struct sockaddr *)&sin, sizeof(sin)) && !getsockname(s, (struct sockaddr *)&sin, &l))
		port = ntohs(sin.sin_port);
	if (s >= 0)
		close(s);
	return port;
}

static bool port_answers(unsigned port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	bool ok = s >= 0 && connect(s, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	if (s >= 0)
		close(s);
	return ok;
}

/* Appends to a spec of n bytes so far; once the spec is full it stays cut there (snprintf's
 * size never wraps), and add_arg passes what fits. Returns the new length. */
static int spec_cat(char *spec, size_t size, int n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int spec_cat(char *spec, size_t size, int n, const char *fmt, ...)
{
	if (n < 0 || (size_t)n >= size)
		return n;
	va_list ap;
	va_start(ap, fmt);
	n += vsnprintf(spec + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	return n;
}

/* The array's own keys (profile or model, capacity, soft threshold, host streams), appended to
 * a --lun or --cluster spec: the LUs and the API's cluster are one array. */
static int array_keys(const struct scn_array *c, char *spec, size_t size, int n)
{
	if (c->profile[0])
		n = spec_cat(spec, size, n, ",profile=%s", c->profile);
	else
		n = spec_cat(spec, size, n, ",model=%s", c->model);
	if (c->capacity)
		n = spec_cat(spec, size, n, ",array_capacity=%llu", (unsigned long long)c->capacity);
	if (c->soft_threshold >= 0)
		n = spec_cat(spec, size, n, ",soft_threshold=%d", c->soft_threshold);
	if (c->host_streams)
		n = spec_cat(spec, size, n, ",host_streams=%u", c->host_streams);
	if (c->host_sessions)
		n = spec_cat(spec, size, n, ",host_streams=session");
	return n;
}

static void add_arg(struct scn_array_rt *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_arg(struct scn_array_rt *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s && a->argc < sizeof(a->argv) / sizeof(a->argv[0]) - 1)
		a->argv[a->argc++] = s;
	else
		free(s);
}

static void free_args(struct scn_array_rt *a)
{
	for (unsigned i = 0; i < a->argc; i++)
		free(a->argv[i]);
	a->argc = 0;
	a->argv[0] = NULL;
}

/* lunlab-target's command line for cfg, on the ports chosen */
static void build_args(struct scn_array_rt *a, const char *target_bin, const char *auth)
{
	const struct scn_array *c = a->cfg;
	free_args(a);
	add_arg(a, "%s", target_bin);
	for (unsigned i = 0; i < c->portals; i++)
		add_arg(a, "--listen=127.0.0.1:%u,tpg=%u", a->ports[i], i + 1);
	add_arg(a, "--iqn=%s", a->iqn);
	for (unsigned l = 0, no = 0; l < c->n_luns; l++) {
		if (c->luns[l].volume)
			continue; /* made through the API once the target is up */
		a->lun_no[l] = (int)no++;   /* --lun LUs are numbered 0, 1, ... in order */
		char spec[SCN_TEXT * 2];
		int n = snprintf(spec, sizeof(spec), "--lun=size=%llu,block=%u,array=%s,time_scale=%s",
				 (unsigned long long)c->luns[l].size, c->luns[l].block, c->name, c->time_scale);
		n = array_keys(c, spec, sizeof(spec), n);
		if (c->tpgs[0])
			spec_cat(spec, sizeof(spec), n, ",tpgs=%s", c->tpgs);
		add_arg(a, "%s", spec);
	}
	/* the API's cluster is this very array (array=NAME), so volumes and snapshots made
	 * through the API (clone mode: snapshot, api: events) share its store and capacity with
	 * the luns:, as on a real array; without it they would land in a default cluster, a
	 * second array */
	{
		char spec[SCN_TEXT * 2];
		int n = snprintf(spec, sizeof(spec), "--cluster=name=%s,time_scale=%s", c->name, c->time_scale);
		array_keys(c, spec, sizeof(spec), n);
		add_arg(a, "%s", spec);
	}
	add_arg(a, "--api=127.0.0.1:%u", (unsigned)atoi(strrchr(a->api, ':') + 1));
	add_arg(a, "--auth-file=%s", auth);
	add_arg(a, "--api-metrics-open");
	if (a->state_dir[0])
		add_arg(a, "--state-dir=%s", a->state_dir);
	for (unsigned f = 0; f < c->n_faults; f++)
		add_arg(a, "--fault=%s", c->faults[f]);
	for (unsigned f = 0; f < c->n_alua; f++)
		add_arg(a, "--alua=%s", c->alua[f]);
	a->argv[a->argc] = NULL;
}

/* fork + exec the kept argv, output appended to the log; waits until every portal and the
 * API accept a connection.  1 when the child exited at start (try other ports), -1 on
 * another failure, 0 when up. */
static int spawn(struct scn_array_rt *a, char *err, size_t errlen)
{
	int fd = open(a->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", a->log, strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(fd);
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		signal(SIGINT, SIG_IGN); /* Ctrl-C reaches the runner, which stops the array itself */
		execvp(a->argv[0], a->argv);
		fprintf(stderr, "exec %s: %s\n", a->argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	a->pid = pid;
	scn_proc_track(pid, false);
	double end = scn_now() + 60;
	while (scn_now() < end && !scn_proc_interrupted()) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			scn_proc_forget(pid);
			a->pid = 0;
			snprintf(err, errlen, "lunlab-target exited at start (status %d); its log: %s",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), a->log);
			return 1;
		}
		bool up = port_answers((unsigned)atoi(strrchr(a->api, ':') + 1));
		for (unsigned i = 0; up && i < a->cfg->portals; i++)
			up = port_answers(a->ports[i]);
		/* and the API answers: this first request also sets up the TLS connection the
		 * timeline's requests reuse, so the first event is not late by a handshake */
		char *text = NULL, e2[256];
		if (up && !scn_api_text(a, "GET", "/api/lunlab/portals", NULL, &text, e2, sizeof(e2))) {
			free(text);
			return 0;
		}
		scn_sleep(0.05);
	}
	if (scn_proc_interrupted()) /* Ctrl-C while it started: said as such, stopped by the caller */
		snprintf(err, errlen, "interrupted while lunlab-target (pid %d) started", (int)pid);
	else
		snprintf(err, errlen, "lunlab-target did not listen within 60 s; its log: %s", a->log);
	return -1;
}

int scn_array_start(struct scn_array_rt *a, const struct scn_array *cfg, const char *target_bin,
		    const char *rundir, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->cfg = cfg;
	if (cfg->external) {
		snprintf(a->url, sizeof(a->url), "%s", cfg->url);
		size_t l = strlen(a->url);
		if (l && a->url[l - 1] == '/')
			a->url[l - 1] = 0;
		snprintf(a->api, sizeof(a->api), "%s", cfg->api_url);
		snprintf(a->user, sizeof(a->user), "%s", cfg->api_user[0] ? cfg->api_user : "admin");
		const char *pw = getenv("LUNLAB_API_PASSWORD");
		snprintf(a->password, sizeof(a->password), "%s", pw ? pw : "");
		for (unsigned i = 0; i < cfg->n_luns; i++)
			a->lun_no[i] = (int)i; /* an existing target's luns: are its LUN numbers */
		return 0;
	}
	snprintf(a->iqn, sizeof(a->iqn), "iqn.2026-11.org.lunlab:scenario-%s", cfg->name);
	snprintf(a->log, sizeof(a->log), "%s/%s.log", rundir, cfg->name);
	snprintf(a->user, sizeof(a->user), "admin");
	/* a fresh secret per run: the API is on 127.0.0.1 but other users of the machine may
	 * reach it; workloads get it through their environment */
	unsigned char rnd[12];
	int rf = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (rf < 0 || read(rf, rnd, sizeof(rnd)) != (ssize_t)sizeof(rnd)) {
		if (rf >= 0)
			close(rf);
		snprintf(err, errlen, "/dev/urandom: cannot read");
		return -1;
	}
	close(rf);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(a->password + 2 * i, 3, "%02x", rnd[i]);
	char auth[SCN_TEXT + 16];
	snprintf(auth, sizeof(auth), "%s/%s.auth", rundir, cfg->name);
	int fd = open(auth, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dprintf(fd, "api %s %s\n", a->user, a->password) < 0) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: %s", auth, strerror(errno));
		return -1;
	}
	close(fd);
	if (cfg->state_dir) {
		snprintf(a->state_dir, sizeof(a->state_dir), "%s/%s.state", rundir, cfg->name);
		if (mkdir(a->state_dir, 0700) && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", a->state_dir, strerror(errno));
			return -1;
		}
	}
	int rc = 1;
	for (int attempt = 0; attempt < 5 && rc == 1; attempt++) {
		for (unsigned i = 0; i < cfg->portals; i++)
			a->ports[i] = free_port();
		snprintf(a->api, sizeof(a->api), "https://127.0.0.1:%u", free_port());
		snprintf(a->url, sizeof(a->url), "iscsi://127.0.0.1:%u/%s", a->ports[0], a->iqn);
		build_args(a, target_bin, auth);
		rc = spawn(a, err, errlen);
	}
	return rc ? -1 : 0;
}

int scn_array_restart(struct scn_array_rt *a, char *err, size_t errlen)
{
	if (a->cfg->external || a->pid) {
		snprintf(err, errlen, "array %s is not a stopped array of the runner's", a->cfg->name);
		return -1;
	}
	/* the same ports: the initiators log in again where they were */
	for (int attempt = 0; attempt < 20; attempt++) {
		int rc = spawn(a, err, errlen);
		if (rc <= 0)
			return rc;
		scn_sleep(0.25); /* a port still in TIME_WAIT's way, or taken for a moment */
	}
	return -1;
}

void scn_array_kill(struct scn_array_rt *a)
{
	if (!a->pid)
		return;
	kill(a->pid, SIGKILL);
	int st;
	while (waitpid(a->pid, &st, 0) < 0 && errno == EINTR)
		;
	scn_proc_forget(a->pid);
	a->pid = 0;
	a->paused = false;
}

void scn_array_stop(struct scn_array_rt *a)
{
	if (a->pid)
		scn_proc_stop(a->pid, 10);
	a->pid = 0;
}

void scn_array_free(struct scn_array_rt *a)
{
	free_args(a);
	if (a->curl)
		curl_easy_cleanup(a->curl);
	a->curl = NULL;
}

void scn_array_lun_url(const struct scn_array_rt *a, int lun, char *out, size_t len)
{
	snprintf(out, len, "%s/%d", a->url, lun >= 0 && lun < SCN_MAX_LUNS ? a->lun_no[lun] : lun);
}

int scn_array_make_volumes(struct scn_array_rt *a, unsigned scale_vms, char *err, size_t errlen)
{
	const struct scn_array *c = a->cfg;
	char body[SCN_TEXT], path[SCN_TEXT], e[SCN_TEXT];
	bool group = false;
	json_object *j;
	for (unsigned l = 0; l < c->n_luns; l++) {
		const struct scn_lun *v = &c->luns[l];
		if (!v->volume)
			continue;
		if (!group) {
			/* one group for every volume, holding the names the workloads log in as */
			static const char *const ini[][2] = { { "scenario-bench", SCN_BENCH_INITIATOR },
							      { "scenario-verify", SCN_VERIFY_INITIATOR } };
			if (!(j = scn_api(a, "POST", "/api/json/v2/types/initiator-groups", "{\"ig-name\": \"scenario\"}", e,
					  sizeof(e))))
				goto refused;
			json_object_put(j);
			for (unsigned i = 0; i < 2; i++) {
				snprintf(body, sizeof(body), "{\"ig-id\": \"scenario\", \"initiator-name\": \"%s\", \"port-address\": \"%s\"}",
					 ini[i][0], ini[i][1]);
				if (!(j = scn_api(a, "POST", "/api/json/v2/types/initiators", body, e, sizeof(e))))
					goto refused;
				json_object_put(j);
			}
			for (unsigned i = 0; scale_vms > 1 && i < scale_vms; i++) {
				snprintf(body, sizeof(body), "{\"ig-id\": \"scenario\", \"initiator-name\": \"scenario-bench-%u\", "
					 "\"port-address\": \"%s-%u\"}", i, SCN_BENCH_INITIATOR, i);
				if (!(j = scn_api(a, "POST", "/api/json/v2/types/initiators", body, e, sizeof(e))))
					goto refused;
				json_object_put(j);
			}
			group = true;
		}
		snprintf(body, sizeof(body), "{\"vol-name\": \"%s\", \"vol-size\": \"%llum\", \"cluster-id\": \"%s\"}", v->name,
			 (unsigned long long)(v->size >> 20), c->name);
		if (!(j = scn_api(a, "POST", "/api/json/v2/types/volumes", body, e, sizeof(e))))
			goto refused;
		json_object_put(j);
		snprintf(body, sizeof(body), "{\"vol-id\": \"%s\", \"ig-id\": \"scenario\"}", v->name);
		if (!(j = scn_api(a, "POST", "/api/json/v2/types/lun-maps", body, e, sizeof(e))))
			goto refused;
		json_object_put(j);
		snprintf(path, sizeof(path), "/api/json/v2/types/lun-maps?full=1&prop=lun&filter=vol-name:eq:%s", v->name);
		if (!(j = scn_api(a, "GET", path, NULL, e, sizeof(e))))
			goto refused;
		json_object *maps, *lun;
		bool ok = json_object_object_get_ex(j, "lun-maps", &maps) && json_object_is_type(maps, json_type_array) &&
			  json_object_array_length(maps) == 1 &&
			  json_object_object_get_ex(json_object_array_get_idx(maps, 0), "lun", &lun) &&
			  json_object_is_type(lun, json_type_int);
		if (ok)
			a->lun_no[l] = json_object_get_int(lun);
		json_object_put(j);
		if (!ok) {
			snprintf(err, errlen, "volume %s: its LUN map has no LUN", v->name);
			return -1;
		}
	}
	return 0;
refused:
	snprintf(err, errlen, "volumes: %s", e);
	return -1;
}

struct buf {
	char *p;
	size_t n;
};

static size_t on_data(char *d, size_t sz, size_t nm, void *u)
{
	struct buf *b = u;
	size_t n = sz * nm;
	if (b->n + n > (8u << 20))
		return 0; /* bounded: no answer of the API is near this */
	char *q = realloc(b->p, b->n + n + 1);
	if (!q)
		return 0;
	memcpy(q + b->n, d, n);
	b->p = q;
	b->n += n;
	b->p[b->n] = 0;
	return n;
}

static long http(struct scn_array_rt *a, const char *method, const char *path, const char *body,
		 struct buf *out, char *err, size_t errlen)
{
	if (!a->api[0]) {
		snprintf(err, errlen, "array %s has no API", a->cfg->name);
		return -1;
	}
	/* one handle per array, reset between requests: reset keeps its connection and TLS
	 * session, so a timeline of a hundred events costs a hundred requests, not a hundred
	 * TLS handshakes (measured: ~28 ms of CPU each) */
	CURL *c = a->curl;
	if (!c && !(c = a->curl = curl_easy_init())) {
		snprintf(err, errlen, "curl_easy_init failed");
		return -1;
	}
	curl_easy_reset(c);
	char url[SCN_TEXT * 2], up[256];
	snprintf(url, sizeof(url), "%s%s", a->api, path);
	snprintf(up, sizeof(up), "%s:%s", a->user, a->password);
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_USERPWD, up);
	/* the runner's own arrays have a self-signed certificate made at their start */
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	/* and so no CA store to load: libcurl reads the system's (~140 certificates) for each new
	 * connection even when it verifies nothing - measured: most of the runner's own CPU in a
	 * short scenario */
	curl_easy_setopt(c, CURLOPT_CAINFO, NULL);
	curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 15L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	CURLcode rc = curl_easy_perform(c);
	long code = -1;
	if (rc != CURLE_OK)
		snprintf(err, errlen, "%s %s: %s", method, url, curl_easy_strerror(rc));
	else
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	return code;
}

json_object *scn_api(struct scn_array_rt *a, const char *method, const char *path, const char *body,
		     char *err, size_t errlen)
{
	struct buf b = { 0 };
	long code = http(a, method, path, body, &b, err, errlen);
	json_object *j = b.p ? json_tokener_parse(b.p) : NULL;
	if (code < 0) {
		json_object_put(j);
		free(b.p);
		return NULL;
	}
	if (code / 100 != 2 || !j) {
		json_object *m;
		snprintf(err, errlen, "%s %s: HTTP %ld%s%s", method, path, code, j && json_object_object_get_ex(j, "message", &m) ? ": " : "",
			 j && json_object_object_get_ex(j, "message", &m) ? json_object_get_string(m) : "");
		json_object_put(j);
		free(b.p);
		return NULL;
	}
	free(b.p);
	return j;
}

int scn_api_text(struct scn_array_rt *a, const char *method, const char *path, const char *body, char **text,
		 char *err, size_t errlen)
{
	struct buf b = { 0 };
	long code = http(a, method, path, body, &b, err, errlen);
	*text = NULL;
	if (code < 0) {
		free(b.p);
		return -1;
	}
	if (code / 100 != 2) {
		json_object *j = b.p ? json_tokener_parse(b.p) : NULL, *m;
		bool msg = j && json_object_is_type(j, json_type_object) && json_object_object_get_ex(j, "message", &m);
		snprintf(err, errlen, "%s %s: HTTP %ld%s%s", method, path, code, msg ? ": " : "",
			 msg ? json_object_get_string(m) : "");
		json_object_put(j);
		free(b.p);
		return -1;
	}
	*text = b.p ? b.p : strdup("");
	return *text ? 0 : -1;
}

/* every k="v" of want's {...} is in have's label block */
static bool labels_match(const char *want, size_t wl, const char *have, size_t hl)
{
	while (wl) {
		size_t l = 0;
		bool q = false;
		while (l < wl && (q || want[l] != ',')) {
			if (want[l] == '"')
				q = !q;
			l++;
		}
		if (l) {
			bool found = false;
			for (size_t i = 0; i + l <= hl && !found; i++)
				found = !memcmp(have + i, want, l) && (i == 0 || have[i - 1] == ',' || have[i - 1] == '{');
			if (!found)
				return false;
		}
		want += l;
		wl -= l;
		if (wl) {
			want++;
			wl--;
		}
	}
	return true;
}

int scn_metric_sum(const char *text, const char *series, double *out)
{
	const char *brace = strchr(series, '{');
	size_t nl = brace ? (size_t)(brace - series) : strlen(series);
	const char *want = brace ? brace + 1 : "";
	size_t wl = brace ? strlen(want) : 0;
	if (wl && want[wl - 1] == '}')
		wl--;
	double sum = 0;
	bool any = false;
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len > nl && line[0] != '#' && !memcmp(line, series, nl) && (line[nl] == '{' || line[nl] == ' ')) {
			const char *v = line + nl;
			bool ok = true;
			if (*v == '{') {
				const char *close = memchr(v, '}', len - nl);
				ok = close && labels_match(want, wl, v + 1, (size_t)(close - v - 1));
				v = close ? close + 1 : v;
			} else {
				ok = wl == 0;
			}
			if (ok) {
				char *end;
				double d = strtod(v, &end);
				if (end != v) {
					sum += d;
					any = true;
				}
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	if (!any)
		return -1;
	*out = sum;
	return 0;
}

int scn_metric(struct scn_array_rt *a, const char *series, double *out, char *err, size_t errlen)
{
	struct buf b = { 0 };
	long code = http(a, "GET", "/metrics", NULL, &b, err, errlen);
	if (code != 200) {
		if (code >= 0)
			snprintf(err, errlen, "GET /metrics: HTTP %ld", code);
		free(b.p);
		return -1;
	}
	int rc = b.p ? scn_metric_sum(b.p, series, out) : -1;
	if (rc)
		snprintf(err, errlen, "no series %s in the array's /metrics", series);
	free(b.p);
	return rc;
}
