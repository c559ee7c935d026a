/* test_lunlab_api.c — the lunlab namespace of the API (target/api/lunlab_api.c)
 * over real HTTPS on 127.0.0.1: fault rules added (SPEC or keys as fields),
 * listed with counts, fetched and removed, every error body exactly; a
 * portal listed, set down (its listener refuses) and up by number and by
 * address; ALUA states listed and set, with the refusals.  The LU behind
 * ALUA is a bare backend that reports implicit ALUA. */
#include <arpa/inet.h>
#include <json-c/json.h>
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

#include "lunlab/scsi_vocab.h"
#include "api_test_http.h"
#include "target/api/api_router.h"
#include "target/api/api_server.h"
#include "target/api/lunlab_api.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"
#include "target/lu/alua.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_table.h"

#define USER "admin:Xtrem10secret"

static struct auth_config auth;
static unsigned port;
static struct lu_backend plain = { .tpgs = 0, .block_size = 512, .num_lbas = 2048 },
			 alua_lu = { .tpgs = 1, .block_size = 4096, .num_lbas = 256 };

static void quiet(const char *fmt, ...)
{
	(void)fmt;
}

static int setup(void **state)
{
	char err[256];
	struct api_server_cfg cfg = { .listen = "127.0.0.1:0", .auth = &auth, .log = quiet };
	struct portal_spec ps[2];
	uint16_t ids[2];

	(void)state;
	g_target.quiet = true;
	memset(&auth, 0, sizeof(auth));
	assert_true(auth_config_add_api_user(&auth, "admin", "Xtrem10secret", err, sizeof(err)));
	assert_true(portal_spec_parse("127.0.0.1:0", &ps[0], err, sizeof(err)));
	assert_true(portal_spec_parse("127.0.0.1:0,tpg=3,advertise=10.0.2.2:3260", &ps[1], err, sizeof(err)));
	assert_int_equal(portals_open(ps, 2), 0);
	ids[0] = target_portal_tpgt(0);
	ids[1] = target_portal_tpgt(1);
	alua_set_groups(ids, 2);
	lu_table_reset();
	assert_int_equal(lu_table_add(&plain), 0);
	assert_int_equal(lu_table_add(&alua_lu), 1);
	fault_rules_clear();
	assert_int_equal(lunlab_api_register(err, sizeof(err)), 0);
	assert_int_equal(api_server_start(&cfg, err, sizeof(err)), 0);
	port = api_server_port();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	api_server_stop();
	api_routes_clear();
	auth_config_free(&auth);
	lu_table_reset();
	alua_reset();
	fault_rules_clear();
	portals_close_all();
	g_target.nportals = 0;
	return 0;
}

static long call(const char *method, const char *path, const char *body, struct http_result *r)
{
	assert_int_equal(http_request(port, method, path, USER, body, body ? strlen(body) : 0, r), 0);
	return r->status;
}

