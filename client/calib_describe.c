/* calib_describe.c - the profile's values and comments from calibrate's results. */
#include "client/calib_describe.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client/report.h"

static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static bool involves(const struct calib_result *r, const struct calib_row *row, enum calib_param p)
{
	if (row->bound_only || row->active < 0)
		return false;
	if (row->obs == OBS_QD1 && (p == P_FIXED || (p == P_XC_MIB && row->kind == CK_XCOPY)))
		return true;
	return calib_coef(row, r->fit.dedup_block, (enum calib_res)row->active, p) > 0;
}

void calib_bound_text(const struct calib_fit *f, enum calib_param p, char *buf, size_t len)
{
	double b = f->bound[p];
	if (!isfinite(b))
		snprintf(buf, len, "no bound");
	else if (b <= 0)
		snprintf(buf, len, "no room: the model already exceeds a measurement where it acts");
	else if (p == P_FE || p == P_BE)
		snprintf(buf, len, "at least %.0f MB/s", 1000.0 / b);
	else
		snprintf(buf, len, "at most %.0f ns", b);
}

void calib_limited_by(const struct calib_result *r, enum calib_param p, char *buf, size_t len)
{
	buf[0] = 0;
	for (int k = 0; k < CK_N; k++) {
		uint64_t lo = UINT64_MAX, hi = 0;
		bool qd1 = false, sat = false;
		for (unsigned i = 0; i < r->nrows; i++) {
			const struct calib_row *row = &r->rows[i];
			if (row->kind != (enum calib_kind)k || !involves(r, row, p))
				continue;
			lo = row->covered < lo ? row->covered : lo;
			hi = row->covered > hi ? row->covered : hi;
			qd1 |= row->obs == OBS_QD1;
			sat |= row->obs == OBS_SAT;
		}
		if (!hi)
			continue;
		char a[32], b[32];
		fmt_size(a, sizeof(a), lo);
		fmt_size(b, sizeof(b), hi);
		add(buf, len, "%s%s %s%s%s (%s)", buf[0] ? ", " : "", calib_kind_name((enum calib_kind)k), a,
		    lo == hi ? "" : "..", lo == hi ? "" : b, qd1 && sat ? "QD1 and saturated" : qd1 ? "QD1" : "saturated");
	}
}

/* the value of a fitted parameter in the profile's unit, for comments */
static void value_text(enum calib_param p, double v, char *buf, size_t len)
{
	if (p == P_FE || p == P_BE)
		snprintf(buf, len, "%.0f MB/s", v > 0 ? 1000.0 / v : 0);
	else
		snprintf(buf, len, "%.0f ns", v);
}

static void cost_comment(const struct calib_result *r, enum calib_param p, const char *unit, char *out, size_t len)
{
	const struct calib_fit *f = &r->fit;
	char v[48], lim[300];
	snprintf(out, len, "%s; ", unit);
	switch (f->st[p]) {
	case ST_FITTED:
	case ST_WEAK:
		value_text(p, f->v[p], v, sizeof(v));
		calib_limited_by(r, p, lim, sizeof(lim));
		add(out, len, "%s %s +-%.1f%% (95%%) from %s, where it was the limit", f->st[p] == ST_WEAK ?
		    "fitted, weakly:" : "fitted:", v, f->v[p] > 0 ? 196.0 * f->se[p] / f->v[p] : 0, lim);
		break;
	case ST_CONFOUNDED:
		if (f->v[p] > 0) {
			value_text(p, f->v[p], v, sizeof(v));
			calib_limited_by(r, p, lim, sizeof(lim));
			add(out, len, "not identified apart from another parameter whose effect it carries too: %s "
			    "reproduces %s, but how the two split it, no measurement here shows", v, lim);
			break;
		}
		/* dropped, the other one carries it: as a bound */
		__attribute__((fallthrough));
	case ST_BOUND:
		calib_bound_text(f, p, v, sizeof(v));
		add(out, len, "not identified: %s (%s); 0 = %s", f->st[p] == ST_BOUND ?
		    "no measurement was limited by it" : "the measurements where it acts are explained as well without it",
		    v, p == P_FE || p == P_BE ? "unlimited" : "none");
		break;
	case ST_UNMEASURED:
		add(out, len, "not measured: the LU supports none of the commands that use it; 0");
		break;
	}
}

