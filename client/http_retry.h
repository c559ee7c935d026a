/* http_retry.h - lunlab-bench's HTTP(S) requests (watch's and --metrics-url's /metrics.json,
 * the --api XMS client) under the connection layer's rules (conn.h), so that no subcommand
 * hangs or gives up at the first hiccup of the array's management port either:
 *   - a request that fails on the way (connection refused or reset, no answer, a TLS handshake
 *     cut short) or gets 502/503/504 is sent again, backing off as a login does (100 ms
 *     doubling to 1 s, conn_login_backoff_ns), for at most --timeout from its first failure;
 *   - a request the server may already have acted on (it was sent and its answer lost) is sent
 *     again only when repeating it cannot change the outcome (GET, HEAD, PUT, DELETE); a POST
 *     only when it never reached the server (no connection could be made);
 *   - each attempt is bounded by what is left of --timeout;
 *   - what retrying cannot change (401, 404, a certificate that does not verify, an answer
 *     that is not what was asked for) is the request's result at once.
 * A request that ends on a lost path gets one line naming the URL, what happened and the last
 * attempt's error; the caller records it with conn_note_fatal (lunlab-bench exits 3, as for a
 * session).  The decisions are pure functions, pinned by tests/unit/client/test_http_retry.c. */
#ifndef LUNLAB_CLIENT_HTTP_RETRY_H
#define LUNLAB_CLIENT_HTTP_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum http_verdict {
	HTTP_ANSWER,     /* an answer to deliver (any status that retrying cannot change) */
	HTTP_AGAIN,      /* send it again after the backoff, while the window lasts */
	HTTP_LOST,       /* the path failed and the request may not be sent again: give up */
	HTTP_FINAL,      /* a failure retrying cannot change (certificate, bad URL, too long) */
};

/* One attempt's outcome.  curl_code: its CURLcode (0: an answer came, status is its HTTP
 * status); idempotent: the method may be repeated (http_idempotent). */
enum http_verdict http_retry_decide(int curl_code, long status, bool idempotent);
bool http_idempotent(const char *method);

/* The retries of one request. */
struct http_retry {
	double window_s;            /* --timeout; 0: one attempt only */
	uint64_t first_fail_ns;     /* 0 until an attempt failed */
	unsigned failed;            /* failed attempts so far */
	char cause[200];            /* the first failure (what went wrong) */
	char last[200];             /* the latest failure */
};

void http_retry_begin(struct http_retry *r, double window_s);
/* The limit of the next attempt in ms: per_request_s, or what is left of the window after a
 * failure (at least 100 ms). */
long http_retry_attempt_ms(const struct http_retry *r, double per_request_s, uint64_t now_ns);
/* Note a failed attempt (why: one line) at now_ns and return the wait before the next one (the
 * backoff, cut so that the last attempt is at the end of the window), or UINT64_MAX when the
 * window is spent. */
uint64_t http_retry_failed(struct http_retry *r, const char *why, uint64_t now_ns);
/* The same for an attempt that ended with curl_code (0: an answer with HTTP status). */
uint64_t http_retry_failed_curl(struct http_retry *r, int curl_code, long status, uint64_t now_ns);

/* Sleep ns (the wait http_retry_failed returned), through signals. */
void http_retry_sleep(uint64_t ns);

/* The one-line give-up message for `what` ("GET https://host:port/metrics.json"):
 *   "WHAT: no answer within --timeout 3 s (N attempts, the last: LAST)" (never answered), or
 *   "WHAT: connection lost (CAUSE) and no answer again within --timeout 3 s (N attempts, the
 *    last: LAST)" (was_up: the endpoint had answered before), or, for a request that may not
 *   be repeated, "WHAT: connection lost (LAST) after the request was sent; not sent twice". */
void http_retry_message(const struct http_retry *r, const char *what, bool was_up, bool repeatable, char *out,
			size_t outlen);

#endif
