/* api_session.h — XMS REST v3 sessions: GET /api/json/v3/commands/login
 * gives a client a random token (the "sessid" cookie) that stands in for
 * HTTP Basic on every API version until commands/logout, an idle timeout,
 * or the user's removal from the auth file.  The monitoring clients
 * (Telegraf, the Prometheus exporter) log in once per poll and send the
 * cookie with each request.
 *
 * The table is bounded (API_SESSION_MAX): Telegraf logs in at every poll
 * and never logs out, so a full table forgets its least recently used
 * session instead of refusing a login.  Times are passed in (seconds of a
 * monotonic clock) so the tests drive expiry without waiting. */
#ifndef LUNLAB_API_SESSION_H
#define LUNLAB_API_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define API_SESSION_MAX 256
#define API_SESSION_IDLE_S 1800       /* 30 min without a request: the session is gone */
#define API_SESSION_TOKEN_BYTES 32    /* random bytes (gnutls_rnd, GNUTLS_RND_KEY) */
#define API_SESSION_TOKEN_LEN (2 * API_SESSION_TOKEN_BYTES) /* as hex */
#define API_SESSION_COOKIE "sessid"   /* the cookie name Telegraf looks for */
#define API_SESSION_USER_MAX 64
#define API_SESSION_LOGIN_PATH "/api/json/v3/commands/login"   /* takes user=/password= too */
#define API_SESSION_LOGOUT_PATH "/api/json/v3/commands/logout"

/* A new session for user; its token into token (hex, NUL-terminated).
 * -1 when no random bytes could be had. */
int api_session_open(const char *user, uint64_t now, char token[API_SESSION_TOKEN_LEN + 1]);
/* true when token names a live session (its idle clock restarts); the
 * user it belongs to into user.  A token of the wrong shape is false. */
bool api_session_check(const char *token, uint64_t now, char *user, size_t userlen);
/* Ends the session; false when there was none. */
bool api_session_close(const char *token);
/* Ends every session of user (removed from the auth file). */
void api_session_close_user(const char *user);
/* Live sessions (for /metrics and tests). */
size_t api_session_count(uint64_t now);
/* Forgets all (server stop, tests). */
void api_session_clear(void);

#endif
