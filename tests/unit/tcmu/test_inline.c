/* test_inline.c — the host's inline path (lunlab_host_ops.dev_set_inline): a
 * command the handler declares non-blocking runs on the submitting thread,
 * with the same data, status, sense, UNIT ATTENTION and trace as on a
 * worker; anything it does not accept, anything larger than it allows, and
 * anything submitted while commands of the device are queued or on workers
 * still goes to a worker.  Uses the test handler with inline=1
 * (handler_hosttest.c: TUR, 0xC0, 0xC2, 0xC3, 0xC6 up to 1024 bytes). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host.h"
#include "tcmu_test_util.h"
#include "hosttest_group.h"

#define SNS(key, asc_ascq) \
	{ SCSI_SENSE_FMT_FIXED_CURRENT, 0, key, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, (asc_ascq) >> 8, (asc_ascq) & 0xff, 0, 0, 0, 0 }

static struct lu_backend *mkdev(const char *cfgstring, const char *name)
{
	char *err = NULL;
	struct tcmu_host_dev_cfg cfg = {
		.cfgstring = cfgstring, .size_bytes = 1 << 20, .block_size = 512,
		.wwn = "inl1", .name = name,
	};
	struct lu_backend *be = tcmu_host_create_device(&cfg, &err);

	if (!be)
		fprintf(stderr, "create %s: %s\n", name, err ? err : "?");
	free(err);
	return be;
}

static struct tcmd *submit(struct lu_backend *be, const uint8_t *cdb, enum lu_dir dir, size_t len, int niov)
{
	struct tcmd *t = tcmd_new(cdb, 6, dir, len, len ? niov : 1);

	be->ops->submit(be, &t->lu);
	return t;
}

/* done() already ran when submit() returned, on this very thread */
static void assert_ran_inline(struct tcmd *t)
{
	assert_int_equal(tcmd_calls(t), 1);
	assert_true(pthread_equal(t->done_thread, pthread_self()));
}

/* 0xC6 answered on a worker of the host's pool (threads "tcmu-w<N>"),
 * not on this thread */
static void assert_on_worker(const struct tcmd *t)
{
	assert_int_equal(t->lu.status, 0);
	assert_int_equal(strncmp((const char *)t->buf, "tcmu-w", 6), 0);
	assert_false(pthread_equal(t->done_thread, pthread_self()));
}

static void test_data_on_submitting_thread(void **state)
{
	static const uint8_t wr[6] = { 0xC2 }, rd[6] = { 0xC3 }, who[6] = { 0xC6 };
	struct lu_backend *be = mkdev("hosttest/name=i;inline=1", "lun20");
	char me[32];

	(void)state;
	assert_non_null(be);
	struct tcmd *w = tcmd_new(wr, 6, LU_DIR_WRITE, 1000, 3);
	struct iovec before[3];

	for (int i = 0; i < 1000; i++)
		w->buf[i] = (unsigned char)(i * 13 + 5);
	memcpy(before, w->iov, sizeof(before));
	be->ops->submit(be, &w->lu);
	assert_ran_inline(w);
	assert_int_equal(w->lu.status, 0);
	assert_int_equal(w->lu.sense_len, 0);
	assert_int_equal(w->lu.data_len, 1000);
	assert_null(w->lu.backend_priv);
	/* the handler consumed the host's copy of the iovec, not ours */
	assert_memory_equal(before, w->iov, sizeof(before));

	struct tcmd *r = submit(be, rd, LU_DIR_READ, 1000, 2);

	assert_ran_inline(r);
	assert_int_equal(r->lu.status, 0);
	assert_int_equal(r->lu.data_len, 1000);
	assert_memory_equal(r->buf, w->buf, 1000);
	tcmd_free(w);
	tcmd_free(r);

	/* the handler itself ran on this thread */
	pthread_getname_np(pthread_self(), me, sizeof(me));
	struct tcmd *t = submit(be, who, LU_DIR_READ, 64, 1);

	assert_ran_inline(t);
	assert_string_equal((char *)t->buf, me);
	tcmd_free(t);
	be->ops->destroy(be);
}