static void describe_dr(struct calib_result *r)
{
	struct calib_profile_doc *d = &r->doc;
	uint32_t block = r->fit.dedup_block;
	char b[32];
	fmt_size(b, sizeof(b), block);
	d->value[K_DEDUP_BLOCK] = block;
	if (!strcmp(r->dedup_source, "data")) {
		char half[32];
		fmt_size(half, sizeof(half), block / 2);
		snprintf(d->comment[K_DEDUP_BLOCK], sizeof(d->comment[0]),
			 "bytes; measured (LOG SENSE 0Ch): random pieces written twice in a row deduplicate from %s "
			 "pieces on%s%s%s", b, block > 512 ? ", not at " : "", block > 512 ? half : "", "");
	} else {
		snprintf(d->comment[K_DEDUP_BLOCK], sizeof(d->comment[0]),
			 "bytes; %s: the block whose map entries per command (covered bytes / block, rounded up) fit "
			 "the timings best (chi-square over blocks 512 B..32 KiB, the largest a lunlab array models, in the calibrate output)",
			 r->have_dr ? "no piece size deduplicated in the dup test, so from timing" :
				      "no capacity figures (LOG SENSE 0Ch), so from timing");
	}
	if (!r->have_drfit) {
		d->value[K_ZLIB_LEVEL] = 0;
		d->value[K_ZLIB_WINDOW_BITS] = block >= 32768 ? 15 : (uint64_t)(31 - __builtin_clz(block < 512 ? 512 : block));
		d->value[K_ALLOC_UNIT] = block;
		const char *why = r->dr_reason[0] ? r->dr_reason : "no data-reduction fit";
		snprintf(d->comment[K_ZLIB_LEVEL], sizeof(d->comment[0]),
			 "zlib level; not measured (%s): 0, and alloc_unit = dedup_block below, models no compression", why);
		snprintf(d->comment[K_ZLIB_WINDOW_BITS], sizeof(d->comment[0]),
			 "log2 bytes; not measured: the block's size (no effect without compression)");
		snprintf(d->comment[K_ALLOC_UNIT], sizeof(d->comment[0]),
			 "bytes; not measured: the whole block, so nothing is counted as compressed");
		return;
	}
	const struct dr_fit_report *rep = &r->drrep;
	d->value[K_ZLIB_LEVEL] = (uint64_t)r->drp.zlib_level;
	d->value[K_ZLIB_WINDOW_BITS] = (uint64_t)r->drp.zlib_window_bits;
	d->value[K_ALLOC_UNIT] = r->drp.alloc_unit;
	if (!rep->compresses) {
		snprintf(d->comment[K_ZLIB_LEVEL], sizeof(d->comment[0]),
			 "zlib level; measured: nothing the LU stored took less than a block (not even sparse blocks), so "
			 "0: no compression");
	} else if (rep->level_lo == rep->level_hi) {
		snprintf(d->comment[K_ZLIB_LEVEL], sizeof(d->comment[0]),
			 "zlib level; fitted: deflate at level %d reproduces the physical bytes the LU reported for every "
			 "kind (sparse, periods, win10), no other level does (a stand-in if the array's compressor is "
			 "not deflate)", r->drp.zlib_level);
	} else {
		snprintf(d->comment[K_ZLIB_LEVEL], sizeof(d->comment[0]),
			 "zlib level; weakly identified: levels %d..%d reproduce the reported physical bytes equally "
			 "well, the lowest is kept", rep->level_lo, rep->level_hi);
	}
	if (rep->window_identified)
		snprintf(d->comment[K_ZLIB_WINDOW_BITS], sizeof(d->comment[0]),
			 "log2 bytes; measured: blocks repeating a pattern of %u bytes compressed, of %u bytes did not, so "
			 "the window is 2^%d", dr_period((uint32_t)r->drp.zlib_window_bits),
			 dr_period((uint32_t)r->drp.zlib_window_bits + 1), r->drp.zlib_window_bits);
	else
		snprintf(d->comment[K_ZLIB_WINDOW_BITS], sizeof(d->comment[0]),
			 "log2 bytes; windows 2^%d..2^%d fit the period kinds equally (a window beyond the block, or a "
			 "unit coarser than the difference, shows nothing more): the smallest is kept",
			 rep->window_lo, rep->window_hi);
	const struct dr_measure *sp = NULL;
	for (unsigned i = 0; i < r->ndr; i++)
		if (r->dr[i].spec.kind == DR_SPARSE && r->dr[i].unique)
			sp = &r->dr[i];
	if (sp && rep->compresses)
		snprintf(d->comment[K_ALLOC_UNIT], sizeof(d->comment[0]),
			 "bytes; measured: a block with 8 bytes of content per 512 occupied %.0f bytes, and with the "
			 "level and window above every kind's physical bytes come out right with units of %u",
			 (double)sp->physical / ((double)sp->unique / block), r->drp.alloc_unit);
	else
		snprintf(d->comment[K_ALLOC_UNIT], sizeof(d->comment[0]), "bytes; %s",
			 rep->compresses ? "fitted to the kinds' physical bytes" : "the whole block: nothing compressed");
}

