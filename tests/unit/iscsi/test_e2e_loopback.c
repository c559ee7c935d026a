/* test_e2e_loopback.c — the real transport (I/O threads, listener, login,
 * R2T/Data-Out, Data-In, digests, LU table) on 127.0.0.1 driven by libiscsi,
 * with an in-memory test LU behind it.  Data written is read back; each
 * negotiation variant (immediate data, InitialR2T, header digest) moves
 * transfers larger than MaxRecvDataSegmentLength and MaxBurstLength. */
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
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <cmocka.h>
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "mem_backend.h"
#include "loopback_target.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/listener.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"

#define IQN "iqn.2026-11.org.lunlab:e2e"
#define LU_SIZE (16u << 20)

static char portal[64];
static struct lu_backend *lu0, *lu1;

static int group_setup(void **state)
{
	g_target.iqn = IQN;
	g_target.quiet = getenv("LUNLAB_E2E_VERBOSE") == NULL;
	g_target.max_sessions = 1000;
	lu0 = mem_backend_new(LU_SIZE, 512);
	lu1 = mem_backend_new(LU_SIZE, 4096);
	lu_table_reset();
	lu_table_add(lu0);
	lu_table_add(lu1);
	snprintf(portal, sizeof(portal), "127.0.0.1:%u", loopback_target_start(2));
	return 0;
}

static int group_teardown(void **state)
{
	loopback_target_stop();
	mem_backend_free(lu0);
	mem_backend_free(lu1);
	io_threads_free();
	lu_table_reset();
	return 0;
}

static struct iscsi_context *connect_lun(int lun, bool hdigest, bool immediate, bool initial_r2t)
{
	/* a name per session: libiscsi's random ISIDs could collide, and the
	 * same name + ISID would reinstate (end) the earlier session */
	static int serial;
	char name[96];
	struct iscsi_context *ic;

	snprintf(name, sizeof(name), "iqn.2026-11.org.lunlab:e2e-initiator-%d", serial++);
	ic = iscsi_create_context(name);

	assert_non_null(ic);
	iscsi_set_targetname(ic, IQN);
	iscsi_set_session_type(ic, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(ic, hdigest ? ISCSI_HEADER_DIGEST_CRC32C : ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_immediate_data(ic, immediate ? ISCSI_IMMEDIATE_DATA_YES : ISCSI_IMMEDIATE_DATA_NO);
	iscsi_set_initial_r2t(ic, initial_r2t ? ISCSI_INITIAL_R2T_YES : ISCSI_INITIAL_R2T_NO);
	iscsi_set_timeout(ic, 10);
	if (iscsi_full_connect_sync(ic, portal, lun) != 0)
		fail_msg("login failed: %s", iscsi_get_error(ic));
	return ic;
}

static void disconnect(struct iscsi_context *ic)
{
	iscsi_logout_sync(ic);
	iscsi_destroy_context(ic);
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16);
	}
}

