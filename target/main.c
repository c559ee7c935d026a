/* main.c — lunlab-target: load handlers, create the LUNs, start the I/O
 * threads and the listener, run until SIGINT/SIGTERM, shut down cleanly;
 * SIGHUP re-reads the auth file (target/auth_reload.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/state_dir.h"
#include "target/auth_reload.h"
#include "target/api/api.h"
#include "target/api/lunlab_api.h"
#include "target/cli.h"
#include "target/handler_dir.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/auth_file.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"
#include "target/lu/alua.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"
#include "target/metrics/metrics_routes.h"
#include "target/service_notify.h"
#include "target/state_check.h"
#include "lunlab/fnv1a.h"
#include "target/target_state.h"
#include "target/tcmu/host.h"
#include "lunlab_version.h"

/* FNV-1a of the IQN: gives generated unit serials that differ per target */
static uint32_t iqn_hash(const char *s)
{
	return ll_fnv1a32(LL_FNV1A32_BASIS, s, strlen(s));
}

/* The handler refused LUN i.  A LUN from the config file is blamed on the
 * file, line and key (cli_lun_blame()), as every other config error is. */
static void report_lun_error(const struct cli *cli, int i, const char *err)
{
	char name[32];
	size_t nl = (size_t)snprintf(name, sizeof(name), "lun%d: ", i);
	const char *reason = strncmp(err, name, nl) == 0 ? err + nl : err; /* the host's prefix */
	const char *key;
	unsigned line;

	if (cli->config && cli_lun_blame(cli, i, reason, &line, &key))
		fprintf(stderr, "lunlab-target: %s:%u: lun[%d]%s%s: %s\n", cli->config, line, i,
			*key ? "." : "", key, reason);
	else
		fprintf(stderr, "lunlab-target: --lun %d (%s): %s\n", i, cli->luns[i].cfgstring, err);
}

static int create_luns(const struct cli *cli)
{
	char err_buf[1024];

	for (int i = 0; i < cli->nluns; i++) {
		const struct cli_lun *l = &cli->luns[i];
		char name[32], wwn[300];
		struct tcmu_host_dev_cfg cfg;
		struct lu_backend *be;
		char *err = NULL;

		snprintf(name, sizeof(name), "lun%d", i);
		if (l->serial[0])
			snprintf(wwn, sizeof(wwn), "%s", l->serial);
		else
			snprintf(wwn, sizeof(wwn), "lunlab-%08x-lun%d", iqn_hash(cli->iqn), i);
		memset(&cfg, 0, sizeof(cfg));
		cfg.cfgstring = l->cfgstring;
		cfg.size_bytes = l->size;
		cfg.block_size = l->block;
		cfg.wwn = wwn;
		cfg.name = name;
		be = tcmu_host_create_device(&cfg, &err);
		if (!be) {
			report_lun_error(cli, i, err ? err : "refused by the handler");
			free(err);
			return -1;
		}
		if (lu_table_add(be) != i) {
			fprintf(stderr, "lunlab-target: --lun %d: LU table full\n", i);
			return -1;
		}
		/* --state-dir: the LU's reservations with APTPL come back */
		if (target_state_attach_pr(lu_table_pr((uint64_t)i), wwn, err_buf, sizeof(err_buf)) < 0) {
			fprintf(stderr, "lunlab-target: --state-dir %s: %s\n", cli->state_dir, err_buf);
			return -1;
		}
		/* a restart on a state directory owes every initiator port the power on
		 * (06/29/01); a fresh array owes none (target/lu/power_on.h says why) */
		if (target_state_reopened())
			lu_power_on_arm((uint64_t)i);
	}
	return 0;
}

/* --state-dir DIR reaches every lunlab LU as the cfgstring key state_dir=
 * (how tcmu-runner's configfs users give it too).  A LUN that names a state
 * directory of its own must name the same one. */
