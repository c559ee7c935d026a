/* cli.h — lunlab-target's command line. */
#ifndef LUNLAB_TARGET_CLI_H
#define LUNLAB_TARGET_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_LUNS 1024
#define CLI_MAX_LISTEN 16     /* = TARGET_MAX_PORTALS */
#define CLI_MAX_ALLOW 4096    /* = AUTH_MAX_ALLOW */

struct cli_lun {
	uint64_t size;
	uint32_t block;
	char handler[64];
	char cfgstring[1024]; /* "<handler>/k=v;k=v" */
	char serial[256];     /* empty: generate one */
};

struct cli {
	const char *listen[CLI_MAX_LISTEN]; /* --listen, repeatable; default 127.0.0.1:3260 */
	int nlisten;
	const char *auth_file;    /* --auth-file: CHAP credentials and allow-list */
	const char **allow;       /* --allow-initiator, repeatable */
	int nallow;
	const char *iqn;
	const char *alias;
	const char *handler_path;
	int io_threads;
	unsigned portal_group;
	unsigned max_sessions;
	long login_timeout;     /* seconds, -1 = not given */
	long stall_timeout;     /* seconds, -1 = not given */
	bool trace;
	bool quiet;
	int nluns;
	struct cli_lun *luns;
};

/* 0: run; 1: --help/--version printed (exit 0); -1: error printed (exit 2). */
int cli_parse(int argc, char **argv, struct cli *out);
void cli_free(struct cli *c);

/* "2G" -> 2147483648 (binary K/M/G/T suffixes); false on garbage/overflow. */
bool cli_parse_size(const char *s, uint64_t *out);

/* One --lun spec into *lun; false with a one-line reason in err. */
bool cli_parse_lun(const char *spec, struct cli_lun *lun, char *err, size_t errlen);

#endif
