/* report_calibrate.c - calibrate's table and JSON (schema: docs/calibrate.md "JSON"). */
#include "client/report_calibrate.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "client/calib_describe.h"
#include "client/report.h"

static const char *param_unit(enum calib_param p)
{
	return p == P_FE || p == P_BE ? "MB/s" : "ns";
}

/* a parameter in the profile's unit */
static double shown(enum calib_param p, double v)
{
	if (p == P_FE || p == P_BE)
		return v > 0 ? 1000.0 / v : 0;
	return v;
}

static double rel_ci95(const struct calib_fit *f, enum calib_param p)
{
	return f->v[p] > 0 ? 1.96 * f->se[p] / f->v[p] : 0;
}

static const char *res_label(int active)
{
	return active >= 0 ? calib_res_name((enum calib_res)active) : "-";
}

void table_calibrate(FILE *f, const struct calib_result *r)
{
	char cap[32], reg[32];
	fmt_size(cap, sizeof(cap), r->capacity);
	fmt_size(reg, sizeof(reg), r->region);
	fprintf(f, "calibrate: %s %s %s at %s (%s, %u-byte blocks)\n", r->vendor, r->product, r->revision, r->where,
		cap, r->bs);
	if (r->dest[0])
		fprintf(f, "copies to: %s\n", r->dest);
	fprintf(f, "region: %s from byte %" PRIu64 "; time scale %g (host times divided by it); budget %.0f s, "
		"used %.1f s\n", reg, r->offset, r->time_scale, r->budget_s, r->elapsed_s);
	fprintf(f, "time: floor %.1f s, filling the read area %.1f s, timings %.1f s, data reduction %.1f s, "
		"fit %.1f s\n", r->phase_s[0], r->phase_s[1], r->phase_s[2], r->phase_s[3], r->phase_s[4]);
	fprintf(f, "transport floor: NOP-Out round trip %.1f us (+-%.1f), %.0f NOP-Outs/s turned around", r->nop_rtt_ns / 1e3,
		1.4826 * r->nop_mad_ns / 1e3, r->nop_rate);
	if (r->loopback_mb_s > 0)
		fprintf(f, "; this host's loopback TCP %.0f MB/s", r->loopback_mb_s);
	fprintf(f, "\n");
	for (int k = 0; k < CK_N; k++)
		if (!r->supported[k])
			fprintf(f, "not measured: %s: %s\n", calib_kind_name((enum calib_kind)k), r->unsupported[k]);

	fprintf(f, "\nmeasurements, in the array's time (QD1: host latency minus the NOP round trip; saturated: "
		"1 / rate)\n");
	fprintf(f, "%-10s %8s %3s | %10s %10s %7s | %10s %10s %7s %4s | %-9s %s\n", "kind", "size", "seg", "QD1 us",
		"model", "resid", "sat us", "model", "resid", "q", "limit", "note");
	for (unsigned i = 0; i < r->npts; i++) {
		const struct calib_point_result *p = &r->pts[i];
		char sz[32];
		fmt_size(sz, sizeof(sz), p->pt.bytes);
		if (!p->measured) {
			fprintf(f, "%-10s %8s %3u | %s\n", calib_kind_name(p->pt.kind), sz, p->pt.segments, p->reason);
			continue;
		}
		const struct calib_row *q1 = p->row_qd1 >= 0 ? &r->rows[p->row_qd1] : NULL;
		const struct calib_row *sr = p->row_sat >= 0 ? &r->rows[p->row_sat] : NULL;
		fprintf(f, "%-10s %8s %3u |", calib_kind_name(p->pt.kind), sz, p->pt.segments);
		if (q1)
			fprintf(f, " %10.2f %10.2f %+6.1f%% |", q1->y / 1e3, q1->pred / 1e3, 100 * (q1->pred / q1->y - 1));
		else
			fprintf(f, " %10s %10s %7s |", "-", "-", "-");
		if (sr)
			fprintf(f, " %10.2f %10.2f %+6.1f%% %4u | %-9s", sr->y / 1e3, sr->pred / 1e3,
				100 * (sr->pred / sr->y - 1), p->tries[p->ntries - 1].q,
				sr->bound_only ? "(bound)" : res_label(sr->active));
		else
			fprintf(f, " %10s %10s %7s %4s | %-9s", "-", "-", "-", "-", q1 ? res_label(q1->active) : "-");
		if (p->contended)
			fprintf(f, " slower with %u in flight than alone: not fitted", p->tries[p->ntries - 1].q);
		else if (p->machine_limited)
			fprintf(f, " this host: %s", p->limit_reason);
		else if (p->ntries && !p->saturated)
			fprintf(f, " not saturated at %u outstanding: a bound", p->tries[p->ntries - 1].q);
		if (p->reason[0])
			fprintf(f, " %s", p->reason);
		fprintf(f, "\n");
	}
	/* the closed loop: every queue depth tried, measured and as the written profile runs it */
	fprintf(f, "\nclosed loop, commands/s as this host saw them (model: the written profile, this host's NOP "
		"round trip as its turnaround)\n");
	for (unsigned i = 0; i < r->npts; i++) {
		const struct calib_point_result *p = &r->pts[i];
		if (!p->measured || !p->ntries || (p->pt.kind != CK_XCOPY && p->pt.kind != CK_READ))
			continue;
		char sz[32];
		fmt_size(sz, sizeof(sz), p->pt.bytes);
		fprintf(f, "  %-6s %8s x%u:", calib_kind_name(p->pt.kind), sz, p->pt.segments);
		for (unsigned t = 0; t < p->ntries; t++)
			fprintf(f, "  q %u %.0f (model %.0f, %+.1f%%)", p->tries[t].q, p->tries[t].rate, p->tries[t].pred_rate,
				p->tries[t].rate > 0 ? 100 * (p->tries[t].pred_rate / p->tries[t].rate - 1) : 0);
		fprintf(f, "\n");
	}

	const struct calib_fit *fit = &r->fit;
	char blk[32];
	fmt_size(blk, sizeof(blk), fit->dedup_block);
	fprintf(f, "\nfit: weighted least squares over the model's resources (docs/calibrate.md); dedup block %s "
		"(from %s); chi-square %.1f for %d degrees of freedom, %u measurements fitted\n", blk, r->dedup_source,
		fit->chi2, fit->dof, fit->nfit);
	if (r->have_chi2_by_block) {
		fprintf(f, "  chi-square by dedup block:");
		for (unsigned i = 0; i < 12; i++)
			if (isfinite(r->chi2_by_block[i])) {
				fmt_size(blk, sizeof(blk), 512u << i);
				fprintf(f, " %s %.0f", blk, r->chi2_by_block[i]);
			}
		fprintf(f, "\n");
	}
	fprintf(f, "%-14s %12s %-4s %9s  %-12s %s\n", "parameter", "value", "", "95%", "status", "from");
	for (int p = 0; p < P_N; p++) {
		char lim[300] = "";
		if (fit->st[p] == ST_FITTED || fit->st[p] == ST_WEAK)
			calib_limited_by(r, (enum calib_param)p, lim, sizeof(lim));
		else if (fit->st[p] == ST_BOUND || fit->st[p] == ST_CONFOUNDED) {
			calib_bound_text(fit, (enum calib_param)p, lim, sizeof(lim));
		}
		char ci[16] = "-";
		if (fit->st[p] == ST_FITTED || fit->st[p] == ST_WEAK)
			snprintf(ci, sizeof(ci), "+-%.1f%%", 100 * rel_ci95(fit, (enum calib_param)p));
		fprintf(f, "%-14s %12.0f %-4s %9s  %-12s %s\n", calib_param_name((enum calib_param)p),
			shown((enum calib_param)p, fit->v[p]), param_unit((enum calib_param)p), ci,
			calib_status_name(fit->st[p]), lim);
	}
	fprintf(f, "not identifiable from any host: the core count (only work / cores reaches the timings: cpu_* are "
		"pool time), the host's turnaround apart from the fixed latency (fixed holds both), xcopy_bucket "
		"(telemetry only)\n");

	if (r->have_dr) {
		fprintf(f, "\ndata reduction (LOG SENSE 0Ch: used, de-duplicated and compressed LBA counts)\n");
		fprintf(f, "%-14s %10s %8s %8s | %8s %8s\n", "kind", "written", "dedup", "compr.", "model", "model");
		for (unsigned i = 0; i < r->ndr; i++) {
			const struct dr_measure *m = &r->dr[i];
			char name[40], w[32];
			dr_name(&m->spec, name, sizeof(name));
			fmt_size(w, sizeof(w), m->spec.bytes);
			double dd = m->unique ? (double)m->logical / (double)m->unique : 0;
			double cc = m->physical ? (double)m->unique / (double)m->physical : 0;
			double pd = r->dr_pred_unique[i] ? (double)m->logical / (double)r->dr_pred_unique[i] : 0;
			double pc = r->dr_pred_physical[i] ? (double)r->dr_pred_unique[i] / (double)r->dr_pred_physical[i] : 0;
			if (!m->logical)
				fprintf(f, "%-14s %10s %8s %8s | (nothing stored)\n", name, w, "-", "-");
			else
				fprintf(f, "%-14s %10s %8.3f %8.3f | %8.3f %8.3f\n", name, w, dd, cc, pd, pc);
		}
		if (r->have_drfit) {
			fmt_size(blk, sizeof(blk), r->drp.dedup_block);
			fprintf(f, "dedup block %s, zlib level %d (%d..%d fit), window 2^%d (2^%d..2^%d fit%s), allocation "
				"unit %u B%s\n", blk, r->drp.zlib_level, r->drrep.level_lo, r->drrep.level_hi,
				r->drp.zlib_window_bits, r->drrep.window_lo, r->drrep.window_hi,
				r->drrep.window_identified ? ", identified" : "", r->drp.alloc_unit,
				r->drrep.compresses ? "" : "; nothing compressed");
		}
	} else {
		fprintf(f, "\ndata reduction: not measured: %s\n", r->dr_reason);
	}
	if (r->usable_measured)
		fprintf(f, "\ncapacity: %llu bytes usable (%llu..%llu: %s); soft threshold %u%%%s%s\n",
			(unsigned long long)r->usable_bytes, (unsigned long long)r->usable_lo,
			(unsigned long long)r->usable_hi, r->capacity_how, r->soft_threshold_pct,
			r->soft_how[0] ? ": " : "", r->soft_how);
	else
		fprintf(f, "\ncapacity: not measured (%s): the profile holds the LU's size\n",
			r->capacity_how[0] ? r->capacity_how : "no reading");
	if (r->nnotes)
		fprintf(f, "\n");
	for (unsigned i = 0; i < r->nnotes; i++)
		fprintf(f, "note: %s\n", r->notes[i]);
	table_conn_stats(f, &r->conn, "calibrate");
	if (r->machine_limited)
		fprintf(f, "MACHINE-LIMITED: some figures are this host's, not the LU's (notes above); the profile says "
			"so where it matters\n");
	fprintf(f, "\nprofile written: %s (name %s)\n", r->out_path, r->doc.name);
}

