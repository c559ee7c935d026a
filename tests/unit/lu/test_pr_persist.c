/* test_pr_persist.c — target/lu/pr_persist.c: APTPL (SPC-4 5.13.5).  Without
 * a persistence hook APTPL=1 is refused and PTPL_C is 0; with one, REGISTER
 * APTPL=1 turns it on (PTPL_A), every later change is saved before the
 * command completes, APTPL=0 forgets the saved state, a failed save undoes
 * the command (04/44/00), a cold reset keeps what APTPL protects, and the
 * saved bytes restore the same registrations and reservation — while
 * damaged bytes of every kind are refused with the field named. */
#include "lunlab/scsi_vocab.h"
#include "pr_test_util.h"

#include <stdio.h>
#include <stdlib.h>

#define APTPL 0x01
#define CAP_LEN 8

struct saver {
	int calls, fail;
	uint8_t blob[PR_ENCODED_MAX];
	size_t len;
	bool forgot;
};

static int save(void *ctx, const uint8_t *blob, size_t len)
{
	struct saver *s = ctx;

	s->calls++;
	if (s->fail)
		return -1;
	s->forgot = len == 0;
	memcpy(s->blob, blob ? blob : (const uint8_t *)"", len);
	s->len = len;
	return 0;
}

static void caps(struct pr_state *st, bool *ptpl_c, bool *ptpl_a)
{
	uint8_t d[CAP_LEN];
	struct pr_answer a = prin(st, &A, 2, CAP_LEN, d, sizeof(d));

	assert_int_equal(a.status, 0);
	*ptpl_c = d[2] & 0x01;
	*ptpl_a = d[3] & 0x01;
}

