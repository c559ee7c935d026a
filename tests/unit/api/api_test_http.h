/* api_test_http.h — a tiny HTTPS client for the API tests, on libcurl:
 * one request, the status, the body and one header captured. */
#ifndef LUNLAB_API_TEST_HTTP_H
#define LUNLAB_API_TEST_HTTP_H

#include <stddef.h>

struct http_result {
	long status;
	char body[1 << 16];
	size_t body_len;
	char www_auth[256];      /* the WWW-Authenticate header, "" if none */
	char content_type[128];
	char retry_after[32];    /* the Retry-After header, "" if none */
};

/* the source address of the next requests (NULL: the kernel's choice);
 * 127.0.0.2 is another client on the same loopback */
extern const char *http_source;

/* method path (with query) on 127.0.0.1:port; userpwd "user:pass" or NULL;
 * body NULL for none.  Returns 0 when an HTTP answer came back. */
int http_request(unsigned port, const char *method, const char *path, const char *userpwd, const char *body,
		 size_t body_len, struct http_result *r);

#endif
