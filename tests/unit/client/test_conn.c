/* test_conn.c - lunlab-bench's connection layer (client/conn*.c) against a scripted target
 * (fake_target.c): a dropped connection is logged in again with the same ISID and the
 * command resent; BUSY and UNIT ATTENTION are retried and counted; a medium error is the
 * caller's; a held command gets an ABORT TASK naming it, then is resent, and a second hold
 * ends the session with the one-line message; a target that vanishes, a refused login and a
 * port nobody listens on end with the messages docs/bench.md promises; conn_close drops
 * what is pending without calling back.
 *
 * Times are checked only from below, where they hold by construction (the layer's deadlines
 * run from the send or the loss, both after t0): "not later than" would be a wall-clock
 * threshold a loaded machine can break.  When the layer retries and gives up is decided by
 * conn_policy.c and conn_login.c on the elapsed time, tested on controlled figures
 * (test_conn_policy.c); that a refused login is final is a count of refusals here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"
#include "client/conn.h"
#include "fake_target.h"

#define INITIATOR "iqn.2026-11.org.lunlab:conn-test"

static const uint8_t tur[6] = { 0x00 };

static void set_timeout(double s)
{
	const struct conn_policy p = { .timeout_s = s };
	conn_set_policy(&p);
}

struct world {
	struct fake_target f;
	struct bench_conn c;
	char url[128];
	char err[1024];
};

static void open_world(struct world *w, double timeout_s)
{
	set_timeout(timeout_s);
	assert_int_equal(fake_start(&w->f), 0);
	fake_url(&w->f, w->url, sizeof(w->url));
	if (conn_open(w->url, INITIATOR, &w->c, w->err, sizeof(w->err)))
		fail_msg("conn_open: %s", w->err);
	/* READ CAPACITY(16) was answered: 2048 blocks of 512 bytes */
	assert_int_equal(w->c.num_blocks, 2048);
	assert_int_equal(w->c.block_size, 512);
	assert_int_equal(w->f.logins, 1);
	assert_int_equal(w->f.n_cmds, 1);
}

static void close_world(struct world *w)
{
	conn_close(&w->c);
	fake_stop(&w->f);
}

static void resend_after_drop(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 5);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_DROP });
	struct cmd_status st;
	assert_int_equal(conn_cmd(&w.c, tur, 6, 0, NULL, 0, NULL, 0, &st), 0);
	assert_int_equal(st.status, 0);
	assert_int_equal(w.f.logins, 2);
	assert_memory_equal(w.f.isid[0], w.f.isid[1], 6);    /* reinstatement: the same ISID */
	assert_int_equal(w.f.n_cmds, 3);                        /* READ CAPACITY, TUR dropped, TUR again */
	assert_int_equal(w.f.cmd_op[1], 0x00);
	assert_int_equal(w.f.cmd_op[2], 0x00);
	assert_int_equal(w.c.stats.reconnects, 1);
	assert_int_equal(w.c.stats.resent, 1);
	assert_true(w.c.stats.longest_outage_s >= 0 && w.c.stats.longest_outage_s < 2);
	close_world(&w);
	assert_int_equal(w.f.logouts, 1);
}

static void busy_and_ua_retried(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 5);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_STATUS, .status = SCSI_STAT_BUSY });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_STATUS, .status = SCSI_STAT_TASK_SET_FULL });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_STATUS, .status = SCSI_STAT_BUSY });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_SENSE, .key = 0x06, .asc = 0x29, .ascq = 0x00 });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_SENSE, .key = 0x06, .asc = 0x2a, .ascq = 0x09 });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_SENSE, .key = 0x02, .asc = 0x04, .ascq = 0x01 });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_SENSE, .key = 0x0b, .asc = 0x44, .ascq = 0x00 });
	struct cmd_status st;
	assert_int_equal(conn_cmd(&w.c, tur, 6, 0, NULL, 0, NULL, 0, &st), 0);
	assert_int_equal(st.status, 0);
	assert_int_equal(w.f.n_cmds, 1 + 8);
	assert_int_equal(w.c.stats.busy, 2);
	assert_int_equal(w.c.stats.task_set_full, 1);
	assert_int_equal(w.c.stats.unit_attentions, 2);
	assert_int_equal(w.c.stats.resets, 1);
	assert_int_equal(w.c.stats.not_ready, 1);
	assert_int_equal(w.c.stats.aborted_commands, 1);
	assert_int_equal(w.c.stats.reconnects, 0);
	close_world(&w);
}

