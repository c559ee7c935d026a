/* fuzz_config.c — libFuzzer target: any bytes as a lunlab-target config file
 * (--config FILE: target/config_file.c, through cli_set()/cli_lun_key() of
 * target/cli.c).  The text is an exact-size heap copy without a terminating
 * NUL, so ASan sees any read past len.  An accepted file must give options
 * within the limits the command line enforces; a refused one must come with
 * one line "fuzz.yaml:LINE: FIELD: why". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/cli.h"
#include "target/config_file.h"
#include "target/iscsi/auth_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_accepted(const struct cli *c)
{
	const char *bad = NULL;

	if (c->nlisten < 0 || c->nlisten > CLI_MAX_LISTEN || c->nallow < 0 || c->nallow > CLI_MAX_ALLOW ||
	    c->nluns < 0 || c->nluns > CLI_MAX_LUNS)
		bad = "list length";
	else if (c->io_threads < 1 || c->io_threads > 256 || c->portal_group < 1 || c->portal_group > 65535 ||
		 c->max_sessions < 1 || c->max_sessions > 1000000 || c->login_timeout < -1 ||
		 c->login_timeout > 86400 || c->stall_timeout < -1 || c->stall_timeout > 86400)
		bad = "number out of range";
	else if (!c->iqn || !*c->iqn || strlen(c->iqn) > 223 || !c->handler_path || !*c->handler_path ||
		 (c->auth_file && !*c->auth_file))
		bad = "text option";
	else if (c->config)
		bad = "config set by the file";
	for (int i = 0; !bad && i < c->nlisten; i++)
		if (!c->listen[i] || !*c->listen[i])
			bad = "listen entry";
	for (int i = 0; !bad && i < c->nallow; i++)
		if (!c->allow[i] || auth_check_iqn(c->allow[i]))
			bad = "allow-initiator entry";
	for (int i = 0; !bad && i < c->nluns; i++) {
		const struct cli_lun *l = &c->luns[i];
		size_t hl = strlen(l->handler);
		if (l->size == 0 || (l->block != 512 && l->block != 4096) || l->size % l->block)
			bad = "LUN size/block";
		else if (!hl || strncmp(l->cfgstring, l->handler, hl) != 0 || l->cfgstring[hl] != '/')
			bad = "LUN cfgstring prefix";
		else if (!memchr(l->cfgstring, '\0', sizeof(l->cfgstring)) || !memchr(l->serial, '\0', sizeof(l->serial)))
			bad = "LUN strings unterminated";
		else if (l->line == 0)
			bad = "LUN without a line";
	}
	for (int k = 0; !bad && k < c->nkeylines; k++)
		if (c->keylines[k].lun < 0 || c->keylines[k].lun >= c->nluns || c->keylines[k].line == 0)
			bad = "key line";
	if (bad) {
		fprintf(stderr, "config_file_parse accepted a file giving a bad option: %s\n", bad);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	char *text = malloc(size ? size : 1);
	struct cli c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (cli_init(&c) == 0) {
		if (config_file_parse(text, size, "fuzz.yaml", &c, err, sizeof(err)) == 0) {
			check_accepted(&c);
		} else if (strncmp(err, "fuzz.yaml:", 10) != 0 || strchr(err, '\n') || strlen(err) >= sizeof(err) - 1) {
			fprintf(stderr, "config_file_parse error is not one line naming the file: [%s]\n", err);
			abort();
		}
	}
	cli_free(&c);
	free(text);
	return 0;
}
