/* test_fault_rules.c — the rule set (target/lu/fault_rules.c): which
 * commands each match key takes, every=/p=/seed=/count=/window= exactly
 * (the same seed decides the same way), first rule wins, the hit's fields
 * (INFORMATION LBA of a medium error, delays within their distribution),
 * listing with counts, removal, and the limit on rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/lu/fault_rules.h"

static uint64_t fake_ms;
static uint64_t fake_clock(void) { return fake_ms; }

static int setup(void **state)
{
	(void)state;
	fault_rules_clear();
	fake_ms = 1000;
	fault_rules_set_clock(fake_clock);
	return 0;
}

static int add(const char *spec)
{
	char err[256] = "";
	int id = fault_rules_add(spec, err, sizeof(err));

	if (id <= 0)
		fail_msg("'%s' refused: %s", spec, err);
	return id;
}

/* a READ(10) of blocks lba..lba+n-1 on lun from initiator ini via portal */
static struct fault_cmd rd10(uint64_t lun, uint32_t lba, uint16_t n, uint8_t *cdb)
{
	struct fault_cmd c;

	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_READ_10;
	cdb[2] = (uint8_t)(lba >> 24);
	cdb[3] = (uint8_t)(lba >> 16);
	cdb[4] = (uint8_t)(lba >> 8);
	cdb[5] = (uint8_t)lba;
	cdb[7] = (uint8_t)(n >> 8);
	cdb[8] = (uint8_t)n;
	memset(&c, 0, sizeof(c));
	c.lun = lun;
	c.cdb = cdb;
	c.cdb_len = 16;
	c.initiator = "iqn.2026-11.org.test:a";
	c.portal = "127.0.0.1:3260";
	c.portal_adv = "10.0.2.2:3260";
	return c;
}

static bool fires(const struct fault_cmd *c, struct fault_hit *h)
{
	struct fault_hit tmp;
	return fault_rules_check(c, h ? h : &tmp);
}

static void no_rules(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);

	(void)state;
	assert_false(fires(&c, NULL));
	assert_int_equal(fault_rules_list(NULL, 0), 0);
}

static void match_keys(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c;
	struct fault_hit h;

	(void)state;
	add("lun=1,op=read,lba=100-199,initiator=IQN.2026-11.org.test:A,portal=10.0.2.2:3260,sense=03/11/00");
	c = rd10(1, 150, 8, cdb);
	assert_true(fires(&c, &h));
	assert_int_equal(h.action, FAULT_ACT_SENSE);
	assert_true(h.has_info && h.info_lba == 150); /* the first failing block */
	c = rd10(1, 96, 8, cdb);                     /* 96..103 overlaps at 100 */
	assert_true(fires(&c, &h));
	assert_true(h.info_lba == 100);
	c = rd10(1, 92, 8, cdb);                     /* 92..99: just below */
	assert_false(fires(&c, NULL));
	c = rd10(1, 200, 8, cdb);                    /* just above */
	assert_false(fires(&c, NULL));
	c = rd10(0, 150, 8, cdb);                    /* other LUN */
	assert_false(fires(&c, NULL));
	c = rd10(1, 150, 8, cdb);
	c.initiator = "iqn.2026-11.org.test:b";
	assert_false(fires(&c, NULL));
	c = rd10(1, 150, 8, cdb);
	c.portal_adv = NULL;                         /* the rule named the advertised address */
	assert_false(fires(&c, NULL));
	c = rd10(1, 150, 8, cdb);
	cdb[0] = SCSI_OP_WRITE_10;                               /* a WRITE(10) is not op=read */
	assert_false(fires(&c, NULL));
	c = rd10(1, 150, 8, cdb);
	cdb[0] = SCSI_OP_TEST_UNIT_READY;                               /* TUR has no LBA: an lba= rule never takes it */
	assert_false(fires(&c, NULL));
}

