/* xms_client.c - see xms_client.h. */
#include "client/xms_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/conn.h"
#include "client/http_retry.h"

struct answer {
	char *buf;
	size_t len, cap;
	bool too_long;
};

static size_t on_data(char *p, size_t sz, size_t n, void *cls)
{
	struct answer *a = cls;
	size_t len = sz * n;

	if (a->too_long || a->len + len > XMS_CLIENT_MAX_ANSWER) {
		a->too_long = true;
		return 0; /* curl stops: CURLE_WRITE_ERROR */
	}
	if (a->len + len + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 8192;
		char *b;
		while (cap < a->len + len + 1)
			cap *= 2;
		b = realloc(a->buf, cap);
		if (!b)
			return 0;
		a->buf = b;
		a->cap = cap;
	}
	memcpy(a->buf + a->len, p, len);
	a->len += len;
	a->buf[a->len] = '\0';
	return len;
}

int xms_client_open(struct xms_client *x, const char *url, const char *user, const char *cacert, bool insecure,
		    char *err, size_t errlen)
{
	const char *pass = getenv("LUNLAB_API_PASSWORD");
	const char *host;
	size_t hl;

	memset(x, 0, sizeof(*x));
	if (strncmp(url, "https://", 8) != 0) {
		snprintf(err, errlen, "--api: '%s' is not an https:// URL", url);
		return -1;
	}
	host = url + 8;
	hl = strcspn(host, "/");
	if (hl == 0 || hl > 300) {
		snprintf(err, errlen, "--api: '%s' has no host", url);
		return -1;
	}
	snprintf(x->base, sizeof(x->base), "https://%.*s/api/json/v2/types", (int)hl, host);
	if (!user || !*user || strlen(user) >= sizeof(x->user) || strchr(user, ':')) {
		snprintf(err, errlen, "--api-user: want 1..64 characters without ':'");
		return -1;
	}
	if (!pass || !*pass || strlen(pass) >= sizeof(x->pass)) {
		snprintf(err, errlen, "--api: set the API password in the environment variable LUNLAB_API_PASSWORD");
		return -1;
	}
	snprintf(x->user, sizeof(x->user), "%s", user);
	snprintf(x->pass, sizeof(x->pass), "%s", pass);
	x->cacert = cacert;
	x->insecure = insecure;
	x->timeout_s = conn_get_policy()->timeout_s;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	x->curl = curl_easy_init();
	if (!x->curl) {
		snprintf(err, errlen, "--api: libcurl would not start");
		return -1;
	}
	return 0;
}

void xms_client_close(struct xms_client *x)
{
	if (x->curl)
		curl_easy_cleanup(x->curl);
	memset(x->pass, 0, sizeof(x->pass));
	x->curl = NULL;
}

