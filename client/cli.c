/* cli.c - parse lunlab-bench's command line: one getopt_long table (long_opts) as lunlab-target's
 * (target/cli.c), each option's value checked where it is read; every error names the argument. */
#include "client/cli.h"

#include <errno.h>
#include <getopt.h>
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
	"              [--count N: N commands per VM instead of a duration] [--keep-going]\n"
	"              [--write [--data unique|repeat|zero|win10]]\n"
	"  clone URL   [--dest URL2] --template-size 1g --template-content zero|pattern|synthetic\n"
	"              --vms 10 --chunk 4m | --sweep 64k,256k,1m,4m,16m --parallel 2 --outstanding 2\n"
	"              [--mode auto|xcopy|odx|software] [--explain [N]] [--no-template] [--verify]\n"
	"              [--keep-tokens: odx, tokens live to their timeout instead of DEL_TKN]\n"
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

/* option ids: above every character getopt_long returns for itself */
enum opt_id {
	O_JSON = 256, O_CSV, O_PLOT, O_INITIATOR, O_TIMEOUT, O_DEST, O_VMS, O_BS, O_QD, O_DURATION, O_KEEP_GOING,
	O_WARMUP, O_WRITE, O_DATA, O_RANDOM, O_TEMPLATE_SIZE, O_PLOT_JOB, O_TEMPLATE_CONTENT,
	O_CHUNK, O_SWEEP, O_PARALLEL, O_OUTSTANDING, O_MODE, O_EXPLAIN, O_VERIFY, O_NO_TEMPLATE,
	O_IMAGE, O_SYNTHETIC, O_SIZE, O_SEED, O_METRICS_URL, O_METRICS_INSECURE, O_INTERVAL,
	O_COUNT, O_API, O_API_USER, O_API_CACERT, O_API_INSECURE, O_KEEP_CLONES, O_KEEP_TOKENS, O_SETTLE_TIMEOUT,
	O_OUT, O_NAME, O_BUDGET, O_CAPACITY_USE, O_OFFSET, O_MAX_IO, O_WRITE_DATA, O_DATALOSS,
	O_TIME_SCALE,
};

/* Every option, in the order of the usage text; "--opt value" and "--opt=value" alike.  Long
 * names only (and -h, -q): getopt_long also takes a unique prefix ("--dur"), as lunlab-target
 * does.  --explain's count is optional: "--explain=N", or "--explain N" when N is a number. */
static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, O_JSON },
	{ "csv", no_argument, NULL, O_CSV },
	{ "quiet", no_argument, NULL, 'q' },
	{ "plot", required_argument, NULL, O_PLOT },
	{ "initiator", required_argument, NULL, O_INITIATOR },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "dest", required_argument, NULL, O_DEST },
	{ "vms", required_argument, NULL, O_VMS },
	{ "bs", required_argument, NULL, O_BS },
	{ "qd", required_argument, NULL, O_QD },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "keep-going", no_argument, NULL, O_KEEP_GOING },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "write", no_argument, NULL, O_WRITE },
	{ "data", required_argument, NULL, O_DATA },
	{ "random", no_argument, NULL, O_RANDOM },
	{ "template-size", required_argument, NULL, O_TEMPLATE_SIZE },
	{ "plot-job", required_argument, NULL, O_PLOT_JOB },
	{ "template-content", required_argument, NULL, O_TEMPLATE_CONTENT },
	{ "chunk", required_argument, NULL, O_CHUNK },
	{ "sweep", required_argument, NULL, O_SWEEP },
	{ "parallel", required_argument, NULL, O_PARALLEL },
	{ "outstanding", required_argument, NULL, O_OUTSTANDING },
	{ "mode", required_argument, NULL, O_MODE },
	{ "explain", optional_argument, NULL, O_EXPLAIN },
	{ "verify", no_argument, NULL, O_VERIFY },
	{ "no-template", no_argument, NULL, O_NO_TEMPLATE },
	{ "image", required_argument, NULL, O_IMAGE },
	{ "synthetic", required_argument, NULL, O_SYNTHETIC },
	{ "size", required_argument, NULL, O_SIZE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "metrics-url", required_argument, NULL, O_METRICS_URL },
	{ "metrics-insecure", no_argument, NULL, O_METRICS_INSECURE },
	{ "interval", required_argument, NULL, O_INTERVAL },
	{ "count", required_argument, NULL, O_COUNT },
	{ "api", required_argument, NULL, O_API },
	{ "api-user", required_argument, NULL, O_API_USER },
	{ "api-cacert", required_argument, NULL, O_API_CACERT },
	{ "api-insecure", no_argument, NULL, O_API_INSECURE },
	{ "keep-clones", no_argument, NULL, O_KEEP_CLONES },
	{ "keep-tokens", no_argument, NULL, O_KEEP_TOKENS },
	{ "settle-timeout", required_argument, NULL, O_SETTLE_TIMEOUT },
	{ "out", required_argument, NULL, O_OUT },
	{ "name", required_argument, NULL, O_NAME },
	{ "budget", required_argument, NULL, O_BUDGET },
	{ "capacity-use", required_argument, NULL, O_CAPACITY_USE },
	{ "offset", required_argument, NULL, O_OFFSET },
	{ "max-io", required_argument, NULL, O_MAX_IO },
	{ "write-data", required_argument, NULL, O_WRITE_DATA },
	{ "dataloss", no_argument, NULL, O_DATALOSS },
	{ "time-scale", required_argument, NULL, O_TIME_SCALE },
	{ NULL, 0, NULL, 0 },
};