static void op_any_exempts_inquiry(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	struct fault_hit h;

	(void)state;
	add("status=busy");
	assert_true(fires(&c, &h));
	assert_int_equal(h.status, 0x08);
	assert_false(h.has_info);
	for (int i = 0; i < 3; i++) {
		static const uint8_t exempt[] = { 0x12, 0xa0, 0x03 };
		cdb[0] = exempt[i];
		assert_false(fires(&c, NULL));
	}
	cdb[0] = SCSI_OP_TEST_UNIT_READY; /* TEST UNIT READY is not exempt */
	assert_true(fires(&c, NULL));
	/* named by opcode, INQUIRY can be faulted too */
	fault_rules_clear();
	add("op=0x12,sense=04/44/00");
	cdb[0] = SCSI_OP_INQUIRY;
	assert_true(fires(&c, &h));
	assert_false(h.has_info); /* not a medium error */
}

static void every_and_count(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	struct fault_rule_info info;
	int id;
	char got[16] = "";

	(void)state;
	id = add("every=3,count=2,op=read,hold");
	for (int i = 1; i <= 12; i++)
		strcat(got, fires(&c, NULL) ? "x" : ".");
	assert_string_equal(got, "..x..x......"); /* the 3rd and 6th, then spent */
	assert_true(fault_rules_get((unsigned)id, &info));
	assert_true(info.matches == 6 && info.hits == 2 && info.spent); /* spent: no more matches counted */
	assert_string_equal(info.spec, "op=read,every=3,count=2,hold");
}

/* p= draws from the rule's own sequence: the same seed decides the same
 * way, another seed differently, and the rate is about p */
static void probability_is_seeded(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	char a[201], b[201], d[201];
	int n = 0;

	(void)state;
	for (int run = 0; run < 3; run++) {
		char *out = run == 0 ? a : run == 1 ? b : d;
		fault_rules_clear();
		add(run < 2 ? "p=0.1,seed=7,status=busy" : "p=0.1,seed=8,status=busy");
		for (int i = 0; i < 200; i++)
			out[i] = fires(&c, NULL) ? 'x' : '.';
		out[200] = '\0';
	}
	assert_string_equal(a, b);
	assert_string_not_equal(a, d);
	for (int i = 0; i < 200; i++)
		n += a[i] == 'x';
	assert_true(n > 5 && n < 40); /* 20 expected */
}

static void window(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	struct fault_rule_info info;
	int id;

	(void)state;
	id = add("window=2-5,status=busy");
	fake_ms += 1999;
	assert_false(fires(&c, NULL));
	fake_ms += 1;
	assert_true(fires(&c, NULL));
	fake_ms += 2999;
	assert_true(fires(&c, NULL));
	assert_true(fault_rules_get((unsigned)id, &info) && !info.spent && info.age_ms == 4999);
	fake_ms += 1;
	assert_false(fires(&c, NULL));
	assert_true(fault_rules_get((unsigned)id, &info) && info.spent && info.hits == 2 && info.matches == 2);
}

static void first_rule_wins(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	struct fault_hit h;
	struct fault_rule_info list[4];
	int a, b;

	(void)state;
	a = add("every=2,status=busy");
	b = add("status=task-set-full");
	assert_true(fires(&c, &h) && h.rule == (unsigned)b && h.first); /* a counted 1, did not fire */
	assert_true(fires(&c, &h) && h.rule == (unsigned)a && h.first);
	assert_true(fires(&c, &h) && h.rule == (unsigned)b && !h.first);
	assert_int_equal(fault_rules_list(list, 4), 2);
	assert_true(list[0].id == (unsigned)a && list[0].matches == 3 && list[0].hits == 1);
	assert_true(list[1].id == (unsigned)b && list[1].matches == 2 && list[1].hits == 2);
	assert_int_equal(fault_rules_remove((unsigned)a), 0);
	assert_int_equal(fault_rules_remove((unsigned)a), -1);
	assert_true(fires(&c, &h) && h.rule == (unsigned)b);
	assert_int_equal(fault_rules_list(list, 4), 1);
	/* ids are never reused */
	assert_true(add("hold") > b);
}

