/* test_portal.c — --listen portals (target/iscsi/portal.c): the advertise=
 * and tpg= options and every refusal, opening portals (names, advertised
 * names, groups), finding one by number or address, and setting one down
 * (connections refused) and up again on the very same port. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"

static void spec_ok(void **state)
{
	struct portal_spec s;
	char err[200];

	(void)state;
	assert_true(portal_spec_parse("127.0.0.1:3260", &s, err, sizeof(err)));
	assert_string_equal(s.listen, "127.0.0.1:3260");
	assert_true(!s.adv_host[0] && s.tpgt == 0);
	assert_true(portal_spec_parse("0.0.0.0:3261,advertise=10.0.2.2:3262,tpg=7", &s, err, sizeof(err)));
	assert_string_equal(s.listen, "0.0.0.0:3261");
	assert_string_equal(s.adv_host, "10.0.2.2");
	assert_true(s.adv_port == 3262 && s.tpgt == 7 && !s.adv_v6);
	assert_true(portal_spec_parse("[::1]:3260,tpg=2,advertise=[fd00::5]", &s, err, sizeof(err)));
	assert_string_equal(s.listen, "[::1]:3260");
	assert_true(s.adv_v6 && s.adv_port == 0 && s.tpgt == 2);
	assert_string_equal(s.adv_host, "fd00::5");
	assert_true(portal_spec_parse("127.0.0.1,advertise=array.example.com", &s, err, sizeof(err)));
	assert_string_equal(s.adv_host, "array.example.com");
}

static void spec_refused(void **state)
{
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "127.0.0.1:1,tpg=0", "tpg=0: want a portal group tag 1..65535" },
		{ "127.0.0.1:1,tpg=65536", "tpg=65536: want a portal group tag 1..65535" },
		{ "127.0.0.1:1,tpg=x", "tpg=x: want a portal group tag 1..65535" },
		{ "127.0.0.1:1,advertise=", "advertise=: want HOST[:PORT] or [IPv6][:PORT] (what SendTargets reports for this portal)" },
		{ "127.0.0.1:1,advertise=a b:1", "advertise=a b:1: want HOST[:PORT] or [IPv6][:PORT] (what SendTargets reports for this portal)" },
		{ "127.0.0.1:1,advertise=fd00::1", "advertise=fd00::1: want HOST[:PORT] or [IPv6][:PORT] (what SendTargets reports for this portal)" },
		{ "127.0.0.1:1,advertise=h:0", "advertise=h:0: want HOST[:PORT] or [IPv6][:PORT] (what SendTargets reports for this portal)" },
		{ "127.0.0.1:1,advertise=h:70000", "advertise=h:70000: want HOST[:PORT] or [IPv6][:PORT] (what SendTargets reports for this portal)" },
		{ "127.0.0.1:1,tpg=1,tpg=2", "tpg: given twice" },
		{ "127.0.0.1:1,colour=red", "colour: unknown key (advertise=HOST[:PORT], tpg=N)" },
		{ "127.0.0.1:1,down", "'down' is not key=value (advertise=HOST[:PORT], tpg=N)" },
		{ "127.0.0.1:1,a\nb", "'a?b' is not key=value (advertise=HOST[:PORT], tpg=N)" },
	};
	struct portal_spec s;
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (portal_spec_parse(bad[i].in, &s, err, sizeof(err)) || strcmp(err, bad[i].msg) != 0)
			fail_msg("case %zu '%s'\n  want: %s\n  got:  %s", i, bad[i].in, bad[i].msg, err);
	}
}

static bool connects(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	bool ok;

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static void open_down_up(void **state)
{
	struct portal_spec s[2];
	char err[200], name[80];
	unsigned port;

	(void)state;
	assert_true(portal_spec_parse("127.0.0.1:0", &s[0], err, sizeof(err)));
	assert_true(portal_spec_parse("127.0.0.1:0,tpg=5,advertise=10.0.2.2:4000", &s[1], err, sizeof(err)));
	assert_int_equal(portals_open(s, 2), 0);
	assert_int_equal(g_target.nportals, 2);
	port = g_target.portals[1].port;
	snprintf(name, sizeof(name), "127.0.0.1:%u", port);
	assert_string_equal(g_target.portals[1].name, name);
	assert_string_equal(g_target.portals[1].adv_name, "10.0.2.2:4000");
	assert_string_equal(g_target.portals[0].adv_name, "");
	assert_int_equal(target_portal_tpgt(0), g_target.tpgt); /* no tpg=: --portal-group */
	assert_int_equal(target_portal_tpgt(1), 5);
	assert_int_equal(target_portal_tpgt(-1), g_target.tpgt);
	/* numbered from 1, as XMS iscsi-portals */
	assert_int_equal(portal_find("1"), 0);
	assert_int_equal(portal_find("2"), 1);
	assert_int_equal(portal_find(name), 1);
	assert_int_equal(portal_find("10.0.2.2:4000"), 1);
	assert_int_equal(portal_find("0"), -1);
	assert_int_equal(portal_find("3"), -1);
	assert_int_equal(portal_find("10.9.9.9:1"), -1);

	assert_true(connects(port));
	assert_int_equal(portal_set_down(1, true, err, sizeof(err)), 0);
	assert_true(portal_is_down(1));
	assert_false(portal_is_down(0));
	assert_false(connects(port)); /* refused */
	assert_int_equal(portal_set_down(1, true, err, sizeof(err)), 0); /* again: no change */
	assert_int_equal(portal_set_down(1, false, err, sizeof(err)), 0);
	assert_false(portal_is_down(1));
	assert_true(connects(port)); /* the same port as before */
	assert_int_equal(portal_set_down(7, true, err, sizeof(err)), -1);
	assert_string_equal(err, "no portal 7 (there are 2)");

	portal_conn_change(0, 1);
	portal_conn_change(0, 1);
	portal_conn_change(0, -1);
	assert_int_equal(portal_connections(0), 1);
	portal_conn_change(0, -1);
	assert_int_equal(portal_connections(0), 0);
	portals_close_all();
	assert_false(connects(port));
	g_target.nportals = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spec_ok),
		cmocka_unit_test(spec_refused),
		cmocka_unit_test(open_down_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
