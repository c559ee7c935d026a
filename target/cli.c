/* cli.c — option parsing for lunlab-target (scripts depend on these names). */
#include "target/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LUNLAB_HANDLER_DIR
#define LUNLAB_HANDLER_DIR "handlers"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lunlab-target [options]\n"
		"  --listen ADDR[:PORT]   where to listen (default 127.0.0.1:3260); repeatable:\n"
		"                         every portal serves the same LUNs (multipath)\n"
		"  --iqn IQN              target name (default iqn.2026-11.org.lunlab:target)\n"
		"  --lun SPEC             add a LUN (repeatable: LUN 0, 1, ... in order); SPEC is\n"
		"                         comma-separated key=value: size=N[K|M|G|T] (required, thin),\n"
		"                         block=512|4096, handler=NAME (default lunlab), model=,\n"
		"                         array=, serial=, and any other key the handler knows\n"
		"  --handler-path DIR     where handler_*.so live (default: env LUNLAB_HANDLER_PATH,\n"
		"                         else %s)\n"
		"  --io-threads N         I/O threads (default: number of CPUs)\n"
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
		"  --trace                print every SCSI command decoded, with its status\n"
		"  --quiet                no log lines (login/logout)\n"
		"  --help                 this text\n",
		LUNLAB_HANDLER_DIR);
}

bool cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: return false;
	}
	if (*end == 'i' || *end == 'B') /* tolerate "GiB"/"GB" spellings */
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		return false;
	if (shift && v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

bool cli_parse_lun(const char *spec, struct cli_lun *lun, char *err, size_t errlen)
{
	char *copy = strdup(spec), *save = NULL, *tok;
	char rest[sizeof(lun->cfgstring)];
	size_t rl = 0;
	bool have_size = false;

	memset(lun, 0, sizeof(*lun));
	lun->block = 512;
	strcpy(lun->handler, "lunlab");
	rest[0] = '\0';
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *k = tok, *v;
		if (!eq || eq == tok) {
			snprintf(err, errlen, "'%s' is not key=value", tok);
			goto bad;
		}
		*eq = '\0';
		v = eq + 1;
		if (strchr(v, ';')) {
			snprintf(err, errlen, "%s: value may not contain ';'", k);
			goto bad;
		}
		if (strcmp(k, "size") == 0) {
			if (!cli_parse_size(v, &lun->size) || lun->size == 0) {
				snprintf(err, errlen, "size=%s: want a number with K/M/G/T suffix", v);
				goto bad;
			}
			have_size = true;
		} else if (strcmp(k, "block") == 0) {
			if (strcmp(v, "512") == 0) {
				lun->block = 512;
			} else if (strcmp(v, "4096") == 0) {
				lun->block = 4096;
			} else {
				snprintf(err, errlen, "block=%s: want 512 or 4096", v);
				goto bad;
			}
		} else if (strcmp(k, "handler") == 0) {
			if (!*v || strlen(v) >= sizeof(lun->handler) || strchr(v, '/')) {
				snprintf(err, errlen, "handler=%s: bad handler name", v);
				goto bad;
			}
			strcpy(lun->handler, v);
		} else {
			int n;
			if (strcmp(k, "serial") == 0) {
				if (strlen(v) >= sizeof(lun->serial)) {
					snprintf(err, errlen, "serial=%s: too long", v);
					goto bad;
				}
				strcpy(lun->serial, v);
			}
			n = snprintf(rest + rl, sizeof(rest) - rl, "%s%s=%s", rl ? ";" : "", k, v);
			if (n < 0 || (size_t)n >= sizeof(rest) - rl) {
				snprintf(err, errlen, "--lun spec too long");
				goto bad;
			}
			rl += (size_t)n;
		}
	}
	if (!have_size) {
		snprintf(err, errlen, "size= is required");
		goto bad;
	}
	if (lun->size % lun->block) {
		snprintf(err, errlen, "size is not a multiple of block=%u", lun->block);
		goto bad;
	}
	if (snprintf(lun->cfgstring, sizeof(lun->cfgstring), "%s/%s", lun->handler, rest) >=
	    (int)sizeof(lun->cfgstring)) {
		snprintf(err, errlen, "--lun spec too long");
		goto bad;
	}
	free(copy);
	return true;
bad:
	free(copy);
	return false;
}