static void medium_error_is_the_callers(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 5);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_SENSE, .key = 0x03, .asc = 0x11, .ascq = 0x00 });
	uint8_t read10[10] = { SCSI_OP_READ_10, 0, 0, 0, 0x08, 0x00, 0, 0, 1, 0 };
	uint8_t buf[512];
	struct cmd_status st;
	assert_int_equal(conn_cmd(&w.c, read10, 10, 1, NULL, 0, buf, sizeof(buf), &st), 0);
	assert_int_equal(st.status, 2);
	assert_int_equal(st.key, 0x03);
	assert_int_equal(st.asc, 0x11);
	assert_int_equal(st.ascq, 0x00);
	assert_int_equal(w.f.n_cmds, 2);                        /* not retried */
	/* and a READ that works brings its data */
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(conn_cmd(&w.c, read10, 10, 1, NULL, 0, buf, sizeof(buf), &st), 0);
	assert_int_equal(st.status, 0);
	assert_int_equal(st.got, 512);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[511], 0);
	close_world(&w);
}

static void held_command_aborted_then_resent(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 1);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_HOLD });
	struct cmd_status st;
	uint64_t t0 = now_ns();
	assert_int_equal(conn_cmd(&w.c, tur, 6, 0, NULL, 0, NULL, 0, &st), 0);
	double took = (double)(now_ns() - t0) / 1e9;
	assert_int_equal(st.status, 0);
	assert_true(took >= 0.9);                               /* after --timeout, not before */
	assert_int_equal(w.f.n_tmfs, 1);
	assert_int_equal(w.f.tmf_func[0], 1);                   /* ABORT TASK */
	assert_int_equal(w.f.tmf_ref[0], w.f.cmd_itt[1]);       /* naming the held command */
	assert_int_equal(w.f.n_cmds, 3);
	assert_int_equal(w.c.stats.timeouts, 1);
	assert_int_equal(w.c.stats.aborts, 1);
	assert_int_equal(w.c.stats.reconnects, 0);
	close_world(&w);
}

static void held_twice_fails(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 1);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_HOLD });
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_HOLD });
	struct cmd_status st;
	assert_int_equal(conn_cmd(&w.c, tur, 6, 0, NULL, 0, NULL, 0, &st), -1);
	assert_int_equal(st.status, -1);
	assert_true(conn_failed(&w.c));
	char want[512];
	snprintf(want, sizeof(want), "%s: TEST UNIT READY got no answer within --timeout 1 s, 2 times; each time "
		 "it was aborted with ABORT TASK", w.url);
	assert_string_equal(conn_error(&w.c), want);
	assert_int_equal(w.f.n_tmfs, 2);
	assert_non_null(conn_fatal_error());
	/* a failed session takes no more commands */
	assert_int_equal(conn_cmd(&w.c, tur, 6, 0, NULL, 0, NULL, 0, &st), -1);
	close_world(&w);
}

