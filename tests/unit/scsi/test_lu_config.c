/* test_lu_config.c — the cfgstring parser (lu_config.c): defaults, every
 * key, and one-line reasons that name the key and value at fault. */
#include "fixture.h"
#include "handlers/scsi/lu_config.h"
#include "models/cost_virtual.h"

static void test_defaults(void **state)
{
	struct lu_config c;
	char *why = NULL;
	assert_int_equal(lu_config_parse("lunlab/", &c, &why), 0);
	assert_null(why);
	assert_string_equal(c.model, "x2");
	assert_string_equal(c.array, "");
	assert_string_equal(c.serial, "");
	assert_true(c.time_scale == 1.0);
	assert_false(c.readonly);
	assert_int_equal(c.physical_block, 0);
	assert_string_equal(c.volume, "");
	assert_int_equal(c.array_capacity, 0);
	assert_int_equal(c.soft_threshold, -1); /* not given: the profile's */
	assert_int_equal(lu_config_parse(NULL, &c, &why), 0);
}

static void test_all_keys(void **state)
{
	struct lu_config c;
	char *why = NULL;
	assert_int_equal(lu_config_parse("lunlab/model=x2;array=b;serial=abc;time_scale=2.5;", &c, &why), 0);
	assert_string_equal(c.model, "x2");
	assert_string_equal(c.array, "b");
	assert_string_equal(c.serial, "abc");
	assert_true(c.time_scale == 2.5);
	/* without the subtype prefix too */
	assert_int_equal(lu_config_parse("time_scale=0", &c, &why), 0);
	assert_true(c.time_scale == 0.0);
	assert_int_equal(lu_config_parse("time_scale=virtual", &c, &why), 0);
	assert_int_equal(cost_time_virtual_streams(c.time_scale), 4);
	assert_int_equal(lu_config_parse("host_streams=16;time_scale=virtual", &c, &why), 0);
	assert_int_equal(cost_time_virtual_streams(c.time_scale), 16);
	assert_int_equal(lu_config_parse("host_streams=session;time_scale=virtual", &c, &why), 0);
	assert_true(c.host_sessions);
	assert_int_equal(cost_time_virtual_streams(c.time_scale), 1);
	assert_int_equal(lu_config_parse("time_scale=2", &c, &why), 0);
	assert_int_equal(cost_time_virtual_streams(c.time_scale), 0);
	assert_int_equal(lu_config_parse("lunlab/readonly=1;physical_block=4096", &c, &why), 0);
	assert_true(c.readonly);
	assert_int_equal(c.physical_block, 4096);
	assert_int_equal(lu_config_parse("readonly=0;physical_block=4194304", &c, &why), 0);
	assert_false(c.readonly);
	assert_int_equal(c.physical_block, 4194304);
	assert_false(c.xtremio_identity); /* the default: lunlab's own */
	assert_int_equal(lu_config_parse("identity=xtremio", &c, &why), 0);
	assert_true(c.xtremio_identity);
	assert_int_equal(lu_config_parse("identity=lunlab", &c, &why), 0);
	assert_false(c.xtremio_identity);
	assert_int_equal(c.tpgs, -1); /* not given: the profile decides */
	static const char *const tpgs[] = { "tpgs=off", "tpgs=implicit", "tpgs=explicit", "tpgs=both" };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(lu_config_parse(tpgs[i], &c, &why), 0);
		assert_int_equal(c.tpgs, i);
	}
	/* named volumes and the array's capacity */
	assert_int_equal(lu_config_parse("lunlab/array=a;volume=vol-1:x_y.z;array_capacity=64M;soft_threshold=75", &c,
					 &why), 0);
	assert_string_equal(c.volume, "vol-1:x_y.z");
	assert_int_equal(c.array_capacity, 64ull << 20);
	assert_int_equal(c.soft_threshold, 75);
	assert_int_equal(lu_config_parse("array_capacity=5400000000000;soft_threshold=0%", &c, &why), 0);
	assert_int_equal(c.array_capacity, 5400000000000ull);
	assert_int_equal(c.soft_threshold, 0);
	assert_int_equal(lu_config_parse("array_capacity=2t;soft_threshold=100%", &c, &why), 0);
	assert_int_equal(c.array_capacity, 2ull << 40);
	assert_int_equal(c.soft_threshold, 100);
	assert_int_equal(lu_config_parse("array_capacity=1048576T", &c, &why), 0);
	assert_int_equal(c.array_capacity, 1ull << 60);
	char longname[160] = "array=a;volume=";
	size_t at = strlen(longname);
	memset(longname + at, 'v', 127); /* the longest name */
	longname[at + 127] = '\0';
	assert_int_equal(lu_config_parse(longname, &c, &why), 0);
	assert_int_equal(strlen(c.volume), 127);
}

