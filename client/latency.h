/* latency.h - per-command latency samples and their percentiles. */
#ifndef LUNLAB_CLIENT_LATENCY_H
#define LUNLAB_CLIENT_LATENCY_H

#include <stddef.h>
#include <stdint.h>

struct lat_samples {
	uint32_t *v;                /* microseconds x 10 (100 ns units), saturating */
	size_t n, cap;
};

void lat_add(struct lat_samples *s, uint64_t ns);
/* Percentile p in [0,100] in milliseconds (nearest rank); 0 when empty.  Sorts in place. */
double lat_percentile_ms(struct lat_samples *s, double p);
/* Mean in milliseconds; 0 when empty. */
double lat_mean_ms(const struct lat_samples *s);
void lat_free(struct lat_samples *s);

#endif