static bool parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi) {
		fprintf(stderr, "lunlab-target: %s %s: want a number %u..%u\n", opt, s, lo, hi);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

int cli_parse(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "iqn", required_argument, NULL, 'i' },
		{ "lun", required_argument, NULL, 'u' },
		{ "handler-path", required_argument, NULL, 'H' },
		{ "io-threads", required_argument, NULL, 't' },
		{ "portal-group", required_argument, NULL, 'p' },
		{ "max-sessions", required_argument, NULL, 'm' },
		{ "login-timeout", required_argument, NULL, 'L' },
		{ "stall-timeout", required_argument, NULL, 'S' },
		{ "alias", required_argument, NULL, 'a' },
		{ "allow-initiator", required_argument, NULL, 'A' },
		{ "auth-file", required_argument, NULL, 'F' },
		{ "trace", no_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("LUNLAB_HANDLER_PATH");
	int ch;
	unsigned v;
	char err[512];

	memset(c, 0, sizeof(*c));
	c->iqn = "iqn.2026-11.org.lunlab:target";
	c->handler_path = env && *env ? env : LUNLAB_HANDLER_DIR;
	c->portal_group = 1;
	c->max_sessions = 1024;
	c->login_timeout = -1; /* not given: the environment or the default */
	c->stall_timeout = -1;
	c->io_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (c->io_threads < 1)
		c->io_threads = 1;
	c->luns = calloc(CLI_MAX_LUNS, sizeof(*c->luns));
	c->allow = calloc(CLI_MAX_ALLOW, sizeof(*c->allow));
	if (!c->luns || !c->allow)
		return -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			if (c->nlisten == CLI_MAX_LISTEN) {
				fprintf(stderr, "lunlab-target: more than %d --listen\n", CLI_MAX_LISTEN);
				return -1;
			}
			c->listen[c->nlisten++] = optarg;
			break;
		case 'A':
			if (c->nallow == CLI_MAX_ALLOW) {
				fprintf(stderr, "lunlab-target: more than %d --allow-initiator\n",
					CLI_MAX_ALLOW);
				return -1;
			}
			c->allow[c->nallow++] = optarg;
			break;
		case 'F':
			if (c->auth_file) {
				fprintf(stderr, "lunlab-target: --auth-file given twice\n");
				return -1;
			}
			c->auth_file = optarg;
			break;
		case 'i':
			if (!*optarg || strlen(optarg) > 223) {
				fprintf(stderr, "lunlab-target: --iqn: want 1..223 characters\n");
				return -1;
			}
			c->iqn = optarg;
			break;
		case 'u':
			if (c->nluns == CLI_MAX_LUNS) {
				fprintf(stderr, "lunlab-target: more than %d --lun\n", CLI_MAX_LUNS);
				return -1;
			}
			if (!cli_parse_lun(optarg, &c->luns[c->nluns], err, sizeof(err))) {
				fprintf(stderr, "lunlab-target: --lun %s (LUN %d): %s\n", optarg, c->nluns, err);
				return -1;
			}
			c->nluns++;
			break;
		case 'H': c->handler_path = optarg; break;
		case 't':
			if (!parse_uint("--io-threads", optarg, 1, 256, &v))
				return -1;
			c->io_threads = (int)v;
			break;
		case 'p':
			if (!parse_uint("--portal-group", optarg, 1, 65535, &v))
				return -1;
			c->portal_group = v;
			break;
		case 'm':
			if (!parse_uint("--max-sessions", optarg, 1, 1000000, &v))
				return -1;
			c->max_sessions = v;
			break;
		case 'L':
			if (!parse_uint("--login-timeout", optarg, 0, 86400, &v))
				return -1;
			c->login_timeout = (long)v;
			break;
		case 'S':
			if (!parse_uint("--stall-timeout", optarg, 0, 86400, &v))
				return -1;
			c->stall_timeout = (long)v;
			break;
		case 'a': c->alias = optarg; break;
		case 'T': c->trace = true; break;
		case 'q': c->quiet = true; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lunlab-target: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (c->nlisten == 0)
		c->listen[c->nlisten++] = "127.0.0.1:3260";
	return 0;
}

void cli_free(struct cli *c)
{
	free(c->luns);
	c->luns = NULL;
	free(c->allow);
	c->allow = NULL;
}
