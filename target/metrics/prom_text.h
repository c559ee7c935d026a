/* prom_text.h — a writer of Prometheus' text exposition format (version
 * 0.0.4, what every Prometheus server scrapes): metric families with their
 * # HELP and # TYPE lines, samples with escaped label values, histograms as
 * cumulative _bucket{le=...} series with _sum and _count.
 *
 * It enforces the format's rules and the naming guide's conventions the
 * caller could get wrong: names and label names from the allowed
 * characters, each family once and its samples together, counters named
 * *_total, "le" only where a histogram puts it, +Inf/NaN spelled as the
 * format wants.  A violation is a bug in lunlab, not bad input: the writer
 * remembers the first one (prom_error) and writes nothing more, so /metrics
 * answers 500 instead of text a scraper would reject half-way. */
#ifndef LUNLAB_PROM_TEXT_H
#define LUNLAB_PROM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum prom_type { PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM };

struct prom_label {
	const char *name;
	const char *value; /* any bytes but NUL; escaped on output */
};

#define PROM_MAX_FAMILIES 128

struct prom_out {
	FILE *f;
	char error[160];             /* "" while all is well */
	enum prom_type type;         /* of the open family */
	char family[96];             /* the open family ("" before the first) */
	char seen[PROM_MAX_FAMILIES][96];
	unsigned nseen;
};

void prom_init(struct prom_out *o, FILE *f);

/* Opens a family: writes "# HELP name help" and "# TYPE name type".  Every
 * sample until the next prom_family belongs to it. */
void prom_family(struct prom_out *o, const char *name, enum prom_type type, const char *help);

/* One sample of the open counter or gauge family.  The u64 form writes the
 * exact integer (counters of bytes pass 2^53 long before they wrap). */
void prom_sample(struct prom_out *o, const struct prom_label *labels, size_t nlabels, double value);
void prom_sample_u64(struct prom_out *o, const struct prom_label *labels, size_t nlabels, uint64_t value);

/* One histogram of the open histogram family: bounds[nbounds] ascending
 * upper bounds, counts[nbounds + 1] per bucket (not cumulative; the last
 * counts what is above the last bound).  Writes the cumulative buckets,
 * le="+Inf", _sum and _count (= the +Inf bucket). */
void prom_histogram(struct prom_out *o, const struct prom_label *labels, size_t nlabels,
		    const double *bounds, const uint64_t *counts, size_t nbounds, double sum);

/* NULL, or the first rule broken (one line). */
const char *prom_error(const struct prom_out *o);

/* The format's spelling of a float: shortest text that reads back as the
 * same double, "+Inf", "-Inf", "NaN".  buf of at least 32 bytes. */
void prom_format_double(double v, char *buf, size_t len);

#endif
