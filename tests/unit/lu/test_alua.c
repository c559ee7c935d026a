/* test_alua.c — target port groups and access states (target/lu/alua.c):
 * defaults (preferred group round robin), implicit changes and timed
 * transitions with their generations, every state's command filter, REPORT
 * TARGET PORT GROUPS byte for byte, SET TARGET PORT GROUPS and each of its
 * refusals, the INQUIRY patch (TPGS, VPD 0x83 designators, truncation), and
 * the --alua SPEC parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/lu/alua.h"
#include "target/lu/lu_table.h"

static struct lu_backend be_implicit = { .tpgs = 1 }, be_both = { .tpgs = 3 }, be_none = { .tpgs = 0 };
static struct lu_entry lu0, lu1, lu_none, vol;

static int setup(void **state)
{
	static const uint16_t ids[] = { 1, 2, 2, 0 }; /* duplicates and 0 are dropped */

	(void)state;
	alua_reset();
	alua_set_groups(ids, 4);
	memset(&lu0, 0, sizeof(lu0));
	memset(&lu1, 0, sizeof(lu1));
	memset(&lu_none, 0, sizeof(lu_none));
	memset(&vol, 0, sizeof(vol));
	lu0.ua = ua_queue_new();
	lu1.ua = ua_queue_new();
	assert_non_null(lu0.ua);
	assert_non_null(lu1.ua);
	lu0.be = &be_implicit;
	lu0.global = true;
	lu1.be = &be_both;
	lu1.global = true;
	lu_none.be = &be_none;
	vol.be = &be_implicit;
	vol.id = 7; /* an API volume: its entry id picks the preferred group */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alua_free(&lu0);
	alua_free(&lu1);
	ua_queue_free(lu0.ua);
	ua_queue_free(lu1.ua);
	alua_free(&lu_none);
	alua_free(&vol);
	return 0;
}

static void defaults(void **state)
{
	uint16_t ids[4];
	bool pref;

	(void)state;
	assert_int_equal(alua_groups(ids, 4), 2);
	assert_true(ids[0] == 1 && ids[1] == 2);
	assert_int_equal(alua_state_of(&lu0, 0, 1, &pref), ALUA_AO);
	assert_true(pref);
	assert_int_equal(alua_state_of(&lu0, 0, 2, &pref), ALUA_ANO);
	assert_false(pref);
	assert_int_equal(alua_state_of(&lu1, 1, 2, &pref), ALUA_AO); /* LUN 1 prefers group 2 */
	assert_true(pref);
	assert_int_equal(alua_state_of(&vol, 0, 2, &pref), ALUA_AO); /* id 7: 7 % 2 = group 2 */
	assert_int_equal(alua_state_of(&lu0, 0, 9, &pref), ALUA_AO); /* no such group: AO */
	assert_int_equal(alua_state_of(&lu_none, 0, 2, NULL), ALUA_AO); /* no ALUA at all */
	assert_int_equal(alua_tpgs(&lu1), 3);
	assert_int_equal(alua_tpgs(NULL), 0);
}

