/* conn_stats.c - adding up and comparing what the connection layer did (conn_stats.h). */
#include "client/conn_stats.h"

void conn_stats_add(struct conn_stats *sum, const struct conn_stats *s)
{
	sum->reconnects += s->reconnects;
	sum->outage_s += s->outage_s;
	if (s->longest_outage_s > sum->longest_outage_s)
		sum->longest_outage_s = s->longest_outage_s;
	sum->resent += s->resent;
	sum->timeouts += s->timeouts;
	sum->aborts += s->aborts;
	sum->busy += s->busy;
	sum->task_set_full += s->task_set_full;
	sum->unit_attentions += s->unit_attentions;
	sum->resets += s->resets;
	sum->not_ready += s->not_ready;
	sum->aborted_commands += s->aborted_commands;
}

void conn_stats_diff(struct conn_stats *d, const struct conn_stats *a, const struct conn_stats *b)
{
	d->reconnects = a->reconnects - b->reconnects;
	d->outage_s = a->outage_s - b->outage_s;
	/* the longest outage of the interval is not recoverable from two totals: a's when the
	 * interval had one, else none */
	d->longest_outage_s = d->reconnects ? a->longest_outage_s : 0;
	d->resent = a->resent - b->resent;
	d->timeouts = a->timeouts - b->timeouts;
	d->aborts = a->aborts - b->aborts;
	d->busy = a->busy - b->busy;
	d->task_set_full = a->task_set_full - b->task_set_full;
	d->unit_attentions = a->unit_attentions - b->unit_attentions;
	d->resets = a->resets - b->resets;
	d->not_ready = a->not_ready - b->not_ready;
	d->aborted_commands = a->aborted_commands - b->aborted_commands;
}

bool conn_stats_any(const struct conn_stats *s)
{
	return conn_stats_disturbed(s) || s->unit_attentions || s->resets;
}

bool conn_stats_disturbed(const struct conn_stats *s)
{
	return s->reconnects || s->resent || s->timeouts || s->aborts || s->busy || s->task_set_full ||
	       s->not_ready || s->aborted_commands || s->outage_s > 0;
}