/* the answer's JSON: an object, nesting at most 32 deep, nothing after it */
static struct json_object *parse(const char *s, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(32);
	struct json_object *o;

	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, s, (int)len);
	if (o && (json_tokener_get_error(tok) != json_tokener_success || json_tokener_get_parse_end(tok) < len ||
		  !json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}


/* one attempt: the CURLcode; *status and the answer's bytes when an answer came */
static CURLcode request_once(struct xms_client *x, const char *method, const char *url, const char *body,
			     long timeout_ms, struct answer *a, long *status)
{
	CURL *c = x->curl;
	struct curl_slist *hdr = NULL;
	CURLcode rc;

	*status = -1;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	curl_easy_setopt(c, CURLOPT_USERNAME, x->user);
	curl_easy_setopt(c, CURLOPT_PASSWORD, x->pass);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (x->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (x->cacert) {
		curl_easy_setopt(c, CURLOPT_CAINFO, x->cacert);
	}
	if (body) {
		curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, body);
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	}
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	rc = curl_easy_perform(c);
	curl_slist_free_all(hdr);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

long xms_client_request(struct xms_client *x, const char *method, const char *path, struct json_object *body,
			struct json_object **out, char *err, size_t errlen)
{
	struct answer a = { NULL, 0, 0, false };
	const char *b = body ? json_object_to_json_string(body) : NULL;
	bool idem = http_idempotent(method);
	struct http_retry rt;
	char url[1024], what[1100];
	long status = -1;
	CURLcode rc;

	*out = NULL;
	snprintf(url, sizeof(url), "%s/%s", x->base, path);
	if (x->lost[0]) {
		snprintf(err, errlen, "%s", x->lost);
		return -1;
	}
	http_retry_begin(&rt, x->timeout_s);
	for (;;) {
		rc = request_once(x, method, url, b, http_retry_attempt_ms(&rt, x->timeout_s, now_ns()), &a, &status);
		enum http_verdict v = http_retry_decide(rc, status, idem);
		if (v == HTTP_ANSWER || v == HTTP_FINAL)
			break;
		free(a.buf);
		a = (struct answer){ NULL, 0, 0, false };
		uint64_t wait = http_retry_failed_curl(&rt, rc, status, now_ns());
		if (v == HTTP_LOST)
			wait = UINT64_MAX;   /* sent, answer lost, not repeatable (a POST) */
		if (wait == UINT64_MAX) {
			snprintf(what, sizeof(what), "%s %s", method, url);
			http_retry_message(&rt, what, x->answered, v == HTTP_AGAIN, x->lost, sizeof(x->lost));
			snprintf(err, errlen, "%s", x->lost);
			conn_note_fatal(x->lost);
			return -1;
		}
		http_retry_sleep(wait);
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s %s: %s", method, url,
			 a.too_long ? "the answer is longer than 8 MiB" : curl_easy_strerror(rc));
		status = -1;
		goto out;
	}
	x->answered = true;
	/* a DELETE whose answer was lost on the way did its work: the object is gone */
	if (status == 404 && rt.failed && !strcmp(method, "DELETE")) {
		status = 200;
		goto out;
	}
	if (a.len) {
		*out = parse(a.buf, a.len);
		if (!*out) {
			snprintf(err, errlen, "%s %s: HTTP %ld with an answer that is not a JSON object", method, url, status);
			status = -1;
			goto out;
		}
	}
	if (status < 200 || status >= 300) {
		struct json_object *m = NULL;
		const char *msg = *out && json_object_object_get_ex(*out, "message", &m) &&
					  json_object_is_type(m, json_type_string) ? json_object_get_string(m) : "";
		snprintf(err, errlen, "HTTP %ld: %s", status, msg);
		json_object_put(*out);
		*out = NULL;
	}
out:
	free(a.buf);
	return status;
}

/* field readers: the XMS number formats ("123" strings, numbers) */
static bool get_str(struct json_object *o, const char *k, char *dst, size_t cap)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return false;
	snprintf(dst, cap, "%s", json_object_get_string(v));
	return true;
}

static bool get_u64(struct json_object *o, const char *k, uint64_t *out)
{
	struct json_object *v;
	char *end;

	if (!json_object_object_get_ex(o, k, &v))
		return false;
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0) {
		*out = (uint64_t)json_object_get_int64(v);
		return true;
	}
	if (!json_object_is_type(v, json_type_string))
		return false;
	errno = 0;
	*out = strtoull(json_object_get_string(v), &end, 10);
	return !errno && *json_object_get_string(v) && !*end;
}

static double get_double(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		return 0;
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
		return json_object_get_double(v);
	if (json_object_is_type(v, json_type_string))
		return strtod(json_object_get_string(v), NULL);
	return 0;
}

/* the list in answer[key] */
static struct json_object *list_of(struct json_object *answer, const char *key)
{
	struct json_object *l;

	return answer && json_object_object_get_ex(answer, key, &l) && json_object_is_type(l, json_type_array) ? l : NULL;
}

