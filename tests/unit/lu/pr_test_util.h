/* pr_test_util.h — building PERSISTENT RESERVE IN/OUT CDBs and parameter
 * lists for the unit tests of target/lu/pr*.c, and three initiator ports
 * (two nodes, the first with two ports: same name, different ISIDs). */
#ifndef LUNLAB_TEST_PR_UTIL_H
#define LUNLAB_TEST_PR_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/core/ua_queue.h"
#include "target/lu/pr.h"

#define SA_REGISTER 0
#define SA_RESERVE 1
#define SA_RELEASE 2
#define SA_CLEAR 3
#define SA_PREEMPT 4
#define SA_PREEMPT_ABORT 5
#define SA_REGISTER_IGNORE 6

static struct pr_port A, A2, B;

static inline void ports_init(void)
{
	static const uint8_t isid_a[6] = { 0x80, 0x12, 0x34, 0x56, 0x00, 0x01 };
	static const uint8_t isid_a2[6] = { 0x80, 0x12, 0x34, 0x56, 0x00, 0x02 };
	static const uint8_t isid_b[6] = { 0x40, 0x00, 0x01, 0x37, 0x00, 0x00 };

	pr_port_set(&A, "iqn.2026-11.org.lunlab.test:node-a", isid_a);
	pr_port_set(&A2, "iqn.2026-11.org.lunlab.test:node-a", isid_a2);
	pr_port_set(&B, "iqn.2026-11.org.lunlab.test:node-b", isid_b);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* PERSISTENT RESERVE OUT with the basic 24-byte parameter list */
static inline struct pr_answer prout_flags(struct pr_state *st, const struct pr_port *p,
					   uint64_t nexus, uint8_t sa, uint8_t type, uint64_t rk,
					   uint64_t sark, uint8_t flags)
{
	uint8_t cdb[10] = { SCSI_OP_PERSISTENT_RESERVE_OUT, sa, type, 0, 0, 0, 0, 0, 24, 0 };
	uint8_t par[24] = { 0 };
	struct pr_answer ans;

	put64(par, rk);
	put64(par + 8, sark);
	par[20] = flags;
	pr_execute(st, cdb, sizeof(cdb), p, nexus, par, sizeof(par), &ans);
	return ans;
}

static inline struct pr_answer prout(struct pr_state *st, const struct pr_port *p, uint8_t sa,
				     uint8_t type, uint64_t rk, uint64_t sark)
{
	return prout_flags(st, p, 0, sa, type, rk, sark, 0);
}

/* PERSISTENT RESERVE IN into buf */
static inline struct pr_answer prin(struct pr_state *st, const struct pr_port *p, uint8_t sa,
				    uint16_t alloc, uint8_t *buf, size_t buflen)
{
	uint8_t cdb[10] = { SCSI_OP_PERSISTENT_RESERVE_IN, sa, 0, 0, 0, 0, 0, (uint8_t)(alloc >> 8), (uint8_t)alloc, 0 };
	struct pr_answer ans;

	pr_execute(st, cdb, sizeof(cdb), p, 0, buf, buflen, &ans);
	return ans;
}

/* One command through the gate: its status if the gate answered, else -1
 * (the command would reach the backend). */
static inline int gate(struct pr_state *st, const struct pr_port *p, uint8_t opcode,
		       struct pr_answer *out)
{
	uint8_t cdb[16] = { opcode };
	uint8_t buf[32];
	struct pr_answer ans;

	if (opcode == SCSI_OP_REQUEST_SENSE)
		cdb[4] = 18;
	if (!pr_gate(st, cdb, sizeof(cdb), p, buf, sizeof(buf), &ans))
		return -1;
	if (out)
		*out = ans;
	return ans.status;
}

/* The same with a service action in CDB byte 1. */
static inline int gate_sa(struct pr_state *st, const struct pr_port *p, uint8_t opcode, uint8_t sa)
{
	uint8_t cdb[16] = { opcode, sa };
	uint8_t buf[32];
	struct pr_answer ans;

	if (!pr_gate(st, cdb, sizeof(cdb), p, buf, sizeof(buf), &ans))
		return -1;
	return ans.status;
}

/* asserts a CHECK CONDITION with exactly this key/ASC/ASCQ (fixed format) */
static inline void assert_check(const struct pr_answer *a, uint8_t key, uint16_t asc_ascq)
{
	assert_int_equal(a->status, SCSI_STAT_CHECK_CONDITION);
	assert_int_equal(a->sense_len, 18);
	assert_int_equal(a->sense[0], SCSI_SENSE_FMT_FIXED_CURRENT);
	assert_int_equal(a->sense[2] & 0x0f, key);
	assert_int_equal(a->sense[12], scsi_asc(asc_ascq));
	assert_int_equal(a->sense[13], scsi_ascq(asc_ascq));
}

/* the unit attention the port gets on its next TEST UNIT READY: ASCQ, or -1 */
/* cmocka fixture shared by the PR test files: fresh ports, one fresh
 * reservation state per test */
static struct ua_queue *pr_fixture_ua; /* the LU's unit attention store */

static inline int pr_fixture_setup(void **state)
{
	ports_init();
	pr_fixture_ua = ua_queue_new();
	*state = pr_fixture_ua ? pr_state_new(pr_fixture_ua) : NULL;
	return *state ? 0 : -1;
}

static inline int pr_fixture_teardown(void **state)
{
	pr_state_free(*state);
	ua_queue_free(pr_fixture_ua);
	pr_fixture_ua = NULL;
	return 0;
}

static inline int next_ua(struct pr_state *st, const struct pr_port *p)
{
	struct pr_answer a;

	if (gate(st, p, 0x00, &a) != 0x02)
		return -1;
	assert_int_equal(a.sense[2] & 0x0f, 0x06);
	assert_int_equal(a.sense[12], 0x2a);
	return a.sense[13];
}

/* READ KEYS: the number of keys, keys into out[] */
static inline size_t read_keys(struct pr_state *st, uint64_t *out, size_t max, uint32_t *gen)
{
	uint8_t buf[8 + 8 * PR_REGS_MAX];
	struct pr_answer a = prin(st, &A, 0, sizeof(buf), buf, sizeof(buf));
	size_t n;

	assert_int_equal(a.status, 0);
	n = get32(buf + 4) / 8;
	assert_int_equal(a.data_len, 8 + 8 * n);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = get64(buf + 8 + 8 * i);
	if (gen)
		*gen = get32(buf);
	return n;
}

#endif
