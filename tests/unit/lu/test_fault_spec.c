/* test_fault_spec.c — --fault SPEC (target/lu/fault_spec.c): every key's
 * exact value, the canonical text (parse -> format -> parse gives the same
 * rule), and every refusal with its exact one-line message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/lu/fault_spec.h"

static struct fault_spec parse_ok(const char *text)
{
	struct fault_spec s;
	char err[256] = "";

	if (!fault_spec_parse(text, &s, err, sizeof(err)))
		fail_msg("'%s' refused: %s", text, err);
	return s;
}

static void match_keys(void **state)
{
	struct fault_spec s = parse_ok("lun=3,op=read,lba=2048-4095,initiator=iqn.1993-08.org.debian:01:ab,"
				       "portal=127.0.0.1:3260,sense=03/11/00");

	(void)state;
	assert_true(s.has_lun);
	assert_int_equal(s.lun, 3);
	assert_int_equal(s.op, FAULT_OP_READ);
	assert_true(s.has_lba);
	assert_true(s.lba_first == 2048 && s.lba_last == 4095);
	assert_string_equal(s.initiator, "iqn.1993-08.org.debian:01:ab");
	assert_string_equal(s.portal, "127.0.0.1:3260");
	assert_int_equal(s.action, FAULT_ACT_SENSE);
	assert_int_equal(s.key, 3);
	assert_int_equal(s.asc, 0x11);
	assert_int_equal(s.ascq, 0);
	/* defaults: every command that fits, always, for ever */
	assert_true(s.every == 1 && s.count == 0 && !s.has_p && !s.has_window);

	s = parse_ok("op=0x2A,lba=7,status=busy");
	assert_int_equal(s.op, FAULT_OP_OPCODE);
	assert_int_equal(s.opcode, 0x2a);
	assert_true(s.lba_first == 7 && s.lba_last == 7);
	assert_int_equal(s.status, 0x08);
	s = parse_ok("op=35,hold");
	assert_int_equal(s.opcode, 0x35);
	assert_int_equal(s.action, FAULT_ACT_HOLD);
	s = parse_ok("lba=18446744073709551615,drop");
	assert_true(s.lba_first == UINT64_MAX);
	assert_int_equal(s.op, FAULT_OP_ANY);
	assert_false(s.drop_after);
	const char *ops[] = { "any", "read", "write", "xcopy", "unmap", "caw", "tur", "sync" };
	for (int i = 0; i < 8; i++) {
		char t[64];
		snprintf(t, sizeof(t), "op=%s,corrupt", ops[i]);
		assert_int_equal(parse_ok(t).op, (enum fault_op)i);
	}
}

static void triggers(void **state)
{
	struct fault_spec s = parse_ok("every=10,p=0.25,seed=42,count=3,window=1.5-70,status=task-set-full");

	(void)state;
	assert_true(s.every == 10 && s.count == 3 && s.seed == 42);
	assert_true(s.has_p && s.p == 0.25);
	assert_true(s.has_window && s.window_start_ms == 1500 && s.window_end_ms == 70000);
	assert_int_equal(s.status, 0x28);
	s = parse_ok("p=1e-3,status=reservation-conflict");
	assert_true(s.p == 0.001 && s.seed == 1); /* the default seed: runs repeat */
	assert_int_equal(s.status, 0x18);
}

