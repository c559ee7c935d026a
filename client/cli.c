/* cli.c - parse lunlab-bench's command line.  Hand-written (not getopt) so the parser has no
 * global state and unit tests can call it repeatedly; every error names the argument. */
#include "client/cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/size_parse.h"

/* The whole usage, as one constant: it is printed as is (it once went through a 1 KiB error
 * buffer and lost its second half).  Every option cli_parse() accepts is named here; the unit
 * test holds that against this file's parser. */
static const char usage_text[] =
	"usage: lunlab-bench COMMAND URL [options]\n"
	"  URL: iscsi://[user%pass@]host[:port]/iqn/lun\n"
	"commands:\n"
	"  info URL                      identity, capacity, VAAI and thin provisioning support\n"
	"  scale URL   --vms 1,2,4 --bs 4m --qd 1 --duration 10 --warmup 2 [--random]\n"
	"              [--write [--data unique|repeat|zero|win10]]\n"
	"  clone URL   [--dest URL2] --template-size 1g --template-content zero|pattern|synthetic\n"
	"              --vms 10 --chunk 4m | --sweep 64k,256k,1m,4m,16m --parallel 2 --outstanding 2\n"
	"              [--mode auto|xcopy|software] [--explain [N]] [--no-template] [--verify]\n"
	"              [--plot-job SIZE: plot the modeled duration scaled to SIZE cloned]\n"
	"  clone URL   --mode snapshot --api https://HOST:PORT [--vms 10] [--verify] [--keep-clones]\n"
	"              [--settle-timeout S (600)]: each clone one snapshot through the array's\n"
	"              management API\n"
	"  drr URL     --image FILE | --synthetic win10 [--size 11.9g] [--seed N]\n"
	"  calibrate URL [--dest URL2] --out PROFILE.yaml --dataloss [--budget 10m]\n"
	"              [--capacity-use 8g] [--offset 0] [--time-scale 1] [--name NAME]\n"
	"              [--write-data random|sparse] [--max-io SIZE]\n"
	"  watch HTTPS_URL [--interval 1] [--count N]   the target's live figures (its /metrics.json)\n"
	"  scenario FILE.yaml [--junit OUT.xml] [--json OUT.json] [--seed N] [--check]: arrays,\n"
	"              workloads, a timeline of array events and expectations in one file; exit 0\n"
	"              held, 1 not, 2 could not run (lunlab-bench scenario --help; library in\n"
	"              share/lunlab/scenarios/)\n"
	"common: --json | --csv, --plot FILE.svg, --quiet (-q), --initiator IQN,\n"
	"        --metrics-url HTTPS_URL (record what the array saw into --json), --metrics-insecure\n"
	"        --timeout S: log in again for up to S s after a lost connection, abort a command\n"
	"                     unanswered for S s (default 30)\n"
	"        --help (-h): this text\n"
	"api:    --api https://HOST:PORT [--api-user NAME] [--api-cacert FILE | --api-insecure]\n"
	"        (password in $LUNLAB_API_PASSWORD); info then shows the cluster's capacity too\n"
	"docs:   docs/bench.md, docs/calibrate.md, docs/metrics.md, docs/scenarios.md\n";

const char *cli_usage(void)
{
	return usage_text;
}

int cli_parse_size_list(const char *s, uint64_t *out, unsigned max, unsigned *n)
{
	char buf[512];
	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max || !ll_size_parse(tok, 0, &out[*n]) || out[*n] == 0)
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

int cli_parse_uint_list(const char *s, unsigned *out, unsigned max, unsigned *n)
{
	char buf[512];
	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(tok, &end, 10);
		if (errno || *end || end == tok || v == 0 || v > 100000 || *n >= max || tok[0] == '-')
			return -1;
		out[(*n)++] = (unsigned)v;
	}
	return *n ? 0 : -1;
}

static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0 || v > 86400.0 * 7)
		return -1;
	if (*end == 's')
		end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/* "90", "90s", "10m", "1.5h" */
static int parse_duration(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return -1;
	if (*end == 's') end++;
	else if (*end == 'm') { v *= 60; end++; }
	else if (*end == 'h') { v *= 3600; end++; }
	if (*end || v > 86400.0 * 7)
		return -1;
	*out = v;
	return 0;
}

