/* xms_commands.c — XMS REST v3's session commands (api_session.h):
 *   GET /api/json/v3/commands/login   (HTTP Basic, or user= and password=
 *       in the query) answers 200 with a "sessid" cookie;
 *   GET /api/json/v3/commands/logout  ends the session its cookie names.
 * The server has authenticated the request before either runs (the query
 * form only for login), so login only opens the session. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/api/api_json.h"
#include "target/api/api_session.h"
#include "target/api/xms_resources.h"

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static void login(const struct api_request *req, struct api_response *rsp)
{
	char token[API_SESSION_TOKEN_LEN + 1];
	char cookie[API_SESSION_TOKEN_LEN + 96];

	if (api_session_open(req->user, now_s(), token) < 0) {
		api_error(rsp, 500, "internal error: no random bytes for a session");
		return;
	}
	/* Secure: the API is HTTPS only; HttpOnly: no script needs it */
	snprintf(cookie, sizeof(cookie), "%s=%s; Path=/; Secure; HttpOnly", API_SESSION_COOKIE, token);
	memset(token, 0, sizeof(token));
	rsp->extra_header_name = strdup("Set-Cookie");
	rsp->extra_header_value = strdup(cookie);
	memset(cookie, 0, sizeof(cookie));
	if (!rsp->extra_header_name || !rsp->extra_header_value) {
		free(rsp->extra_header_name);
		free(rsp->extra_header_value);
		rsp->extra_header_name = rsp->extra_header_value = NULL;
		api_error(rsp, 500, "internal error: out of memory");
		return;
	}
	rsp->status = 200;
}

static void logout(const struct api_request *req, struct api_response *rsp)
{
	if (req->session)
		api_session_close(req->session);
	rsp->status = 200;
}

static const struct api_route routes[] = {
	{ API_GET | API_POST, API_SESSION_LOGIN_PATH, 0, login, NULL },
	{ API_GET | API_POST, API_SESSION_LOGOUT_PATH, 0, logout, NULL },
};

int xms_commands_register(char *err, size_t errlen)
{
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
