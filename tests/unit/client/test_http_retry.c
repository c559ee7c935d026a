/* test_http_retry.c - the HTTP clients' retry rules (client/http_retry.c): which failures are
 * sent again and for which methods, the backoff and the --timeout window, each attempt's
 * limit, and the give-up lines word for word. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "client/http_retry.h"

#define MS 1000000ull
#define S (1000 * MS)

static void what_is_retried(void **state)
{
	(void)state;
	/* answers: delivered, except a gateway or a server not ready, for idempotent requests */
	assert_int_equal(http_retry_decide(CURLE_OK, 200, true), HTTP_ANSWER);
	assert_int_equal(http_retry_decide(CURLE_OK, 401, true), HTTP_ANSWER);
	assert_int_equal(http_retry_decide(CURLE_OK, 404, true), HTTP_ANSWER);
	assert_int_equal(http_retry_decide(CURLE_OK, 500, true), HTTP_ANSWER);
	assert_int_equal(http_retry_decide(CURLE_OK, 503, true), HTTP_AGAIN);
	assert_int_equal(http_retry_decide(CURLE_OK, 502, true), HTTP_AGAIN);
	assert_int_equal(http_retry_decide(CURLE_OK, 504, true), HTTP_AGAIN);
	assert_int_equal(http_retry_decide(CURLE_OK, 503, false), HTTP_ANSWER);
	/* never reached the server: always safe, a POST included */
	assert_int_equal(http_retry_decide(CURLE_COULDNT_CONNECT, 0, false), HTTP_AGAIN);
	assert_int_equal(http_retry_decide(CURLE_COULDNT_RESOLVE_HOST, 0, false), HTTP_AGAIN);
	assert_int_equal(http_retry_decide(CURLE_SSL_CONNECT_ERROR, 0, false), HTTP_AGAIN);
	/* sent, answer lost: only what may be repeated */
	static const CURLcode lost[] = { CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
					 CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE };
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++) {
		assert_int_equal(http_retry_decide(lost[i], 0, true), HTTP_AGAIN);
		assert_int_equal(http_retry_decide(lost[i], 0, false), HTTP_LOST);
	}
	/* what retrying cannot change */
	assert_int_equal(http_retry_decide(CURLE_PEER_FAILED_VERIFICATION, 0, true), HTTP_FINAL);
	assert_int_equal(http_retry_decide(CURLE_URL_MALFORMAT, 0, true), HTTP_FINAL);
	assert_int_equal(http_retry_decide(CURLE_WRITE_ERROR, 0, true), HTTP_FINAL);
	assert_int_equal(http_retry_decide(CURLE_ABORTED_BY_CALLBACK, 0, true), HTTP_FINAL);
}

static void idempotent_methods(void **state)
{
	(void)state;
	assert_true(http_idempotent("GET"));
	assert_true(http_idempotent("get"));
	assert_true(http_idempotent("HEAD"));
	assert_true(http_idempotent("PUT"));
	assert_true(http_idempotent("DELETE"));
	assert_false(http_idempotent("POST"));
	assert_false(http_idempotent("PATCH"));
	assert_false(http_idempotent(NULL));
}

static void backoff_within_the_window(void **state)
{
	(void)state;
	struct http_retry r;
	uint64_t t = 1000 * S;

	http_retry_begin(&r, 3);
	/* before any failure an attempt gets the whole per-request limit */
	assert_int_equal(http_retry_attempt_ms(&r, 3, t), 3000);
	/* 100 ms doubling to 1 s, as a login */
	assert_int_equal(http_retry_failed(&r, "Couldn't connect to server", t), 100 * MS);
	assert_int_equal(http_retry_failed(&r, "b", t + 100 * MS), 200 * MS);
	assert_int_equal(http_retry_failed(&r, "c", t + 300 * MS), 400 * MS);
	assert_int_equal(http_retry_failed(&r, "d", t + 700 * MS), 800 * MS);
	assert_int_equal(http_retry_failed(&r, "e", t + 1500 * MS), 1000 * MS);
	assert_int_equal(r.failed, 5);
	assert_string_equal(r.cause, "Couldn't connect to server");
	assert_string_equal(r.last, "e");
	/* an attempt gets what is left of the window (here 0.5 s of 3) */
	assert_int_equal(http_retry_attempt_ms(&r, 3, t + 2500 * MS), 500);
	/* ... and at least 100 ms */
	assert_int_equal(http_retry_attempt_ms(&r, 3, t + 2990 * MS), 100);
	/* the last wait is cut: the last attempt is at the end of the window */
	assert_int_equal(http_retry_failed(&r, "f", t + 2500 * MS), 500 * MS);
	/* spent */
	assert_true(http_retry_failed(&r, "g", t + 3000 * MS) == UINT64_MAX);
	assert_int_equal(r.failed, 7);
	/* the failure in words: libcurl's, or the status */
	http_retry_begin(&r, 3);
	http_retry_failed_curl(&r, CURLE_COULDNT_CONNECT, 0, t);
	assert_string_equal(r.cause, "Couldn't connect to server");
	http_retry_failed_curl(&r, CURLE_OK, 503, t + S);
	assert_string_equal(r.last, "HTTP 503");
	/* no window: one attempt */
	http_retry_begin(&r, 0);
	assert_true(http_retry_failed(&r, "x", t) == UINT64_MAX);
	assert_int_equal(http_retry_attempt_ms(&r, 10, t), 10000);
}

static void messages(void **state)
{
	(void)state;
	struct http_retry r;
	char m[600];
	uint64_t t = 5 * S;

	http_retry_begin(&r, 3);
	http_retry_failed(&r, "Couldn't connect to server", t);
	http_retry_failed(&r, "Couldn't connect to server", t + S);
	http_retry_failed(&r, "Couldn't connect to server", t + 4 * S);
	http_retry_message(&r, "https://127.0.0.1:8443/metrics.json", false, true, m, sizeof(m));
	assert_string_equal(m, "https://127.0.0.1:8443/metrics.json: no answer within --timeout 3 s (3 attempts, the "
			       "last: Couldn't connect to server)");

	http_retry_begin(&r, 2.5);
	http_retry_failed(&r, "Failure when receiving data from the peer", t);
	http_retry_failed(&r, "Couldn't connect to server", t + 3 * S);
	http_retry_message(&r, "GET https://h:1/api/json/v2/types/clusters", true, true, m, sizeof(m));
	assert_string_equal(m, "GET https://h:1/api/json/v2/types/clusters: connection lost (Failure when receiving "
			       "data from the peer) and no answer again within --timeout 2.5 s (1 attempt, the last: "
			       "Couldn't connect to server)");

	http_retry_begin(&r, 3);
	http_retry_failed(&r, "Server returned nothing (no headers, no data)", t);
	http_retry_message(&r, "POST https://h:1/api/json/v2/types/snapshots", true, false, m, sizeof(m));
	assert_string_equal(m, "POST https://h:1/api/json/v2/types/snapshots: connection lost (Server returned nothing "
			       "(no headers, no data)) after the request was sent; not sent twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(what_is_retried),
		cmocka_unit_test(idempotent_methods),
		cmocka_unit_test(backoff_within_the_window),
		cmocka_unit_test(messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
