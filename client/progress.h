/* progress.h - a one-line progress bar on stderr, only when stderr is a terminal. */
#ifndef LUNLAB_CLIENT_PROGRESS_H
#define LUNLAB_CLIENT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool enabled;
	const char *label;
	uint64_t total;
	double last_draw;
	double start;
};

void progress_start(struct progress *p, const char *label, uint64_t total, bool quiet);
void progress_update(struct progress *p, uint64_t done);
void progress_end(struct progress *p);

#endif