static void actions(void **state)
{
	struct fault_spec s;

	(void)state;
	s = parse_ok("delay=250");
	assert_true(s.action == FAULT_ACT_DELAY && s.delay_kind == FAULT_DELAY_FIXED && s.delay_a_us == 250000);
	s = parse_ok("delay=0.5-2.25");
	assert_true(s.delay_kind == FAULT_DELAY_UNIFORM && s.delay_a_us == 500 && s.delay_b_us == 2250);
	s = parse_ok("delay=exp:12");
	assert_true(s.delay_kind == FAULT_DELAY_EXP && s.delay_a_us == 12000);
	s = parse_ok("drop=after");
	assert_true(s.action == FAULT_ACT_DROP && s.drop_after);
	s = parse_ok("drop=before");
	assert_false(s.drop_after);
	s = parse_ok("op=xcopy,xcopy-fail-after=2");
	assert_true(s.action == FAULT_ACT_XCOPY_FAIL && s.xcopy_segments == 2 && !s.has_sense);
	/* a sense may qualify it, before or after */
	s = parse_ok("sense=0b/0d/01,op=xcopy,xcopy-fail-after=0");
	assert_true(s.action == FAULT_ACT_XCOPY_FAIL && s.has_sense && s.key == SCSI_SK_ABORTED_COMMAND &&
		    scsi_asc_pair(s.asc, s.ascq) == SCSI_ASC_THIRD_PARTY_DEVICE_FAILURE);
	s = parse_ok("xcopy-fail-after=1"); /* op=xcopy implied */
	assert_int_equal(s.op, FAULT_OP_XCOPY);
	s = parse_ok("op=0x83,xcopy-fail-after=1");
	assert_int_equal(s.action, FAULT_ACT_XCOPY_FAIL);
	s = parse_ok("corrupt");
	assert_int_equal(s.action, FAULT_ACT_CORRUPT);
	/* ODX: the commands by name, and a WRITE USING TOKEN stopped after N blocks */
	s = parse_ok("op=populate-token,sense=medium-error");
	assert_int_equal(s.op, FAULT_OP_POPULATE_TOKEN);
	s = parse_ok("op=rrti,status=busy");
	assert_int_equal(s.op, FAULT_OP_RRTI);
	s = parse_ok("op=copy-abort,hold");
	assert_int_equal(s.op, FAULT_OP_COPY_ABORT);
	s = parse_ok("odx-fail-after=4096"); /* op=write-using-token implied */
	assert_true(s.action == FAULT_ACT_ODX_FAIL && s.op == FAULT_OP_WRITE_USING_TOKEN && s.xcopy_segments == 4096);
	s = parse_ok("sense=07/27/07,op=write-using-token,odx-fail-after=0");
	assert_true(s.action == FAULT_ACT_ODX_FAIL && s.has_sense && s.key == SCSI_SK_DATA_PROTECT &&
		    s.xcopy_segments == 0);
	/* named senses */
	static const struct {
		const char *name;
		uint8_t k, a, q;
	} names[] = {
		{ "medium-error", 3, 0x11, 0 }, { "not-ready", 2, 4, 1 }, { "transitioning", 2, 4, 0x0a },
		{ "standby", 2, 4, 0x0b }, { "unavailable", 2, 4, 0x0c }, { "reset", 6, 0x29, 0 },
		{ "internal-target-failure", 0x0b, 0x44, 0 }, { "invalid-parameter", 5, 0x26, 0 },
		{ "third-party-device-failure", 0x0b, 0x0d, 1 }, { "copy-target-unreachable", 0x0a, 0x0d, 2 },
		{ "space-exhausted", 7, 0x27, 7 }, { "soft-threshold", 6, 0x38, 7 },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char t[64];
		snprintf(t, sizeof(t), "sense=%s", names[i].name);
		s = parse_ok(t);
		assert_true(s.key == names[i].k && s.asc == names[i].a && s.ascq == names[i].q);
	}
}

