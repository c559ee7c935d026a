/* metrics_record.c - the sampler behind --metrics-url. */
#include "client/metrics_record.h"

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/conn.h"
#include "client/metrics_client.h"
#include "client/metrics_view.h"

#define MAX_SAMPLES 86400 /* a day of seconds; older samples are dropped past this */

struct metrics_record {
	struct metrics_client mc;
	double interval_s;
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	atomic_bool cancel;             /* metrics_record_cancel: a reading in progress ends */
	json_object *first, *prev;      /* snapshots */
	json_object *samples;           /* array of mview_json */
	unsigned failed;                /* readings that failed during the run */
	char last_err[256];
};

static void add_sample(struct metrics_record *r, json_object *snap)
{
	static struct mview v; /* large: one per record, only the sampler thread uses it */

	mview_compute(r->prev, snap, &v);
	if (json_object_array_length(r->samples) < MAX_SAMPLES)
		json_object_array_add(r->samples, mview_json(&v));
	json_object_put(r->prev != r->first ? r->prev : NULL);
	r->prev = snap;
}

static void *sampler(void *arg)
{
	struct metrics_record *r = arg;
	struct timespec next;

	clock_gettime(CLOCK_REALTIME, &next);
	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		double s = (double)next.tv_sec + (double)next.tv_nsec / 1e9 + r->interval_s;

		next.tv_sec = (time_t)s;
		next.tv_nsec = (long)((s - (double)next.tv_sec) * 1e9);
		while (!r->stop && pthread_cond_timedwait(&r->cv, &r->mu, &next) != ETIMEDOUT)
			;
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->mu);
		char err[256];
		json_object *snap = metrics_client_get(&r->mc, err, sizeof(err));
		pthread_mutex_lock(&r->mu);
		if (snap) {
			add_sample(r, snap);
		} else {
			r->failed++;
			snprintf(r->last_err, sizeof(r->last_err), "%s", err);
		}
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct metrics_record *metrics_record_start(const char *url, bool insecure, double interval_s, char *err,
					    size_t errlen)
{
	struct metrics_record *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->interval_s = interval_s > 0 ? interval_s : 1;
	atomic_init(&r->cancel, false);
	if (metrics_client_open(&r->mc, url, insecure, err, errlen) < 0)
		goto fail;
	/* the first reading waits for the target as a first login does (--timeout); the sampler
	 * tries each reading once (the next one is an interval away) */
	r->mc.retry = true;
	if (!(r->first = metrics_client_get(&r->mc, err, errlen))) {
		if (r->mc.lost)
			conn_note_fatal(err);      /* the target could not be reached: exit 3 */
		goto fail;
	}
	r->mc.retry = false;
	r->mc.cancel = &r->cancel;
	r->prev = r->first;
	r->samples = json_object_new_array();
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pthread_create(&r->thr, NULL, sampler, r) != 0) {
		snprintf(err, errlen, "cannot start the metrics sampler thread");
		json_object_put(r->first);
		json_object_put(r->samples);
		metrics_client_close(&r->mc);
		free(r);
		return NULL;
	}
	return r;
fail:
	metrics_client_close(&r->mc);
	free(r);
	return NULL;
}

/* stop the sampler (a reading in progress ends within about a second) */
static void stop_sampler(struct metrics_record *r, bool cancel)
{
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	if (cancel)
		atomic_store(&r->cancel, true);
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thr, NULL);
}

static void record_free(struct metrics_record *r)
{
	if (r->prev != r->first)
		json_object_put(r->prev);
	json_object_put(r->first);
	json_object_put(r->samples);
	metrics_client_close(&r->mc);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}

void metrics_record_cancel(struct metrics_record *r)
{
	stop_sampler(r, true);
	record_free(r);
}

json_object *metrics_record_finish(struct metrics_record *r, char *err, size_t errlen)
{
	static struct mview whole;
	json_object *last, *o = NULL;

	stop_sampler(r, false);
	last = metrics_client_get(&r->mc, err, errlen);
	if (last) {
		add_sample(r, json_object_get(last));
		mview_compute(r->first, last, &whole);
		o = json_object_new_object();
		json_object_object_add(o, "url", json_object_new_string(r->mc.shown));
		json_object_object_add(o, "interval_s", json_object_new_double(r->interval_s));
		json_object_object_add(o, "failed_readings", json_object_new_int(r->failed));
		if (r->failed)
			json_object_object_add(o, "last_error", json_object_new_string(r->last_err));
		json_object_object_add(o, "run", mview_json(&whole));
		json_object_object_add(o, "samples", json_object_get(r->samples));
		json_object_put(last);
	}
	record_free(r);
	return o;
}
