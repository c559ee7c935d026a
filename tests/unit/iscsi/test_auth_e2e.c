/* test_auth_e2e.c — access control end to end: the real transport on two
 * portals of 127.0.0.1 (the loopback fixture's listener plus a second one)
 * driven by libiscsi, an independent CHAP implementation: one-way and mutual
 * CHAP, a wrong secret (login status 02/01), a target that answers mutual
 * CHAP wrongly as libiscsi sees it, the allow-list (02/02, discovery
 * filtered), the same LUN written on one portal and read on the other, and
 * libiscsi-bin's iscsi-inq with a CHAP URL (argv[1]: its path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "loopback_target.h"
#include "mem_backend.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/listener.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"

#define IQN "iqn.2026-11.org.lunlab:auth-e2e"
#define ALICE_SECRET "alicesecret123"
#define TARGET_SECRET "targetsecret99"
#define ALLOWED "iqn.2026-11.org.lunlab:allowed-host"

static const char *iscsi_inq;
static char portal1[64], portal2[64];
static unsigned port1, port2;
static struct lu_backend *lu0;
static struct auth_config chap_cfg, acl_cfg;
static int lfd2 = -1;
static atomic_int stop2;
static pthread_t acceptor2;

static void *accept2(void *arg)
{
	struct pollfd p = { .fd = lfd2, .events = POLLIN };

	(void)arg;
	while (!stop2)
		if (poll(&p, 1, 100) > 0)
			listener_accept_all(lfd2);
	return NULL;
}

static int group_setup(void **state)
{
	char err[256];

	g_target.iqn = IQN;
	g_target.quiet = getenv("LUNLAB_E2E_VERBOSE") == NULL;
	g_target.max_sessions = 100;
	lu0 = mem_backend_new(16u << 20, 512);
	lu_table_reset();
	lu_table_add(lu0);
	port1 = loopback_target_start(2);
	lfd2 = listener_open("127.0.0.1:0");
	assert_true(lfd2 >= 0);
	assert_true(listener_portal(lfd2, &g_target.portals[1]));
	port2 = g_target.portals[1].port;
	snprintf(g_target.portals[0].host, sizeof(g_target.portals[0].host), "127.0.0.1");
	g_target.portals[0].port = port1;
	g_target.nportals = 2;
	snprintf(portal1, sizeof(portal1), "127.0.0.1:%u", port1);
	snprintf(portal2, sizeof(portal2), "127.0.0.1:%u", port2);
	assert_int_equal(pthread_create(&acceptor2, NULL, accept2, NULL), 0);

	assert_true(auth_config_add_user(&chap_cfg, false, "alice", ALICE_SECRET, err, sizeof(err)));
	assert_true(auth_config_add_user(&chap_cfg, true, "lunlab", TARGET_SECRET, err, sizeof(err)));
	assert_true(auth_config_add_allow(&acl_cfg, ALLOWED, err, sizeof(err)));
	return 0;
}

static int group_teardown(void **state)
{
	stop2 = 1;
	pthread_join(acceptor2, NULL);
	close(lfd2);
	loopback_target_stop();
	mem_backend_free(lu0);
	io_threads_free();
	lu_table_reset();
	g_target.auth = NULL;
	g_target.nportals = 0;
	auth_config_free(&chap_cfg);
	auth_config_free(&acl_cfg);
	return 0;
}

static int use_chap(void **state)
{
	g_target.auth = &chap_cfg;
	return 0;
}

static int use_acl(void **state)
{
	g_target.auth = &acl_cfg;
	return 0;
}

static struct iscsi_context *context(const char *name, const char *user, const char *secret)
{
	struct iscsi_context *ic = iscsi_create_context(name);

	assert_non_null(ic);
	iscsi_set_targetname(ic, IQN);
	iscsi_set_session_type(ic, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(ic, 10);
	if (user)
		assert_int_equal(iscsi_set_initiator_username_pwd(ic, user, secret), 0);
	return ic;
}

static void done(struct iscsi_context *ic)
{
	iscsi_logout_sync(ic);
	iscsi_destroy_context(ic);
}

/* a login that must fail with status class/detail `status` (libiscsi puts
 * the number in its error text: "...(513)" for 0x0201) */
static void expect_refused(struct iscsi_context *ic, const char *portal, unsigned status)
{
	char want[16];

	assert_int_not_equal(iscsi_full_connect_sync(ic, portal, 0), 0);
	snprintf(want, sizeof(want), "(%u)", status);
	if (!strstr(iscsi_get_error(ic), want))
		fail_msg("login error '%s' lacks %s", iscsi_get_error(ic), want);
	iscsi_destroy_context(ic);
}