/* writes then reads back a pattern of len bytes at lba */
static void roundtrip(struct iscsi_context *ic, int lun, int bs, uint32_t lba, size_t len, uint32_t seed)
{
	uint8_t *w = malloc(len);
	struct scsi_task *t;

	fill(w, len, seed);
	t = iscsi_write10_sync(ic, lun, lba, w, (uint32_t)len, bs, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	scsi_free_scsi_task(t);
	t = iscsi_read10_sync(ic, lun, lba, (uint32_t)len, bs, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	assert_int_equal(t->datain.size, (int)len);
	assert_memory_equal(t->datain.data, w, len);
	assert_int_equal(t->residual_status, SCSI_RESIDUAL_NO_RESIDUAL);
	scsi_free_scsi_task(t);
	free(w);
}

static void patterns(bool hdigest, bool immediate, bool initial_r2t)
{
	static const size_t sizes[] = { 512, 4096, 8192 + 512, 65536, 262144 + 512, 1048576 + 4096, 4u << 20 };
	struct iscsi_context *ic = connect_lun(0, hdigest, immediate, initial_r2t);
	uint32_t lba = 7;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		roundtrip(ic, 0, 512, lba, sizes[i], (uint32_t)(i + 1) * (hdigest + 2) * (immediate + 3));
		lba += (uint32_t)(sizes[i] / 512) + 3;
	}
	disconnect(ic);
}

static void data_plain(void **state) { patterns(false, true, false); }
static void data_header_digest(void **state) { patterns(true, true, false); }
static void data_no_immediate_initial_r2t(void **state) { patterns(false, false, true); }
static void data_immediate_initial_r2t(void **state) { patterns(true, true, true); }

/* lu_backend_ops.data_arrived: a 4 MiB WRITE arrives in 16 bursts of
 * MaxBurstLength (256 KiB, libiscsi's); the backend hears of each one but
 * the last, with the prefix that is final (checked unchanged when the
 * command runs), and the state it kept is dropped exactly once. */
static void early_bursts(bool immediate, bool initial_r2t, unsigned long want_calls)
{
	struct iscsi_context *ic = connect_lun(1, false, immediate, initial_r2t);
	struct mem_early_stats s0, s;

	mem_backend_early(lu1, true);
	s0 = mem_backend_early_stats(lu1);
	roundtrip(ic, 1, 4096, 64, 4u << 20, 4242);
	/* the command is freed (and its state dropped) just after its status
	 * is sent: wait for the I/O thread (no limit: however long a loaded
	 * machine takes; a state never dropped ends on meson's timeout) */
	for (;;) {
		s = mem_backend_early_stats(lu1);
		if (s.drops > s0.drops)
			break;
		usleep(5000);
	}
	assert_int_equal(s.calls - s0.calls, want_calls);
	assert_int_equal(s.states - s0.states, 1);
	assert_int_equal(s.drops - s0.drops, 1);
	assert_int_equal(s.bad, 0);
	assert_int_equal(s.last_bytes, (4u << 20) - 262144);
	/* a small write has a single burst: never told */
	roundtrip(ic, 1, 4096, 4000, 262144, 4343);
	assert_int_equal(mem_backend_early_stats(lu1).calls, s.calls);
	mem_backend_early(lu1, false);
	disconnect(ic);
}

static void early_data_r2t_only(void **state) { early_bursts(false, true, 15); }
static void early_data_after_first_burst(void **state) { early_bursts(true, false, 14); }

static void lun1_4k_blocks(void **state)
{
	struct iscsi_context *ic = connect_lun(1, false, true, false);

	roundtrip(ic, 1, 4096, 3, 3 * 4096, 99);
	roundtrip(ic, 1, 4096, 100, 512 * 4096, 77);
	disconnect(ic);
}

static void report_luns_and_missing_lun(void **state)
{
	struct iscsi_context *ic = connect_lun(0, false, true, false);
	struct scsi_task *t = iscsi_reportluns_sync(ic, 0, 64);
	struct scsi_reportluns_list *l;

	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	l = scsi_datain_unmarshall(t);
	assert_non_null(l);
	assert_int_equal(l->num, 2);
	assert_int_equal(l->luns[0], 0);
	assert_int_equal(l->luns[1], 1);
	scsi_free_scsi_task(t);

	t = iscsi_testunitready_sync(ic, 9);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_CHECK_CONDITION);
	assert_int_equal(t->sense.key, SCSI_SENSE_ILLEGAL_REQUEST);
	assert_int_equal(t->sense.ascq, 0x2500); /* LOGICAL UNIT NOT SUPPORTED */
	scsi_free_scsi_task(t);

	t = iscsi_inquiry_sync(ic, 9, 0, 0, 96);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	assert_int_equal(t->datain.data[0], 0x7f);
	scsi_free_scsi_task(t);

	/* beyond the end: the LU's own sense comes back with its length prefix */
	t = iscsi_read10_sync(ic, 0, LU_SIZE / 512, 512, 512, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_CHECK_CONDITION);
	assert_int_equal(t->sense.ascq, 0x2100);
	scsi_free_scsi_task(t);
	disconnect(ic);
}

static void discovery(void **state)
{
	struct iscsi_context *ic = iscsi_create_context("iqn.2026-11.org.lunlab:e2e-initiator");
	struct iscsi_discovery_address *da;

	iscsi_set_session_type(ic, ISCSI_SESSION_DISCOVERY);
	assert_int_equal(iscsi_connect_sync(ic, portal), 0);
	assert_int_equal(iscsi_login_sync(ic), 0);
	da = iscsi_discovery_sync(ic);
	assert_non_null(da);
	assert_string_equal(da->target_name, IQN);
	assert_non_null(da->portals);
	assert_non_null(strstr(da->portals->portal, portal));
	iscsi_free_discovery_data(ic, da);
	disconnect(ic);
}

static void sessions_256(void **state)
{
	enum { N = 256 };
	struct iscsi_context **ic = calloc(N, sizeof(*ic));

	for (int i = 0; i < N; i++)
		ic[i] = connect_lun(i & 1, false, true, false);
	assert_true(atomic_load(&g_session_count) >= N);
	for (int i = 0; i < N; i++) {
		struct scsi_task *t = iscsi_testunitready_sync(ic[i], i & 1);
		assert_non_null(t);
		assert_int_equal(t->status, SCSI_STATUS_GOOD);
		scsi_free_scsi_task(t);
	}
	for (int i = 0; i < N; i++)
		disconnect(ic[i]);
	free(ic);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(data_plain),
		cmocka_unit_test(data_header_digest),
		cmocka_unit_test(data_no_immediate_initial_r2t),
		cmocka_unit_test(data_immediate_initial_r2t),
		cmocka_unit_test(lun1_4k_blocks),
		cmocka_unit_test(early_data_r2t_only),
		cmocka_unit_test(early_data_after_first_burst),
		cmocka_unit_test(report_luns_and_missing_lun),
		cmocka_unit_test(discovery),
		cmocka_unit_test(sessions_256),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
