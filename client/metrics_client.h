/* metrics_client.h - lunlab-bench's reader of a target's /metrics.json (the
 * snapshot lunlab-target's API serves, docs/metrics.md), over HTTP(S) with
 * libcurl.  Used by --metrics-url (what the array saw during a run) and by
 * `watch` (the live figures on a terminal). */
#ifndef LUNLAB_CLIENT_METRICS_CLIENT_H
#define LUNLAB_CLIENT_METRICS_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct json_object;

struct metrics_client {
	char url[1024];        /* the /metrics.json URL */
	char shown[1024];      /* the same without the password, for messages */
	bool insecure;         /* --metrics-insecure: accept any certificate (the target's self-signed one) */
	void *curl;            /* one CURL easy handle, reused (keep-alive) */
	double timeout_s;      /* each request's limit, and the retry window (--timeout, conn_get_policy) */
	bool retry;            /* a reading that fails on the way is tried again within timeout_s
	                        * (http_retry.h); false: one attempt (the recorder's sampler) */
	bool answered;         /* a reading succeeded: a later failure is a lost connection */
	bool lost;             /* the last metrics_client_get failed on the path (not an answer it
	                        * did not like): err is the give-up line, for conn_note_fatal */
	const atomic_bool *cancel; /* set: a transfer in progress ends once *cancel is true */
};

/* The /metrics.json URL of what the user gave: a base ("https://host:port", with or
 * without a trailing '/'), the /metrics URL, or the /metrics.json URL itself, optionally
 * with user:password@.  -1 with a reason naming the URL when it is not http(s). */
int metrics_json_url(const char *given, char *out, size_t outlen, char *err, size_t errlen);

int metrics_client_open(struct metrics_client *c, const char *given, bool insecure, char *err, size_t errlen);
void metrics_client_close(struct metrics_client *c);

/* One snapshot, parsed.  NULL with a one-line reason (HTTP status, TLS, not JSON, no
 * "luns"/"arrays"; c->lost when the target could not be reached within --timeout). */
struct json_object *metrics_client_get(struct metrics_client *c, char *err, size_t errlen);

#endif
