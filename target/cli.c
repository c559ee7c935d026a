/* cli.c — lunlab-target's options (scripts depend on these names): the table
 * of names, kinds and ranges, the one setter both the command line and the
 * config file go through, --lun SPEC parsing, and the command line itself. */
#include "target/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/api/api_listen.h"
#include "target/api/api_nice.h"
#include "target/api/xms_cluster_spec.h"
#include "target/config_file.h"
#include "target/handler_dir.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/portal.h"
#include "target/lu/alua.h"
#include "target/api/xms_hw_fault_spec.h"
#include "target/lu/fault_spec.h"
#include "lunlab/size_parse.h"

const struct cli_optdef cli_options[] = {
	{ "listen", CLI_LISTEN, CLI_K_LIST, 0, CLI_MAX_LISTEN },
	{ "iqn", CLI_IQN, CLI_K_TEXT, 0, 0 },
	{ "lun", CLI_LUN, CLI_K_LUN, 0, CLI_MAX_LUNS },
	{ "handler-path", CLI_HANDLER_PATH, CLI_K_TEXT, 0, 0 },
	{ "io-threads", CLI_IO_THREADS, CLI_K_UINT, 1, 256 },
	{ "portal-group", CLI_PORTAL_GROUP, CLI_K_UINT, 1, 65535 },
	{ "max-sessions", CLI_MAX_SESSIONS, CLI_K_UINT, 1, 1000000 },
	{ "login-timeout", CLI_LOGIN_TIMEOUT, CLI_K_UINT, 0, 86400 },
	{ "stall-timeout", CLI_STALL_TIMEOUT, CLI_K_UINT, 0, 86400 },
	{ "alias", CLI_ALIAS, CLI_K_TEXT, 0, 0 },
	{ "allow-initiator", CLI_ALLOW, CLI_K_LIST, 0, CLI_MAX_ALLOW },
	{ "auth-file", CLI_AUTH_FILE, CLI_K_TEXT, 0, 0 },
	{ "trace", CLI_TRACE, CLI_K_FLAG, 0, 0 },
	{ "quiet", CLI_QUIET, CLI_K_FLAG, 0, 0 },
	{ "config", CLI_CONFIG, CLI_K_TEXT, 0, 0 },
	{ "state-dir", CLI_STATE_DIR, CLI_K_TEXT, 0, 0 },
	{ "check-state", CLI_CHECK_STATE, CLI_K_TEXT, 0, 0 },
	{ "api", CLI_API, CLI_K_TEXT, 0, 0 },
	{ "api-cert", CLI_API_CERT, CLI_K_TEXT, 0, 0 },
	{ "api-key", CLI_API_KEY, CLI_K_TEXT, 0, 0 },
	{ "api-metrics-open", CLI_API_METRICS_OPEN, CLI_K_FLAG, 0, 0 },
	{ "cluster", CLI_CLUSTER, CLI_K_LIST, 0, CLI_MAX_CLUSTERS },
	{ "fault", CLI_FAULT, CLI_K_LIST, 0, CLI_MAX_FAULTS },
	{ "alua", CLI_ALUA, CLI_K_LIST, 0, CLI_MAX_FAULTS },
	{ "handler-threads", CLI_HANDLER_THREADS, CLI_K_UINT, 1, 1024 },
	{ "no-hugepages", CLI_NO_HUGEPAGES, CLI_K_FLAG, 0, 0 },
	{ "api-nice", CLI_API_NICE, CLI_K_UINT, 0, API_NICE_MAX },
	{ "prealloc-mib", CLI_PREALLOC_MIB, CLI_K_UINT, 0, 4194304 },
	{ NULL, CLI_NOPTS, CLI_K_TEXT, 0, 0 },
};

