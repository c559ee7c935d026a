/* api_test_http.c — see api_test_http.h. */
#include "api_test_http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *http_source;

static size_t on_body(char *p, size_t sz, size_t n, void *cls)
{
	struct http_result *r = cls;
	size_t len = sz * n, room = sizeof(r->body) - 1 - r->body_len;

	if (len > room)
		len = room;
	memcpy(r->body + r->body_len, p, len);
	r->body_len += len;
	r->body[r->body_len] = '\0';
	return sz * n;
}

static void header_value(const char *line, size_t len, const char *name, char *out, size_t cap)
{
	size_t nl = strlen(name), vl;

	if (len <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return;
	line += nl + 1;
	len -= nl + 1;
	while (len && *line == ' ') {
		line++;
		len--;
	}
	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
		len--;
	vl = len < cap - 1 ? len : cap - 1;
	memcpy(out, line, vl);
	out[vl] = '\0';
}

static size_t on_header(char *p, size_t sz, size_t n, void *cls)
{
	struct http_result *r = cls;

	header_value(p, sz * n, "WWW-Authenticate", r->www_auth, sizeof(r->www_auth));
	header_value(p, sz * n, "Content-Type", r->content_type, sizeof(r->content_type));
	header_value(p, sz * n, "Retry-After", r->retry_after, sizeof(r->retry_after));
	return sz * n;
}

int http_request(unsigned port, const char *method, const char *path, const char *userpwd, const char *body,
		 size_t body_len, struct http_result *r)
{
	CURL *c = curl_easy_init();
	char url[1024];
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	if (!c)
		return -1;
	snprintf(url, sizeof(url), "https://127.0.0.1:%u%s", port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L); /* the server's certificate is self-signed */
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	if (http_source)
		curl_easy_setopt(c, CURLOPT_INTERFACE, http_source);
	if (userpwd) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, userpwd);
	}
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	else
		snprintf(r->body, sizeof(r->body), "curl: %s", curl_easy_strerror(rc));
	curl_easy_cleanup(c);
	return rc == CURLE_OK ? 0 : -1;
}