static int pass_state_dir(struct cli *cli)
{
	for (int i = 0; i < cli->nluns; i++) {
		struct cli_lun *l = &cli->luns[i];
		const char *have = strstr(l->cfgstring, "state_dir=");
		size_t n = strlen(l->cfgstring), dl = strlen(cli->state_dir);

		if (strcmp(l->handler, "lunlab") != 0)
			continue;
		if (have && (have == l->cfgstring || have[-1] == '/' || have[-1] == ';')) {
			const char *v = have + strlen("state_dir="), *e = strchr(v, ';');
			size_t vl = e ? (size_t)(e - v) : strlen(v);

			if (vl != dl || strncmp(v, cli->state_dir, dl) != 0) {
				fprintf(stderr, "lunlab-target: --lun %d: state_dir=%.*s differs from --state-dir %s\n", i,
					(int)vl, v, cli->state_dir);
				return -1;
			}
			continue;
		}
		if (n + 1 + strlen("state_dir=") + dl + 1 > sizeof(l->cfgstring)) {
			fprintf(stderr, "lunlab-target: --lun %d: LUN spec too long with --state-dir\n", i);
			return -1;
		}
		snprintf(l->cfgstring + n, sizeof(l->cfgstring) - n, "%sstate_dir=%s",
			 l->cfgstring[n - 1] == '/' ? "" : ";", cli->state_dir);
	}
	return 0;
}

/* --auth-file and --allow-initiator into cfg; g_target.auth points at it
 * when anything was configured.  -1 after a one-line error. */
static int load_access_control(const struct cli *cli, struct auth_config *cfg)
{
	char err[512];

	if (cli->auth_file && auth_file_load(cli->auth_file, cfg, err, sizeof(err)) < 0) {
		if (cli->line[CLI_AUTH_FILE]) /* named by the config file: say where */
			fprintf(stderr, "lunlab-target: %s:%u: auth-file: %s\n", cli->config,
				cli->line[CLI_AUTH_FILE], err);
		else
			fprintf(stderr, "lunlab-target: --auth-file %s\n", err);
		return -1;
	}
	for (int i = 0; i < cli->nallow; i++) {
		if (!auth_config_add_allow(cfg, cli->allow[i], err, sizeof(err))) {
			fprintf(stderr, "lunlab-target: --allow-initiator: %s\n", err);
			return -1;
		}
	}
	if (cfg->nusers || cfg->nallow)
		g_target.auth = cfg;
	return 0;
}

/* Leaving before the target runs (a configuration refused, a port taken):
 * release what main() holds, as the shutdown at the end does, so a refusal
 * ends as cleanly as a run (and LeakSanitizer has nothing to report). */
static int leave_early(struct cli *cli, struct auth_config *auth, int sfd, int rc)
{
	portals_close_all();
	fault_rules_clear();
	alua_reset();
	tcmu_host_shutdown();
	lu_table_reset();
	target_state_close();
	g_target.auth = NULL;
	auth_config_free(auth);
	cli_free(cli);
	if (sfd >= 0)
		close(sfd);
	return rc;
}

/* ALUA: one target port group per portal group, then the --alua states.
 * -1 after a one-line error (a LUN without ALUA, a group no portal has). */
static int setup_alua(const struct cli *cli)
{
	uint16_t ids[TARGET_MAX_PORTALS];

	for (int i = 0; i < g_target.nportals; i++)
		ids[i] = target_portal_tpgt(i);
	alua_set_groups(ids, g_target.nportals);
	for (int k = 0; k < cli->nalua; k++) {
		struct alua_spec s;
		char err[256];
		int applied = 0;

		if (!alua_spec_parse(cli->alua[k], &s, err, sizeof(err))) /* cli_set checked it */
			goto bad;
		for (size_t lun = 0; lun < lu_table_count(); lun++) {
			struct lu_entry *e = lu_table_entry(lun);
			if ((s.has_lun && lun != s.lun) || (!s.has_lun && !alua_tpgs(e)))
				continue;
			if (alua_set(e, lun, s.tpg, s.state, s.pref, s.transition_ms, err, sizeof(err)) < 0)
				goto bad;
			applied++;
		}
		if (!applied) {
			snprintf(err, sizeof(err), s.has_lun ? "no LUN %u" : "no LU reports ALUA (its profile's tpgs: is off)",
				 s.lun);
			goto bad;
		}
		continue;
bad:
		if (cli->line[CLI_ALUA])
			fprintf(stderr, "lunlab-target: %s:%u: alua[%d]: %s\n", cli->config, cli->line[CLI_ALUA], k, err);
		else
			fprintf(stderr, "lunlab-target: --alua %s: %s\n", cli->alua[k], err);
		return -1;
	}
	return 0;
}