/* How the user wrote the option getopt_long stopped at, for the error: "--name" of
 * "--name=value", or "-x" of a short option (optopt). */
static const char *option_word(const char *arg, int opt)
{
	static _Thread_local char w[64];

	if (arg && arg[0] == '-' && arg[1] == '-') {
		snprintf(w, sizeof(w), "%.*s", (int)strcspn(arg, "="), arg);
	} else if (opt > 0 && opt < 256) {
		snprintf(w, sizeof(w), "-%c", opt);
	} else {
		snprintf(w, sizeof(w), "%s", arg ? arg : "?");
	}
	return w;
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

	/* getopt_long over the words after the command: av[0] is the command, as argv[0] is the
	 * program for getopt.  "-" first: a word that is not an option comes back in order as
	 * ch 1 (the URL); ":" next: a missing value is ':' and no message of getopt's own. */
	int ac = argc - 1, ch;
	char **av = argv + 1;
	bool vms_given = false, data_given = false;

	opterr = 0;
	optind = 0; /* 0: glibc re-initialises its scan state, so cli_parse can run again */
	while ((ch = getopt_long(ac, av, "-:hq", long_opts, NULL)) != -1) {
		const char *val = optarg;

		switch (ch) {
		case 1: /* a word that is not an option: the URL, once */
			if (o->url)
				FAIL("unexpected argument '%s'", val);
			o->url = val;
			break;
		case 'h':
			return 1;
		case O_JSON:
			o->format = OUT_JSON;
			break;
		case O_CSV:
			o->format = OUT_CSV;
			break;
		case 'q':
			o->quiet = true;
			break;
		case O_PLOT:
			o->plot_path = val;
			break;
		case O_INITIATOR:
			o->initiator = val;
			break;
		case O_TIMEOUT:
			if (parse_seconds(val, &o->timeout_s) || o->timeout_s < 0.1 || o->timeout_s > 86400)
				FAIL("--timeout: '%s' is not a number of seconds between 0.1 and 86400", val);
			break;
		case O_DEST:
			o->dest_url = val;
			break;
		case O_VMS:
			if (cli_parse_uint_list(val, o->vms_list, CLI_MAX_LIST, &o->n_vms))
				FAIL("--vms: '%s' is not a list of positive integers", val);
			vms_given = true;
			break;
		case O_BS:
			if (!ll_size_parse(val, 0, &o->bs) || o->bs == 0 || o->bs > (64u << 20))
				FAIL("--bs: '%s' is not a size between 1 and 64m", val);
			break;
		case O_QD:
			if (parse_uint(val, 1, 256, &o->qd))
				FAIL("--qd: '%s' is not an integer 1..256", val);
			break;
		case O_DURATION:
			if (parse_seconds(val, &o->duration_s) || o->duration_s <= 0)
				FAIL("--duration: '%s' is not a positive number of seconds", val);
			break;
		case O_KEEP_GOING:
			o->keep_going = true;
			break;
		case O_WARMUP:
			if (parse_seconds(val, &o->warmup_s))
				FAIL("--warmup: '%s' is not a number of seconds", val);
			break;
		case O_WRITE:
			o->write = true;
			break;
		case O_DATA:
			if (write_data_parse(val, &o->data))
				FAIL("--data: '%s' is not unique, repeat, zero or win10", val);
			data_given = true;
			break;
		case O_RANDOM:
			o->random = true;
			break;
		case O_TEMPLATE_SIZE:
			if (!ll_size_parse(val, 0, &o->template_size) || o->template_size == 0)
				FAIL("--template-size: '%s' is not a positive size", val);
			break;
		case O_PLOT_JOB:
			if (!ll_size_parse(val, 0, &o->plot_job_bytes) || o->plot_job_bytes == 0)
				FAIL("--plot-job: '%s' is not a positive size", val);
			break;
		case O_TEMPLATE_CONTENT:
			if (!strcmp(val, "zero")) o->template_content = TEMPLATE_ZERO;
			else if (!strcmp(val, "pattern")) o->template_content = TEMPLATE_PATTERN;
			else if (!strcmp(val, "synthetic")) o->template_content = TEMPLATE_SYNTHETIC;
			else FAIL("--template-content: '%s' is not zero, pattern or synthetic", val);
			break;
		case O_CHUNK:
			/* above 256m only for --mode odx (checked below, once the mode is known): one
			 * token may cover a whole disk, one EXTENDED COPY segment cannot */
			if (!ll_size_parse(val, 0, &o->chunk) || o->chunk == 0 || o->chunk > (1ull << 40))
				FAIL("--chunk: '%s' is not a size between 1 and 1t", val);
			break;
		case O_SWEEP:
			if (cli_parse_size_list(val, o->sweep, CLI_MAX_LIST, &o->n_sweep))
				FAIL("--sweep: '%s' is not a list of sizes like 64k,256k,1m", val);
			break;
		case O_PARALLEL:
			if (parse_uint(val, 1, 1024, &o->parallel))
				FAIL("--parallel: '%s' is not an integer 1..1024", val);
			break;
		case O_OUTSTANDING:
			if (parse_uint(val, 1, 256, &o->outstanding))
				FAIL("--outstanding: '%s' is not an integer 1..256", val);
			break;
		case O_MODE:
			if (!strcmp(val, "auto")) o->mode = MODE_AUTO;
			else if (!strcmp(val, "xcopy")) o->mode = MODE_XCOPY;
			else if (!strcmp(val, "software")) o->mode = MODE_SOFTWARE;
			else if (!strcmp(val, "snapshot")) o->mode = MODE_SNAPSHOT;
			else if (!strcmp(val, "odx")) o->mode = MODE_ODX;
			else FAIL("--mode: '%s' is not auto, xcopy, odx, software or snapshot", val);
			break;
		case O_EXPLAIN:
			o->explain = true;
			if (val) {
				if (parse_uint(val, 1, 100, &o->explain_count))
					FAIL("--explain: '%s' is not an integer 1..100", val);
			} else if (optind < ac && av[optind][0] >= '0' && av[optind][0] <= '9') {
				/* "--explain 5": the count as the next word, when it is a number */
				val = av[optind++];
				if (parse_uint(val, 1, 100, &o->explain_count))
					FAIL("--explain: '%s' is not an integer 1..100", val);
			}
			break;
		case O_VERIFY:
			o->verify = true;
			break;
		case O_NO_TEMPLATE:
			o->skip_template = true;
			break;
		case O_IMAGE:
			o->image_path = val;
			break;
		case O_SYNTHETIC:
			if (strcmp(val, "win10"))
				FAIL("--synthetic: '%s' is not a known image (win10)", val);
			o->synthetic = true;
			break;
		case O_SIZE:
			if (!ll_size_parse(val, 0, &o->image_size) || o->image_size < SYNTH_BLOCK_SIZE)
				FAIL("--size: '%s' is not a size of at least 4k", val);
			break;
		case O_SEED: {
			char *end;
			errno = 0;
			o->seed = strtoull(val, &end, 0);
			if (errno || *end || end == val || val[0] == '-')
				FAIL("--seed: '%s' is not an unsigned integer", val);
			break;
		}
		case O_METRICS_URL:
			o->metrics_url = val;
			break;
		case O_METRICS_INSECURE:
			o->metrics_insecure = true;
			break;
		case O_INTERVAL:
			if (parse_seconds(val, &o->interval_s) || o->interval_s < 0.1 || o->interval_s > 3600)
				FAIL("--interval: '%s' is not a number of seconds between 0.1 and 3600", val);
			break;
		case O_COUNT:
			if (parse_uint(val, 1, 1000000, &o->count))
				FAIL("--count: '%s' is not an integer 1..1000000", val);
			break;
		case O_API:
			if (strncmp(val, "https://", 8) || !val[8])
				FAIL("--api: '%s' is not an https://HOST:PORT URL", val);
			o->api_url = val;
			break;
		case O_API_USER:
			if (!*val || strlen(val) > 64 || strchr(val, ':'))
				FAIL("--api-user: want 1..64 characters without ':'");
			o->api_user = val;
			break;
		case O_API_CACERT:
			o->api_cacert = val;
			break;
		case O_API_INSECURE:
			o->api_insecure = true;
			break;
		case O_KEEP_CLONES:
			o->keep_clones = true;
			break;
		case O_KEEP_TOKENS:
			o->keep_tokens = true;
			break;
		case O_SETTLE_TIMEOUT:
			if (parse_seconds(val, &o->settle_timeout_s))
				FAIL("--settle-timeout: '%s' is not a number of seconds", val);
			break;
		case O_OUT:
			o->out_path = val;
			break;
		case O_NAME:
			o->profile_name = val;
			break;
		case O_BUDGET:
			if (parse_duration(val, &o->budget_s))
				FAIL("--budget: '%s' is not a duration like 90s, 10m or 1h", val);
			break;
		case O_CAPACITY_USE:
			if (!ll_size_parse(val, 0, &o->capacity_use) || o->capacity_use == 0)
				FAIL("--capacity-use: '%s' is not a positive size", val);
			break;
		case O_OFFSET:
			if (!ll_size_parse(val, 0, &o->offset))
				FAIL("--offset: '%s' is not a size", val);
			break;
		case O_MAX_IO:
			if (!ll_size_parse(val, 0, &o->max_io) || o->max_io < 4096)
				FAIL("--max-io: '%s' is not a size of at least 4k", val);
			break;
		case O_WRITE_DATA:
			if (!strcmp(val, "random")) o->sparse_writes = false;
			else if (!strcmp(val, "sparse")) o->sparse_writes = true;
			else FAIL("--write-data: '%s' is not random or sparse", val);
			break;
		case O_DATALOSS:
			o->dataloss = true;
			break;
		case O_TIME_SCALE: {
			char *end;
			errno = 0;
			o->calib_time_scale = strtod(val, &end);
			if (errno || *end || end == val || !isfinite(o->calib_time_scale) || o->calib_time_scale <= 0 ||
			    o->calib_time_scale > 1e6)
				FAIL("--time-scale: '%s' is not a number above 0", val);
			break;
		}
		case ':':
			FAIL("%s needs a value", option_word(av[optind - 1], optopt));
		default: /* '?': not one of ours (optopt 0 or a letter), or a value given to a flag */
			if (optopt >= O_JSON)
				FAIL("%s takes no value", option_word(av[optind - 1], optopt));
			FAIL("unknown option '%s'", option_word(av[optind - 1], optopt));
		}
	}
	if (optind < ac) /* the words after a "--" */
		FAIL("unexpected argument '%s'", av[optind]);
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
	if (o->count && o->cmd != CMD_SCALE)
		FAIL("--count applies to watch and scale only");
	if (o->keep_going && o->cmd != CMD_SCALE)
		FAIL("--keep-going applies to scale only");
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
		if (o->mode != MODE_ODX && o->chunk > (256u << 20))
			FAIL("--chunk: %llu bytes is above 256m: only --mode odx (one token per chunk) takes more",
			     (unsigned long long)o->chunk);
	}
	if (o->cmd == CMD_CLONE && o->mode == MODE_SNAPSHOT) {
		if (!o->api_url)
			FAIL("--mode snapshot needs --api https://HOST:PORT (the array's management API)");
		if (o->dest_url || o->explain || o->n_sweep > 1)
			FAIL("--mode snapshot clones within the array: no --dest, --explain or --sweep");
	}
	if (o->keep_clones && !(o->cmd == CMD_CLONE && o->mode == MODE_SNAPSHOT))
		FAIL("--keep-clones applies to clone --mode snapshot only");
	if (o->keep_tokens && !(o->cmd == CMD_CLONE && o->mode == MODE_ODX))
		FAIL("--keep-tokens applies to clone --mode odx only");
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