static void write_read(struct iscsi_context *w, struct iscsi_context *r, uint32_t lba, uint8_t seed)
{
	uint8_t buf[4096];
	struct scsi_task *t;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(seed + i * 31);
	t = iscsi_write10_sync(w, 0, lba, buf, sizeof(buf), 512, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	scsi_free_scsi_task(t);
	t = iscsi_read10_sync(r, 0, lba, sizeof(buf), 512, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	assert_int_equal(t->datain.size, (int)sizeof(buf));
	assert_memory_equal(t->datain.data, buf, sizeof(buf));
	scsi_free_scsi_task(t);
}

static void chap_one_way(void **state)
{
	struct iscsi_context *ic = context("iqn.2026-11.org.lunlab:i1", "alice", ALICE_SECRET);

	if (iscsi_full_connect_sync(ic, portal1, 0) != 0)
		fail_msg("CHAP login failed: %s", iscsi_get_error(ic));
	write_read(ic, ic, 8, 1);
	done(ic);
}

static void chap_wrong_secret(void **state)
{
	expect_refused(context("iqn.2026-11.org.lunlab:i2", "alice", "notalicessecret"), portal1, 0x0201);
	expect_refused(context("iqn.2026-11.org.lunlab:i2", "bob", ALICE_SECRET), portal1, 0x0201);
	/* no credentials at all: libiscsi skips the security stage */
	expect_refused(context("iqn.2026-11.org.lunlab:i2", NULL, NULL), portal1, 0x0201);
}

static void chap_mutual(void **state)
{
	struct iscsi_context *ic = context("iqn.2026-11.org.lunlab:i3", "alice", ALICE_SECRET);

	assert_int_equal(iscsi_set_target_username_pwd(ic, "lunlab", TARGET_SECRET), 0);
	if (iscsi_full_connect_sync(ic, portal2, 0) != 0)
		fail_msg("mutual CHAP login failed: %s", iscsi_get_error(ic));
	write_read(ic, ic, 16, 2);
	done(ic);
}

/* libiscsi checks our CHAP_R: an initiator expecting another target secret
 * must refuse us, or the mutual answer proves nothing */
static void chap_mutual_initiator_rejects_wrong_target(void **state)
{
	struct iscsi_context *ic = context("iqn.2026-11.org.lunlab:i4", "alice", ALICE_SECRET);

	assert_int_equal(iscsi_set_target_username_pwd(ic, "lunlab", "someothersecret"), 0);
	assert_int_not_equal(iscsi_full_connect_sync(ic, portal1, 0), 0);
	iscsi_destroy_context(ic);
}

static void acl_deny(void **state)
{
	expect_refused(context("iqn.2026-11.org.lunlab:intruder", NULL, NULL), portal1, 0x0202);
}

static void acl_allow(void **state)
{
	struct iscsi_context *ic = context(ALLOWED, NULL, NULL);

	if (iscsi_full_connect_sync(ic, portal2, 0) != 0)
		fail_msg("allowed initiator refused: %s", iscsi_get_error(ic));
	write_read(ic, ic, 24, 3);
	done(ic);
}

static struct iscsi_discovery_address *discover(const char *name, const char *portal,
						struct iscsi_context **out)
{
	struct iscsi_context *ic = iscsi_create_context(name);

	iscsi_set_session_type(ic, ISCSI_SESSION_DISCOVERY);
	assert_int_equal(iscsi_connect_sync(ic, portal), 0);
	assert_int_equal(iscsi_login_sync(ic), 0);
	*out = ic;
	return iscsi_discovery_sync(ic);
}

static void acl_filters_discovery(void **state)
{
	struct iscsi_context *ic;
	struct iscsi_discovery_address *da;

	da = discover("iqn.2026-11.org.lunlab:intruder", portal1, &ic);
	assert_null(da); /* no target reported */
	done(ic);
	da = discover(ALLOWED, portal1, &ic);
	assert_non_null(da);
	assert_string_equal(da->target_name, IQN);
	iscsi_free_discovery_data(ic, da);
	done(ic);
}

/* SendTargets on either portal reports both; a write through one portal
 * reads back through the other */
static void two_portals(void **state)
{
	struct iscsi_context *ic, *a, *b;
	struct iscsi_discovery_address *da;
	char want1[80], want2[80];

	g_target.auth = NULL;
	snprintf(want1, sizeof(want1), "%s,1", portal1);
	snprintf(want2, sizeof(want2), "%s,1", portal2);
	da = discover("iqn.2026-11.org.lunlab:i5", portal2, &ic);
	assert_non_null(da);
	assert_string_equal(da->target_name, IQN);
	assert_non_null(da->portals);
	assert_string_equal(da->portals->portal, want2); /* the one we asked first */
	assert_non_null(da->portals->next);
	assert_string_equal(da->portals->next->portal, want1);
	assert_null(da->portals->next->next);
	iscsi_free_discovery_data(ic, da);
	done(ic);

	a = context("iqn.2026-11.org.lunlab:i6", NULL, NULL);
	b = context("iqn.2026-11.org.lunlab:i6", NULL, NULL);
	assert_int_equal(iscsi_full_connect_sync(a, portal1, 0), 0);
	assert_int_equal(iscsi_full_connect_sync(b, portal2, 0), 0);
	write_read(a, b, 100, 4);
	write_read(b, a, 200, 5);
	done(a);
	done(b);
}

/* iscsi-inq with user%secret in the URL; its exit status is the verdict */
static int run_inq(const char *user_secret, unsigned port)
{
	char url[256];
	pid_t pid;
	int st;

	snprintf(url, sizeof(url), "iscsi://%s@127.0.0.1:%u/%s/0", user_secret, port, IQN);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execl(iscsi_inq, iscsi_inq, url, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void iscsi_inq_chap_url(void **state)
{
	if (!iscsi_inq)
		skip(); /* libiscsi-bin not installed */
	assert_int_equal(run_inq("alice%" ALICE_SECRET, port1), 0);
	assert_int_equal(run_inq("alice%" ALICE_SECRET, port2), 0);
	assert_int_not_equal(run_inq("alice%wrongsecret999", port1), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(chap_one_way, use_chap),
		cmocka_unit_test_setup(chap_wrong_secret, use_chap),
		cmocka_unit_test_setup(chap_mutual, use_chap),
		cmocka_unit_test_setup(chap_mutual_initiator_rejects_wrong_target, use_chap),
		cmocka_unit_test_setup(acl_deny, use_acl),
		cmocka_unit_test_setup(acl_allow, use_acl),
		cmocka_unit_test_setup(acl_filters_discovery, use_acl),
		cmocka_unit_test(two_portals),
		cmocka_unit_test_setup(iscsi_inq_chap_url, use_chap),
	};

	iscsi_inq = argc > 1 && access(argv[1], X_OK) == 0 ? argv[1] : NULL;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