/* --fault hw=...: the API's hardware failed from the start (its clusters
 * are set up: a name resolves) */
static int apply_hw_faults(const struct cli *cli, char *err, size_t errlen)
{
	for (int i = 0; i < cli->nhw_faults; i++) {
		char why[320];

		if (api_hw_fault_apply(cli->hw_faults[i], why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--fault %.100s: %.300s", cli->hw_faults[i], why);
			return -1;
		}
	}
	return 0;
}

/* --api: the HTTPS management API on its own threads.  -1 after a one-line
 * error (no api user, the port taken, a bad certificate). */
static int start_api(const struct cli *cli, const struct auth_config *auth)
{
	struct api_server_cfg cfg = {
		.listen = cli->api,
		.cert_path = cli->api_cert,
		.key_path = cli->api_key,
		.auth = auth,
		.log = target_log,
		.log_start = target_log_always,
		.nice_steps = cli->api_nice,
	};
	static const struct xms_store_ops store = {
		.load = target_state_load_api_model,
		.save = target_state_save_api_model,
		.each = target_state_api_model_each,
		.write = target_state_api_model_write,
	};
	static const struct xms_log_store_ops log = {
		.put = target_state_log_put,
		.del = target_state_log_del,
		.each = target_state_log_each,
	};
	char err[512];

	/* --state-dir: the API's volumes, snapshots, maps and initiators are
	 * kept too, and its events and alerts (docs/persistence.md "The
	 * management API") */
	if (cli->state_dir)
		api_set_store(cli->state_dir, &store, &log);
	if (metrics_routes_register(cli->api_metrics_open, err, sizeof(err)) < 0 ||
	    api_clusters_setup(cli->clusters, cli->nclusters, err, sizeof(err)) < 0 ||
	    apply_hw_faults(cli, err, sizeof(err)) < 0 ||
	    lunlab_api_register(err, sizeof(err)) < 0 || /* fault rules, portals, ALUA */
	    api_start(&cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "lunlab-target: %s\n", err);
		api_stop(); /* what the clusters' setup made */
		return -1;
	}
	return 0;
}

/* tcmu-runner's directory (the installed default): lunlab's handler only
 * (handler_dir.h says why); any other directory: every handler in it */
static int load_handlers(const char *dir, char **err)
{
	char path[4096];

	if (!handler_dir_is_shared(dir))
		return tcmu_host_load_handlers(dir, err);
	snprintf(path, sizeof(path), "%.4000s/handler_lunlab.so", dir);
	return tcmu_host_load_handler_file(path, err);
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct cli cli;
	sigset_t mask;
	int sfd, ep, n, rc;
	struct portal_spec portals[CLI_MAX_LISTEN];
	struct auth_config auth;
	char *err = NULL;
	struct epoll_event ev, evs[8];
	bool running = true;

	if (lunlab_version_asked(argc, argv)) {
		lunlab_version_print(stdout, "lunlab-target");
		return 0;
	}
	rc = cli_parse(argc, argv, &cli);
	if (rc != 0) {
		cli_free(&cli);
		return rc > 0 ? 0 : 2;
	}
	if (cli.check_state) {
		rc = state_check_run(cli.check_state, cli.handler_path);
		cli_free(&cli);
		return rc;
	}
	if (cli.state_dir && cli.prealloc_mib) {
		/* the payloads of an array with a state directory live in its file */
		if (cli.line[CLI_PREALLOC_MIB])
			fprintf(stderr, "lunlab-target: %s:%u: prealloc-mib: not with state-dir (the payloads are in the state directory's file)\n",
				cli.config, cli.line[CLI_PREALLOC_MIB]);
		else
			fprintf(stderr, "lunlab-target: --prealloc-mib: not with --state-dir (the payloads are in the state directory's file)\n");
		cli_free(&cli);
		return 2;
	}
	if (cli.state_dir) {
		char serr[1024], *abs;

		if (target_state_open(cli.state_dir, cli.iqn, serr, sizeof(serr)) < 0) {
			if (cli.line[CLI_STATE_DIR])
				fprintf(stderr, "lunlab-target: %s:%u: state-dir: %s\n", cli.config,
					cli.line[CLI_STATE_DIR], serr);
			else
				fprintf(stderr, "lunlab-target: --state-dir %s: %s\n", cli.state_dir, serr);
			cli_free(&cli);
			return 2;
		}
		/* the handler wants it absolute (its working directory is not ours
		 * under tcmu-runner, and every LU of an array must name one path) */
		abs = realpath(cli.state_dir, NULL);
		if (abs)
			cli.state_dir = cli_keep(&cli, abs, strlen(abs));
		free(abs);
		if (!abs || !cli.state_dir || pass_state_dir(&cli) < 0) {
			if (!abs || !cli.state_dir)
				fprintf(stderr, "lunlab-target: --state-dir: cannot resolve the path\n");
			target_state_close();
			cli_free(&cli);
			return 2;
		}
	}
	memset(&auth, 0, sizeof(auth));
	if (load_access_control(&cli, &auth) < 0) {
		auth_config_free(&auth);
		cli_free(&cli);
		return 2;
	}
	g_target.iqn = cli.iqn;
	g_target.alias = cli.alias;
	g_target.tpgt = (uint16_t)cli.portal_group;
	g_target.max_sessions = cli.max_sessions;
	io_timeouts_from_env();
	if (cli.login_timeout >= 0)
		g_login_timeout_s = (unsigned)cli.login_timeout;
	if (cli.stall_timeout >= 0)
		g_stall_timeout_s = (unsigned)cli.stall_timeout;
	g_target.quiet = cli.quiet;
	g_target.trace_pdus = cli.trace;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	/* blocked before any thread starts, so only the signalfd sees them */
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	raise_fd_limit();

	tcmu_host_set_trace(cli.trace);
	tcmu_host_set_workers(cli.handler_threads); /* before the first LU starts the pool */
	/* --quiet quiets the handlers' INFO lines too (tcmu-runner's level 4: warnings and
	 * errors still print) */
	if (cli.quiet)
		tcmu_host_set_log_level(4);
	/* read by the array's payload store (handlers/array/payload_mem.c) when an LU
	 * opens; the environment is what reaches it under tcmu-runner too */
	if (cli.no_hugepages)
		setenv("LUNLAB_HUGEPAGES", "off", 1);
	if (cli.prealloc_mib) {
		char mib[16];
		snprintf(mib, sizeof(mib), "%u", cli.prealloc_mib);
		setenv("LUNLAB_PREALLOC_MIB", mib, 1);
	}
	if (load_handlers(cli.handler_path, &err) < 0) {
		if (cli.line[CLI_HANDLER_PATH])
			fprintf(stderr, "lunlab-target: %s:%u: handler-path: loading handlers from %s: %s\n",
				cli.config, cli.line[CLI_HANDLER_PATH], cli.handler_path, err ? err : "failed");
		else
			fprintf(stderr, "lunlab-target: loading handlers from %s: %s\n", cli.handler_path,
				err ? err : "failed");
		free(err);
		return leave_early(&cli, &auth, sfd, 2); /* a configuration error, as a LUN refused */
	}
	if (create_luns(&cli) < 0)
		return leave_early(&cli, &auth, sfd, 2);
	for (int i = 0; i < cli.nfaults; i++) {
		char why[256];
		if (fault_rules_add(cli.faults[i], why, sizeof(why)) < 0) { /* cli_set checked it */
			fprintf(stderr, "lunlab-target: --fault %s: %s\n", cli.faults[i], why);
			return leave_early(&cli, &auth, sfd, 2);
		}
	}
	for (int i = 0; i < cli.nlisten; i++) {
		char why[256];
		if (!portal_spec_parse(cli.listen[i], &portals[i], why, sizeof(why))) { /* checked by cli_set */
			fprintf(stderr, "lunlab-target: --listen %s: %s\n", cli.listen[i], why);
			return leave_early(&cli, &auth, sfd, 2);
		}
	}
	if (portals_open(portals, cli.nlisten) < 0)
		return leave_early(&cli, &auth, sfd, 1);
	if (setup_alua(&cli) < 0)
		return leave_early(&cli, &auth, sfd, 2);
	if (io_threads_start(cli.io_threads) < 0) {
		fprintf(stderr, "lunlab-target: cannot start I/O threads: %s\n", strerror(errno));
		return leave_early(&cli, &auth, sfd, 1);
	}
	if (cli.api && start_api(&cli, &auth) < 0) {
		io_threads_stop();
		io_threads_free();
		return leave_early(&cli, &auth, sfd, 2);
	}
	for (int i = 0; i < cli.nlisten; i++) {
		const struct target_portal *p = &g_target.portals[i];
		target_log_always("listening on %s (portal group %u)%s%s", p->name, target_portal_tpgt(i),
			   p->adv_name[0] ? ", advertised as " : "", p->adv_name);
	}
	for (int i = 0; i < cli.nfaults; i++)
		target_log("fault rule %d: %s", i + 1, cli.faults[i]);
	for (int i = 0; i < cli.nhw_faults; i++)
		target_log("hardware fault: %s", cli.hw_faults[i]);
	target_log("target %s, %d LUN(s), %d I/O thread(s), access: %s%s%s; %u handler thread(s) for every LU",
		   cli.iqn, cli.nluns, cli.io_threads, auth.nusers ? "CHAP" : "no CHAP",
		   auth.has_mutual ? " (mutual available)" : "",
		   auth.nallow ? ", allow-list" : ", any initiator", tcmu_host_workers());
	auth_reload_init(&cli);
	/* every portal and the API listen: a unit ordered After= this one can connect */
	service_notify_ready("serving");

	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	portals_attach(ep); /* listeners: data.u64 = PORTAL_EV_BASE + portal */
	ev.data.u64 = 0;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	while (running) {
		n = epoll_wait(ep, evs, 8, -1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u64 >= PORTAL_EV_BASE) {
				portals_accept((int)(evs[i].data.u64 - PORTAL_EV_BASE));
			} else {
				struct signalfd_siginfo si;
				if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
					continue;
				if (si.ssi_signo == SIGHUP) {
					char msg[1024];
					service_notify_reloading();
					auth_reload(&cli, cli.api != NULL, msg, sizeof(msg));
					target_log("%s", msg);
					service_notify_ready("serving");
					continue;
				}
				target_log("signal %u: shutting down", si.ssi_signo);
				service_notify_stopping();
				running = false;
			}
		}
	}
	api_stop(); /* no management request runs while the LUs go */
	portals_close_all();
	io_threads_stop();
	tcmu_host_shutdown();
	io_threads_free();
	lu_table_reset();
	target_state_close();
	fault_rules_clear();
	alua_reset();
	close(ep);
	close(sfd);
	g_target.auth = NULL;
	auth_reload_free(); /* nothing reads them now */
	auth_config_free(&auth);
	cli_free(&cli);
	return 0;
}