static void rules(void **state)
{
	struct http_result r;
	char href[128], want[512];
	uint8_t cdb[16] = { SCSI_OP_READ_10, 0, 0, 0, 0, 7, 0, 0, 1 };
	struct fault_cmd fc = { .lun = 1, .cdb = cdb, .cdb_len = sizeof(cdb) };
	struct fault_hit h;

	(void)state;
	assert_int_equal(call("GET", "/api/lunlab/faults", NULL, &r), 200);
	assert_string_equal(r.body, "{ \"faults\": [ ] }");
	assert_int_equal(call("POST", "/api/lunlab/faults", "{\"spec\": \"sense=medium-error,op=read,lun=1\"}", &r), 201);
	snprintf(href, sizeof(href), "https://127.0.0.1:%u/api/lunlab/faults/1", port);
	snprintf(want, sizeof(want),
		 "{ \"id\": 1, \"spec\": \"lun=1,op=read,sense=03/11/00\", \"matches\": 0, \"hits\": 0, \"spent\": false, "
		 "\"age-ms\": 0, \"href\": \"%s\" }", href);
	assert_string_equal(r.body, want);
	assert_true(fault_rules_check(&fc, &h) && h.rule == 1);
	assert_int_equal(call("GET", "/api/lunlab/faults/1", NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"matches\": 1, \"hits\": 1, \"spent\": false"));
	/* keys as fields: numbers, strings, true for a bare key */
	assert_int_equal(call("POST", "/api/lunlab/faults", "{\"lun\": 0, \"op\": \"0x2a\", \"every\": 3, \"hold\": true}", &r),
			 201);
	assert_non_null(strstr(r.body, "\"id\": 2, \"spec\": \"lun=0,op=0x2a,every=3,hold\""));
	assert_int_equal(call("GET", "/api/lunlab/faults", NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"id\": 1,"));
	assert_non_null(strstr(r.body, "\"id\": 2,"));
	assert_int_equal(call("DELETE", "/api/lunlab/faults/1", NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"id\": 1, \"spec\": \"lun=1,op=read,sense=03/11/00\""));
	assert_false(fault_rules_check(&fc, &h));

	static const struct {
		const char *method, *path, *body;
		long status;
		const char *reply;
	} bad[] = {
		{ "GET", "/api/lunlab/faults/1", NULL, 404, "{ \"message\": \"obj_not_found\", \"error_code\": 404 }" },
		{ "DELETE", "/api/lunlab/faults/99", NULL, 404, "{ \"message\": \"obj_not_found\", \"error_code\": 404 }" },
		{ "GET", "/api/lunlab/faults/x", NULL, 404, "{ \"message\": \"obj_not_found\", \"error_code\": 404 }" },
		{ "POST", "/api/lunlab/faults", "{\"spec\": \"lun=0,op=raed,hold\"}", 400,
		  "{ \"message\": \"op=raed: unknown command kind (read, write, xcopy, unmap, caw, tur, sync, any, or an opcode "
		  "in hex such as 0x28)\", \"error_code\": 400 }" },
		{ "POST", "/api/lunlab/faults", "{\"spec\": 5}", 400,
		  "{ \"message\": \"spec: want a string, and no other field beside it\", \"error_code\": 400 }" },
		{ "POST", "/api/lunlab/faults", "{\"spec\": \"hold\", \"lun\": 1}", 400,
		  "{ \"message\": \"spec: want a string, and no other field beside it\", \"error_code\": 400 }" },
		{ "POST", "/api/lunlab/faults", "{\"lun\": {\"a\": 1}}", 400,
		  "{ \"message\": \"lun: want a string, a number or true\", \"error_code\": 400 }" },
		{ "POST", "/api/lunlab/faults", "{\"initiator\": \"a,b\"}", 400,
		  "{ \"message\": \"initiator: a value may not contain ','\", \"error_code\": 400 }" },
		{ "POST", "/api/lunlab/faults", "{}", 400,
		  "{ \"message\": \"empty rule: give \\\"spec\\\" or the rule's keys (docs/faults.md)\", \"error_code\": 400 }" },
		{ "POST", "/api/lunlab/faults", "[1]", 400, NULL },
		{ "POST", "/api/lunlab/faults/2", "{}", 405,
		  "{ \"message\": \"method not allowed on a rule\", \"error_code\": 405 }" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long st = call(bad[i].method, bad[i].path, bad[i].body, &r);
		if (st != bad[i].status || (bad[i].reply && strcmp(r.body, bad[i].reply) != 0))
			fail_msg("case %zu %s %s\n  want: %ld %s\n  got:  %ld %s", i, bad[i].method, bad[i].path,
				 bad[i].status, bad[i].reply ? bad[i].reply : "", st, r.body);
	}
	assert_int_equal(call("DELETE", "/api/lunlab/faults", NULL, &r), 200);
	assert_string_equal(r.body, "{ \"removed\": 1 }");
	assert_int_equal(fault_rules_list(NULL, 0), 0);
}

static bool connects(unsigned p)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p) };
	bool ok;

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* GET /api/lunlab/luns: the --lun LUs, in LUN order (no handler here: no array figures) */
static void luns(void **state)
{
	struct http_result r;

	(void)state;
	assert_int_equal(call("GET", "/api/lunlab/luns", NULL, &r), 200);
	assert_string_equal(r.body, "{ \"luns\": [ "
			    "{ \"lun\": 0, \"size\": 1048576, \"block-size\": 512, \"array\": null, \"profile\": null, "
			    "\"serial\": null, \"tpgs\": \"off\" }, "
			    "{ \"lun\": 1, \"size\": 1048576, \"block-size\": 4096, \"array\": null, \"profile\": null, "
			    "\"serial\": null, \"tpgs\": \"implicit\" } ] }");
	assert_int_equal(call("GET", "/api/lunlab/luns/1", NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"lun\": 1, \"size\": 1048576, \"block-size\": 4096"));
	assert_int_equal(call("GET", "/api/lunlab/luns/2", NULL, &r), 404);
	assert_int_equal(call("GET", "/api/lunlab/luns/-1", NULL, &r), 404);
	assert_int_equal(call("GET", "/api/lunlab/luns/1x", NULL, &r), 404);
	assert_int_not_equal(call("DELETE", "/api/lunlab/luns/1", NULL, &r), 200);
}

