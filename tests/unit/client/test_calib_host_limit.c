/* test_calib_host_limit.c - client/calib_host_limit.c: when calibrate says a rate was set by
 * the measuring host.  The rule is tested here on controlled figures, so that the tests against
 * a real peer (tests/calibrate/tgt.sh) need not guess which side of a threshold noise puts a
 * measurement on: they check only that the verdict is reported consistently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/calib_host_limit.h"

static struct calib_host_obs quiet(void)
{
	/* 1,000 4 MiB READs/s is 4.19 GB/s; a quiet client, a fast transport, a fast loopback */
	return (struct calib_host_obs){ .rate = 100, .bytes = 4u << 20, .moves_data = true,
					.cpu_share = 0.2, .nop_rate = 50000, .loopback_mb_s = 5000 };
}

static void nothing_limited(void **state)
{
	(void)state;
	struct calib_host_obs o = quiet();
	char why[200] = "stale";
	assert_false(calib_host_limited(&o, why, sizeof(why)));
	assert_string_equal(why, "");
}

static void client_cpu(void **state)
{
	(void)state;
	struct calib_host_obs o = quiet();
	char why[200];
	o.cpu_share = 0.8499;
	assert_false(calib_host_limited(&o, why, sizeof(why)));
	o.cpu_share = 0.85;
	assert_true(calib_host_limited(&o, why, sizeof(why)));
	assert_string_equal(why, "lunlab-bench used 85% of a core");
}

static void transport_turnaround(void **state)
{
	(void)state;
	struct calib_host_obs o = quiet();
	char why[200];
	o.bytes = 512;
	o.rate = 29999;   /* just under 60% of 50,000 NOP-Outs/s */
	assert_false(calib_host_limited(&o, why, sizeof(why)));
	o.rate = 30000;
	assert_true(calib_host_limited(&o, why, sizeof(why)));
	assert_string_equal(why, "30000 commands/s, 60% of the 50000 NOP-Outs/s the transport alone turns around");
	o.nop_rate = 0;   /* not measured: that limit is not judged */
	assert_false(calib_host_limited(&o, why, sizeof(why)));
}

static void loopback_share(void **state)
{
	(void)state;
	struct calib_host_obs o = quiet();
	char why[200];
	o.bytes = 1000000;
	o.rate = 1749;    /* 1,749 MB/s: just under 35% of 5,000 */
	assert_false(calib_host_limited(&o, why, sizeof(why)));
	o.rate = 1750;
	assert_true(calib_host_limited(&o, why, sizeof(why)));
	assert_string_equal(why, "1750 MB/s, over a third of this host's own loopback TCP (5000 MB/s)");
	/* commands whose data does not cross the connection are not limited by it */
	o.moves_data = false;
	assert_false(calib_host_limited(&o, why, sizeof(why)));
	o.moves_data = true;
	o.loopback_mb_s = 0;
	assert_false(calib_host_limited(&o, why, sizeof(why)));
}

static void first_limit_named(void **state)
{
	(void)state;
	struct calib_host_obs o = quiet();
	char why[200];
	o.cpu_share = 0.95;
	o.bytes = 1000000;
	o.rate = 4000;    /* over the loopback too: the client's CPU is named first */
	assert_true(calib_host_limited(&o, why, sizeof(why)));
	assert_string_equal(why, "lunlab-bench used 95% of a core");
	char tiny[8];
	assert_true(calib_host_limited(&o, tiny, sizeof(tiny)));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_limited),
		cmocka_unit_test(client_cpu),
		cmocka_unit_test(transport_turnaround),
		cmocka_unit_test(loopback_share),
		cmocka_unit_test(first_limit_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