int xms_client_volume_by_serial(struct xms_client *x, const char *serial, char *name, size_t namelen,
				uint64_t *index, char *cluster, size_t clusterlen, char *err, size_t errlen)
{
	struct json_object *a = NULL, *l, *v, *sys;
	char path[256], *esc;
	long st;

	esc = curl_easy_escape(x->curl, serial, 0);
	snprintf(path, sizeof(path), "volumes?full=1&prop=name&prop=index&prop=sys-id&filter=guid:eq:%s",
		 esc ? esc : "");
	curl_free(esc);
	st = xms_client_request(x, "GET", path, NULL, &a, err, errlen);
	if (st != 200)
		return -1;
	l = list_of(a, "volumes");
	if (!l || json_object_array_length(l) != 1) {
		snprintf(err, errlen, "the LU (unit serial '%s') is not a volume the API knows: give the URL of a "
			 "volume made through it", serial);
		json_object_put(a);
		return -1;
	}
	v = json_object_array_get_idx(l, 0);
	if (!get_str(v, "name", name, namelen) || !get_u64(v, "index", index) ||
	    !json_object_object_get_ex(v, "sys-id", &sys) || !json_object_is_type(sys, json_type_array) ||
	    json_object_array_length(sys) != 3 ||
	    !json_object_is_type(json_object_array_get_idx(sys, 1), json_type_string)) {
		snprintf(err, errlen, "the API's volume for serial '%s' lacks name, index or sys-id", serial);
		json_object_put(a);
		return -1;
	}
	snprintf(cluster, clusterlen, "%s", json_object_get_string(json_object_array_get_idx(sys, 1)));
	json_object_put(a);
	return 0;
}

int xms_client_cluster(struct xms_client *x, const char *name, struct xms_cluster_figures *f, char *err,
		       size_t errlen)
{
	struct json_object *a = NULL, *c = NULL, *l;
	char path[256], *esc = NULL;
	uint64_t kb[4] = { 0 }, nv = 0;
	long st;

	memset(f, 0, sizeof(*f));
	if (name) {
		esc = curl_easy_escape(x->curl, name, 0);
		snprintf(path, sizeof(path), "clusters?name=%s", esc ? esc : "");
		curl_free(esc);
	} else {
		snprintf(path, sizeof(path), "clusters?full=1");
	}
	st = xms_client_request(x, "GET", path, NULL, &a, err, errlen);
	if (st != 200)
		return -1;
	if (name)
		json_object_object_get_ex(a, "content", &c);
	else if ((l = list_of(a, "clusters")) && json_object_array_length(l) > 0)
		c = json_object_array_get_idx(l, 0);
	if (!c || !json_object_is_type(c, json_type_object) || !get_str(c, "name", f->name, sizeof(f->name)) ||
	    !get_u64(c, "ud-ssd-space", &kb[0]) || !get_u64(c, "ud-ssd-space-in-use", &kb[1]) ||
	    !get_u64(c, "vol-size", &kb[2]) || !get_u64(c, "logical-space-in-use", &kb[3])) {
		snprintf(err, errlen, "the API's cluster lacks its capacity fields (ud-ssd-space, ud-ssd-space-in-use, "
			 "vol-size, logical-space-in-use)");
		json_object_put(a);
		return -1;
	}
	get_str(c, "sys-sw-version", f->sw_version, sizeof(f->sw_version));
	get_str(c, "chap-authentication-mode", f->chap_auth, sizeof(f->chap_auth));
	get_str(c, "chap-discovery-mode", f->chap_discovery, sizeof(f->chap_discovery));
	f->capacity_bytes = kb[0] * 1024;
	f->in_use_bytes = kb[1] * 1024;
	f->provisioned_bytes = kb[2] * 1024;
	f->logical_bytes = kb[3] * 1024;
	f->dedup_ratio = get_double(c, "dedup-ratio");
	f->compression_factor = get_double(c, "compression-factor");
	f->drr = get_double(c, "data-reduction-ratio");
	f->thin_ratio = get_double(c, "thin-provisioning-ratio");
	if (get_u64(c, "num-of-vols", &nv))
		f->volumes = (unsigned)nv;
	json_object_put(a);
	return 0;
}

char *xms_client_escape(struct xms_client *x, const char *s)
{
	char *e = curl_easy_escape(x->curl, s, 0), *copy = e ? strdup(e) : NULL;

	curl_free(e);
	return copy;
}

int xms_client_created_index(struct json_object *answer, uint64_t *index)
{
	struct json_object *l = list_of(answer, "links"), *h;
	const char *href, *slash;
	char *end;

	if (!l || json_object_array_length(l) < 1 ||
	    !json_object_object_get_ex(json_object_array_get_idx(l, 0), "href", &h) ||
	    !json_object_is_type(h, json_type_string))
		return -1;
	href = json_object_get_string(h);
	slash = strrchr(href, '/');
	if (!slash || slash[1] < '1' || slash[1] > '9')
		return -1;
	errno = 0;
	*index = strtoull(slash + 1, &end, 10);
	return errno || *end ? -1 : 0;
}
