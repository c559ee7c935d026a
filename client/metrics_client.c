/* metrics_client.c - GET /metrics.json with libcurl, parsed by json-c. */
#include "client/metrics_client.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/conn.h"
#include "client/http_retry.h"

#define MAX_BODY (64u << 20) /* a snapshot of 16384 LUs is well below this */

int metrics_json_url(const char *given, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *host, *path;
	size_t n;

	if (!given || (strncmp(given, "http://", 7) && strncmp(given, "https://", 8))) {
		snprintf(err, errlen, "metrics URL '%s' does not start with http:// or https://", given ? given : "");
		return -1;
	}
	host = strstr(given, "://") + 3;
	if (!*host || *host == '/') {
		snprintf(err, errlen, "metrics URL '%s' has no host", given);
		return -1;
	}
	path = strchr(host, '/');
	n = strlen(given);
	if (!path || !strcmp(path, "/"))
		snprintf(out, outlen, "%.*s/metrics.json", (int)(path ? n - 1 : n), given);
	else if (!strcmp(path, "/metrics"))
		snprintf(out, outlen, "%s.json", given);
	else if (!strcmp(path, "/metrics.json"))
		snprintf(out, outlen, "%s", given);
	else {
		snprintf(err, errlen, "metrics URL '%s': give the target's API address (https://host:port)", given);
		return -1;
	}
	if (strlen(out) + 1 >= outlen) {
		snprintf(err, errlen, "metrics URL '%s' is too long", given);
		return -1;
	}
	return 0;
}

/* user:password@ -> user@ (messages never show the password) */
static void redact(const char *url, char *out, size_t outlen)
{
	const char *host = strstr(url, "://"), *at, *colon;

	host = host ? host + 3 : url;
	at = strchr(host, '@');
	colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
	if (at && colon && !memchr(host, '/', (size_t)(at - host)))
		snprintf(out, outlen, "%.*s%s", (int)(colon - url), url, at);
	else
		snprintf(out, outlen, "%s", url);
}

int metrics_client_open(struct metrics_client *c, const char *given, bool insecure, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (metrics_json_url(given, c->url, sizeof(c->url), err, errlen) < 0)
		return -1;
	redact(c->url, c->shown, sizeof(c->shown));
	c->insecure = insecure;
	c->timeout_s = conn_get_policy()->timeout_s;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	c->curl = curl_easy_init();
	if (!c->curl) {
		snprintf(err, errlen, "cannot initialise libcurl");
		return -1;
	}
	return 0;
}

void metrics_client_close(struct metrics_client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
}

struct body {
	char *p;
	size_t len;
	bool too_big;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	char *p;

	if (b->len + n > MAX_BODY) {
		b->too_big = true;
		return 0;
	}
	p = realloc(b->p, b->len + n + 1);
	if (!p)
		return 0;
	memcpy(p + b->len, data, n);
	b->p = p;
	b->len += n;
	p[b->len] = 0;
	return n;
}

/* the recorder's finish: stop a reading in progress (libcurl calls this about once a second
 * and whenever data moves) */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const atomic_bool *cancel = arg;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return cancel && atomic_load(cancel) ? 1 : 0;
}


/* one GET: the CURLcode, the status and the body (caller frees b->p) */
static CURLcode get_once(struct metrics_client *c, struct body *b, long timeout_ms, long *status)
{
	CURLcode rc;

	memset(b, 0, sizeof(*b));
	*status = 0;
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, c->insecure ? 0L : 1L);
	curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, c->insecure ? 0L : 2L);
	curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, c->cancel ? 0L : 1L);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, (void *)c->cancel);
	rc = curl_easy_perform(c->curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

json_object *metrics_client_get(struct metrics_client *c, char *err, size_t errlen)
{
	struct body b;
	struct http_retry rt;
	CURLcode rc;
	long status = 0;
	json_object *o, *x;
	enum json_tokener_error jerr = json_tokener_success;

	c->lost = false;
	http_retry_begin(&rt, c->retry ? c->timeout_s : 0);
	for (;;) {
		rc = get_once(c, &b, http_retry_attempt_ms(&rt, c->timeout_s > 0 ? c->timeout_s : 10, now_ns()), &status);
		enum http_verdict v = http_retry_decide(rc, status, true);
		if (v == HTTP_ANSWER || (v == HTTP_FINAL && rc != CURLE_ABORTED_BY_CALLBACK) ||
		    (c->cancel && atomic_load(c->cancel)))
			break;
		free(b.p);
		uint64_t wait = http_retry_failed_curl(&rt, rc, status, now_ns());
		if (wait == UINT64_MAX) {
			http_retry_message(&rt, c->shown, c->answered, true, err, errlen);
			c->lost = true;
			return NULL;
		}
		http_retry_sleep(wait);
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s: %s%s", c->shown, b.too_big ? "answer larger than 64 MiB" : curl_easy_strerror(rc),
			 rc == CURLE_PEER_FAILED_VERIFICATION ? " (a self-signed target: --metrics-insecure)" : "");
		free(b.p);
		return NULL;
	}
	if (status != 200) {
		snprintf(err, errlen, "%s: HTTP %ld%s", c->shown, status,
			 status == 401 ? " (give user:password@ in the URL, or start the target with --api-metrics-open)" : "");
		free(b.p);
		return NULL;
	}
	o = b.p ? json_tokener_parse_verbose(b.p, &jerr) : NULL;
	free(b.p);
	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "luns", &x) ||
	    !json_object_is_type(x, json_type_array) || !json_object_object_get_ex(o, "arrays", &x) ||
	    !json_object_is_type(x, json_type_array) || !json_object_object_get_ex(o, "time", &x)) {
		snprintf(err, errlen, "%s: not a lunlab metrics snapshot (%s)", c->shown,
			 o ? "no time, luns or arrays" : json_tokener_error_desc(jerr));
		json_object_put(o);
		return NULL;
	}
	c->answered = true;
	return o;
}