/* canonical text: fixed key order, hex sense; reading it back gives the same rule */
static void format_round_trip(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "sense=medium-error,lba=2048-4095,op=read,lun=0", "lun=0,op=read,lba=2048-4095,sense=03/11/00" },
		{ "hold", "hold" },
		{ "op=0x9e,count=1,status=busy", "op=0x9e,count=1,status=busy" },
		{ "every=3,p=0.1,seed=9,delay=1.25", "every=3,p=0.1,seed=9,delay=1.25" },
		{ "p=0.5,delay=exp:20", "p=0.5,seed=1,delay=exp:20" },
		{ "window=0.25-2,delay=3-4.5", "window=0.25-2,delay=3-4.5" },
		{ "initiator=iqn.a:b,portal=[::1]:3260,drop", "initiator=iqn.a:b,portal=[::1]:3260,drop=before" },
		{ "xcopy-fail-after=3,sense=0a/0d/02", "op=xcopy,xcopy-fail-after=3,sense=0a/0d/02" },
		{ "odx-fail-after=16,sense=07/27/07", "op=write-using-token,odx-fail-after=16,sense=07/27/07" },
		{ "op=rrti,hold", "op=rrti,hold" },
		{ "op=write,lba=5,corrupt", "op=write,lba=5-5,corrupt" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fault_spec a = parse_ok(cases[i].in), b;
		char text[FAULT_SPEC_MAX], text2[FAULT_SPEC_MAX];
		int n = fault_spec_format(&a, text, sizeof(text));

		assert_int_equal(n, (int)strlen(cases[i].out));
		assert_string_equal(text, cases[i].out);
		b = parse_ok(text);
		fault_spec_format(&b, text2, sizeof(text2));
		assert_string_equal(text2, text);
		assert_memory_equal(&a.lba_first, &b.lba_first, sizeof(a.lba_first));
		assert_true(a.p == b.p && a.seed == b.seed && a.every == b.every && a.count == b.count);
	}
	/* a short buffer gets a cut string and the length it needed */
	struct fault_spec s = parse_ok("lun=0,op=read,lba=2048-4095,sense=03/11/00");
	char small[8];
	assert_int_equal(fault_spec_format(&s, small, sizeof(small)), 42);
	assert_string_equal(small, "lun=0,o");
}