static void defaults(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = OUT_TABLE;
	o->initiator = "iqn.2026-11.org.lunlab:bench";
	o->timeout_s = 30;
	static const unsigned vms[] = { 1, 2, 3, 4, 8, 20, 50, 100 };
	memcpy(o->vms_list, vms, sizeof(vms));
	o->n_vms = 8;
	o->bs = 4u << 20;
	o->qd = 1;
	o->duration_s = 10;
	o->warmup_s = 2;
	o->template_size = 1ull << 30;
	o->template_content = TEMPLATE_PATTERN;
	o->chunk = 4u << 20;
	o->clones = 10;
	o->parallel = 2;
	o->outstanding = 2;
	o->mode = MODE_AUTO;
	o->explain_count = 3;
	o->image_size = SYNTH_WIN10_DEFAULT_SIZE;
	o->seed = 1;
	o->settle_timeout_s = 600;
	o->write_size = 1u << 20;
	o->budget_s = 600;
	o->capacity_use = 8ull << 30;
	o->calib_time_scale = 1;
	o->data = DATA_UNIQUE;
	o->interval_s = 1;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int cli_parse(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen)
{
	defaults(o);
	if (argc < 2)
		FAIL("missing command (info, scale, clone, drr, watch, calibrate, scenario); try --help");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		return 1;
	}
	if (!strcmp(cmd, "info")) o->cmd = CMD_INFO;
	else if (!strcmp(cmd, "scale")) o->cmd = CMD_SCALE;
	else if (!strcmp(cmd, "clone")) o->cmd = CMD_CLONE;
	else if (!strcmp(cmd, "drr")) o->cmd = CMD_DRR;
	else if (!strcmp(cmd, "watch")) o->cmd = CMD_WATCH;
	else if (!strcmp(cmd, "calibrate")) o->cmd = CMD_CALIBRATE;
	else FAIL("unknown command '%s' (info, scale, clone, drr, watch, calibrate)", cmd);

	bool vms_given = false, data_given = false;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		/* Options taking a value accept "--opt value" and "--opt=value". */
		const char *val = NULL;
		char name[64];
		const char *eq = strchr(a, '=');
		if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof(name)) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = 0;
			val = eq + 1;
			a = name;
		}
