/* conn_stats.h - what the connection layer had to do for a run: sessions re-established,
 * commands resent, aborted or retried.  Every result carries one (results.h) and every report
 * shows it, so a figure measured across an outage or a flood of BUSY says so. */
#ifndef LUNLAB_CLIENT_CONN_STATS_H
#define LUNLAB_CLIENT_CONN_STATS_H

#include <stdbool.h>

struct conn_stats {
	unsigned reconnects;        /* sessions logged in again after the connection was lost */
	double outage_s;            /* time without a session, summed over sessions and losses */
	double longest_outage_s;    /* the longest single time one session was without one */
	unsigned resent;            /* commands sent again on a new session */
	unsigned timeouts;          /* commands unanswered for --timeout (each got an ABORT TASK) */
	unsigned aborts;            /* of those, ABORT TASKs the target answered */
	unsigned busy;              /* BUSY answers, retried after a backoff */
	unsigned task_set_full;     /* TASK SET FULL answers, retried after a backoff */
	unsigned unit_attentions;   /* UNIT ATTENTION answers, retried */
	unsigned resets;            /* of those, 06/29/xx: the target was reset or restarted */
	unsigned not_ready;         /* NOT READY becoming ready / in transition, retried */
	unsigned aborted_commands;  /* ABORTED COMMAND sense or TASK ABORTED status, retried */
};

/* sum += s */
void conn_stats_add(struct conn_stats *sum, const struct conn_stats *s);
/* d = a - b (counters of a run: the session's totals after minus before) */
void conn_stats_diff(struct conn_stats *d, const struct conn_stats *a, const struct conn_stats *b);
/* Did anything happen at all? */
bool conn_stats_any(const struct conn_stats *s);
/* Did anything happen that put time the array did not charge into a run's latencies (a
 * re-login, an outage, a timeout, backoffs after BUSY / TASK SET FULL / NOT READY)?  A
 * retried UNIT ATTENTION alone is not that: every new session of a target owes one
 * (06/29/01 power on, SPC-4) and its retry costs one round trip; a restart is a re-login. */
bool conn_stats_disturbed(const struct conn_stats *s);

#endif
