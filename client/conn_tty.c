/* conn_tty.c - while a session is being logged in again, say so on the terminal: one line,
 * redrawn at most twice a second and erased when the session is back or given up, so a user
 * watching a frozen progress bar knows what lunlab-bench is waiting for.  Only when stderr is
 * a terminal and not --quiet (conn_policy.status_line): scripts see exactly one line on
 * failure. */
#include "client/conn_link.h"

#include <stdio.h>

static bool drawn;
static uint64_t last_draw_ns;

void conn_tty_update(const struct bench_conn *conns, unsigned n, uint64_t now)
{
	if (!conn_get_policy()->status_line)
		return;
	const struct bench_conn *waiting = NULL;
	unsigned down = 0;
	bool failed = false;
	for (unsigned i = 0; i < n; i++) {
		const struct conn_link *l = conns[i].link;
		if (!l)
			continue;
		failed |= l->state == LINK_FAILED;
		if (l->ever_up && (l->state == LINK_WAIT || l->state == LINK_LOGIN)) {
			down++;
			if (!waiting)
				waiting = &conns[i];
		}
	}
	if (!waiting || failed) {
		if (drawn)
			fprintf(stderr, "\r%*s\r", 100, "");
		drawn = false;
		return;
	}
	const struct conn_link *l = waiting->link;
	if (now - l->down_since_ns < 1000000000ull || (drawn && now - last_draw_ns < 500000000ull))
		return;
	char line[200];
	snprintf(line, sizeof(line), "no session (%.60s): logging in again, %.0f s of --timeout %.0f%s", l->cause,
		 (double)(now - l->down_since_ns) / 1e9, (double)l->timeout_ns / 1e9,
		 down > 1 ? " (several sessions)" : "");
	fprintf(stderr, "\r%-99.99s", line);
	fflush(stderr);
	drawn = true;
	last_draw_ns = now;
}
