/* scn_main.c - the scenario subcommand's command line: read and check the file (every
 * error one line, exit 2, before anything starts), run it, write --junit / --json. */
#include "client/scn_main.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "client/scn_parse.h"
#include "client/scn_proc.h"
#include "client/scn_report.h"
#include "client/scn_run.h"

static const char usage[] =
	"usage: lunlab-bench scenario FILE.yaml [--junit OUT.xml] [--json OUT.json] [--seed N]\n"
	"                             [--target PATH] [--keep] [--check] [--quiet]\n"
	"  runs a scenario file (docs/scenarios.md): exit 0 every expectation held, 1 one did\n"
	"  not, 2 the scenario could not run\n"
	"  --target PATH  lunlab-target to start (default: $LUNLAB_TARGET, else next to this\n"
	"                 lunlab-bench, else on PATH)\n"
	"  --keep         keep the run directory (target logs, workload outputs, state)\n"
	"  --check        only read and check the file\n"
	"  --quiet        no timeline on stdout\n";

/* lunlab-target next to us: the build tree (client/../target/) or an installed bin/ */
static void find_target(const char *self, char *out, size_t len)
{
	const char *env = getenv("LUNLAB_TARGET");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", self);
	char *d = dirname(dir);
	static const char *const rel[] = { "../target/lunlab-target", "lunlab-target" };
	for (size_t i = 0; i < 2; i++) {
		snprintf(out, len, "%s/%s", d, rel[i]);
		if (access(out, X_OK) == 0)
			return;
	}
	snprintf(out, len, "lunlab-target");
}

static int write_out(const char *path, const struct scn_model *m, const struct scn_result *r, uint64_t seed, bool junit)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "lunlab-bench scenario: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	if (junit) {
		rc = scn_junit_write(f, m, r, seed);
	} else {
		json_object *j = scn_json_report(m, r, seed);
		rc = fprintf(f, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
		json_object_put(j);
	}
	if (fclose(f) || rc) {
		fprintf(stderr, "lunlab-bench scenario: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

int scn_main(int argc, char **argv)
{
	const char *file = NULL, *junit = NULL, *json = NULL, *target = NULL;
	bool keep = false, check = false, quiet = false, have_seed = false;
	uint64_t seed = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--junit") && more) {
			junit = argv[++i];
		} else if (!strcmp(a, "--json") && more) {
			json = argv[++i];
		} else if (!strcmp(a, "--target") && more) {
			target = argv[++i];
		} else if (!strcmp(a, "--seed") && more) {
			char *end;
			errno = 0;
			seed = strtoull(argv[++i], &end, 10);
			if (errno || *end || !*argv[i] || argv[i][0] == '-') {
				fprintf(stderr, "lunlab-bench scenario: --seed '%s': want a whole number\n", argv[i]);
				return 2;
			}
			have_seed = true;
		} else if (!strcmp(a, "--keep")) {
			keep = true;
		} else if (!strcmp(a, "--check")) {
			check = true;
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "lunlab-bench scenario: %s: %s\n%s", a,
				more || strncmp(a, "--", 2) ? "unknown option" : "missing its value", usage);
			return 2;
		} else if (!file) {
			file = a;
		} else {
			fprintf(stderr, "lunlab-bench scenario: %s: one scenario file per run\n", a);
			return 2;
		}
	}
	if (!file) {
		fprintf(stderr, "lunlab-bench scenario: missing FILE.yaml\n%s", usage);
		return 2;
	}
	static struct scn_model m;
	char err[1024];
	if (scn_parse_file(file, &m, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (!have_seed)
		seed = m.seed;
	if (check) {
		printf("%s: %u array(s), %u workload(s), %u event(s), %u expectation(s)\n", file, m.n_arrays, m.n_work,
		       m.n_events, m.n_expect);
		return 0;
	}
	char self[PATH_MAX], tbin[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "lunlab-bench scenario: /proc/self/exe: %s\n", strerror(errno));
		return 2;
	}
	self[n] = 0;
	if (target)
		snprintf(tbin, sizeof(tbin), "%s", target);
	else
		find_target(self, tbin, sizeof(tbin));
	curl_global_init(CURL_GLOBAL_DEFAULT);
	scn_proc_signals();
	struct scn_run_opts o = { .self = self, .target_bin = tbin, .seed = seed, .log = quiet ? NULL : stdout,
				  .keep_dir = keep };
	static struct scn_result r;
	int rc = scn_run(&m, &o, &r);
	if (rc == 2)
		fprintf(stderr, "lunlab-bench scenario: %s: could not run: %s\n", m.name, r.error);
	else if (rc == 1)
		for (unsigned i = 0; i < m.n_expect; i++)
			if (!r.x[i].ok)
				fprintf(stderr, "lunlab-bench scenario: %s:%u:%u: expectation failed: %s: observed %s\n", file,
					m.expect[i].mark.line, m.expect[i].mark.col, m.expect[i].name, r.x[i].observed);
	if (junit && write_out(junit, &m, &r, seed, true))
		rc = 2;
	if (json && write_out(json, &m, &r, seed, false))
		rc = 2;
	scn_result_free(&r);
	curl_global_cleanup();
	return rc;
}