static void refusals(void **state)
{
	static const struct {
		const char *in, *msg;
	} cases[] = {
		{ "", "empty fault rule" },
		{ ",,,", "empty fault rule" },
		{ "lun=0", "no action: give one of sense=, status=, delay=, hold, drop, xcopy-fail-after=, corrupt" },
		{ "lun=16384,hold", "lun=16384: want a LUN 0..16383" },
		{ "lun=-1,hold", "lun=-1: want a LUN 0..16383" },
		{ "lun,hold", "lun: want a LUN 0..16383" },
		{ "op=raed,hold", "op=raed: unknown command kind (read, write, xcopy, unmap, caw, tur, sync, any, "
				  "or an opcode in hex such as 0x28)" },
		{ "op=0x123,hold", "op=0x123: unknown command kind (read, write, xcopy, unmap, caw, tur, sync, any, "
				   "or an opcode in hex such as 0x28)" },
		{ "lba=10-5,hold", "lba=10-5: FIRST is above LAST" },
		{ "lba=1-2-3,hold", "lba=1-2-3: want FIRST-LAST (decimal LBAs) or one LBA" },
		{ "lba=18446744073709551616,hold", "lba=18446744073709551616: want FIRST-LAST (decimal LBAs) or one LBA" },
		{ "lba=0x10,hold", "lba=0x10: want FIRST-LAST (decimal LBAs) or one LBA" },
		{ "initiator=a b,hold", "initiator=a b: want an iSCSI name (printable, no spaces, at most 223 bytes)" },
		{ "portal=10.0.0.1,hold", "portal=10.0.0.1: want HOST:PORT of a --listen portal (or its advertise= address)" },
		{ "every=0,hold", "every=0: want a number 1..4294967295" },
		{ "count=0,hold", "count=0: want a number 1..4294967295" },
		{ "p=0,hold", "p=0: want a probability 0 < p <= 1 (e.g. 0.01)" },
		{ "p=1.5,hold", "p=1.5: want a probability 0 < p <= 1 (e.g. 0.01)" },
		{ "p=nan,hold", "p=nan: want a probability 0 < p <= 1 (e.g. 0.01)" },
		{ "seed=5,hold", "seed: only means something with p=" },
		{ "window=5-5,hold", "window=5-5: END must be after START" },
		{ "window=5,hold", "window=5: want START-END in seconds after the rule is added (e.g. 10-70)" },
		{ "sense=3/11", "sense=3/11: want KK/AA/QQ in hex (key 0..F), or a name such as medium-error, "
				"not-ready, reset (docs/faults.md)" },
		{ "sense=10/11/00", "sense=10/11/00: want KK/AA/QQ in hex (key 0..F), or a name such as medium-error, "
				   "not-ready, reset (docs/faults.md)" },
		{ "sense=bogus", "sense=bogus: want KK/AA/QQ in hex (key 0..F), or a name such as medium-error, "
				 "not-ready, reset (docs/faults.md)" },
		{ "status=sleepy", "status=sleepy: want busy, task-set-full or reservation-conflict" },
		{ "delay=abc", "delay=abc: want MS, MIN-MAX or exp:MEAN in milliseconds (up to 3 decimals, at most 600000)" },
		{ "delay=1.2345", "delay=1.2345: want MS, MIN-MAX or exp:MEAN in milliseconds (up to 3 decimals, at most 600000)" },
		{ "delay=600001", "delay=600001: want MS, MIN-MAX or exp:MEAN in milliseconds (up to 3 decimals, at most 600000)" },
		{ "delay=exp:0", "delay=exp:0: want MS, MIN-MAX or exp:MEAN in milliseconds (up to 3 decimals, at most 600000)" },
		{ "delay=9-3", "delay=9-3: MIN is above MAX" },
		{ "hold=1", "hold=1: takes no value" },
		{ "corrupt=yes", "corrupt=yes: takes no value" },
		{ "drop=sideways", "drop=sideways: want drop, drop=before or drop=after" },
		{ "xcopy-fail-after=-1", "xcopy-fail-after=-1: want a number of segments 0..65535" },
		{ "op=read,xcopy-fail-after=1", "xcopy-fail-after: only EXTENDED COPY has segments (use op=xcopy)" },
		{ "odx-fail-after=x", "odx-fail-after=x: want a number of blocks 0..4294967295" },
		{ "op=xcopy,odx-fail-after=1", "odx-fail-after: only WRITE USING TOKEN writes blocks from a token "
					       "(use op=write-using-token)" },
		{ "hold,drop", "drop: a rule takes one action (sense, status, delay, hold, drop, xcopy-fail-after, corrupt)" },
		{ "sense=reset,status=busy", "status: a rule takes one action (sense, status, delay, hold, drop, "
					     "xcopy-fail-after, corrupt)" },
		{ "lun=1,lun=2,hold", "lun: given twice" },
		{ "colour=red,hold", "colour: unknown key (match: lun op lba initiator portal; trigger: every p seed count "
				     "window; action: sense status delay hold drop xcopy-fail-after odx-fail-after corrupt)" },
		{ "=5,hold", "'=5': a value without a key" },
		{ "LUN=1,hold", "'LUN': not a key (keys are lower case: lun, op, lba, ...)" },
		/* a control byte anywhere: still one printable line (fuzz-fault-spec found it) */
		{ "ll\nbn=u", "ll?bn: unknown key (match: lun op lba initiator portal; trigger: every p seed count window; "
			       "action: sense status delay hold drop xcopy-fail-after odx-fail-after corrupt)" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fault_spec s;
		char err[256] = "";
		bool ok = fault_spec_parse(cases[i].in, &s, err, sizeof(err));

		if (ok || strcmp(err, cases[i].msg) != 0)
			fail_msg("case %zu '%s'\n  want: %s\n  got:  %s (ok %d)", i, cases[i].in, cases[i].msg, err, ok);
	}
	/* too long: refused before anything is read */
	char big[FAULT_SPEC_MAX + 8];
	struct fault_spec s;
	char err[128];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(fault_spec_parse(big, &s, err, sizeof(err)));
	assert_string_equal(err, "longer than 512 bytes");
	assert_false(fault_spec_parse(NULL, &s, err, sizeof(err)));
}

/* the mapping form of the config file builds the same rule key by key */
static void key_by_key(void **state)
{
	struct fault_spec s;
	char err[128];

	(void)state;
	fault_spec_init(&s);
	assert_true(fault_spec_key(&s, "lun", "2", err, sizeof(err)));
	assert_true(fault_spec_key(&s, "hold", NULL, err, sizeof(err)));
	assert_true(fault_spec_finish(&s, err, sizeof(err)));
	assert_true(s.has_lun && s.lun == 2 && s.action == FAULT_ACT_HOLD);
	fault_spec_init(&s);
	assert_true(fault_spec_key(&s, "lun", "2", err, sizeof(err)));
	assert_false(fault_spec_finish(&s, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(match_keys),   cmocka_unit_test(triggers), cmocka_unit_test(actions),
		cmocka_unit_test(format_round_trip), cmocka_unit_test(refusals), cmocka_unit_test(key_by_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