static void portals(void **state)
{
	struct http_result r;
	char want[512], path[64];
	unsigned p1 = g_target.portals[1].port;

	(void)state;
	/* the second --listen is portal 2, as in XMS iscsi-portals (index 2) */
	assert_int_equal(call("GET", "/api/lunlab/portals/2", NULL, &r), 200);
	snprintf(want, sizeof(want),
		 "{ \"index\": 2, \"address\": \"127.0.0.1:%u\", \"advertise\": \"10.0.2.2:3260\", \"tpg\": 3, \"state\": \"up\", "
		 "\"connections\": 0 }", p1);
	assert_string_equal(r.body, want);
	assert_int_equal(call("PUT", "/api/lunlab/portals/2", "{\"state\": \"down\"}", &r), 200);
	assert_non_null(strstr(r.body, "\"state\": \"down\""));
	assert_false(connects(p1));
	snprintf(path, sizeof(path), "/api/lunlab/portals/127.0.0.1:%u", p1);
	assert_int_equal(call("PUT", path, "{\"state\": \"up\"}", &r), 200);
	assert_true(connects(p1));
	assert_int_equal(call("PUT", "/api/lunlab/portals/10.0.2.2:3260", "{\"state\": \"up\"}", &r), 200); /* advertised name */
	assert_int_equal(call("GET", "/api/lunlab/portals", NULL, &r), 200);
	assert_non_null(strstr(r.body, "{ \"portals\": [ { \"index\": 1, "));
	assert_non_null(strstr(r.body, "\"advertise\": null"));
	assert_int_equal(call("PUT", "/api/lunlab/portals/5", "{\"state\": \"down\"}", &r), 404);
	assert_int_equal(call("PUT", "/api/lunlab/portals/0", "{\"state\": \"down\"}", &r), 404); /* no portal 0 */
	assert_int_equal(call("PUT", "/api/lunlab/portals/1", "{\"state\": \"off\"}", &r), 400);
	assert_string_equal(r.body, "{ \"message\": \"state: want \\\"up\\\" or \\\"down\\\"\", \"error_code\": 400 }");
	assert_int_equal(call("PUT", "/api/lunlab/portals", "{\"state\": \"down\"}", &r), 405);
}

static void alua(void **state)
{
	struct http_result r;
	char want[640];
	unsigned g0 = target_portal_tpgt(0);

	(void)state;
	assert_int_equal(call("GET", "/api/lunlab/alua", NULL, &r), 200);
	snprintf(want, sizeof(want),
		 "{ \"groups\": [ %u, 3 ], \"luns\": [ { \"lun\": 1, \"tpgs\": \"implicit\", \"groups\": [ "
		 "{ \"tpg\": %u, \"state\": \"active/non-optimized\", \"pref\": false, \"status\": \"none\" }, "
		 "{ \"tpg\": 3, \"state\": \"active/optimized\", \"pref\": true, \"status\": \"none\" } ] } ] }", g0, g0);
	assert_string_equal(r.body, want); /* LUN 1 prefers the second group */
	assert_int_equal(call("PUT", "/api/lunlab/alua", "{\"lun\": 1, \"tpg\": 3, \"state\": \"standby\", \"pref\": false}", &r),
			 200);
	assert_non_null(strstr(r.body, "{ \"tpg\": 3, \"state\": \"standby\", \"pref\": false, \"status\": \"implicit\" }"));
	assert_int_equal(alua_state_of(lu_table_entry(1), 1, 3, NULL), ALUA_STANDBY);
	assert_int_equal(call("PUT", "/api/lunlab/alua", "{\"tpg\": 3, \"state\": \"ao\", \"transition-ms\": 60000}", &r), 200);
	assert_non_null(strstr(r.body, "{ \"tpg\": 3, \"state\": \"transitioning\""));

	static const struct {
		const char *body;
		long status;
		const char *reply;
	} bad[] = {
		{ "{\"lun\": 0, \"tpg\": 3, \"state\": \"ao\"}", 400,
		  "{ \"message\": \"LUN 0 reports no ALUA (its profile has tpgs off)\", \"error_code\": 400 }" },
		{ "{\"lun\": 9, \"tpg\": 3, \"state\": \"ao\"}", 404, "{ \"message\": \"obj_not_found\", \"error_code\": 404 }" },
		{ "{\"lun\": 1, \"tpg\": 4, \"state\": \"ao\"}", 400,
		  "{ \"message\": \"no target port group 4 (the groups are the --listen tpg= tags)\", \"error_code\": 400 }" },
		{ "{\"lun\": 1, \"tpg\": 3, \"state\": \"sleepy\"}", 400,
		  "{ \"message\": \"state: want ao, ano, standby, unavailable or transitioning (or their long names)\", "
		  "\"error_code\": 400 }" },
		{ "{\"lun\": 1, \"tpg\": 3, \"state\": \"ao\", \"pref\": 1}", 400,
		  "{ \"message\": \"pref: want true or false\", \"error_code\": 400 }" },
		{ "{\"lun\": 1, \"state\": \"ao\"}", 400, NULL },
		{ "{\"tpg\": 3, \"state\": \"ao\", \"transition-ms\": 600001}", 400, NULL },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long st = call("PUT", "/api/lunlab/alua", bad[i].body, &r);
		if (st != bad[i].status || (bad[i].reply && strcmp(r.body, bad[i].reply) != 0))
			fail_msg("case %zu %s\n  want: %ld %s\n  got:  %ld %s", i, bad[i].body, bad[i].status,
				 bad[i].reply ? bad[i].reply : "", st, r.body);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules),
		cmocka_unit_test(portals),
		cmocka_unit_test(luns),
		cmocka_unit_test(alua),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
