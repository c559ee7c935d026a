/* prom_text.c — Prometheus text exposition writer (prom_text.h). */
#include "target/metrics/prom_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool failed(const struct prom_out *o)
{
	return o->error[0] != 0;
}

__attribute__((format(printf, 2, 3)))
static void fail(struct prom_out *o, const char *fmt, ...)
{
	va_list ap;

	if (failed(o))
		return;
	va_start(ap, fmt);
	vsnprintf(o->error, sizeof(o->error), fmt, ap);
	va_end(ap);
}

void prom_init(struct prom_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
}

const char *prom_error(const struct prom_out *o)
{
	return failed(o) ? o->error : NULL;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* (metric names); label names: no ':' */
static bool valid_name(const char *s, bool colon)
{
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		char c = *p;
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
		if (!alpha && !(p > s && c >= '0' && c <= '9'))
			return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

void prom_format_double(double v, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* HELP text: backslash and newline escaped (the format's rule for HELP) */
static void put_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* label values: backslash, double quote and newline escaped */
static void put_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

void prom_family(struct prom_out *o, const char *name, enum prom_type type, const char *help)
{
	static const char *const tname[] = { "counter", "gauge", "histogram" };

	if (failed(o))
		return;
	if (!valid_name(name, true) || strlen(name) >= sizeof(o->family)) {
		fail(o, "metric name '%s' is not a valid Prometheus name", name ? name : "(null)");
		return;
	}
	if ((unsigned)type > PROM_HISTOGRAM) {
		fail(o, "%s: unknown type", name);
		return;
	}
	if (type == PROM_COUNTER && !ends_with(name, "_total")) {
		fail(o, "counter %s must end in _total", name);
		return;
	}
	if (type != PROM_COUNTER && ends_with(name, "_total")) {
		fail(o, "%s ends in _total but is not a counter", name);
		return;
	}
	if (type == PROM_HISTOGRAM && (ends_with(name, "_bucket") || ends_with(name, "_sum") ||
				       ends_with(name, "_count"))) {
		fail(o, "histogram %s must not end in a suffix its series use", name);
		return;
	}
	for (unsigned i = 0; i < o->nseen; i++)
		if (!strcmp(o->seen[i], name)) {
			fail(o, "family %s written twice: its samples must be together", name);
			return;
		}
	if (o->nseen >= PROM_MAX_FAMILIES) {
		fail(o, "more than %d families", PROM_MAX_FAMILIES);
		return;
	}
	snprintf(o->seen[o->nseen++], sizeof(o->seen[0]), "%s", name);
	snprintf(o->family, sizeof(o->family), "%s", name);
	o->type = type;
	fprintf(o->f, "# HELP %s ", name);
	put_help(o->f, help ? help : "");
	fprintf(o->f, "\n# TYPE %s %s\n", name, tname[type]);
}

static bool labels_ok(struct prom_out *o, const struct prom_label *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!valid_name(l[i].name, false) || !strncmp(l[i].name, "__", 2)) {
			fail(o, "%s: label name '%s' is not valid", o->family, l[i].name ? l[i].name : "(null)");
			return false;
		}
		if (!strcmp(l[i].name, "le") || !strcmp(l[i].name, "quantile")) {
			fail(o, "%s: label '%s' is reserved", o->family, l[i].name);
			return false;
		}
		if (!l[i].value) {
			fail(o, "%s: label %s has no value", o->family, l[i].name);
			return false;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(l[i].name, l[j].name)) {
				fail(o, "%s: label %s given twice", o->family, l[i].name);
				return false;
			}
	}
	return true;
}

/* name{labels[,le="..."]} — the series part of a sample line */
static void put_series(struct prom_out *o, const char *suffix, const struct prom_label *l, size_t n,
		       const char *le)
{
	fprintf(o->f, "%s%s", o->family, suffix);
	if (!n && !le)
		return;
	fputc('{', o->f);
	for (size_t i = 0; i < n; i++) {
		fprintf(o->f, "%s%s=\"", i ? "," : "", l[i].name);
		put_label_value(o->f, l[i].value);
		fputc('"', o->f);
	}
	if (le)
		fprintf(o->f, "%sle=\"%s\"", n ? "," : "", le);
	fputc('}', o->f);
}

static bool sample_ok(struct prom_out *o, const struct prom_label *l, size_t n, bool histogram)
{
	if (failed(o))
		return false;
	if (!o->family[0]) {
		fail(o, "a sample before any family");
		return false;
	}
	if (histogram != (o->type == PROM_HISTOGRAM)) {
		fail(o, "%s: %s", o->family, histogram ? "not a histogram" : "a histogram takes prom_histogram");
		return false;
	}
	return labels_ok(o, l, n);
}

void prom_sample(struct prom_out *o, const struct prom_label *labels, size_t nlabels, double value)
{
	char v[40];

	if (!sample_ok(o, labels, nlabels, false))
		return;
	if (o->type == PROM_COUNTER && !(value >= 0)) {
		fail(o, "%s: a counter cannot be negative or NaN", o->family);
		return;
	}
	prom_format_double(value, v, sizeof(v));
	put_series(o, "", labels, nlabels, NULL);
	fprintf(o->f, " %s\n", v);
}

void prom_sample_u64(struct prom_out *o, const struct prom_label *labels, size_t nlabels, uint64_t value)
{
	if (!sample_ok(o, labels, nlabels, false))
		return;
	put_series(o, "", labels, nlabels, NULL);
	fprintf(o->f, " %" PRIu64 "\n", value);
}

void prom_histogram(struct prom_out *o, const struct prom_label *labels, size_t nlabels,
		    const double *bounds, const uint64_t *counts, size_t nbounds, double sum)
{
	uint64_t cum = 0;
	char le[40], v[40];

	if (!sample_ok(o, labels, nlabels, true))
		return;
	for (size_t i = 1; i < nbounds; i++)
		if (!(bounds[i] > bounds[i - 1])) {
			fail(o, "%s: bucket bounds must ascend", o->family);
			return;
		}
	for (size_t i = 0; i < nbounds; i++) {
		cum += counts[i];
		prom_format_double(bounds[i], le, sizeof(le));
		put_series(o, "_bucket", labels, nlabels, le);
		fprintf(o->f, " %" PRIu64 "\n", cum);
	}
	cum += counts[nbounds];
	put_series(o, "_bucket", labels, nlabels, "+Inf");
	fprintf(o->f, " %" PRIu64 "\n", cum);
	prom_format_double(sum, v, sizeof(v));
	put_series(o, "_sum", labels, nlabels, NULL);
	fprintf(o->f, " %s\n", v);
	put_series(o, "_count", labels, nlabels, NULL);
	fprintf(o->f, " %" PRIu64 "\n", cum);
}