const struct cli_optdef *cli_option(const char *name)
{
	for (const struct cli_optdef *d = cli_options; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

static const struct cli_optdef *optdef(enum cli_opt id)
{
	return &cli_options[id]; /* the table is in enum order (checked by test_cli) */
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lunlab-target [options]\n"
		"  --config FILE          read options from a YAML file (docs/config.md); the\n"
		"                         command line wins over it, and --listen, --lun,\n"
		"                         --allow-initiator, --fault or --alua given here\n"
		"                         replace the file's list\n"
		"  --listen ADDR[:PORT][,advertise=HOST[:PORT]][,tpg=N]\n"
		"                         where to listen (default 127.0.0.1:3260); repeatable:\n"
		"                         every portal serves the same LUNs (multipath);\n"
		"                         advertise= is what SendTargets reports for it (NAT,\n"
		"                         qemu user networking, containers); tpg= its portal\n"
		"                         group (an ALUA target port group; default --portal-group)\n"
		"  --iqn IQN              target name (default iqn.2026-11.org.lunlab:target)\n"
		"  --lun SPEC             add a LUN (repeatable: LUN 0, 1, ... in order); SPEC is\n"
		"                         comma-separated key=value: size=N[K|M|G|T] (required, thin),\n"
		"                         block=512|4096, handler=NAME (default lunlab), model=,\n"
		"                         array=, serial=, and any other key the handler knows\n"
		"  --handler-path DIR     where handler_*.so live (default: env LUNLAB_HANDLER_PATH,\n"
		"                         else %s)\n"
		"  --io-threads N         I/O threads (default: number of CPUs)\n"
		"  --handler-threads N    threads running the handlers' commands, shared by\n"
		"                         every LU (default: 4 per CPU, 8..256)\n"
		"  --no-hugepages         keep the array's payloads on 4 KiB pages (default: from\n"
		"                         the hugetlb pool, vm.nr_hugepages, while it has room)\n"
		"  --prealloc-mib N       populate N MiB of each array's payload memory before\n"
		"                         listening, so first writes into it run as fast as\n"
		"                         overwrites (default 0: memory is taken as data is\n"
		"                         written); not with --state-dir\n"
		"  --portal-group N       TargetPortalGroupTag (default 1)\n"
		"  --max-sessions N       refuse logins beyond N sessions (default 1024)\n"
		"  --login-timeout S      close a connection not logged in after S seconds\n"
		"                         (default 15, env LUNLAB_LOGIN_TIMEOUT; 0 = never)\n"
		"  --stall-timeout S      close a connection silent for S seconds in the middle\n"
		"                         of a PDU (default 30, env LUNLAB_STALL_TIMEOUT; 0 = never)\n"
		"  --alias NAME           TargetAlias sent at login\n"
		"  --allow-initiator IQN  only this initiator may log in (repeatable; adds to the\n"
		"                         'allow' lines of --auth-file); default: any initiator\n"
		"  --auth-file PATH       CHAP users, mutual CHAP identity, allow-list; mode 0600,\n"
		"                         owned by you (docs/access-control.md); default: no CHAP\n"
		"  --state-dir DIR        keep every array's data, volumes and snapshots, the\n"
		"                         reservations with APTPL and the accounting in DIR,\n"
		"                         across restarts and crashes (docs/persistence.md);\n"
		"                         default: everything in memory\n"
		"  --check-state DIR      verify the state in DIR offline (the target must not\n"
		"                         run on it) and exit: 0 consistent, 1 with the first\n"
		"                         inconsistency\n"
		"  --api ADDR:PORT        serve the XMS-compatible management API over HTTPS there\n"
		"                         (PORT alone: 127.0.0.1); users: 'api' lines of --auth-file\n"
		"                         (docs/api.md)\n"
		"  --api-cert FILE, --api-key FILE  the API's PEM certificate and key (the key\n"
		"                         file 0600); default: a self-signed one made at start\n"
		"  --api-metrics-open     serve /metrics, /metrics.json and the dashboard (/)\n"
		"                         without authentication (docs/metrics.md)\n"
		"  --api-nice N           the API's threads run N nice steps below the I/O\n"
		"                         threads, 0..19 (default %d; 0: the same priority):\n"
		"                         monitoring polls yield to the data path (docs/api.md)\n"
		"  --cluster SPEC         a cluster (array) the API manages (repeatable; default\n"
		"                         name=xbrick1): name=, block=, chap_authentication=,\n"
		"                         chap_discovery=, and handler keys (model=, array_capacity=, ...)\n"
		"  --fault SPEC           a fault rule (repeatable; docs/faults.md): match keys\n"
		"                         lun= op= lba= initiator= portal=, triggers every= p=\n"
		"                         seed= count= window=, one action: sense=KK/AA/QQ,\n"
		"                         status=busy|task-set-full|reservation-conflict,\n"
		"                         delay=MS, hold, drop[=after], xcopy-fail-after=N,\n"
		"                         odx-fail-after=BLOCKS, corrupt;\n"
		"                         or a hardware fault of the API's X-Brick (needs --api):\n"
		"                         hw=ssd:N|storage-controller:N (number or name)[,cluster=]\n"
		"  --alua SPEC            an ALUA state at start (repeatable; LUs whose profile\n"
		"                         reports ALUA): [lun=N,]tpg=N,state=ao|ano|standby|\n"
		"                         unavailable|transitioning[,pref=0|1][,transition=MS:\n"
		"                         transitioning for MS ms first, 0..600000]\n"
		"  --trace                print every SCSI command decoded, with its status\n"
		"  --quiet                no log lines (login/logout, the handlers' INFO); the\n"
		"                         \"listening on\" lines and warnings still print\n"
		"  --help                 this text\n"
		"  --version              the version and the git revision it was built from\n",
		handler_dir_default(), API_NICE_DEFAULT);
}

/* the cfgstring is k=v;k=v: a key may carry none of its separators */
bool cli_lun_key_name_ok(const char *k)
{
	return *k && strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == strlen(k);
}

void cli_lun_begin(struct cli_lun_build *b, struct cli_lun *lun)
{
	memset(b, 0, sizeof(*b));
	memset(lun, 0, sizeof(*lun));
	b->lun = lun;
	lun->block = 512;
	strcpy(lun->handler, "lunlab");
}

bool cli_lun_key(struct cli_lun_build *b, const char *k, const char *v, char *err, size_t errlen)
{
	struct cli_lun *lun = b->lun;

	if (!cli_lun_key_name_ok(k)) {
		snprintf(err, errlen, "%s", CLI_LUN_KEY_NAME_RULE);
		return false;
	}
	if (strchr(v, ';')) {
		snprintf(err, errlen, "value may not contain ';'");
		return false;
	}
	if (strcmp(k, "size") == 0) {
		if (!ll_size_parse(v, 0, &lun->size) || lun->size == 0) {
			snprintf(err, errlen, "want a number with K/M/G/T suffix");
			return false;
		}
		b->have_size = true;
	} else if (strcmp(k, "block") == 0) {
		if (strcmp(v, "512") == 0) {
			lun->block = 512;
		} else if (strcmp(v, "4096") == 0) {
			lun->block = 4096;
		} else {
			snprintf(err, errlen, "want 512 or 4096");
			return false;
		}
	} else if (strcmp(k, "handler") == 0) {
		if (!*v || strlen(v) >= sizeof(lun->handler) || strchr(v, '/')) {
			snprintf(err, errlen, "bad handler name");
			return false;
		}
		strcpy(lun->handler, v);
	} else {
		int n;
		if (strcmp(k, "serial") == 0) {
			if (strlen(v) >= sizeof(lun->serial)) {
				snprintf(err, errlen, "too long");
				return false;
			}
			strcpy(lun->serial, v);
		}
		/* any other key is the handler's: it checks it when the LU is created */
		n = snprintf(b->rest + b->rl, sizeof(b->rest) - b->rl, "%s%s=%s", b->rl ? ";" : "", k, v);
		if (n < 0 || (size_t)n >= sizeof(b->rest) - b->rl) {
			snprintf(err, errlen, "LUN spec too long");
			return false;
		}
		b->rl += (size_t)n;
	}
	return true;
}

bool cli_lun_end(struct cli_lun_build *b, char *err, size_t errlen)
{
	struct cli_lun *lun = b->lun;

	if (!b->have_size) {
		snprintf(err, errlen, "size= is required");
		return false;
	}
	if (lun->size % lun->block) {
		snprintf(err, errlen, "size is not a multiple of block=%u", lun->block);
		return false;
	}
	if (snprintf(lun->cfgstring, sizeof(lun->cfgstring), "%s/%s", lun->handler, b->rest) >=
	    (int)sizeof(lun->cfgstring)) {
		snprintf(err, errlen, "LUN spec too long");
		return false;
	}
	return true;
}

bool cli_parse_lun(const char *spec, struct cli_lun *lun, char *err, size_t errlen)
{
	char *copy = strdup(spec), *save = NULL, *tok;
	struct cli_lun_build b;
	char why[256];

	cli_lun_begin(&b, lun);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(err, errlen, "'%s' is not key=value", tok);
			goto bad;
		}
		*eq = '\0';
		if (!cli_lun_key(&b, tok, eq + 1, why, sizeof(why))) {
			snprintf(err, errlen, "%s=%s: %s", tok, eq + 1, why);
			goto bad;
		}
	}
	if (!cli_lun_end(&b, err, errlen))
		goto bad;
	free(copy);
	return true;
