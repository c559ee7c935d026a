/* calib_profile.c - write the profile calibrate fitted (calib_profile.h). */
#include "client/calib_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/calib_result.h"
#include "lunlab/errf.h"
#include "models/profile_parse.h"

static const char *const key_names[K_NKEYS] = {
	"dedup_block", "zlib_level", "zlib_window_bits", "alloc_unit",
	"cores", "cpu_cmd_ns", "cpu_entry_ns", "cpu_segment_ns", "cpu_mib_ns", "journal_cmd_ns",
	"journal_entry_ns", "frontend_mb_s", "backend_mb_s", "fixed_latency_ns", "host_turnaround_ns",
	"host_turnaround_ns_per_mib", "xcopy_bucket", "usable_bytes", "soft_threshold_percent",
};

void calib_profile_set_capacity(struct calib_profile_doc *d, const struct calib_result *r)
{
	uint64_t usable = r->usable_bytes ? r->usable_bytes : r->capacity;

	d->value[K_USABLE_BYTES] = usable < (1u << 20) ? 1u << 20 : usable; /* the parser's minimum */
	if (r->usable_measured)
		snprintf(d->comment[K_USABLE_BYTES], sizeof(d->comment[0]),
			 "bytes; measured: %s, so the capacity is %llu..%llu bytes (the middle is kept)",
			 r->capacity_how, (unsigned long long)r->usable_lo, (unsigned long long)r->usable_hi);
	else
		snprintf(d->comment[K_USABLE_BYTES], sizeof(d->comment[0]),
			 "bytes; the LU's capacity (READ CAPACITY), not measured (%s): the copy holds at least what the "
			 "LU can; put the array's own figure here if known (lunlab-target's array_capacity= overrides "
			 "it)", r->capacity_how[0] ? r->capacity_how : "no reading");
	d->value[K_SOFT_THRESHOLD] = r->soft_threshold_pct;
	if (r->soft_measured)
		snprintf(d->comment[K_SOFT_THRESHOLD], sizeof(d->comment[0]), "percent of usable_bytes (0: none); "
			 "measured: %s", r->soft_how);
	else
		snprintf(d->comment[K_SOFT_THRESHOLD], sizeof(d->comment[0]),
			 "percent; 0: not measured (%s)", r->soft_how[0] ? r->soft_how : "the capacity was not");
}

const char *calib_key_name(enum calib_key k)
{
	return k < K_NKEYS ? key_names[k] : "?";
}

static uint64_t ns(double v)
{
	if (!(v > 0))
		return 0;
	return v > 1e10 ? 10000000000ull : (uint64_t)llround(v);
}

/* ns per byte -> MB/s (10^6 B/s); 0 (unlimited) when the fit has no value */
static uint64_t mb_s(double ns_per_byte)
{
	if (!(ns_per_byte > 0))
		return 0;
	double v = 1000.0 / ns_per_byte;
	if (v < 1)
		return 1;
	return v > 1e6 ? 1000000 : (uint64_t)llround(v);
}

void calib_profile_set_cost(struct calib_profile_doc *d, const struct calib_fit *f)
{
	d->value[K_CORES] = 1;
	d->value[K_CPU_CMD] = ns(f->v[P_CPU_CMD]);
	d->value[K_CPU_ENTRY] = ns(f->v[P_CPU_ENTRY]);
	d->value[K_CPU_SEGMENT] = ns(f->v[P_CPU_SEG]);
	d->value[K_CPU_MIB] = ns(f->v[P_CPU_MIB]);
	d->value[K_JOURNAL_CMD] = ns(f->v[P_J_CMD]);
	d->value[K_JOURNAL_ENTRY] = ns(f->v[P_J_ENTRY]);
	d->value[K_FRONTEND] = mb_s(f->v[P_FE]);
	d->value[K_BACKEND] = mb_s(f->v[P_BE]);
	d->value[K_FIXED] = ns(f->v[P_FIXED]);
	d->value[K_TURNAROUND] = 0;
	d->value[K_TURNAROUND_MIB] = ns(f->v[P_XC_MIB]);
	d->value[K_XCOPY_BUCKET] = 0;
}

void calib_profile_name_from_path(const char *path, char *name, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n >= 5 && !strcmp(base + n - 5, ".yaml"))
		n -= 5;
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < len && o < 31; i++) {
		char c = base[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			  c == '_' || c == '-';
		name[o++] = ok ? c : '-';
	}
	name[o] = 0;
	if (!o)
		snprintf(name, len, "calibrated");
}

/* "# " comment lines of at most ~96 columns, indented */
static int comment(FILE *f, const char *indent, const char *text)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t line = nl ? (size_t)(nl - p) : strlen(p);
		while (line > 0) {
			size_t take = line;
			if (take > 94 - strlen(indent)) {
				take = 94 - strlen(indent);
				while (take > 20 && p[take] != ' ')
					take--;
			}
			if (fprintf(f, "%s#%s%.*s\n", indent, take ? " " : "", (int)take, p) < 0)
				return -1;
			p += take;
			line -= take;
			while (line > 0 && *p == ' ') {
				p++;
				line--;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static int key_line(FILE *f, const struct calib_profile_doc *d, enum calib_key k)
{
	if (d->comment[k][0] && comment(f, "  ", d->comment[k]))
		return -1;
	if (k == K_XCOPY_BUCKET)
		return fprintf(f, "  %s: %s\n", key_names[k], d->value[k] ? "gt1mb" : "covered") < 0 ? -1 : 0;
	return fprintf(f, "  %s: %llu\n", key_names[k], (unsigned long long)d->value[k]) < 0 ? -1 : 0;
}

int calib_profile_write(FILE *f, const struct calib_profile_doc *d)
{
	if (comment(f, "", d->header))
		return -1;
	fprintf(f, "name: %s\ndescription: \"", d->name);
	for (const char *c = d->description; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c >= ' ' ? *c : ' ', f);
	}
	fprintf(f, "\"\nmodeled: true\n\ndata_reduction:\n");
	for (int k = K_DEDUP_BLOCK; k <= K_ALLOC_UNIT; k++)
		if (key_line(f, d, (enum calib_key)k))
			return -1;
	fprintf(f, "\ncost:\n");
	for (int k = K_CORES; k <= K_XCOPY_BUCKET; k++)
		if (key_line(f, d, (enum calib_key)k))
			return -1;
	fprintf(f, "\ncapacity:\n");
	for (int k = K_USABLE_BYTES; k <= K_SOFT_THRESHOLD; k++)
		if (key_line(f, d, (enum calib_key)k))
			return -1;
	return ferror(f) ? -1 : 0;
}

char *calib_profile_render_checked(const struct calib_profile_doc *d, char *err, size_t errlen)
{
	char *text = NULL, *why = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		ll_errf(err, errlen, "out of memory");
		return NULL;
	}
	int rc = calib_profile_write(f, d);
	if (fclose(f) || rc) {
		free(text);
		ll_errf(err, errlen, "cannot render the profile");
		return NULL;
	}
	struct lunlab_profile *p = profile_parse(text, len, d->name, &why);
	if (!p) {
		ll_errf(err, errlen, "%s", why ? why : "out of memory");
		free(why);
		free(text);
		return NULL;
	}
	profile_free(p);
	return text;
}