static void delays(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	struct fault_hit h;
	double sum = 0;

	(void)state;
	add("count=1,delay=7.5");
	assert_true(fires(&c, &h) && h.action == FAULT_ACT_DELAY && h.delay_us == 7500);
	add("count=500,delay=2-3");
	for (int i = 0; i < 500; i++) {
		assert_true(fires(&c, &h));
		assert_true(h.delay_us >= 2000 && h.delay_us <= 3000);
	}
	add("count=2000,delay=exp:10");
	for (int i = 0; i < 2000; i++) {
		assert_true(fires(&c, &h));
		sum += (double)h.delay_us;
	}
	assert_true(sum / 2000 > 9000 && sum / 2000 < 11000); /* mean 10 ms */
}

static void hit_fields(void **state)
{
	uint8_t cdb[16];
	struct fault_cmd c = rd10(0, 0, 1, cdb);
	struct fault_hit h;

	(void)state;
	add("count=1,op=xcopy,xcopy-fail-after=3,sense=0b/0d/01");
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_OUT;
	assert_true(fires(&c, &h));
	assert_true(h.action == FAULT_ACT_XCOPY_FAIL && h.xcopy_segments == 3 && h.has_sense && h.key == SCSI_SK_ABORTED_COMMAND);
	add("count=1,drop=after");
	assert_true(fires(&c, &h) && h.action == FAULT_ACT_DROP && h.drop_after);
	add("lba=10-20,corrupt");
	c = rd10(0, 5, 10, cdb);
	assert_true(fires(&c, &h) && h.action == FAULT_ACT_CORRUPT && h.lba_first == 10 && h.lba_last == 20);
}

static void unmap_descriptors(void **state)
{
	uint8_t cdb[16] = { SCSI_OP_UNMAP }, data[40];
	struct fault_cmd c;
	struct fault_hit h;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.cdb = cdb;
	c.cdb_len = 16;
	memset(data, 0, sizeof(data));
	data[3] = 32; /* two descriptors */
	data[8 + 7] = 50;  /* LBA 50, 10 blocks */
	data[8 + 11] = 10;
	data[24 + 7] = 200; /* LBA 200, 5 blocks */
	data[24 + 11] = 5;
	c.data = data;
	c.data_len = sizeof(data);
	add("op=unmap,lba=202-300,sense=medium-error");
	assert_true(fires(&c, &h) && h.info_lba == 202);
	c.data_len = 24; /* the second descriptor did not arrive: only 50..59 is named */
	assert_false(fires(&c, NULL));
	c.data = NULL;
	c.data_len = 0;
	assert_false(fires(&c, NULL));
}

static void rule_limit(void **state)
{
	char err[128];

	(void)state;
	for (int i = 0; i < FAULT_RULES_MAX; i++)
		add("hold");
	assert_int_equal(fault_rules_add("hold", err, sizeof(err)), -1);
	assert_string_equal(err, "already 256 fault rules (remove some first)");
	assert_int_equal(fault_rules_add("hold,hold", err, sizeof(err)), -1);
	assert_string_equal(err, "hold: given twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_rules, setup),
		cmocka_unit_test_setup(match_keys, setup),
		cmocka_unit_test_setup(op_any_exempts_inquiry, setup),
		cmocka_unit_test_setup(every_and_count, setup),
		cmocka_unit_test_setup(probability_is_seeded, setup),
		cmocka_unit_test_setup(window, setup),
		cmocka_unit_test_setup(first_rule_wins, setup),
		cmocka_unit_test_setup(delays, setup),
		cmocka_unit_test_setup(hit_fields, setup),
		cmocka_unit_test_setup(unmap_descriptors, setup),
		cmocka_unit_test_setup(rule_limit, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