bad:
	free(copy);
	return false;
}

/* decimal only: "5s", "-1", " 5" and "0x10" are refused */
static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

/* ADDR[:PORT] as listener_open() reads it, checked before anything starts so
 * a typo in a config file is refused with its line, not at bind time */
static const char *listen_check(const char *s)
{
	const char *port = NULL;
	size_t hl;

	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return "no spaces or control characters";
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (!e || e == s + 1)
			return "want [IPv6]:PORT";
		if (e[1] == ':')
			port = e + 2;
		else if (e[1])
			return "want [IPv6]:PORT";
		hl = (size_t)(e - s - 1);
	} else {
		const char *colon = strrchr(s, ':');
		if (colon && memchr(s, ':', (size_t)(colon - s)))
			return "an IPv6 address goes in [brackets]";
		port = colon ? colon + 1 : NULL;
		hl = colon ? (size_t)(colon - s) : strlen(s);
		if (!*s)
			return "empty address";
	}
	if (hl > 255)
		return "address too long";
	if (port) {
		unsigned p;
		if (strlen(port) > 5 || !parse_uint(port, 0, 65535, &p))
			return "port: want a number 0..65535";
	}
	return NULL;
}

bool cli_set(struct cli *c, enum cli_opt id, const char *v, char *err, size_t errlen)
{
	const struct cli_optdef *d = optdef(id);
	const char *why;
	unsigned u = 0;

	if (d->kind == CLI_K_UINT && !parse_uint(v, d->lo, d->hi, &u)) {
		snprintf(err, errlen, "want a number %u..%u", d->lo, d->hi);
		return false;
	}
	if (d->kind == CLI_K_FLAG && strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
		snprintf(err, errlen, "want true or false");
		return false;
	}
	switch (id) {
	case CLI_LISTEN: {
		struct portal_spec ps;
		if (c->nlisten == CLI_MAX_LISTEN) {
			snprintf(err, errlen, "more than %d addresses", CLI_MAX_LISTEN);
			return false;
		}
		if (!portal_spec_parse(v, &ps, err, errlen))
			return false;
		if ((why = listen_check(ps.listen))) {
			snprintf(err, errlen, "%s", why);
			return false;
		}
		c->listen[c->nlisten++] = v;
		break;
	}
	case CLI_FAULT: {
		struct fault_spec fs;
		if (xms_hw_fault_spec_is(v)) { /* a component of the API's X-Brick */
			struct xms_hw_fault_spec hs;
			if (c->nhw_faults == CLI_MAX_FAULTS) {
				snprintf(err, errlen, "more than %d hardware faults", CLI_MAX_FAULTS);
				return false;
			}
			if (!xms_hw_fault_spec_parse(v, &hs, err, errlen))
				return false;
			c->hw_faults[c->nhw_faults++] = v;
			break;
		}
		if (c->nfaults == CLI_MAX_FAULTS) {
			snprintf(err, errlen, "more than %d fault rules", CLI_MAX_FAULTS);
			return false;
		}
		if (!fault_spec_parse(v, &fs, err, errlen))
			return false;
		c->faults[c->nfaults++] = v;
		break;
	}
	case CLI_ALUA: {
		struct alua_spec as;
		if (c->nalua == CLI_MAX_FAULTS) {
			snprintf(err, errlen, "more than %d ALUA states", CLI_MAX_FAULTS);
			return false;
		}
		if (!alua_spec_parse(v, &as, err, errlen))
			return false;
		c->alua[c->nalua++] = v;
		break;
	}
	case CLI_ALLOW:
		if (c->nallow == CLI_MAX_ALLOW) {
			snprintf(err, errlen, "more than %d initiators", CLI_MAX_ALLOW);
			return false;
		}
		if ((why = auth_check_iqn(v))) {
			snprintf(err, errlen, "%s", why);
			return false;
		}
		c->allow[c->nallow++] = v;
		break;
	case CLI_LUN:
		if (c->nluns == CLI_MAX_LUNS) {
			snprintf(err, errlen, "more than %d LUNs", CLI_MAX_LUNS);
			return false;
		}
		if (!cli_parse_lun(v, &c->luns[c->nluns], err, errlen))
			return false;
		c->nluns++;
		break;
	case CLI_IQN:
		if (!*v || strlen(v) > 223) {
			snprintf(err, errlen, "want 1..223 characters");
			return false;
		}
		c->iqn = v;
		break;
	case CLI_API:
		if ((why = api_listen_check(v))) {
			snprintf(err, errlen, "%s", why);
			return false;
		}
		c->api = v;
		break;
	case CLI_CLUSTER: {
		struct xms_cluster_spec cs;
		if (c->nclusters == CLI_MAX_CLUSTERS) {
			snprintf(err, errlen, "more than %d clusters", CLI_MAX_CLUSTERS);
			return false;
		}
		if (!xms_cluster_spec_parse(v, &cs, err, errlen))
			return false;
		for (int i = 0; i < c->nclusters; i++) {
			struct xms_cluster_spec o;
			if (xms_cluster_spec_parse(c->clusters[i], &o, err, errlen) && strcmp(o.name, cs.name) == 0) {
				snprintf(err, errlen, "cluster '%s' given twice", cs.name);
				return false;
			}
		}
		c->clusters[c->nclusters++] = v;
		break;
	}
	case CLI_API_CERT:
	case CLI_API_KEY:
		if (!*v) {
			snprintf(err, errlen, "empty path");
			return false;
		}
		if (id == CLI_API_CERT)
			c->api_cert = v;
		else
			c->api_key = v;
		break;
	case CLI_HANDLER_PATH:
	case CLI_AUTH_FILE:
	case CLI_CONFIG:
	case CLI_STATE_DIR:
	case CLI_CHECK_STATE:
		if (!*v) {
			snprintf(err, errlen, "empty path");
			return false;
		}
		/* the handler's cfgstring carries the state directory: ';' would
		 * end its value there, ',' a --lun key under tcmu-runner */
		if ((id == CLI_STATE_DIR || id == CLI_CHECK_STATE) && strpbrk(v, ";,")) {
			snprintf(err, errlen, "a state directory path may not contain ';' or ','");
			return false;
		}
		if (id == CLI_HANDLER_PATH)
			c->handler_path = v;
		else if (id == CLI_AUTH_FILE)
			c->auth_file = v;
		else if (id == CLI_STATE_DIR)
			c->state_dir = v;
		else if (id == CLI_CHECK_STATE)
			c->check_state = v;
		else
			c->config = v;
		break;
	case CLI_ALIAS:
		if (strlen(v) > 255) {
			snprintf(err, errlen, "want at most 255 characters");
			return false;
		}
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				snprintf(err, errlen, "no control characters");
				return false;
			}
		c->alias = v;
		break;
	case CLI_IO_THREADS: c->io_threads = (int)u; break;
	case CLI_HANDLER_THREADS: c->handler_threads = (unsigned)u; break;
	case CLI_API_NICE: c->api_nice = (unsigned)u; break;
	case CLI_PREALLOC_MIB: c->prealloc_mib = (unsigned)u; break;
	case CLI_PORTAL_GROUP: c->portal_group = u; break;
	case CLI_MAX_SESSIONS: c->max_sessions = u; break;
	case CLI_LOGIN_TIMEOUT: c->login_timeout = (long)u; break;
	case CLI_STALL_TIMEOUT: c->stall_timeout = (long)u; break;
	case CLI_TRACE: c->trace = v[0] == 't'; break;
	case CLI_QUIET: c->quiet = v[0] == 't'; break;
	case CLI_API_METRICS_OPEN: c->api_metrics_open = v[0] == 't'; break;
	case CLI_NO_HUGEPAGES: c->no_hugepages = v[0] == 't'; break;
	case CLI_NOPTS: return false;
	}
	c->given |= 1u << id;
	return true;
}