/* What the predicate refuses, and every device without one, uses workers. */
static void test_refused_goes_to_worker(void **state)
{
	static const uint8_t who[6] = { 0xC6 }, tur[6] = { 0x00 }, inq[6] = { SCSI_OP_INQUIRY };
	struct lu_backend *be = mkdev("hosttest/name=r;inline=1", "lun21");
	struct lu_backend *plain = mkdev("hosttest/name=p", "lun22");

	(void)state;
	assert_non_null(be);
	assert_non_null(plain);
	/* larger than the handler allows (1024) */
	struct tcmd *t = submit(be, who, LU_DIR_READ, 2048, 2);

	tcmd_wait(t);
	assert_on_worker(t);
	tcmd_free(t);
	/* exactly the limit: inline */
	t = submit(be, who, LU_DIR_READ, 1024, 2);
	assert_ran_inline(t);
	tcmd_free(t);
	/* an opcode it does not accept */
	t = submit(be, inq, LU_DIR_READ, 36, 1);
	tcmd_wait(t);
	assert_int_equal(t->lu.status, 0);
	assert_false(pthread_equal(t->done_thread, pthread_self()));
	tcmd_free(t);
	/* no data at all */
	t = submit(be, tur, LU_DIR_NONE, 0, 1);
	assert_ran_inline(t);
	assert_int_equal(t->lu.status, 0);
	tcmd_free(t);
	/* the default is off */
	t = submit(plain, who, LU_DIR_READ, 64, 1);
	tcmd_wait(t);
	assert_on_worker(t);
	tcmd_free(t);
	be->ops->destroy(be);
	plain->ops->destroy(plain);
}

/* While commands of the device are queued or on workers, an eligible
 * command waits its turn on a worker: it never overtakes them. */
static void test_backlog_keeps_order(void **state)
{
	static const uint8_t block[6] = { 0xC7, 0 }, who[6] = { 0xC6 }; /* 0xC7 0: held at the gate */
	struct lu_backend *be = mkdev("hosttest/name=o;inline=1", "lun23");
	struct tcmd *b[2];

	(void)state;
	assert_non_null(be);
	/* one worker busy, the other free: the eligible command goes to the free worker */
	b[0] = submit(be, block, LU_DIR_NONE, 0, 1);
	/* the blocked commands wait at the handler's gate until released, not for 150 ms, which a
	 * test thread held up that long saw end (then "busy" and "queued" failed); no limit of our
	 * own on these waits: meson's timeout is the hang guard */
	while (hosttest_busy() < 1)
		usleep(1000);
	assert_int_equal(hosttest_busy(), 1);
	struct tcmd *t = submit(be, who, LU_DIR_READ, 64, 1);

	tcmd_wait(t);
	assert_on_worker(t);
	assert_int_equal(tcmd_calls(b[0]), 0);
	tcmd_free(t);
	/* both workers busy: it is queued, and runs only after one frees */
	b[1] = submit(be, block, LU_DIR_NONE, 0, 1);
	while (hosttest_busy() < 2)
		usleep(1000);
	assert_int_equal(hosttest_busy(), 2);
	t = submit(be, who, LU_DIR_READ, 64, 1);
	assert_int_equal(tcmd_calls(t), 0);
	hosttest_release(1); /* one worker frees: t runs there after it */
	tcmd_wait(t);
	assert_on_worker(t);
	assert_true(tcmd_calls(b[0]) == 1 || tcmd_calls(b[1]) == 1);
	tcmd_free(t);
	hosttest_release(1);
	tcmd_wait(b[0]);
	tcmd_wait(b[1]);
	assert_int_equal(b[0]->lu.status, 0);
	assert_int_equal(b[1]->lu.status, 0);
	tcmd_free(b[0]);
	tcmd_free(b[1]);
	/* the backlog is empty once their done() ran: inline again */
	t = submit(be, who, LU_DIR_READ, 64, 1);
	assert_ran_inline(t);
	tcmd_free(t);
	be->ops->destroy(be);
}

/* Status mapping and the pending UNIT ATTENTION are the host's, whichever
 * thread runs the command. */
