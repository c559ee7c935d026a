/* auth_reload.c — SIGHUP re-reads the auth file (see auth_reload.h).  The
 * new config is built aside and published with one pointer store each for
 * the iSCSI logins (g_target.auth) and the API; nothing is freed while the
 * target runs, because a login or request in flight may still hold the old
 * one.  A reload costs one small config (users and names), so even a reload
 * a minute for a year stays a few MB. */
#include "target/auth_reload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target/api/api_server.h"
#include "target/cli.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/auth_file.h"
#include "target/iscsi/target.h"

struct kept {
	struct kept *next;
	struct auth_config cfg;
};

static struct kept *g_kept;   /* every config a reload made, newest first */
static struct stat g_config_st; /* the config file as read at start */
static bool g_config_seen;

void auth_reload_init(const struct cli *cli)
{
	g_config_seen = cli->config && stat(cli->config, &g_config_st) == 0;
}

/* the config file changed since start (its settings are not re-read) */
static bool config_changed(const struct cli *cli)
{
	struct stat st;

	if (!cli->config || !g_config_seen)
		return false;
	if (stat(cli->config, &st) != 0)
		return true;
	return st.st_dev != g_config_st.st_dev || st.st_ino != g_config_st.st_ino ||
	       st.st_size != g_config_st.st_size || st.st_mtim.tv_sec != g_config_st.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != g_config_st.st_mtim.tv_nsec;
}

int auth_reload(const struct cli *cli, bool api_running, char *msg, size_t msglen)
{
	char err[512];
	const char *note = config_changed(cli) ?
		"; the config file changed since start: its settings are not re-read, restart to apply them" : "";
	struct kept *k;

	if (!cli->auth_file) {
		snprintf(msg, msglen, "reload: no --auth-file to re-read, nothing changed%s", note);
		return -1;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(msg, msglen, "reload: out of memory, the access control in force stays%s", note);
		return -1;
	}
	if (auth_file_load(cli->auth_file, &k->cfg, err, sizeof(err)) < 0)
		goto refused;
	for (int i = 0; i < cli->nallow; i++)
		if (!auth_config_add_allow(&k->cfg, cli->allow[i], err, sizeof(err)))
			goto refused;
	if (api_running && k->cfg.napi_users == 0) {
		snprintf(err, sizeof(err), "%s has no 'api' line: the running API would refuse everyone",
			 cli->auth_file);
		goto refused;
	}
	k->next = g_kept;
	g_kept = k;
	/* as at start (main.c): no user and no allow-list means open access */
	__atomic_store_n(&g_target.auth, k->cfg.nusers || k->cfg.nallow ? &k->cfg : NULL, __ATOMIC_RELEASE);
	if (api_running)
		api_server_set_auth(&k->cfg);
	snprintf(msg, msglen, "reload: %s re-read: %d CHAP user(s)%s, %s, %d API user(s)%s", cli->auth_file,
		 k->cfg.nusers, k->cfg.has_mutual ? ", mutual CHAP" : "",
		 k->cfg.nallow ? "allow-list" : "any initiator", k->cfg.napi_users, note);
	return 0;
refused:
	auth_config_free(&k->cfg);
	free(k);
	snprintf(msg, msglen, "reload refused, the access control in force stays: %s%s", err, note);
	return -1;
}

void auth_reload_free(void)
{
	while (g_kept) {
		struct kept *n = g_kept->next;
		auth_config_free(&g_kept->cfg);
		free(g_kept);
		g_kept = n;
	}
}
