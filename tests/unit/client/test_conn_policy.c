/* test_conn_policy.c - the connection layer's decisions (client/conn_policy.c): which answers
 * are retried and after how long, the bounds, the login backoff, which login refusals are
 * final, and the wording of URLs, commands and statuses in messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "client/conn_policy.h"

#define MS 1000000ull
#define S (1000 * MS)

static const struct conn_retries none;

static struct retry_decision decide(uint8_t op, int status, uint8_t key, uint16_t asc_ascq,
				    const struct conn_retries *t, uint64_t elapsed)
{
	return conn_retry_decide(op, status, key, scsi_asc(asc_ascq), scsi_ascq(asc_ascq), t, elapsed, 30 * S);
}

static void delivered_as_is(void **state)
{
	(void)state;
	/* GOOD, RESERVATION CONFLICT, a medium error, an illegal request: the caller's business */
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_GOOD, 0, 0, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_RESERVATION_CONFLICT, 0, 0, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_MEDIUM_ERROR, SCSI_ASC_UNRECOVERED_READ_ERROR, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_STAT_CHECK_CONDITION, SCSI_SK_COPY_ABORTED, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, &none, 0).kind, RETRY_NONE);
	/* NOT READY that does not pass by itself: standby, unavailable, initializing command
	 * required, medium not present */
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_UNAVAILABLE, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_READY_INIT_REQUIRED, &none, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_MEDIUM_NOT_PRESENT, &none, 0).kind, RETRY_NONE);
	/* ACA ACTIVE and anything unknown */
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_ACA_ACTIVE, 0, 0, &none, 0).kind, RETRY_NONE);
}

static void busy_and_task_set_full_back_off(void **state)
{
	(void)state;
	struct conn_retries t = { 0 };
	struct retry_decision d = decide(SCSI_OP_READ_16, SCSI_STAT_BUSY, 0, 0, &t, 0);
	assert_int_equal(d.kind, RETRY_BUSY);
	assert_int_equal(d.delay_ns, 1 * MS);
	t.busy = 3;
	d = decide(SCSI_OP_READ_16, SCSI_STAT_BUSY, 0, 0, &t, 0);
	assert_int_equal(d.delay_ns, 8 * MS);
	t.busy = 40;
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_BUSY, 0, 0, &t, 0).delay_ns, 500 * MS);
	d = decide(SCSI_OP_WRITE_10, SCSI_STAT_TASK_SET_FULL, 0, 0, &none, 0);
	assert_int_equal(d.kind, RETRY_TASK_SET_FULL);
	assert_int_equal(d.delay_ns, 1 * MS);
	/* safe for every command: it was not executed (EXTENDED COPY included) */
	assert_int_equal(decide(SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_STAT_BUSY, 0, 0, &none, 0).kind, RETRY_BUSY);
	/* bounded by --timeout since the first submission: BUSY for 30 s is delivered as BUSY */
	t.busy = 20;
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_BUSY, 0, 0, &t, 29 * S + 400 * MS).kind, RETRY_BUSY);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_BUSY, 0, 0, &t, 29 * S + 600 * MS).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_TASK_SET_FULL, 0, 0, &none, 30 * S).kind, RETRY_NONE);
}

static void unit_attention_retried_a_bounded_number_of_times(void **state)
{
	(void)state;
	struct conn_retries t = { 0 };
	struct retry_decision d = decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_POWER_ON_OR_RESET, &t, 0);
	assert_int_equal(d.kind, RETRY_UNIT_ATTENTION);
	assert_int_equal(d.delay_ns, 0);
	/* not executed: safe for EXTENDED COPY and COMPARE AND WRITE as well */
	assert_int_equal(decide(SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_STAT_CHECK_CONDITION, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_ALUA_STATE_CHANGED, &t, 0).kind, RETRY_UNIT_ATTENTION);
	assert_int_equal(decide(SCSI_OP_COMPARE_AND_WRITE, SCSI_STAT_CHECK_CONDITION, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED, &t, 0).kind, RETRY_UNIT_ATTENTION);
	t.unit_attention = CONN_MAX_UA_RETRIES - 1;
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_POWER_ON_OR_RESET, &t, 0).kind, RETRY_UNIT_ATTENTION);
	t.unit_attention = CONN_MAX_UA_RETRIES;
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_POWER_ON_OR_RESET, &t, 0).kind, RETRY_NONE);
}