static void test_refused_without_hook(void **state)
{
	struct pr_state *st = *state;
	bool c, a;
	struct pr_answer r = prout_flags(st, &A, 1, 0, 0, 0, 0x11, APTPL);

	assert_check(&r, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	assert_int_equal(pr_registrations(st), 0);
	caps(st, &c, &a);
	assert_false(c);
	assert_false(a);
}

static void test_aptpl_saves_every_change(void **state)
{
	struct pr_state *st = *state;
	struct saver sv = { 0 };
	char err[256];
	bool c, a;

	assert_int_equal(pr_state_set_persist(st, save, &sv, NULL, NULL, 0, err, sizeof(err)), 0);
	caps(st, &c, &a);
	assert_true(c);
	assert_false(a);
	/* a change without APTPL is not saved */
	assert_int_equal(prout(st, &B, 0, 0, 0, 0x22).status, 0);
	assert_int_equal(sv.calls, 0);
	/* APTPL=1: on, and saved */
	assert_int_equal(prout_flags(st, &A, 1, 0, 0, 0, 0x11, APTPL).status, 0);
	assert_int_equal(sv.calls, 1);
	caps(st, &c, &a);
	assert_true(a);
	/* the reservation is saved too; a command that changes nothing is not */
	assert_int_equal(prout(st, &A, 1, PR_TYPE_WE, 0x11, 0).status, 0);
	assert_int_equal(sv.calls, 2);
	assert_int_equal(prout(st, &A, 1, PR_TYPE_WE, 0x11, 0).status, 0); /* same again: no change */
	assert_int_equal(sv.calls, 2);
	/* what was saved restores the same state in a new LU state */
	struct pr_state *back = pr_state_new(NULL);
	struct saver sv2 = { 0 };
	assert_int_equal(pr_state_set_persist(back, save, &sv2, NULL, sv.blob, sv.len, err, sizeof(err)), 0);
	uint64_t keys[4];
	assert_int_equal(read_keys(back, keys, 4, NULL), 2);
	assert_int_equal(keys[0], 0x22);
	assert_int_equal(keys[1], 0x11);
	assert_int_equal(gate(back, &B, 0x2a, NULL), SCSI_STAT_RESERVATION_CONFLICT); /* A's WE */
	assert_int_equal(gate(back, &A, 0x2a, NULL), -1);
	caps(back, &c, &a);
	assert_true(a);
	pr_state_free(back);
	/* APTPL=0 from any nexus: the saved state is forgotten, and later
	 * changes are not saved */
	assert_int_equal(prout_flags(st, &B, 2, 0, 0, 0x22, 0x23, 0).status, 0);
	assert_true(sv.forgot);
	assert_int_equal(sv.calls, 3);
	assert_int_equal(prout(st, &A, 2, PR_TYPE_WE, 0x11, 0).status, 0);
	assert_int_equal(sv.calls, 3);
}

static void test_failed_save_undoes(void **state)
{
	struct pr_state *st = *state;
	struct saver sv = { 0 };
	char err[256];

	assert_int_equal(pr_state_set_persist(st, save, &sv, NULL, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(prout_flags(st, &A, 1, 0, 0, 0, 0x11, APTPL).status, 0);
	uint32_t gen = pr_generation(st);
	sv.fail = 1;
	struct pr_answer r = prout(st, &B, 0, 0, 0, 0x22); /* REGISTER B */
	assert_check(&r, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE);
	assert_int_equal(pr_registrations(st), 1);
	assert_int_equal(pr_generation(st), gen);
	r = prout(st, &A, 1, PR_TYPE_EA, 0x11, 0);
	assert_check(&r, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE);
	assert_int_equal(gate(st, &B, 0x28, NULL), -1); /* no reservation came to be */
	sv.fail = 0;
	assert_int_equal(prout(st, &B, 0, 0, 0, 0x22).status, 0);
	assert_int_equal(pr_registrations(st), 2);
}

static void test_cold_reset_keeps_aptpl_state(void **state)
{
	struct pr_state *st = *state;
	struct saver sv = { 0 };
	char err[256];

	assert_int_equal(pr_state_set_persist(st, save, &sv, NULL, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(prout_flags(st, &A, 1, 0, 0, 0, 0x11, APTPL).status, 0);
	assert_int_equal(prout(st, &A, 1, PR_TYPE_EA, 0x11, 0).status, 0);
	pr_power_on(st);
	assert_int_equal(pr_registrations(st), 1);
	assert_int_equal(pr_generation(st), 0); /* PRGENERATION restarts at a power on */
	assert_int_equal(gate(st, &B, 0x28, NULL), SCSI_STAT_RESERVATION_CONFLICT);
	/* without APTPL a power on clears them (as before) */
	assert_int_equal(prout_flags(st, &A, 2, 0, 0, 0x11, 0x11, 0).status, 0);
	pr_power_on(st);
	assert_int_equal(pr_registrations(st), 0);
	assert_int_equal(gate(st, &B, 0x28, NULL), -1);
}

static void test_encode_decode_all_registrants(void **state)
{
	struct pr_state *st = *state, *back = pr_state_new(NULL);
	struct saver sv = { 0 };
	uint8_t blob[PR_ENCODED_MAX];
	char err[256];
	size_t n;

	assert_int_equal(pr_state_set_persist(st, save, &sv, NULL, NULL, 0, err, sizeof(err)), 0);
	for (int i = 0; i < PR_REGS_MAX; i++) {
		struct pr_port p;
		char name[PR_IQN_MAX];
		uint8_t isid[6] = { 0x80, 0, 0, 0, 0, (uint8_t)i };

		memset(name, 'n', sizeof(name) - 1); /* the longest names */
		name[sizeof(name) - 1] = '\0';
		name[0] = (char)('A' + i % 26);
		pr_port_set(&p, name, isid);
		assert_int_equal(prout_flags(st, &p, 1, 0, 0, 0, 0x100 + (uint64_t)i, APTPL).status, 0);
		if (i == 0)
			assert_int_equal(prout(st, &p, 1, PR_TYPE_EA_AR, 0x100, 0).status, 0);
	}
	n = pr_state_encode(st, blob, sizeof(blob));
	assert_true(n > 0 && n <= PR_ENCODED_MAX);
	assert_int_equal(pr_state_encode(st, blob, PR_ENCODED_MAX - 1), 0); /* too small: 0 */
	n = pr_state_encode(st, blob, sizeof(blob));
	assert_int_equal(pr_state_decode(back, blob, n, err, sizeof(err)), 0);
	assert_int_equal(pr_registrations(back), PR_REGS_MAX);
	assert_int_equal(gate(back, &B, 0x28, NULL), SCSI_STAT_RESERVATION_CONFLICT); /* EA_AR */
	pr_state_free(back);
}

/* damaged bytes: each refused with its field named, nothing restored */
static void test_decode_refusals(void **state)
{
	struct pr_state *st = *state;
	uint8_t b[64];
	char err[256];
	static const uint8_t name[] = "iqn.x:a";
	size_t o;

#define HDR(ver, flags, type, n) (memset(b, 0, sizeof(b)), b[0] = ver, b[1] = flags, b[2] = type, b[3] = n, o = 8)
#define PORT(len) (b[o] = len, memcpy(b + o + 1, name, len), o += 1 + len + 6)
#define KEY(k) (b[o + 7] = k, o += 8)
	HDR(1, 0, 0, 0);
	assert_int_equal(pr_state_decode(st, b, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shorter than the 8-byte header"));
	HDR(2, 0, 0, 0);
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "version 2"));
	HDR(1, 0x80, 0, 0);
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown flags 80h"));
	HDR(1, 0x02, 2, 0);
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "type 2 is not a valid TYPE"));
	HDR(1, 0, 0, 65);
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "65 registrations"));
	HDR(1, 0, 0, 0);
	b[8] = 40; /* a name longer than what is left */
	assert_int_equal(pr_state_decode(st, b, 20, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "holder's name runs past the end"));
	HDR(1, 0, 0, 1);
	PORT(0);
	KEY(5);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1); /* its name is missing */
	assert_non_null(strstr(err, "registration 0's name runs past the end"));
	HDR(1, 0, 0, 1);
	PORT(0);
	KEY(0);
	PORT(7);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "registration 0 has key 0"));
	HDR(1, 0, 0, 2);
	PORT(0);
	KEY(5);
	PORT(7);
	KEY(6);
	PORT(7);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "registration 1 repeats a port"));
	HDR(1, 0x02, PR_TYPE_WE, 1);
	PORT(3); /* holder "iqn" */
	KEY(5);
	PORT(7);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "holder is not registered"));
	HDR(1, 0, 0, 0);
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o + 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "1 bytes after the last registration"));
	HDR(1, 0, 0, 0);
	b[6] = 0x90;
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "reserved header bytes 4..7 are not zero"));
	HDR(1, 0, PR_TYPE_EA, 0);
	PORT(0);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "type 3 without a reservation"));
	HDR(1, 0, 0, 0);
	PORT(7);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a holder where the reservation has none"));
	assert_int_equal(pr_registrations(st), 0); /* nothing restored by any of them */
	/* and a good one */
	HDR(1, 0x03, PR_TYPE_WE, 1);
	PORT(7);
	KEY(5);
	PORT(7);
	assert_int_equal(pr_state_decode(st, b, o, err, sizeof(err)), 0);
	assert_int_equal(pr_registrations(st), 1);
#undef HDR
#undef PORT
#undef KEY
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_without_hook, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_aptpl_saves_every_change, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_failed_save_undoes, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_cold_reset_keeps_aptpl_state, pr_fixture_setup,
						pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_encode_decode_all_registrants, pr_fixture_setup,
						pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_decode_refusals, pr_fixture_setup, pr_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