static void expect_reason(const char *cfg, const char *want)
{
	struct lu_config c;
	char *why = NULL;
	assert_int_equal(lu_config_parse(cfg, &c, &why), -1);
	assert_non_null(why);
	if (strstr(why, want) == NULL)
		fail_msg("reason '%s' lacks '%s'", why, want);
	assert_null(strchr(why, '\n'));
	free(why);
}

static void test_rejects(void **state)
{
	expect_reason("lunlab/modle=x2",
		      "unknown key 'modle' (known: model, profile, array, serial, time_scale, host_streams, readonly, "
		      "physical_block, volume, array_capacity, soft_threshold, tpgs, state_dir, identity)");
	expect_reason("lunlab/tpgs=yes", "tpgs 'yes': want off, implicit, explicit or both");
	expect_reason("lunlab/readonly=yes", "readonly 'yes': want 0 or 1");
	expect_reason("lunlab/identity=XtremIO", "identity 'XtremIO': want lunlab or xtremio");
	expect_reason("lunlab/physical_block=3000", "physical_block '3000': want a power of two");
	expect_reason("lunlab/physical_block=256", "physical_block '256'");
	expect_reason("lunlab/physical_block=8388608", "physical_block '8388608'");
	expect_reason("lunlab/physical_block=-4096", "physical_block '-4096'");
	expect_reason("lunlab/physical_block=", "physical_block ''");
	expect_reason("lunlab/model=x9", "model 'x9': unknown profile (");
	expect_reason("lunlab/time_scale=-1", "time_scale '-1'");
	expect_reason("lunlab/time_scale=virtual;host_streams=0", "host_streams '0': want 1..4096 or session");
	expect_reason("lunlab/time_scale=virtual;host_streams=4097", "host_streams '4097': want 1..4096 or session");
	expect_reason("lunlab/host_streams=8", "host_streams '8': only with time_scale=virtual");
	expect_reason("lunlab/host_streams=session", "host_streams 'session': only with time_scale=virtual");
	expect_reason("lunlab/time_scale=virtual;host_streams=sessions", "host_streams 'sessions': want 1..4096 or session");
	expect_reason("lunlab/time_scale=fast", "time_scale 'fast'");
	expect_reason("lunlab/array=a b", "array 'a b'");
	expect_reason("lunlab/serial=", "serial ''");
	expect_reason("lunlab/model", "'model': want key=value");
	expect_reason("other/model=x2", "subtype must be 'lunlab'");
	expect_reason("lunlab/model=x\n2", "model 'x?2': unknown profile"); /* one line, whatever the value */
	expect_reason("lunlab/volume=v1", "volume 'v1': needs array=NAME");
	expect_reason("lunlab/array=a;volume=", "volume '': want 1..127 printable characters");
	expect_reason("lunlab/array=a;volume=a b", "volume 'a b'");
	expect_reason("lunlab/array=a;volume=a,b", "volume 'a,b'");
	expect_reason("lunlab/array=a;volume=a=b", "volume 'a=b'");
	expect_reason("lunlab/array=a;volume=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
		      "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv", "volume 'vvv");
	expect_reason("lunlab/array_capacity=64X", "array_capacity '64X': want a size from 1M to 1048576T");
	expect_reason("lunlab/array_capacity=1023K", "array_capacity '1023K'");
	expect_reason("lunlab/array_capacity=1048577T", "array_capacity '1048577T'");
	expect_reason("lunlab/array_capacity=99999999999999999999", "array_capacity '99999999999999999999'");
	expect_reason("lunlab/array_capacity=-64M", "array_capacity '-64M'");
	expect_reason("lunlab/array_capacity=64MM", "array_capacity '64MM'");
	expect_reason("lunlab/array_capacity=", "array_capacity ''");
	expect_reason("lunlab/soft_threshold=101", "soft_threshold '101': want a percentage of the capacity, 0..100");
	expect_reason("lunlab/soft_threshold=-1", "soft_threshold '-1'");
	expect_reason("lunlab/soft_threshold=50%%", "soft_threshold '50%%'");
	expect_reason("lunlab/soft_threshold=", "soft_threshold ''");
	expect_reason("lunlab/state_dir=relative/dir", "state_dir 'relative/dir': want an absolute path");
	expect_reason("lunlab/state_dir=", "state_dir '': want an absolute path");
	expect_reason("lunlab/state_dir=/with space", "state_dir '/with space'");
}

static void test_state_dir(void **state)
{
	struct lu_config c;
	char *why = NULL;

	(void)state;
	assert_int_equal(lu_config_parse("lunlab/array=a;state_dir=/var/lib/lunlab", &c, &why), 0);
	assert_string_equal(c.state_dir, "/var/lib/lunlab");
	assert_int_equal(lu_config_parse("lunlab/array=a", &c, &why), 0);
	assert_string_equal(c.state_dir, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_state_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