static void not_ready_becoming_ready_waits(void **state)
{
	(void)state;
	struct conn_retries t = { 0 };
	struct retry_decision d = decide(SCSI_OP_READ_10, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_BECOMING_READY, &t, 0);
	assert_int_equal(d.kind, RETRY_NOT_READY);
	assert_int_equal(d.delay_ns, 50 * MS);
	assert_int_equal(decide(SCSI_OP_READ_10, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_TRANSITION, &t, 0).kind, RETRY_NOT_READY);   /* ALUA transition */
	assert_int_equal(decide(SCSI_OP_READ_10, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_READY_OPERATION_IN_PROGRESS, &t, 0).kind, RETRY_NOT_READY);   /* operation in progress */
	t.not_ready = 2;
	assert_int_equal(decide(SCSI_OP_READ_10, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_BECOMING_READY, &t, 0).delay_ns, 200 * MS);
	t.not_ready = 30;
	assert_int_equal(decide(SCSI_OP_READ_10, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_BECOMING_READY, &t, 0).delay_ns, 1000 * MS);
	assert_int_equal(decide(SCSI_OP_READ_10, SCSI_STAT_CHECK_CONDITION, SCSI_SK_NOT_READY, SCSI_ASC_LU_BECOMING_READY, &t, 29 * S + 1).kind, RETRY_NONE);
}

static void aborted_command_only_for_repeatable_commands(void **state)
{
	(void)state;
	struct conn_retries t = { 0 };
	/* READ, WRITE, INQUIRY: again at once */
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_INTERNAL_TARGET_FAILURE, &t, 0).kind, RETRY_ABORTED);
	assert_int_equal(decide(SCSI_OP_WRITE_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_NO_ADDITIONAL_SENSE, &t, 0).kind, RETRY_ABORTED);
	assert_int_equal(decide(SCSI_OP_INQUIRY, SCSI_STAT_TASK_ABORTED, 0, 0, &t, 0).kind, RETRY_ABORTED);
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_INTERNAL_TARGET_FAILURE, &t, 0).delay_ns, 0);
	/* partly executed copies, compare-and-writes, reservations: the caller decides */
	assert_int_equal(decide(SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE, &t, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_STAT_TASK_ABORTED, 0, 0, &t, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_COMPARE_AND_WRITE, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_NO_ADDITIONAL_SENSE, &t, 0).kind, RETRY_NONE);
	assert_int_equal(decide(SCSI_OP_PERSISTENT_RESERVE_OUT, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_NO_ADDITIONAL_SENSE, &t, 0).kind, RETRY_NONE);
	/* protection information errors are final */
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_GUARD_CHECK_FAILED, &t, 0).kind, RETRY_NONE);
	t.aborted = CONN_MAX_ABORTED_RETRIES;
	assert_int_equal(decide(SCSI_OP_READ_16, SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_INTERNAL_TARGET_FAILURE, &t, 0).kind, RETRY_NONE);
}

static void login_backoff(void **state)
{
	(void)state;
	assert_int_equal(conn_login_backoff_ns(1), 100 * MS);
	assert_int_equal(conn_login_backoff_ns(2), 200 * MS);
	assert_int_equal(conn_login_backoff_ns(3), 400 * MS);
	assert_int_equal(conn_login_backoff_ns(4), 800 * MS);
	assert_int_equal(conn_login_backoff_ns(5), 1000 * MS);
	assert_int_equal(conn_login_backoff_ns(1000), 1000 * MS);
	assert_int_equal(conn_login_backoff_ns(0), 100 * MS);
}

static void login_refusals(void **state)
{
	(void)state;
	/* libiscsi 1.19's text for a login reject: class 2 is final, class 3 is worth a retry */
	assert_true(conn_login_error_final("Failed to log in to target. Status: Authentication failure(513)"));
	assert_true(conn_login_error_final("Failed to log in to target. Status: Target not found(515)"));
	assert_true(conn_login_error_final("Failed to log in to target. Status: Authorization failure(514)"));
	assert_false(conn_login_error_final("Failed to log in to target. Status: Target out of resources(770)"));
	assert_false(conn_login_error_final("Failed to log in to target. Status: Service unavailable(769)"));
	assert_false(conn_login_error_final("connection failed: Connection refused(111) while connecting"));
	assert_false(conn_login_error_final("no answer to the login in 10.0 s"));
	/* malformed texts are not final */
	assert_false(conn_login_error_final("Status: (x)"));
	assert_false(conn_login_error_final("Status: Weird(99999999)"));
	assert_false(conn_login_error_final("Status: no paren"));
	assert_false(conn_login_error_final(NULL));
	assert_false(conn_login_error_final(""));
}

static void url_redaction(void **state)
{
	(void)state;
	char out[256];
	conn_url_redact("iscsi://alice%s3cr3t@127.0.0.1:3260/iqn.2026-11.org.lunlab:t0/0", out, sizeof(out));
	assert_string_equal(out, "iscsi://alice@127.0.0.1:3260/iqn.2026-11.org.lunlab:t0/0");
	conn_url_redact("iscsi://127.0.0.1:3260/iqn.2026-11.org.lunlab:t0/1", out, sizeof(out));
	assert_string_equal(out, "iscsi://127.0.0.1:3260/iqn.2026-11.org.lunlab:t0/1");
	conn_url_redact("iscsi://a%b@h/iqn.x:y/0?target_user=t&target_password=pw&header_digest=none", out, sizeof(out));
	assert_string_equal(out, "iscsi://a@h/iqn.x:y/0?target_user=t&target_password=***&header_digest=none");
	/* a '%' after the host is not a password */
	conn_url_redact("iscsi://h/iqn.x%y/0", out, sizeof(out));
	assert_string_equal(out, "iscsi://h/iqn.x%y/0");
	/* truncation stays a string */
	conn_url_redact("iscsi://127.0.0.1/iqn.x/0", out, 10);
	assert_string_equal(out, "iscsi://1");
}