#define NEEDVAL() do { if (!val) { if (i + 1 >= argc) FAIL("%s needs a value", a); val = argv[++i]; } } while (0)
		if (a[0] != '-') {
			if (!o->url) { o->url = a; continue; }
			FAIL("unexpected argument '%s'", a);
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return 1;
		} else if (!strcmp(a, "--json")) {
			o->format = OUT_JSON;
		} else if (!strcmp(a, "--csv")) {
			o->format = OUT_CSV;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			o->quiet = true;
		} else if (!strcmp(a, "--plot")) {
			NEEDVAL(); o->plot_path = val;
		} else if (!strcmp(a, "--initiator")) {
			NEEDVAL(); o->initiator = val;
		} else if (!strcmp(a, "--timeout")) {
			NEEDVAL();
			if (parse_seconds(val, &o->timeout_s) || o->timeout_s < 0.1 || o->timeout_s > 86400)
				FAIL("--timeout: '%s' is not a number of seconds between 0.1 and 86400", val);
		} else if (!strcmp(a, "--dest")) {
			NEEDVAL(); o->dest_url = val;
		} else if (!strcmp(a, "--vms")) {
			NEEDVAL();
			if (cli_parse_uint_list(val, o->vms_list, CLI_MAX_LIST, &o->n_vms))
				FAIL("--vms: '%s' is not a list of positive integers", val);
			vms_given = true;
		} else if (!strcmp(a, "--bs")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->bs) || o->bs == 0 || o->bs > (64u << 20))
				FAIL("--bs: '%s' is not a size between 1 and 64m", val);
		} else if (!strcmp(a, "--qd")) {
			NEEDVAL();
			if (parse_uint(val, 1, 256, &o->qd))
				FAIL("--qd: '%s' is not an integer 1..256", val);
		} else if (!strcmp(a, "--duration")) {
			NEEDVAL();
			if (parse_seconds(val, &o->duration_s) || o->duration_s <= 0)
				FAIL("--duration: '%s' is not a positive number of seconds", val);
		} else if (!strcmp(a, "--warmup")) {
			NEEDVAL();
			if (parse_seconds(val, &o->warmup_s))
				FAIL("--warmup: '%s' is not a number of seconds", val);
		} else if (!strcmp(a, "--write")) {
			o->write = true;
		} else if (!strcmp(a, "--data")) {
			NEEDVAL();
			if (write_data_parse(val, &o->data))
				FAIL("--data: '%s' is not unique, repeat, zero or win10", val);
			data_given = true;
		} else if (!strcmp(a, "--random")) {
			o->random = true;
		} else if (!strcmp(a, "--template-size")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->template_size) || o->template_size == 0)
				FAIL("--template-size: '%s' is not a positive size", val);
		} else if (!strcmp(a, "--plot-job")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->plot_job_bytes) || o->plot_job_bytes == 0)
				FAIL("--plot-job: '%s' is not a positive size", val);
		} else if (!strcmp(a, "--template-content")) {
			NEEDVAL();
			if (!strcmp(val, "zero")) o->template_content = TEMPLATE_ZERO;
			else if (!strcmp(val, "pattern")) o->template_content = TEMPLATE_PATTERN;
			else if (!strcmp(val, "synthetic")) o->template_content = TEMPLATE_SYNTHETIC;
			else FAIL("--template-content: '%s' is not zero, pattern or synthetic", val);
		} else if (!strcmp(a, "--chunk")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->chunk) || o->chunk == 0 || o->chunk > (256u << 20))
				FAIL("--chunk: '%s' is not a size between 1 and 256m", val);
		} else if (!strcmp(a, "--sweep")) {
			NEEDVAL();
			if (cli_parse_size_list(val, o->sweep, CLI_MAX_LIST, &o->n_sweep))
				FAIL("--sweep: '%s' is not a list of sizes like 64k,256k,1m", val);
		} else if (!strcmp(a, "--parallel")) {
			NEEDVAL();
			if (parse_uint(val, 1, 1024, &o->parallel))
				FAIL("--parallel: '%s' is not an integer 1..1024", val);
		} else if (!strcmp(a, "--outstanding")) {
			NEEDVAL();
			if (parse_uint(val, 1, 256, &o->outstanding))
				FAIL("--outstanding: '%s' is not an integer 1..256", val);
		} else if (!strcmp(a, "--mode")) {
			NEEDVAL();
			if (!strcmp(val, "auto")) o->mode = MODE_AUTO;
			else if (!strcmp(val, "xcopy")) o->mode = MODE_XCOPY;
			else if (!strcmp(val, "software")) o->mode = MODE_SOFTWARE;
			else if (!strcmp(val, "snapshot")) o->mode = MODE_SNAPSHOT;
			else FAIL("--mode: '%s' is not auto, xcopy, software or snapshot", val);
		} else if (!strcmp(a, "--explain")) {
			o->explain = true;
			if (val) {
				if (parse_uint(val, 1, 100, &o->explain_count))
					FAIL("--explain: '%s' is not an integer 1..100", val);
			} else if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
				if (parse_uint(argv[++i], 1, 100, &o->explain_count))
					FAIL("--explain: '%s' is not an integer 1..100", argv[i]);
			}
		} else if (!strcmp(a, "--verify")) {
			o->verify = true;
		} else if (!strcmp(a, "--no-template")) {
			o->skip_template = true;
		} else if (!strcmp(a, "--image")) {
			NEEDVAL(); o->image_path = val;
		} else if (!strcmp(a, "--synthetic")) {
			NEEDVAL();
			if (strcmp(val, "win10"))
				FAIL("--synthetic: '%s' is not a known image (win10)", val);
			o->synthetic = true;
		} else if (!strcmp(a, "--size")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->image_size) || o->image_size < SYNTH_BLOCK_SIZE)
				FAIL("--size: '%s' is not a size of at least 4k", val);
		} else if (!strcmp(a, "--seed")) {
			NEEDVAL();
			char *end;
			errno = 0;
			o->seed = strtoull(val, &end, 0);
			if (errno || *end || end == val || val[0] == '-')
				FAIL("--seed: '%s' is not an unsigned integer", val);
		} else if (!strcmp(a, "--metrics-url")) {
			NEEDVAL(); o->metrics_url = val;
		} else if (!strcmp(a, "--metrics-insecure")) {
			o->metrics_insecure = true;
		} else if (!strcmp(a, "--interval")) {
			NEEDVAL();
			if (parse_seconds(val, &o->interval_s) || o->interval_s < 0.1 || o->interval_s > 3600)
				FAIL("--interval: '%s' is not a number of seconds between 0.1 and 3600", val);
		} else if (!strcmp(a, "--count")) {
			NEEDVAL();
			if (parse_uint(val, 1, 1000000, &o->count))
				FAIL("--count: '%s' is not an integer 1..1000000", val);
		} else if (!strcmp(a, "--api")) {
			NEEDVAL();
			if (strncmp(val, "https://", 8) || !val[8])
				FAIL("--api: '%s' is not an https://HOST:PORT URL", val);
			o->api_url = val;
		} else if (!strcmp(a, "--api-user")) {
			NEEDVAL();
			if (!*val || strlen(val) > 64 || strchr(val, ':'))
				FAIL("--api-user: want 1..64 characters without ':'");
			o->api_user = val;
		} else if (!strcmp(a, "--api-cacert")) {
			NEEDVAL(); o->api_cacert = val;
		} else if (!strcmp(a, "--api-insecure")) {
			o->api_insecure = true;
		} else if (!strcmp(a, "--keep-clones")) {
			o->keep_clones = true;
		} else if (!strcmp(a, "--settle-timeout")) {
			NEEDVAL();
			if (parse_seconds(val, &o->settle_timeout_s))
				FAIL("--settle-timeout: '%s' is not a number of seconds", val);
		} else if (!strcmp(a, "--out")) {
			NEEDVAL(); o->out_path = val;
		} else if (!strcmp(a, "--name")) {
			NEEDVAL(); o->profile_name = val;
		} else if (!strcmp(a, "--budget")) {
			NEEDVAL();
			if (parse_duration(val, &o->budget_s))
				FAIL("--budget: '%s' is not a duration like 90s, 10m or 1h", val);
		} else if (!strcmp(a, "--capacity-use")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->capacity_use) || o->capacity_use == 0)
				FAIL("--capacity-use: '%s' is not a positive size", val);
		} else if (!strcmp(a, "--offset")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->offset))
				FAIL("--offset: '%s' is not a size", val);
		} else if (!strcmp(a, "--max-io")) {
			NEEDVAL();
			if (!ll_size_parse(val, 0, &o->max_io) || o->max_io < 4096)
				FAIL("--max-io: '%s' is not a size of at least 4k", val);
		} else if (!strcmp(a, "--write-data")) {
			NEEDVAL();
			if (!strcmp(val, "random")) o->sparse_writes = false;
			else if (!strcmp(val, "sparse")) o->sparse_writes = true;
			else FAIL("--write-data: '%s' is not random or sparse", val);
		} else if (!strcmp(a, "--dataloss")) {
			o->dataloss = true;
		} else if (!strcmp(a, "--time-scale")) {
			NEEDVAL();
			char *end;
			errno = 0;
			o->calib_time_scale = strtod(val, &end);
			if (errno || *end || end == val || !isfinite(o->calib_time_scale) || o->calib_time_scale <= 0 ||
			    o->calib_time_scale > 1e6)
				FAIL("--time-scale: '%s' is not a number above 0", val);
		} else {
			FAIL("unknown option '%s'", a);
		}
