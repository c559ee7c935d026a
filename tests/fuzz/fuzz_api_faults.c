/* fuzz_api_faults.c — the management API's fault rules (target/api/
 * api_faults.c) through their route: the input is a POST body to
 * /api/lunlab/api-faults (the first byte picks the method and resource
 * type a request then has).  Invariants: the POST answers 201 with a rule
 * or 400 with a one-line XMS-shaped message; a refused POST leaves no rule;
 * a request the rule matches is answered with the rule's status (400..599)
 * and an XMS body; after DELETE every request passes; never a crash. */
#include <json-c/json.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_faults.h"
#include "target/api/api_router.h"

/* the target's log line (target/iscsi/target.c) is not linked here */
void target_log(const char *fmt, ...);
void target_log(const char *fmt, ...)
{
	(void)fmt;
}

static unsigned dispatch(enum api_method m, const char *path, const char *body, size_t len, char **out)
{
	struct api_request req = { .method = m, .path = path, .body = body, .body_len = len, .host = "h",
				   .user = "u" };
	struct api_response rsp = { 0 };

	api_dispatch(&req, &rsp);
	*out = rsp.body;
	return rsp.status;
}

static void xms_shaped(const char *body, unsigned status)
{
	struct json_object *o = json_tokener_parse(body ? body : ""), *m, *c;

	if (!o || !json_object_object_get_ex(o, "message", &m) || !json_object_object_get_ex(o, "error_code", &c) ||
	    json_object_get_int(c) != (int)status || strchr(json_object_get_string(m), '\n'))
		abort();
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "volumes", "snapshots", "lun-maps", "xms" };
	static const enum api_method methods[] = { API_GET, API_POST, API_PUT, API_DELETE };
	static int registered;
	char *out, err[128];
	unsigned st;

	if (!registered) {
		if (api_faults_register(err, sizeof(err)) < 0)
			abort();
		registered = 1;
	}
	if (size < 1)
		return 0;
	st = dispatch(API_POST, "/api/lunlab/api-faults", (const char *)data + 1, size - 1, &out);
	if (st == 400) {
		xms_shaped(out, 400);
		free(out);
		/* nothing was added */
		st = dispatch(API_GET, "/api/lunlab/api-faults", "", 0, &out);
		if (st != 200 || !strstr(out, "\"api-faults\": [ ]"))
			abort();
		free(out);
		return 0;
	}
	if (st != 201)
		abort();
	free(out);
	/* a request of some method and type: passes, or meets the rule */
	struct api_request req = { .method = methods[data[0] & 3], .path = "/p", .body = "", .host = "h" };
	struct api_response rsp = { 0 };
	if (api_faults_check(&req, types[(data[0] >> 2) & 3], &rsp)) {
		if (rsp.status < 400 || rsp.status > 599)
			abort();
		xms_shaped(rsp.body, rsp.status);
	}
	free(rsp.body);
	st = dispatch(API_DELETE, "/api/lunlab/api-faults", "", 0, &out);
	free(out);
	memset(&rsp, 0, sizeof(rsp));
	if (st != 200 || api_faults_check(&req, types[(data[0] >> 2) & 3], &rsp))
		abort();
	return 0;
}