static void vanished_target(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 1);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_VANISH });
	struct cmd_status st;
	uint64_t t0 = now_ns();
	assert_int_equal(conn_cmd(&w.c, tur, 6, 0, NULL, 0, NULL, 0, &st), -1);
	double took = (double)(now_ns() - t0) / 1e9;
	assert_true(took >= 0.9);                               /* retried for --timeout */
	char want[512];
	snprintf(want, sizeof(want), "%s: connection lost (the target closed the connection) and no session again "
		 "within --timeout 1 s (", w.url);
	if (strncmp(conn_error(&w.c), want, strlen(want)) || !strstr(conn_error(&w.c), "Connection refused"))
		fail_msg("error: %s", conn_error(&w.c));
	close_world(&w);
}

static void refused_login_is_final(void **state)
{
	(void)state;
	struct fake_target f;
	struct bench_conn c;
	char url[128], err[1024];
	set_timeout(10);
	assert_int_equal(fake_start(&f), 0);
	f.login_status = 0x0201;                                 /* authentication failure */
	fake_url(&f, url, sizeof(url));
	assert_int_equal(conn_open(url, INITIATOR, &c, err, sizeof(err)), -1);
	assert_int_equal(f.refusals, 1);                         /* final: not tried again for --timeout 10 */
	char want[256];
	snprintf(want, sizeof(want), "%s: login refused: Failed to log in to target. Status: ", url);
	if (strncmp(err, want, strlen(want)) || !strstr(err, "(513)"))
		fail_msg("error: %s", err);
	assert_int_equal(f.logins, 0);
	fake_stop(&f);
}

static void nobody_listening(void **state)
{
	(void)state;
	/* a port that was free a moment ago */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &al), 0);
	close(s);
	char url[128], err[1024];
	snprintf(url, sizeof(url), "iscsi://alice%%s3cr3t@127.0.0.1:%u/iqn.2026-11.org.lunlab:nobody/0", ntohs(a.sin_port));
	struct bench_conn c;
	set_timeout(0.5);
	uint64_t t0 = now_ns();
	assert_int_equal(conn_open(url, INITIATOR, &c, err, sizeof(err)), -1);
	double took = (double)(now_ns() - t0) / 1e9;
	assert_true(took >= 0.45);                              /* retried for --timeout */
	char want[256];
	snprintf(want, sizeof(want), "iscsi://alice@127.0.0.1:%u/iqn.2026-11.org.lunlab:nobody/0: no session within "
		 "--timeout 0.5 s (", ntohs(a.sin_port));
	if (strncmp(err, want, strlen(want)) || !strstr(err, "Connection refused") || strstr(err, "s3cr3t"))
		fail_msg("error: %s", err);
}

static void bad_url(void **state)
{
	(void)state;
	struct bench_conn c;
	char err[512];
	set_timeout(10);
	assert_int_equal(conn_open("iscsi://127.0.0.1/no-lun", INITIATOR, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad URL 'iscsi://127.0.0.1/no-lun'"));
}

static bool called;
static void never(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	(void)c;
	(void)status;
	(void)priv;
	called = true;
	scsi_free_scsi_task(task);
}

static void close_drops_pending(void **state)
{
	(void)state;
	struct world w;
	open_world(&w, 5);
	fake_push(&w.f, (struct fake_action){ .kind = FAKE_HOLD });
	called = false;
	assert_int_equal(conn_submit(&w.c, scsi_cdb_testunitready(), never, NULL), 0);
	for (int i = 0; i < 5; i++)
		conn_poll_many(&w.c, 1, 20, w.err, sizeof(w.err));
	close_world(&w);                                         /* logs out, frees the held command */
	assert_false(called);
	assert_int_equal(w.f.logouts, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resend_after_drop),
		cmocka_unit_test(busy_and_ua_retried),
		cmocka_unit_test(medium_error_is_the_callers),
		cmocka_unit_test(held_command_aborted_then_resent),
		cmocka_unit_test(held_twice_fails),
		cmocka_unit_test(vanished_target),
		cmocka_unit_test(refused_login_is_final),
		cmocka_unit_test(nobody_listening),
		cmocka_unit_test(bad_url),
		cmocka_unit_test(close_drops_pending),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