static void describing(void **state)
{
	(void)state;
	char out[128];
	uint8_t r16[16] = { SCSI_OP_READ_16, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00 };
	conn_describe_cdb(r16, 16, out, sizeof(out));
	assert_string_equal(out, "READ(16) at LBA 2048");
	uint8_t w10[10] = { SCSI_OP_WRITE_10, 0, 0, 0, 0x01, 0x00 };
	conn_describe_cdb(w10, 10, out, sizeof(out));
	assert_string_equal(out, "WRITE(10) at LBA 256");
	conn_describe_cdb(w10, 4, out, sizeof(out));          /* too short to hold its LBA */
	assert_string_equal(out, "WRITE(10)");
	uint8_t xc[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_EXTENDED_COPY_LID1 };
	conn_describe_cdb(xc, 16, out, sizeof(out));
	assert_string_equal(out, "EXTENDED COPY(LID1)");
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0x01, 0xb0 };
	conn_describe_cdb(inq, 6, out, sizeof(out));
	assert_string_equal(out, "INQUIRY (VPD 0xb0)");
	uint8_t ls[10] = { SCSI_OP_LOG_SENSE, 0, 0x70 };
	conn_describe_cdb(ls, 10, out, sizeof(out));
	assert_string_equal(out, "LOG SENSE (page 0x30)");
	uint8_t odd[6] = { 0xe7 };
	conn_describe_cdb(odd, 6, out, sizeof(out));
	assert_string_equal(out, "opcode 0xe7");
	conn_describe_cdb(NULL, 0, out, sizeof(out));
	assert_string_equal(out, "a command");

	conn_describe_status(SCSI_STAT_CHECK_CONDITION, SCSI_SK_MEDIUM_ERROR, scsi_asc(SCSI_ASC_UNRECOVERED_READ_ERROR),
			     scsi_ascq(SCSI_ASC_UNRECOVERED_READ_ERROR), out, sizeof(out));
	assert_string_equal(out, "CHECK CONDITION, sense 03/11/00 (MEDIUM ERROR)");
	conn_describe_status(SCSI_STAT_CHECK_CONDITION, SCSI_SK_ABORTED_COMMAND, scsi_asc(SCSI_ASC_INTERNAL_TARGET_FAILURE),
			     scsi_ascq(SCSI_ASC_INTERNAL_TARGET_FAILURE), out, sizeof(out));
	assert_string_equal(out, "CHECK CONDITION, sense 0b/44/00 (ABORTED COMMAND)");
	/* a LUN the target does not have: named, not only numbered */
	conn_describe_status(SCSI_STAT_CHECK_CONDITION, SCSI_SK_ILLEGAL_REQUEST, scsi_asc(SCSI_ASC_LU_NOT_SUPPORTED),
			     scsi_ascq(SCSI_ASC_LU_NOT_SUPPORTED), out, sizeof(out));
	assert_string_equal(out, "CHECK CONDITION, sense 05/25/00 (ILLEGAL REQUEST: LOGICAL UNIT NOT SUPPORTED)");
	conn_describe_status(SCSI_STAT_CHECK_CONDITION, SCSI_SK_ILLEGAL_REQUEST, scsi_asc(SCSI_ASC_INVALID_FIELD_IN_CDB),
			     scsi_ascq(SCSI_ASC_INVALID_FIELD_IN_CDB), out, sizeof(out));
	assert_string_equal(out, "CHECK CONDITION, sense 05/24/00 (ILLEGAL REQUEST: INVALID FIELD IN CDB)");
	conn_describe_status(0x08, 0, 0, 0, out, sizeof(out));
	assert_string_equal(out, "BUSY");
	conn_describe_status(0x28, 0, 0, 0, out, sizeof(out));
	assert_string_equal(out, "TASK SET FULL");
	conn_describe_status(0x18, 0, 0, 0, out, sizeof(out));
	assert_string_equal(out, "RESERVATION CONFLICT");
	conn_describe_status(0x30, 0, 0, 0, out, sizeof(out));
	assert_string_equal(out, "status 0x30");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delivered_as_is),
		cmocka_unit_test(busy_and_task_set_full_back_off),
		cmocka_unit_test(unit_attention_retried_a_bounded_number_of_times),
		cmocka_unit_test(not_ready_becoming_ready_waits),
		cmocka_unit_test(aborted_command_only_for_repeatable_commands),
		cmocka_unit_test(login_backoff),
		cmocka_unit_test(login_refusals),
		cmocka_unit_test(url_redaction),
		cmocka_unit_test(describing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