static void test_status_and_unit_attention(void **state)
{
	static const uint8_t bad[6] = { 0xC0, (uint8_t)TCMU_STS_INVALID_CDB, 1 };
	static const uint8_t grow[6] = { 0xC5, 0, 0, 0, 0x10, 0x00 }; /* 4096 blocks */
	static const uint8_t tur[6] = { 0x00 };
	static const uint8_t invalid_cdb[18] = SNS(SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB), ua[18] = SNS(SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED);
	struct lu_backend *be = mkdev("hosttest/name=s;inline=1", "lun24");

	(void)state;
	assert_non_null(be);
	/* the handler scribbled over the sense buffer first: the host's mapping wins */
	struct tcmd *t = submit(be, bad, LU_DIR_READ, 64, 1);

	assert_ran_inline(t);
	assert_int_equal(t->lu.status, 0x02);
	assert_int_equal(t->lu.sense_len, 18);
	assert_memory_equal(t->lu.sense, invalid_cdb, 18);
	assert_int_equal(t->lu.data_len, 0);
	tcmd_free(t);
	/* a resize (on a worker) leaves CAPACITY DATA HAS CHANGED for the next command */
	t = submit(be, grow, LU_DIR_NONE, 0, 1);
	tcmd_wait(t);
	assert_int_equal(t->lu.status, 0);
	assert_false(pthread_equal(t->done_thread, pthread_self()));
	tcmd_free(t);
	assert_int_equal(be->num_lbas, 4096);
	t = submit(be, tur, LU_DIR_NONE, 0, 1);
	assert_ran_inline(t);
	assert_int_equal(t->lu.status, 0x02);
	assert_memory_equal(t->lu.sense, ua, 18);
	tcmd_free(t);
	/* once */
	t = submit(be, tur, LU_DIR_NONE, 0, 1);
	assert_ran_inline(t);
	assert_int_equal(t->lu.status, 0);
	tcmd_free(t);
	be->ops->destroy(be);
}

/* The transport's batch path: an inline command is done before the kick,
 * which then has nothing to do. */
static void test_deferred_runs_at_once(void **state)
{
	static const uint8_t who[6] = { 0xC6 };
	struct lu_backend *be = mkdev("hosttest/name=d;inline=1", "lun25");
	struct tcmd *t[8];

	(void)state;
	assert_non_null(be);
	for (int i = 0; i < 8; i++) {
		t[i] = tcmd_new(who, 6, LU_DIR_READ, 64, 1);
		be->ops->submit_deferred(be, &t[i]->lu);
		assert_ran_inline(t[i]);
	}
	be->ops->kick(be);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(tcmd_calls(t[i]), 1);
		assert_int_equal(t[i]->lu.status, 0);
		tcmd_free(t[i]);
	}
	be->ops->destroy(be);
}

static void test_trace_inline(void **state)
{
	static const uint8_t bad[6] = { 0xC0, (uint8_t)TCMU_STS_RANGE };
	struct lu_backend *be = mkdev("hosttest/name=tr;inline=1", "lun26");
	struct capture cap;

	(void)state;
	assert_non_null(be);
	capture_begin(&cap);
	tcmu_host_set_trace(true);
	struct tcmd *t = submit(be, bad, LU_DIR_NONE, 0, 1);

	tcmu_host_set_trace(false);
	const char *out = capture_end(&cap);

	assert_ran_inline(t);
	tcmd_free(t);
	assert_non_null(strstr(out, " lun26 OPCODE 0xC0 -> CHECK CONDITION ILLEGAL REQUEST: "
				    "LOGICAL BLOCK ADDRESS OUT OF RANGE (05/21/00) ("));
	be->ops->destroy(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_on_submitting_thread),
		cmocka_unit_test(test_refused_goes_to_worker),
		cmocka_unit_test(test_backlog_keeps_order),
		cmocka_unit_test(test_status_and_unit_attention),
		cmocka_unit_test(test_deferred_runs_at_once),
		cmocka_unit_test(test_trace_inline),
	};

	return cmocka_run_group_tests(tests, hosttest_setup_all, hosttest_teardown_all);
}
