/* xms_client.h - lunlab-bench's client of an XMS REST API (lunlab-target --api, or an
 * XtremIO's XMS): HTTPS with libcurl, HTTP Basic with the user of --api-user and the
 * password of $LUNLAB_API_PASSWORD (never the command line), JSON with json-c.  Answers
 * are parsed with a bounded nesting depth and every field read is checked for its type. */
#ifndef LUNLAB_CLIENT_XMS_CLIENT_H
#define LUNLAB_CLIENT_XMS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

#define XMS_CLIENT_MAX_ANSWER (8u << 20)  /* a longer answer is refused */

struct xms_client {
	char base[512];          /* "https://HOST:PORT/api/json/v2/types" */
	char user[65];
	char pass[256];
	const char *cacert;      /* verify the server against this PEM file; NULL: system CAs */
	bool insecure;           /* --api-insecure: no verification (a self-signed API) */
	double timeout_s;        /* each request's limit and its retry window (--timeout, http_retry.h) */
	bool answered;           /* the API answered once: a later failure is a lost connection */
	char lost[600];          /* the API could not be reached within --timeout: every later
	                          * request fails at once with this line (as a failed session) */
	void *curl;
};

/* url: "https://HOST:PORT" (a path after it is ignored).  The password comes from the
 * environment variable LUNLAB_API_PASSWORD.  0, or -1 with a one-line reason. */
int xms_client_open(struct xms_client *x, const char *url, const char *user, const char *cacert, bool insecure,
		    char *err, size_t errlen);
void xms_client_close(struct xms_client *x);

/* One request: method, path below /api/json/v2/types ("volumes?name=x"), an optional JSON
 * body.  Returns the HTTP status (2xx with *out the parsed answer, NULL for an empty body),
 * or -1 with a reason when the request failed on the way; a 4xx/5xx writes
 * "HTTP N: MESSAGE" (the XMS error's message) into err.  A request that fails on the way is
 * sent again within --timeout as http_retry.h says; when the API stays out of reach, err is
 * the one-line give-up message, also recorded with conn_note_fatal (lunlab-bench exits 3). */
long xms_client_request(struct xms_client *x, const char *method, const char *path, struct json_object *body,
			struct json_object **out, char *err, size_t errlen);

/* The capacity fields of a cluster, as XMS reports them (KiB turned into bytes). */
struct xms_cluster_figures {
	char name[64];
	char sw_version[32];
	uint64_t capacity_bytes;      /* ud-ssd-space */
	uint64_t in_use_bytes;        /* ud-ssd-space-in-use */
	uint64_t provisioned_bytes;   /* vol-size */
	uint64_t logical_bytes;       /* logical-space-in-use */
	double dedup_ratio, compression_factor, drr, thin_ratio;
	char chap_auth[16], chap_discovery[16];
	unsigned volumes;
};

/* The XMS volume whose GUID is serial (lunlab's volumes carry it as their unit serial
 * number, VPD 80h): its name, index and cluster.  -1 with a reason when none is. */
int xms_client_volume_by_serial(struct xms_client *x, const char *serial, char *name, size_t namelen,
				uint64_t *index, char *cluster, size_t clusterlen, char *err, size_t errlen);
/* Figures of the cluster named (NULL: the first one). */
int xms_client_cluster(struct xms_client *x, const char *name, struct xms_cluster_figures *f, char *err,
		       size_t errlen);
/* s escaped for a query string (malloc'd; NULL when out of memory). */
char *xms_client_escape(struct xms_client *x, const char *s);

/* The index in the first link of a POST's answer ({"links": [{"href": ".../TYPE/INDEX"}]}). */
int xms_client_created_index(struct json_object *answer, uint64_t *index);

#endif