void calib_note(struct calib_result *r, const char *fmt, ...)
{
	if (r->nnotes >= CALIB_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

/* Where this host, not the LU, set a figure: say so, and what it means for the profile. */
static void machine_notes(struct calib_result *r)
{
	for (unsigned i = 0; i < r->npts; i++) {
		const struct calib_point_result *pr = &r->pts[i];
		if (!pr->measured || !pr->machine_limited)
			continue;
		char sz[32];
		fmt_size(sz, sizeof(sz), pr->pt.bytes);
		r->machine_limited = true;
		calib_note(r, "%s %s saturated: %s. The LU is faster than this host can measure there: the rate is a "
		     "lower bound, not fitted", calib_kind_name(pr->pt.kind), sz, pr->limit_reason);
	}
	/* where more commands in flight made each slower than one alone */
	unsigned slow = 0;
	char which[200] = "";
	for (unsigned i = 0; i < r->npts; i++) {
		const struct calib_point_result *pr = &r->pts[i];
		if (!pr->measured || !pr->contended)
			continue;
		char sz[32];
		fmt_size(sz, sizeof(sz), pr->pt.bytes);
		if (slow++ < 4)
			add(which, sizeof(which), "%s%s %s", slow > 1 ? ", " : "", calib_kind_name(pr->pt.kind), sz);
	}
	if (slow)
		calib_note(r, "%u measurement%s (%s%s) ran slower per command with several in flight than one at a time: "
			   "the LU (or this host) serializes its commands and loses more on the way, which no set of "
			   "concurrent resources describes; only their latencies at queue depth 1 are fitted", slow,
			   slow > 1 ? "s" : "", which, slow > 4 ? ", ..." : "");
	/* what the model does not explain */
	unsigned off = 0, fitted = 0;
	const struct calib_row *worst = NULL;
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct calib_row *row = &r->rows[i];
		if (row->bound_only)
			continue;
		fitted++;
		double e = fabs(row->pred / row->y - 1);
		if (e > 0.2) {
			off++;
			if (!worst || e > fabs(worst->pred / worst->y - 1))
				worst = row;
		}
	}
	if (worst) {
		char sz[32];
		fmt_size(sz, sizeof(sz), worst->covered);
		calib_note(r, "%u of %u fitted measurements differ from the model by more than 20%% (the most: %s %s %s, "
		     "%+.0f%%): the LU does something the cost model does not describe there, or this host limited "
		     "those commands (lunlab's own unique-data writes, for one, are bound by its compression)",
		     off, fitted, calib_kind_name(worst->kind), sz, worst->obs == OBS_QD1 ? "QD1" : "saturated",
		     100 * (worst->pred / worst->y - 1));
	}
	const struct calib_fit *f = &r->fit;
	double floor = 3 * 1.4826 * r->nop_mad_ns / r->time_scale;
	if (f->v[P_FIXED] < floor) {
		r->machine_limited = true;
		calib_note(r, "the LU's fixed latency (%.1f us) is within the noise of the transport's own round trip "
		     "(NOP-Out %.1f us +- %.1f): below what this host can measure", f->v[P_FIXED] / 1e3,
		     r->nop_rtt_ns / 1e3, 1.4826 * r->nop_mad_ns / 1e3);
	}
}

void calib_describe(struct calib_result *r, const char *out_path, const char *name)
{
	struct calib_profile_doc *d = &r->doc;
	machine_notes(r);
	memset(d, 0, sizeof(*d));
	if (name)
		snprintf(d->name, sizeof(d->name), "%s", name);
	else
		calib_profile_name_from_path(out_path, d->name, sizeof(d->name));
	snprintf(d->description, sizeof(d->description), "%s %s %s, measured by lunlab-bench calibrate", r->vendor,
		 r->product, r->revision);
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	char cap[32], reg[32];
	fmt_size(cap, sizeof(cap), r->capacity);
	fmt_size(reg, sizeof(reg), r->region);
	snprintf(d->header, sizeof(d->header),
		 "%s.yaml - written by lunlab-bench calibrate (docs/calibrate.md), %s.\n"
		 "Measured: %s %s %s at %s (%s, %u-byte blocks)%s%s, %s from byte %llu, budget %.0f s.\n"
		 "Only what any host sees: command timings and standard SCSI pages (INQUIRY, VPD, LOG SENSE 0Ch).\n"
		 "Times are the array's: host-observed time / %g (the LU's slow motion, --time-scale), QD1 "
		 "latencies minus the NOP-Out round trip (%.1f us), which whoever serves this profile brings "
		 "again.%s",
		 d->name, when, r->vendor, r->product, r->revision, r->where, cap, r->bs, r->dest[0] ? ", copies to " : "",
		 r->dest, reg, (unsigned long long)r->offset, r->budget_s, r->time_scale, r->nop_rtt_ns / 1e3,
		 r->machine_limited ? "\nSome figures were limited by the measuring host, not the LU: see the "
				      "comments that say so and calibrate's notes." : "");
	describe_dr(r);
	calib_profile_set_cost(d, &r->fit);
	snprintf(d->comment[K_CORES], sizeof(d->comment[0]),
		 "count; not identifiable from a host: only CPU work / cores reaches the timings, so 1, and the "
		 "cpu_* values below are pool time (multiply each by the array's real core count with it)");
	cost_comment(r, P_CPU_CMD, "ns of pool time per command", d->comment[K_CPU_CMD], sizeof(d->comment[0]));
	cost_comment(r, P_CPU_ENTRY, "ns of pool time per map entry (one dedup_block of the range)",
		     d->comment[K_CPU_ENTRY], sizeof(d->comment[0]));
	cost_comment(r, P_CPU_SEG, "ns of pool time per EXTENDED COPY segment beyond the first",
		     d->comment[K_CPU_SEGMENT], sizeof(d->comment[0]));
	cost_comment(r, P_CPU_MIB, "ns of pool time per MiB over the wire", d->comment[K_CPU_MIB],
		     sizeof(d->comment[0]));
	cost_comment(r, P_J_CMD, "ns per map-updating command on the metadata journal", d->comment[K_JOURNAL_CMD],
		     sizeof(d->comment[0]));
	cost_comment(r, P_J_ENTRY, "ns per map entry on the metadata journal", d->comment[K_JOURNAL_ENTRY],
		     sizeof(d->comment[0]));
	cost_comment(r, P_FE, "MB/s (10^6 B/s) over the wire, 0 = unlimited", d->comment[K_FRONTEND],
		     sizeof(d->comment[0]));
	cost_comment(r, P_BE, "MB/s the medium moves for READ, VERIFY and WRITE, 0 = unlimited",
		     d->comment[K_BACKEND], sizeof(d->comment[0]));
	cost_comment(r, P_FIXED, "ns added to every command without a queue (the array's fixed latency and the "
		     "host's turnaround together: a host cannot tell them apart)", d->comment[K_FIXED],
		     sizeof(d->comment[0]));
	snprintf(d->comment[K_TURNAROUND], sizeof(d->comment[0]),
		 "ns; 0: the host's turnaround is not the array's, and a host cannot separate it from the fixed "
		 "latency above, which holds both");
	cost_comment(r, P_XC_MIB, "ns per MiB an EXTENDED COPY covers, added to its completion without occupying a "
		     "resource (QD1 latency grows with the chunk faster than the saturated time)",
		     d->comment[K_TURNAROUND_MIB], sizeof(d->comment[0]));
	snprintf(d->comment[K_XCOPY_BUCKET], sizeof(d->comment[0]),
		 "telemetry only (lunlab's vendor log page), nothing a host can measure: covered");
	calib_profile_set_capacity(d, r);
}