static void add_d(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, isfinite(v) ? json_object_new_double(v) : NULL);
}

static void add_i(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_s(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_b(json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static json_object *row_obj(const struct calib_row *row)
{
	if (!row)
		return NULL;
	json_object *o = json_object_new_object();
	add_d(o, "us", row->y / 1e3);
	add_d(o, "sigma_us", row->sigma / 1e3);
	add_d(o, "model_us", row->pred / 1e3);
	add_s(o, "limit", res_label(row->active));
	add_b(o, "bound_only", row->bound_only);
	return o;
}

json_object *json_calibrate(const struct calib_result *r)
{
	json_object *o = json_object_new_object();
	add_s(o, "command", "calibrate");
	json_object *lu = json_object_new_object();
	add_s(lu, "vendor", r->vendor);
	add_s(lu, "product", r->product);
	add_s(lu, "revision", r->revision);
	add_s(lu, "where", r->where);
	add_i(lu, "capacity_bytes", (int64_t)r->capacity);
	add_i(lu, "block_size", r->bs);
	json_object_object_add(o, "lu", lu);
	add_i(o, "offset", (int64_t)r->offset);
	add_i(o, "region_bytes", (int64_t)r->region);
	add_d(o, "time_scale", r->time_scale);
	add_d(o, "budget_s", r->budget_s);
	add_d(o, "elapsed_s", r->elapsed_s);
	json_object *ph = json_object_new_object();
	static const char *const phases[5] = { "floor", "fill", "timings", "data_reduction", "fit" };
	for (int i = 0; i < 5; i++)
		add_d(ph, phases[i], r->phase_s[i]);
	json_object_object_add(o, "phase_s", ph);
	json_object *fl = json_object_new_object();
	add_d(fl, "nop_rtt_us", r->nop_rtt_ns / 1e3);
	add_d(fl, "nop_rtt_sigma_us", 1.4826 * r->nop_mad_ns / 1e3);
	add_d(fl, "nop_per_s", r->nop_rate);
	json_object_object_add(fl, "loopback_mb_s", r->loopback_mb_s > 0 ? json_object_new_double(r->loopback_mb_s) : NULL);
	json_object_object_add(o, "floor", fl);
	json_object *sup = json_object_new_object();
	for (int k = 0; k < CK_N; k++)
		add_b(sup, calib_kind_name((enum calib_kind)k), r->supported[k]);
	json_object_object_add(o, "supported", sup);
	json_object *pts = json_object_new_array();
	for (unsigned i = 0; i < r->npts; i++) {
		const struct calib_point_result *p = &r->pts[i];
		json_object *e = json_object_new_object();
		add_s(e, "kind", calib_kind_name(p->pt.kind));
		add_i(e, "bytes", (int64_t)p->pt.bytes);
		add_i(e, "segments", p->pt.segments);
		add_b(e, "measured", p->measured);
		add_s(e, "reason", p->reason);
		add_d(e, "host_qd1_us", p->qd1_ns / 1e3);
		json_object_object_add(e, "qd1", row_obj(p->row_qd1 >= 0 ? &r->rows[p->row_qd1] : NULL));
		json_object_object_add(e, "saturated", row_obj(p->row_sat >= 0 ? &r->rows[p->row_sat] : NULL));
		add_b(e, "reached_saturation", p->saturated);
		add_b(e, "machine_limited", p->machine_limited);
		add_b(e, "contended", p->contended);
		add_s(e, "machine_reason", p->limit_reason);
		json_object *tr = json_object_new_array();
		for (unsigned t = 0; t < p->ntries; t++) {
			json_object *x = json_object_new_object();
			add_i(x, "q", p->tries[t].q);
			add_d(x, "per_s", p->tries[t].rate);
			add_d(x, "model_per_s", p->tries[t].pred_rate);
			add_d(x, "client_cpu", p->tries[t].cpu_share);
			json_object_array_add(tr, x);
		}
		json_object_object_add(e, "closed_loop", tr);
		json_object_array_add(pts, e);
	}
	json_object_object_add(o, "points", pts);
	const struct calib_fit *fit = &r->fit;
	json_object *fo = json_object_new_object();
	add_i(fo, "dedup_block", fit->dedup_block);
	add_s(fo, "dedup_block_from", r->dedup_source ? r->dedup_source : "");
	add_d(fo, "chi2", fit->chi2);
	add_i(fo, "dof", fit->dof);
	json_object *ps = json_object_new_object();
	for (int p = 0; p < P_N; p++) {
		json_object *e = json_object_new_object();
		add_d(e, "value", shown((enum calib_param)p, fit->v[p]));
		add_s(e, "unit", param_unit((enum calib_param)p));
		add_s(e, "status", calib_status_name(fit->st[p]));
		add_d(e, "ci95_rel", rel_ci95(fit, (enum calib_param)p));
		/* the bound in the profile's unit: ns at most, MB/s at least */
		if (isfinite(fit->bound[p]) && (fit->st[p] == ST_BOUND || fit->st[p] == ST_CONFOUNDED) &&
		    (fit->bound[p] > 0 || (p != P_FE && p != P_BE)))
			add_d(e, "bound", shown((enum calib_param)p, fit->bound[p]));
		else
			json_object_object_add(e, "bound", NULL);
		char lim[300];
		calib_limited_by(r, (enum calib_param)p, lim, sizeof(lim));
		add_s(e, "from", lim);
		json_object_object_add(ps, calib_param_name((enum calib_param)p), e);
	}
	json_object_object_add(fo, "params", ps);
	json_object_object_add(o, "fit", fo);
	if (r->have_dr) {
		json_object *d = json_object_new_object();
		json_object *kinds = json_object_new_array();
		for (unsigned i = 0; i < r->ndr; i++) {
			const struct dr_measure *m = &r->dr[i];
			json_object *e = json_object_new_object();
			char name[40];
			dr_name(&m->spec, name, sizeof(name));
			add_s(e, "kind", name);
			add_i(e, "written", (int64_t)m->spec.bytes);
			add_i(e, "logical", (int64_t)m->logical);
			add_i(e, "unique", (int64_t)m->unique);
			add_i(e, "physical", (int64_t)m->physical);
			add_i(e, "model_unique", (int64_t)r->dr_pred_unique[i]);
			add_i(e, "model_physical", (int64_t)r->dr_pred_physical[i]);
			json_object_array_add(kinds, e);
		}
		json_object_object_add(d, "kinds", kinds);
		add_i(d, "dedup_block", r->dr_dedup_block);
		add_b(d, "zero_blocks_stored", r->dr_zero_stored);
		if (r->have_drfit) {
			add_i(d, "zlib_level", r->drp.zlib_level);
			add_i(d, "level_lo", r->drrep.level_lo);
			add_i(d, "level_hi", r->drrep.level_hi);
			add_i(d, "zlib_window_bits", r->drp.zlib_window_bits);
			add_i(d, "window_lo", r->drrep.window_lo);
			add_i(d, "window_hi", r->drrep.window_hi);
			add_b(d, "window_identified", r->drrep.window_identified);
			add_i(d, "alloc_unit", r->drp.alloc_unit);
			add_b(d, "compresses", r->drrep.compresses);
		}
		json_object_object_add(o, "data_reduction", d);
	} else {
		json_object_object_add(o, "data_reduction", NULL);
		add_s(o, "data_reduction_reason", r->dr_reason);
	}
	json_object *pr = json_object_new_object();
	add_s(pr, "path", r->out_path);
	add_s(pr, "name", r->doc.name);
	for (int k = 0; k < K_NKEYS; k++)
		if (k == K_XCOPY_BUCKET)
			add_s(pr, calib_key_name((enum calib_key)k), r->doc.value[k] ? "gt1mb" : "covered");
		else
			add_i(pr, calib_key_name((enum calib_key)k), (int64_t)r->doc.value[k]);
	json_object_object_add(o, "profile", pr);
	json_object *cap = json_object_new_object();
	add_b(cap, "measured", r->usable_measured);
	add_i(cap, "usable_bytes", (int64_t)r->usable_bytes);
	add_i(cap, "usable_lo", (int64_t)r->usable_lo);
	add_i(cap, "usable_hi", (int64_t)r->usable_hi);
	add_s(cap, "how", r->capacity_how);
	add_b(cap, "soft_threshold_measured", r->soft_measured);
	add_i(cap, "soft_threshold_percent", r->soft_threshold_pct);
	add_s(cap, "soft_threshold_how", r->soft_how);
	json_object_object_add(o, "capacity", cap);
	add_b(o, "machine_limited", r->machine_limited);
	json_object *notes = json_object_new_array();
	for (unsigned i = 0; i < r->nnotes; i++)
		json_object_array_add(notes, json_object_new_string(r->notes[i]));
	json_object_object_add(o, "notes", notes);
	json_object_object_add(o, "connection", json_conn_stats(&r->conn));
	return o;
}
