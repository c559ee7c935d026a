/* http_retry.c - see http_retry.h. */
#include "client/http_retry.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/conn_policy.h"

#define MS 1000000ull

bool http_idempotent(const char *method)
{
	return method && (!strcasecmp(method, "GET") || !strcasecmp(method, "HEAD") || !strcasecmp(method, "PUT") ||
			  !strcasecmp(method, "DELETE"));
}

enum http_verdict http_retry_decide(int curl_code, long status, bool idempotent)
{
	switch ((CURLcode)curl_code) {
	case CURLE_OK:
		/* a gateway or a server that is starting or overloaded: the request was not done */
		if (status == 502 || status == 503 || status == 504)
			return idempotent ? HTTP_AGAIN : HTTP_ANSWER;
		return HTTP_ANSWER;
	/* the request never reached the server: sending it again is always safe */
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
		return HTTP_AGAIN;
	/* sent, then the path failed: the server may have acted on it */
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return idempotent ? HTTP_AGAIN : HTTP_LOST;
	default:
		/* a certificate that does not verify, a bad URL, an answer too long, out of memory */
		return HTTP_FINAL;
	}
}

void http_retry_begin(struct http_retry *r, double window_s)
{
	memset(r, 0, sizeof(*r));
	r->window_s = window_s > 0 ? window_s : 0;
}

static uint64_t window_ns(const struct http_retry *r)
{
	return (uint64_t)(r->window_s * 1e9);
}

long http_retry_attempt_ms(const struct http_retry *r, double per_request_s, uint64_t now_ns)
{
	double ms = per_request_s * 1e3;

	if (r->failed && r->window_s > 0) {
		uint64_t end = r->first_fail_ns + window_ns(r);
		double left = end > now_ns ? (double)(end - now_ns) / 1e6 : 0;
		if (left < ms)
			ms = left;
	}
	return ms < 100 ? 100 : (long)ms;
}

uint64_t http_retry_failed(struct http_retry *r, const char *why, uint64_t now_ns)
{
	if (!r->failed++) {
		r->first_fail_ns = now_ns;
		snprintf(r->cause, sizeof(r->cause), "%s", why);
	}
	snprintf(r->last, sizeof(r->last), "%s", why);
	if (r->window_s <= 0)
		return UINT64_MAX;
	uint64_t wait = conn_login_backoff_ns(r->failed), end = r->first_fail_ns + window_ns(r);
	/* as a login: the next attempt after the backoff, the last one at the end of the window */
	if (now_ns >= end)
		return UINT64_MAX;
	return now_ns + wait < end ? wait : end - now_ns;
}

uint64_t http_retry_failed_curl(struct http_retry *r, int curl_code, long status, uint64_t now_ns)
{
	char why[200];

	if (curl_code == CURLE_OK)
		snprintf(why, sizeof(why), "HTTP %ld", status);
	else
		snprintf(why, sizeof(why), "%s", curl_easy_strerror((CURLcode)curl_code));
	return http_retry_failed(r, why, now_ns);
}

void http_retry_sleep(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

void http_retry_message(const struct http_retry *r, const char *what, bool was_up, bool repeatable, char *out,
			size_t outlen)
{
	if (!repeatable)
		snprintf(out, outlen, "%s: connection lost (%s) after the request was sent; not sent twice", what,
			 r->last);
	else if (was_up)
		snprintf(out, outlen, "%s: connection lost (%s) and no answer again within --timeout %g s (%u attempt%s, "
			 "the last: %s)", what, r->cause, r->window_s, r->failed - 1, r->failed == 2 ? "" : "s", r->last);
	else
		snprintf(out, outlen, "%s: no answer within --timeout %g s (%u attempt%s, the last: %s)", what,
			 r->window_s, r->failed, r->failed == 1 ? "" : "s", r->last);
}