struct cli_str {
	struct cli_str *next;
	char s[];
};

const char *cli_keep(struct cli *c, const char *s, size_t len)
{
	struct cli_str *n = malloc(sizeof(*n) + len + 1);

	if (!n)
		return NULL;
	memcpy(n->s, s, len);
	n->s[len] = '\0';
	n->next = c->strings;
	c->strings = n;
	return n->s;
}

int cli_init(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	c->iqn = "iqn.2026-11.org.lunlab:target";
	c->handler_path = handler_dir_default();
	c->portal_group = 1;
	c->max_sessions = 1024;
	c->api_nice = API_NICE_DEFAULT;
	c->login_timeout = -1; /* not given: the environment or the default */
	c->stall_timeout = -1;
	c->io_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (c->io_threads < 1)
		c->io_threads = 1;
	c->luns = calloc(CLI_MAX_LUNS, sizeof(*c->luns));
	c->allow = calloc(CLI_MAX_ALLOW, sizeof(*c->allow));
	return c->luns && c->allow ? 0 : -1;
}

static const struct option long_opts[] = {
	{ "listen", required_argument, NULL, CLI_LISTEN },
	{ "iqn", required_argument, NULL, CLI_IQN },
	{ "lun", required_argument, NULL, CLI_LUN },
	{ "handler-path", required_argument, NULL, CLI_HANDLER_PATH },
	{ "io-threads", required_argument, NULL, CLI_IO_THREADS },
	{ "portal-group", required_argument, NULL, CLI_PORTAL_GROUP },
	{ "max-sessions", required_argument, NULL, CLI_MAX_SESSIONS },
	{ "login-timeout", required_argument, NULL, CLI_LOGIN_TIMEOUT },
	{ "stall-timeout", required_argument, NULL, CLI_STALL_TIMEOUT },
	{ "alias", required_argument, NULL, CLI_ALIAS },
	{ "allow-initiator", required_argument, NULL, CLI_ALLOW },
	{ "auth-file", required_argument, NULL, CLI_AUTH_FILE },
	{ "trace", no_argument, NULL, CLI_TRACE },
	{ "quiet", no_argument, NULL, CLI_QUIET },
	{ "config", required_argument, NULL, CLI_CONFIG },
	{ "state-dir", required_argument, NULL, CLI_STATE_DIR },
	{ "check-state", required_argument, NULL, CLI_CHECK_STATE },
	{ "api", required_argument, NULL, CLI_API },
	{ "api-cert", required_argument, NULL, CLI_API_CERT },
	{ "api-key", required_argument, NULL, CLI_API_KEY },
	{ "api-metrics-open", no_argument, NULL, CLI_API_METRICS_OPEN },
	{ "cluster", required_argument, NULL, CLI_CLUSTER },
	{ "fault", required_argument, NULL, CLI_FAULT },
	{ "alua", required_argument, NULL, CLI_ALUA },
	{ "handler-threads", required_argument, NULL, CLI_HANDLER_THREADS },
	{ "no-hugepages", no_argument, NULL, CLI_NO_HUGEPAGES },
	{ "api-nice", required_argument, NULL, CLI_API_NICE },
	{ "prealloc-mib", required_argument, NULL, CLI_PREALLOC_MIB },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* First pass: --help and --config only, silently (the second pass reports
 * bad options), so the file is read before any command-line value is set. */
static int find_config(int argc, char **argv, const char **config, bool *help)
{
	int ch, n = 0;
	int saved = opterr;

	opterr = 0;
	optind = 0; /* 0: glibc re-initialises its scan state */
	while ((ch = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (ch == CLI_CONFIG) {
			*config = optarg;
			n++;
		} else if (ch == 'h') {
			*help = true;
		}
	}
	opterr = saved;
	return n;
}

static void clear_list(struct cli *c, enum cli_opt id)
{
	if (id == CLI_LISTEN) {
		c->nlisten = 0;
	} else if (id == CLI_ALLOW) {
		c->nallow = 0;
	} else if (id == CLI_FAULT) {
		c->nfaults = 0;
		c->nhw_faults = 0;
	} else if (id == CLI_ALUA) {
		c->nalua = 0;
	} else if (id == CLI_LUN) {
		c->nluns = 0;
		c->nkeylines = 0;
	} else if (id == CLI_CLUSTER) {
		c->nclusters = 0;
	}
}

int cli_parse(int argc, char **argv, struct cli *c)
{
	const char *config = NULL;
	bool help = false;
	unsigned cmdline = 0; /* options seen on the command line */
	int ch;
	char err[512];

	if (cli_init(c) < 0) {
		fprintf(stderr, "lunlab-target: out of memory\n");
		return -1;
	}
	if (find_config(argc, argv, &config, &help) > 1) {
		fprintf(stderr, "lunlab-target: --config given twice\n");
		return -1;
	}
	if (help) {
		usage(stdout);
		return 1;
	}
	if (config) {
		if (config_file_load(config, c, err, sizeof(err)) < 0) {
			fprintf(stderr, "lunlab-target: %s\n", err);
			return -1;
		}
		c->config = config;
		c->given |= 1u << CLI_CONFIG;
	}
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (ch < 0 || ch >= CLI_NOPTS) {
			usage(stderr);
			return -1;
		}
		const struct cli_optdef *d = optdef((enum cli_opt)ch);
		unsigned bit = 1u << ch;
		if (ch == CLI_CONFIG)
			continue;
		if (ch == CLI_AUTH_FILE && (cmdline & bit)) {
			fprintf(stderr, "lunlab-target: --auth-file given twice\n");
			return -1;
		}
		/* a list on the command line replaces the file's, not adds to it */
		if ((d->kind == CLI_K_LIST || d->kind == CLI_K_LUN) && !(cmdline & bit))
			clear_list(c, (enum cli_opt)ch);
		cmdline |= bit;
		c->line[ch] = 0;
		if (!cli_set(c, (enum cli_opt)ch, d->kind == CLI_K_FLAG ? "true" : optarg, err,
			     sizeof(err))) {
			if (ch == CLI_LUN)
				fprintf(stderr, "lunlab-target: --lun %s (LUN %d): %s\n", optarg, c->nluns, err);
			else if (d->kind == CLI_K_LIST && strncmp(err, "more than", 9) == 0)
				fprintf(stderr, "lunlab-target: --%s: %s\n", d->name, err);
			else
				fprintf(stderr, "lunlab-target: --%s %s: %s\n", d->name, optarg, err);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lunlab-target: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (c->nhw_faults && !c->api) {
		/* the hardware is the management API's X-Brick: without it there is none */
		fprintf(stderr, "lunlab-target: --fault %s: needs --api (the hardware is the management API's "
			"X-Brick)\n", c->hw_faults[0]);
		return -1;
	}
	if (c->nlisten == 0)
		c->listen[c->nlisten++] = "127.0.0.1:3260";
	return 0;
}

/* The handler's reasons start with the key ("model 'x9': unknown
 * profile"); lu_config.c's unknown-key reason quotes it ("unknown key
 * 'foo'").  A start match is tried first so a quoted value that happens to
 * be another key's name does not mislead. */
static bool names_key(const char *reason, const char *key, bool quoted)
{
	size_t kl = strlen(key);
	const char *p;

	if (!quoted)
		return strncmp(reason, key, kl) == 0 &&
		       (reason[kl] == ' ' || reason[kl] == '=' || reason[kl] == ':');
	for (p = strchr(reason, '\''); p; p = strchr(p + 1, '\''))
		if (strncmp(p + 1, key, kl) == 0 && p[1 + kl] == '\'')
			return true;
	return false;
}

bool cli_lun_blame(const struct cli *c, int i, const char *reason, unsigned *line, const char **key)
{
	if (i < 0 || i >= c->nluns || c->luns[i].line == 0)
		return false;
	*line = c->luns[i].line;
	*key = "";
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < c->nkeylines; k++) {
			const struct cli_keyline *kl = &c->keylines[k];
			if (kl->lun == i && names_key(reason, kl->key, pass == 1)) {
				*line = kl->line;
				*key = kl->key;
				return true;
			}
		}
	return true;
}

void cli_free(struct cli *c)
{
	free(c->luns);
	c->luns = NULL;
	free(c->allow);
	c->allow = NULL;
	free(c->keylines);
	c->keylines = NULL;
	c->nkeylines = c->capkeylines = 0;
	while (c->strings) {
		struct cli_str *n = c->strings->next;
		free(c->strings);
		c->strings = n;
	}
}
