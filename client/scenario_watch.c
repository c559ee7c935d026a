/* scenario_watch.c - `lunlab-bench watch URL`: the dashboard's live figures
 * on a terminal (metrics_view.h), read from the target's /metrics.json every
 * --interval seconds.  On a terminal the screen is redrawn in place; else
 * (a pipe, a log) each reading is printed after the last; --json prints one
 * JSON object per reading.  --count N stops after N readings.
 *
 * A reading that fails on the way (the target restarting, its path down) is tried again for
 * --timeout as a lost session is (http_retry.h); a target that comes back is watched on (its
 * counters start again from zero: that one interval shows zero rates), one that
 * does not ends watch with one line naming the URL and the cause (exit 3). */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/conn.h"
#include "client/metrics_client.h"
#include "client/metrics_view.h"
#include "client/scenarios.h"

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int scenario_watch(const struct bench_opts *o, char *err, size_t errlen)
{
	static struct mview v;
	struct metrics_client mc;
	json_object *prev = NULL;
	bool tty = isatty(STDOUT_FILENO) && o->format == OUT_TABLE;

	if (metrics_client_open(&mc, o->url, o->metrics_insecure, err, errlen) < 0)
		return -1;
	mc.retry = true;
	for (unsigned n = 0; !o->count || n < o->count; n++) {
		json_object *cur = metrics_client_get(&mc, err, errlen);

		if (!cur) {
			if (mc.lost)
				conn_note_fatal(err);
			json_object_put(prev);
			metrics_client_close(&mc);
			return -1;
		}
		mview_compute(prev, cur, &v);
		if (o->format == OUT_JSON) {
			json_object *j = mview_json(&v);
			printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
			json_object_put(j);
		} else {
			if (tty)
				fputs("\033[H\033[2J", stdout); /* home, clear: redraw in place */
			else if (n)
				fputs("\n", stdout);
			mview_print(stdout, &v, mc.shown);
		}
		fflush(stdout);
		json_object_put(prev);
		prev = cur;
		if (!o->count || n + 1 < o->count)
			sleep_s(o->interval_s);
	}
	json_object_put(prev);
	metrics_client_close(&mc);
	return 0;
}