#undef NEEDVAL
	}
	if (o->cmd == CMD_WATCH) {
		if (!o->url)
			FAIL("missing the target's API URL (https://[user:password@]host:port)");
		if (strncmp(o->url, "https://", 8) && strncmp(o->url, "http://", 7))
			FAIL("watch: URL '%s' does not start with https:// or http://", o->url);
		if (o->metrics_url || o->format == OUT_CSV || o->plot_path)
			FAIL("watch takes --interval, --count, --json, --metrics-insecure and --timeout");
		return 0;
	}
	if (!o->url)
		FAIL("missing target URL (iscsi://[user%%pass@]host[:port]/iqn/lun)");
	if (strncmp(o->url, "iscsi://", 8))
		FAIL("URL '%s' does not start with iscsi://", o->url);
	if (o->metrics_url && strncmp(o->metrics_url, "https://", 8) && strncmp(o->metrics_url, "http://", 7))
		FAIL("--metrics-url: '%s' does not start with https:// or http://", o->metrics_url);
	if (o->count)
		FAIL("--count applies to watch only");
	if (o->dest_url && strncmp(o->dest_url, "iscsi://", 8))
		FAIL("--dest: URL '%s' does not start with iscsi://", o->dest_url);
	if (o->cmd == CMD_CLONE) {
		if (vms_given) {
			if (o->n_vms != 1)
				FAIL("--vms: clone takes one number of clones, not a list");
			o->clones = o->vms_list[0];
		}
		if (o->n_sweep == 0) {
			o->sweep[0] = o->chunk;
			o->n_sweep = 1;
		}
	}
	if (o->cmd == CMD_CLONE && o->mode == MODE_SNAPSHOT) {
		if (!o->api_url)
			FAIL("--mode snapshot needs --api https://HOST:PORT (the array's management API)");
		if (o->dest_url || o->explain || o->n_sweep > 1)
			FAIL("--mode snapshot clones within the array: no --dest, --explain or --sweep");
	}
	if (o->keep_clones && !(o->cmd == CMD_CLONE && o->mode == MODE_SNAPSHOT))
		FAIL("--keep-clones applies to clone --mode snapshot only");
	if ((o->api_user || o->api_cacert || o->api_insecure) && !o->api_url)
		FAIL("--api-user, --api-cacert and --api-insecure need --api");
	if (o->api_cacert && o->api_insecure)
		FAIL("--api-cacert and --api-insecure exclude each other");
	if (o->api_url && !o->api_user)
		o->api_user = "admin";
	if (o->cmd == CMD_DRR && !o->image_path && !o->synthetic)
		FAIL("drr needs --image FILE or --synthetic win10");
	if (o->cmd == CMD_DRR && o->image_path && o->synthetic)
		FAIL("drr takes either --image or --synthetic, not both");
	if (o->cmd == CMD_CALIBRATE) {
		if (o->format == OUT_CSV)
			FAIL("--csv: calibrate writes a table or --json");
		if (o->plot_path)
			FAIL("--plot applies to clone and scale only");
		if (!o->out_path)
			FAIL("calibrate needs --out PROFILE.yaml (where the profile is written)");
		/* the LU's size is not known yet (no session): the region ends at
		 * --capacity-use or at the LU's end, whichever comes first */
		if (!o->dataloss)
			FAIL("calibrate writes to the LU from byte %llu for up to %llu bytes (--offset, --capacity-use; "
			     "no further than the LU's end), destroying what is there: add --dataloss to allow it",
			     (unsigned long long)o->offset, (unsigned long long)o->capacity_use);
		if (o->profile_name) {
			size_t n = strlen(o->profile_name);
			if (n == 0 || n > 31 || strspn(o->profile_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
							   "0123456789._-") != n)
				FAIL("--name: '%s' is not 1..31 characters of [A-Za-z0-9._-]", o->profile_name);
		}
	} else if (o->out_path || o->profile_name || o->dataloss || o->offset || o->sparse_writes || o->max_io) {
		FAIL("--out, --name, --dataloss, --offset, --write-data and --max-io apply to calibrate only");
	}
	if (data_given && !(o->cmd == CMD_SCALE && o->write))
		FAIL("--data applies to scale --write only");
	if (o->random && o->cmd != CMD_SCALE)
		FAIL("--random applies to scale only");
	if (o->explain && o->cmd != CMD_CLONE)
		FAIL("--explain applies to clone only");
	if (o->plot_job_bytes && o->cmd != CMD_CLONE)
		FAIL("--plot-job applies to clone only");
	if (o->plot_path && o->cmd != CMD_CLONE && o->cmd != CMD_SCALE)
		FAIL("--plot applies to clone and scale only");
	return 0;
}