static void implicit_changes(void **state)
{
	char err[160];
	struct alua_group_info g[4];
	uint64_t gen = ua_queue_posted(lu0.ua, UA_ALUA);

	(void)state;
	assert_int_equal(alua_set(&lu0, 0, 2, ALUA_STANDBY, -1, 0, err, sizeof(err)), 0);
	assert_int_equal(ua_queue_posted(lu0.ua, UA_ALUA), gen + 1);
	assert_int_equal(alua_state_of(&lu0, 0, 2, NULL), ALUA_STANDBY);
	assert_int_equal(alua_list(&lu0, 0, g, 4), 2);
	assert_true(g[1].tpg == 2 && g[1].state == ALUA_STANDBY && g[1].status == ALUA_STATUS_IMPLICIT && !g[1].pref);
	assert_true(g[0].tpg == 1 && g[0].state == ALUA_AO && g[0].status == ALUA_STATUS_NONE && g[0].pref);
	assert_int_equal(alua_set(&lu0, 0, 2, ALUA_UNAVAILABLE, 1, 0, err, sizeof(err)), 0);
	alua_list(&lu0, 0, g, 4);
	assert_true(g[1].state == ALUA_UNAVAILABLE && g[1].pref);
	assert_int_equal(alua_set(&lu0, 0, 3, ALUA_AO, -1, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "no target port group 3 (the groups are the --listen tpg= tags)");
	assert_int_equal(alua_set(&lu_none, 5, 1, ALUA_AO, -1, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "LUN 5 reports no ALUA (its profile has tpgs off)");
	assert_int_equal(alua_list(&lu_none, 5, g, 4), 0);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* alua.c's clock */
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void timed_transition(void **state)
{
	char err[160];
	uint64_t gen, t0, g1;
	enum alua_state st;

	(void)state;
	t0 = mono_ms();
	assert_int_equal(alua_set(&lu0, 0, 1, ALUA_STANDBY, -1, 150, err, sizeof(err)), 0);
	gen = ua_queue_posted(lu0.ua, UA_ALUA);
	st = alua_state_of(&lu0, 0, 1, NULL);
	alua_settle(&lu0);
	g1 = ua_queue_posted(lu0.ua, UA_ALUA);
	/* still running - asserted only when under 150 ms passed since before the set, so the
	 * transition cannot be over yet whatever the machine did (a thread preempted for longer
	 * rightly sees it over) */
	if (mono_ms() - t0 < 150) {
		assert_int_equal(st, ALUA_TRANSITIONING);
		assert_int_equal(g1, gen);
	}
	usleep(200 * 1000); /* at least 200 ms: past the deadline, whatever the machine does */
	alua_settle(&lu0);
	assert_int_equal(ua_queue_posted(lu0.ua, UA_ALUA), gen + 1); /* over: a second generation */
	assert_int_equal(alua_state_of(&lu0, 0, 1, NULL), ALUA_STANDBY);
	/* a transition replaced by an immediate change never ends later */
	assert_int_equal(alua_set(&lu0, 0, 1, ALUA_AO, -1, 100000, err, sizeof(err)), 0);
	assert_int_equal(alua_set(&lu0, 0, 1, ALUA_ANO, -1, 0, err, sizeof(err)), 0);
	gen = ua_queue_posted(lu0.ua, UA_ALUA);
	alua_settle(&lu0);
	assert_int_equal(ua_queue_posted(lu0.ua, UA_ALUA), gen);
	assert_int_equal(alua_state_of(&lu0, 0, 1, NULL), ALUA_ANO);
}

static void filters(void **state)
{
	static const struct {
		uint8_t cdb0, cdb1;
		bool standby, unavailable, transitioning; /* allowed in that state */
	} ops[] = {
		{ 0x00, 0, false, false, false },      /* TEST UNIT READY */
		{ 0x28, 0, false, false, false },      /* READ(10) */
		{ 0x2a, 0, false, false, false },      /* WRITE(10) */
		{ 0x12, 0, true, true, true },         /* INQUIRY */
		{ 0xa0, 0, true, true, true },         /* REPORT LUNS */
		{ 0x03, 0, true, true, true },         /* REQUEST SENSE */
		{ 0xa3, 0x0a, true, true, true },      /* REPORT TARGET PORT GROUPS */
		{ 0xa3, 0x0c, false, false, false },   /* REPORT SUPPORTED OPERATION CODES */
		{ 0xa4, 0x0a, true, true, false },     /* SET TARGET PORT GROUPS */
		{ 0x1a, 0, true, false, false },       /* MODE SENSE(6) */
		{ 0x4d, 0, true, false, false },       /* LOG SENSE */
		{ 0x5e, 0, true, false, false },       /* PERSISTENT RESERVE IN */
		{ 0x25, 0, true, false, false },       /* READ CAPACITY(10) */
		{ 0x9e, 0x10, true, false, false },    /* READ CAPACITY(16) */
		{ 0x9e, 0x12, false, false, false },   /* GET LBA STATUS */
		{ 0x3c, 0, true, true, true },         /* READ BUFFER */
	};
	struct alua_answer a;

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint8_t cdb[16] = { ops[i].cdb0, ops[i].cdb1 };
		assert_false(alua_refuses(ALUA_AO, cdb, sizeof(cdb), &a));
		assert_false(alua_refuses(ALUA_ANO, cdb, sizeof(cdb), &a));
		bool r = alua_refuses(ALUA_STANDBY, cdb, sizeof(cdb), &a);
		assert_int_equal(r, !ops[i].standby);
		if (r)
			assert_true(a.status == 2 && a.sense[2] == 2 && a.sense[12] == 4 && a.sense[13] == 0x0b);
		r = alua_refuses(ALUA_UNAVAILABLE, cdb, sizeof(cdb), &a);
		assert_int_equal(r, !ops[i].unavailable);
		if (r)
			assert_true(a.sense[13] == 0x0c);
		r = alua_refuses(ALUA_TRANSITIONING, cdb, sizeof(cdb), &a);
		assert_int_equal(r, !ops[i].transitioning);
		if (r)
			assert_true(a.sense[13] == 0x0a && a.sense_len == 18);
	}
}

static void report(void **state)
{
	uint8_t cdb[12] = { SCSI_OP_MAINTENANCE_IN, SCSI_SA_REPORT_TARGET_PORT_GROUPS, 0, 0, 0, 0, 0, 0, 0, 255 }, buf[256];
	static const uint8_t want[28] = {
		0, 0, 0, 24,
		0x80, 0x8f, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, /* PREF AO, group 1, port 1 */
		0x01, 0x8f, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, /* ANO, group 2, port 2 */
	};
	struct alua_answer a;
	char err[64];

	(void)state;
	alua_report_tpgs(&lu0, 0, cdb, sizeof(cdb), buf, sizeof(buf), &a);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 28);
	assert_memory_equal(buf, want, 28);
	cdb[1] = 0x2a; /* extended header */
	assert_int_equal(alua_set(&lu0, 0, 2, ALUA_STANDBY, -1, 2500, err, sizeof(err)), 0);
	alua_report_tpgs(&lu0, 0, cdb, sizeof(cdb), buf, sizeof(buf), &a);
	assert_int_equal(a.data_len, 32);
	assert_true(buf[3] == 28 && buf[4] == 0x10 && buf[5] == 3); /* format 1, 3 s implicit transition */
	assert_true(buf[8 + 12] == 0x0f && buf[8 + 12 + 5] == ALUA_STATUS_IMPLICIT);
	cdb[9] = 6; /* ALLOCATION LENGTH 6: cut, RETURN DATA LENGTH still whole */
	alua_report_tpgs(&lu0, 0, cdb, sizeof(cdb), buf, sizeof(buf), &a);
	assert_int_equal(a.data_len, 6);
	assert_int_equal(buf[3], 28);
	cdb[1] = 0x4a; /* PARAMETER DATA FORMAT 010b: reserved */
	alua_report_tpgs(&lu0, 0, cdb, sizeof(cdb), buf, sizeof(buf), &a);
	assert_true(a.status == 2 && a.sense[2] == 5 && a.sense[12] == 0x24 && a.sense[15] == 0xc0 && a.sense[17] == 1);
}

static struct alua_answer stpg(struct lu_entry *e, const uint8_t *list, uint32_t pll, size_t len, bool *changed)
{
	uint8_t cdb[12] = { SCSI_OP_MAINTENANCE_OUT, SCSI_SA_SET_TARGET_PORT_GROUPS, 0, 0, 0, 0, (uint8_t)(pll >> 24), (uint8_t)(pll >> 16), (uint8_t)(pll >> 8),
			    (uint8_t)pll };
	struct alua_answer a;

	alua_set_tpgs(e, 1, cdb, sizeof(cdb), list, len, &a, changed);
	return a;
}

static void set_tpgs(void **state)
{
	uint8_t list[12] = { 0, 0, 0, 0, 0x02, 0, 0, 2, 0x00, 0, 0, 1 };
	struct alua_answer a;
	bool changed;
	uint64_t gen = ua_queue_posted(lu1.ua, UA_ALUA);

	(void)state;
	a = stpg(&lu0, list, 12, 12, &changed); /* implicit only */
	assert_true(a.status == 2 && a.sense[12] == 0x20 && !changed);
	a = stpg(&lu1, list, 12, 12, &changed);
	assert_true(a.status == 0 && changed);
	assert_int_equal(ua_queue_posted(lu1.ua, UA_ALUA), gen + 1);
	assert_int_equal(alua_state_of(&lu1, 1, 2, NULL), ALUA_STANDBY);
	assert_int_equal(alua_state_of(&lu1, 1, 1, NULL), ALUA_AO);
	a = stpg(&lu1, list, 12, 12, &changed); /* the same again: nothing changes */
	assert_true(a.status == 0 && !changed);
	a = stpg(&lu1, list, 0, 0, &changed);
	assert_true(a.status == 0 && !changed);
	a = stpg(&lu1, list, 10, 10, &changed);
	assert_true(a.status == 2 && a.sense[12] == 0x1a);
	a = stpg(&lu1, list, 12, 8, &changed); /* fewer bytes than the list length */
	assert_true(a.status == 2 && a.sense[12] == 0x1a);
	list[4] = 0x0f; /* transitioning cannot be asked for: pointer at byte 4 */
	a = stpg(&lu1, list, 12, 12, &changed);
	assert_true(a.status == 2 && a.sense[12] == 0x26 && a.sense[15] == 0x80 && a.sense[17] == 4);
	list[4] = 0x01;
	list[11] = 9; /* group 9: pointer at its TARGET PORT GROUP field, byte 10 */
	a = stpg(&lu1, list, 12, 12, &changed);
	assert_true(a.status == 2 && a.sense[12] == 0x26 && a.sense[17] == 10 && !changed);
	assert_int_equal(alua_state_of(&lu1, 1, 2, NULL), ALUA_STANDBY); /* nothing applied */
}

static void inquiry_patch(void **state)
{
	uint8_t cdb[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 96, 0 }, buf[128];
	/* a VPD 0x83 page of 24 bytes of designators */
	uint8_t page[28] = { 0, 0x83, 0, 24 };

	(void)state;
	memset(buf, 0, sizeof(buf));
	buf[5] = 0x08; /* 3PC */
	alua_patch_inquiry(3, 2, cdb, sizeof(cdb), buf, 96, sizeof(buf));
	assert_int_equal(buf[5], 0x38);
	alua_patch_inquiry(0, 2, cdb, sizeof(cdb), buf, 96, sizeof(buf)); /* no ALUA: untouched */
	assert_int_equal(buf[5], 0x38);
	cdb[1] = 1;
	cdb[2] = 0x83;
	cdb[4] = 255;
	memcpy(buf, page, sizeof(page));
	assert_int_equal(alua_patch_inquiry(1, 0x102, cdb, sizeof(cdb), buf, sizeof(page), sizeof(buf)), 44);
	static const uint8_t des[16] = { 0x51, 0x94, 0, 4, 0, 0, 1, 2, 0x51, 0x95, 0, 4, 0, 0, 1, 2 };
	assert_int_equal(buf[3], 40);
	assert_memory_equal(buf + 28, des, 16);
	/* ALLOCATION LENGTH 30: the page length grows, two designator bytes fit */
	memset(buf, 0xee, sizeof(buf));
	memcpy(buf, page, sizeof(page));
	cdb[4] = 30;
	assert_int_equal(alua_patch_inquiry(1, 0x102, cdb, sizeof(cdb), buf, sizeof(page), sizeof(buf)), 30);
	assert_int_equal(buf[3], 40);
	assert_true(buf[28] == 0x51 && buf[29] == 0x94 && buf[30] == 0xee);
	/* another page: untouched */
	cdb[2] = 0x80;
	buf[1] = 0x80;
	assert_int_equal(alua_patch_inquiry(1, 1, cdb, sizeof(cdb), buf, 28, sizeof(buf)), 28);
	assert_int_equal(buf[3], 40);
}

static void spec(void **state)
{
	struct alua_spec s;
	char err[160];

	(void)state;
	assert_true(alua_spec_parse("lun=3,tpg=2,state=standby,pref=1,transition=1500", &s, err, sizeof(err)));
	assert_true(s.has_lun && s.lun == 3 && s.tpg == 2 && s.state == ALUA_STANDBY && s.pref == 1 &&
		    s.transition_ms == 1500);
	assert_true(alua_spec_parse("tpg=1,state=active/non-optimized", &s, err, sizeof(err)));
	assert_true(!s.has_lun && s.state == ALUA_ANO && s.pref == -1);
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "", "want lun=N,tpg=N,state=STATE[,pref=0|1][,transition=MS] (at most 255 bytes)" },
		{ "state=ao", "tpg= missing (want lun=N,tpg=N,state=STATE)" },
		{ "tpg=1", "state= missing (want lun=N,tpg=N,state=STATE)" },
		{ "tpg=0,state=ao", "tpg=0: want a portal group tag 1..65535" },
		{ "tpg=1,state=sleepy", "state=sleepy: want ao, ano, standby, unavailable or transitioning" },
		{ "tpg=1,state=ao,pref=2", "pref=2: want 0 or 1" },
		{ "tpg=1,state=ao,lun=16384", "lun=16384: want a LUN 0..16383" },
		{ "tpg=1,state=ao,transition=600001", "transition=600001: want milliseconds 0..600000" },
		{ "tpg=1,tpg=2,state=ao", "tpg: given twice" },
		{ "tpg=1,state=ao,colour=red", "colour: unknown key (lun, tpg, state, pref, transition)" },
		{ "tpg=1,state=ao,c\tx=1", "c?x: unknown key (lun, tpg, state, pref, transition)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(alua_spec_parse(bad[i].in, &s, err, sizeof(err)));
		assert_string_equal(err, bad[i].msg);
	}
	enum alua_state st;
	assert_true(alua_state_parse("t", &st) && st == ALUA_TRANSITIONING);
	assert_string_equal(alua_state_name(ALUA_UNAVAILABLE), "unavailable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(implicit_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(timed_transition, setup, teardown),
		cmocka_unit_test_setup_teardown(filters, setup, teardown),
		cmocka_unit_test_setup_teardown(report, setup, teardown),
		cmocka_unit_test_setup_teardown(set_tpgs, setup, teardown),
		cmocka_unit_test_setup_teardown(inquiry_patch, setup, teardown),
		cmocka_unit_test_setup_teardown(spec, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
