/* report_table.c - the default, human-readable output. */
#include "client/report.h"
#include "client/write_data.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void fmt_size(char *buf, size_t len, uint64_t b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	double v = (double)b;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%" PRIu64 " %s", (uint64_t)v, units[u]);
	else
		snprintf(buf, len, "%.2f %s", v, units[u]);
}

static void plural(FILE *f, bool *first, unsigned n, const char *what)
{
	if (!n)
		return;
	fprintf(f, "%s%u %s", *first ? "" : ", ", n, what);
	*first = false;
}

void table_conn_stats(FILE *f, const struct conn_stats *s, const char *what)
{
	if (!conn_stats_any(s))
		return;
	fprintf(f, "note: connection%s%s:", what ? " during " : "", what ? what : "");
	if (s->reconnects)
		fprintf(f, " %u session%s lost and logged in again (the longest %.1f s without one, %u command%s resent);",
			s->reconnects, s->reconnects == 1 ? "" : "s", s->longest_outage_s, s->resent,
			s->resent == 1 ? "" : "s");
	if (s->timeouts)
		fprintf(f, " %u command%s unanswered for --timeout, aborted with ABORT TASK (%u answered) and sent again;",
			s->timeouts, s->timeouts == 1 ? "" : "s", s->aborts);
	if (s->busy || s->task_set_full || s->unit_attentions || s->not_ready || s->aborted_commands) {
		bool first = true;
		fprintf(f, " retried ");
		plural(f, &first, s->busy, "BUSY");
		plural(f, &first, s->task_set_full, "TASK SET FULL");
		plural(f, &first, s->unit_attentions, "UNIT ATTENTION");
		if (s->resets)
			/* plain words: 06/29/xx is the target's notice, owed once to each
			 * initiator, that it restarted or was reset */
			fprintf(f, " (%u of them 06/29/xx: the target said it had restarted or been reset, "
				   "a notice each initiator gets once)", s->resets);
		plural(f, &first, s->not_ready, "NOT READY");
		plural(f, &first, s->aborted_commands, "ABORTED COMMAND / TASK ABORTED");
		fprintf(f, ";");
	}
	fprintf(f, " the figures include that time\n");
}

static const char *yn(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "unknown";
}

static void capacity_lines(FILE *f, const struct array_capacity *c)
{
	char l[32], u[32], p[32];
	fmt_size(l, sizeof(l), c->logical_bytes);
	fmt_size(u, sizeof(u), c->unique_bytes);
	fmt_size(p, sizeof(p), c->physical_bytes);
	fprintf(f, "  logical           %s (%" PRIu64 " bytes)\n", l, c->logical_bytes);
	fprintf(f, "  unique            %s (%" PRIu64 " bytes)\n", u, c->unique_bytes);
	fprintf(f, "  physical          %s (%" PRIu64 " bytes)\n", p, c->physical_bytes);
	fprintf(f, "  dedup             %.3f:1\n", c->dedup_ratio);
	fprintf(f, "  compression       %.3f:1\n", c->compression_ratio);
	fprintf(f, "  data reduction    %.3f:1\n", c->drr);
	if (c->have_pending && c->pending_blocks)
		fprintf(f, "  (accounting pending: %" PRIu64 " blocks)\n", c->pending_blocks);
}

void table_info(FILE *f, const struct info_result *r)
{
	char cap[32];
	fmt_size(cap, sizeof(cap), r->num_blocks * r->block_size);
	fprintf(f, "LU\n");
	fprintf(f, "  vendor/product    %s %s (rev %s)\n", r->vendor, r->product, r->revision);
	fprintf(f, "  capacity          %s (%" PRIu64 " blocks of %u bytes)\n", cap, r->num_blocks, r->block_size);
	fprintf(f, "  NAA designator    %s\n", r->naa_binary ? r->naa_hex : "none (EXTENDED COPY needs one)");
	fprintf(f, "VAAI\n");
	/* LIO has no REPORT SUPPORTED OPCODES: then the 3PC bit and a working RECEIVE COPY
	 * RESULTS are the evidence (and clone simply tries, as ESXi does). */
	const char *xc = yn(r->xcopy_opcode);
	if (r->xcopy_opcode < 0 && r->tpc && r->rcr_ok)
		xc = "likely";
	fprintf(f, "  EXTENDED COPY     %s (3PC bit %s, RECEIVE COPY RESULTS %s%s)\n", xc,
		r->tpc ? "set" : "clear", r->rcr_ok ? "answers" : "refused",
		r->xcopy_opcode < 0 ? "; no REPORT SUPPORTED OPCODES" : "");
	if (r->rcr_ok)
		fprintf(f, "    limits          %u target / %u segment descriptors, list %u bytes, segment %u bytes\n",
			r->rcr_max_tgt, r->rcr_max_seg, r->rcr_max_desc_list, r->rcr_max_seg_len);
	fprintf(f, "  VPD 0x8F          %s", r->vpd_8f ? "present" : "absent");
	if (r->vpd_8f && r->vpd8f_error[0])
		fprintf(f, " (undecodable: %s)", r->vpd8f_error);
	else if (r->vpd_8f)
		fprintf(f, " (%u third-party copy descriptors%s%s)", r->vpd8f_descriptors,
			r->vpd8f.lid1_xcopy ? "; lists EXTENDED COPY LID1" : "",
			r->vpd8f.populate_token ? ", POPULATE TOKEN (ODX)" : "");
	fprintf(f, "\n");
	if (r->vpd8f.have_params)
		fprintf(f, "    parameter data  %u CSCD / %u segment descriptors, list %u bytes, inline %u bytes\n",
			r->vpd8f.max_cscd, r->vpd8f.max_segments, r->vpd8f.max_list_len, r->vpd8f.max_inline_len);
	if (r->vpd8f.have_general)
		fprintf(f, "    general copy    %u concurrent (%u identified), segment %u bytes, granularity 2^%u\n",
			r->vpd8f.total_concurrent, r->vpd8f.max_identified, r->vpd8f.max_segment_len,
			r->vpd8f.data_granularity_log2);
	if (r->vpd8f.have_rod)
		fprintf(f, "    ROD limits      %u ranges, max token transfer %" PRIu64 " blocks, optimal %" PRIu64
			", inactivity timeout default %u s / max %u s\n",
			r->vpd8f.max_range_descriptors, r->vpd8f.max_token_transfer, r->vpd8f.optimal_transfer_count,
			r->vpd8f.default_inactivity_timeout_s, r->vpd8f.max_inactivity_timeout_s);
	for (unsigned i = 0; r->vpd8f.have_rod_types && i < r->vpd8f.n_rod_types && i < VPD8F_MAX_ROD_TYPES; i++) {
		const struct tpc_rod_type *t = &r->vpd8f.rod_types[i];
		fprintf(f, "    ROD type        %08Xh%s:%s%s%s\n", t->type,
			t->type == 0x00800000u ? " (point in time copy)" : t->type == 0xffff0001u ? " (block device zero)" : "",
			t->token_in ? " token in" : "", t->token_out ? " token out" : "",
			!t->token_in && !t->token_out ? " no tokens" : "");
	}
	if (r->vpd8f.have_rod_features) {
		fprintf(f, "    token features  remote tokens %s, lifetime %u..%u s, inactivity max %u s\n",
			r->vpd8f.remote_tokens ? "offered" : "none", r->vpd8f.min_token_lifetime_s,
			r->vpd8f.max_token_lifetime_s, r->vpd8f.max_token_inactivity_s);
		if (r->vpd8f.have_rod_block_features)
			fprintf(f, "    block ROD       max %" PRIu64 " bytes, optimal %" PRIu64 ", per segment %" PRIu64
				" to / %" PRIu64 " from a token, granularity %u blocks\n", r->vpd8f.rod_max_bytes,
				r->vpd8f.rod_optimal_bytes, r->vpd8f.optimal_bytes_to_token,
				r->vpd8f.optimal_bytes_from_token, r->vpd8f.optimal_length_granularity);
	}
	if (r->vpd_8f && !r->vpd8f_error[0])
		fprintf(f, "  ODX               %s\n", r->vpd8f.populate_token && r->vpd8f.write_using_token ?
			(r->vpd8f.rrti ? "yes (POPULATE TOKEN, WRITE USING TOKEN, RRTI)" : "partly (no RRTI listed)") : "no");
	fprintf(f, "  COMPARE AND WRITE %s\n", yn(r->caw));
	fprintf(f, "  WRITE SAME(16)    %s (max %" PRIu64 " blocks)\n", yn(r->write_same16), r->max_write_same_blocks);
	fprintf(f, "  UNMAP             %s (VPD B2 LBPU %s, max %u LBAs / %u descriptors)\n",
		yn(r->unmap), r->lbpu ? "set" : "clear", r->max_unmap_lba, r->max_unmap_desc);
	fprintf(f, "Thin provisioning\n");
	fprintf(f, "  LBPME             %s\n", r->lbpme ? "yes" : "no");
	fprintf(f, "  provisioning type %s\n", !r->vpd_b2 ? "unknown (no VPD B2)" :
		r->provisioning_type == 2 ? "thin" : r->provisioning_type == 1 ? "resource" : "full");
	fprintf(f, "  max transfer      %u blocks (optimal %u)\n", r->max_xfer_blocks, r->opt_xfer_blocks);
	if (r->have_capacity) {
		fprintf(f, "Array capacity (LOG SENSE 0x30)\n");
		capacity_lines(f, &r->cap);
	} else {
		fprintf(f, "Array capacity     not reported (no LOG SENSE page 0x30)\n");
	}
	if (r->have_telemetry)
	{
		if (r->tel.virtual_streams)
			fprintf(f, "Array model        %" PRIu64 " commands, %" PRIu64 " cores, virtual clock "
				"(%" PRIu64 " host streams)\n", r->tel.commands, r->tel.cores, r->tel.virtual_streams);
		else
			fprintf(f, "Array model        %" PRIu64 " commands, %" PRIu64 " cores, time scale %.3f\n",
				r->tel.commands, r->tel.cores, (double)r->tel.time_scale_x1000 / 1000.0);
	}
	table_conn_stats(f, &r->conn, NULL);
}

void table_scale(FILE *f, const struct scale_result *r)
{
	char bs[32];
	fmt_size(bs, sizeof(bs), r->bs);
	fprintf(f, "scale: %s %s %s%s%s, QD%u per VM\n", bs, r->random ? "random" : "sequential",
		r->write ? "writes" : "reads", r->write ? ", data " : "",
		r->write ? write_data_name((enum write_data)r->data) : "", r->qd);
	fprintf(f, "%5s %12s %10s %10s %10s %9s %8s %11s %14s\n", "VMs", "total MB/s", "min MB/s", "avg MB/s",
		"max MB/s", "fairness", "IOs", "client CPU", "host/modeled");
	for (unsigned i = 0; i < r->n; i++) {
		const struct scale_run *s = &r->runs[i];
		char lat[40] = "-";
		if (s->have_modeled)
			snprintf(lat, sizeof(lat), "%.2f/%.2f ms", s->host_mean_latency_ms,
				 s->modeled_mean_latency_ms * (s->time_scale > 0 ? s->time_scale : 1));
		fprintf(f, "%5u %12.1f %10.1f %10.1f %10.1f %9.3f %8" PRIu64 " %10.0f%% %14s%s\n", s->vms,
			s->total_mbps, s->min_mbps, s->avg_mbps, s->max_mbps, s->fairness, s->ios, s->client_cpu_pct,
			lat, s->machine_limited ? "  MACHINE-LIMITED" : "");
	}
	fprintf(f, "(MB = 10^6 bytes; fairness = fastest VM / slowest VM; client CPU = lunlab-bench itself, %% of a core;\n"
		" host/modeled = mean latency per command as the client saw it / as the LU's model charged it)\n");
	for (unsigned i = 0; i < r->n; i++) {
		const struct scale_run *s = &r->runs[i];
		if (!s->machine_limited)
			continue;
		char inj[96] = "";
		if (s->injected_latency_ms > 0)
			snprintf(inj, sizeof(inj), " (of which %.3f ms held by fault rules, not counted)",
				 s->injected_latency_ms);
		fprintf(f, "note: %u VMs: MACHINE-LIMITED: this machine added %.0f%% to each command, the array "
			"was busy %.0f%% of the time (host mean %.3f ms%s vs modeled %.3f ms x time scale %.2f%s): these are not the array's "
			"figures. Rerun in slow motion: time_scale=%.0f on the LUN (lunlab-target --lun "
			"...,time_scale=%.0f); the modeled figures are then the measured ones x the time scale\n",
			s->vms, s->machine_share * 100, s->array_utilization * 100, s->host_mean_latency_ms, inj,
			s->modeled_mean_latency_ms, s->time_scale > 0 ? s->time_scale : 1,
			s->client_cpu_pct > 90 ? "; lunlab-bench itself > 90% of a core" : "",
			s->suggested_time_scale, s->suggested_time_scale);
	}
	for (unsigned i = 0; i < r->n; i++) {
		char what[32];
		snprintf(what, sizeof(what), "the %u-VM run", r->runs[i].vms);
		table_conn_stats(f, &r->runs[i].conn, what);
	}
}

void table_clone(FILE *f, const struct clone_result *r)
{
	char ts[32];
	fmt_size(ts, sizeof(ts), r->template_size);
	fprintf(f, "clone: %s template x %u clones, %u in parallel, %u outstanding per clone%s\n", ts,
		r->clones, r->parallel, r->outstanding, r->two_lus ? ", to a second LU" : "");
	fprintf(f, "%8s %-9s %8s %9s %9s %9s %9s %9s %11s | %11s %11s %8s\n", "chunk", "datamover",
		"wall s", "commands", "p50 ms", "p90 ms", "p99 ms", "max ms", "wire MiB",
		"model dur s", "peak lat ms", "peak CPU");
	for (unsigned i = 0; i < r->n; i++) {
		const struct clone_run *c = &r->runs[i];
		char ch[32];
		fmt_size(ch, sizeof(ch), c->chunk);
		fprintf(f, "%8s %-9s %8.3f %9" PRIu64 " %9.3f %9.3f %9.3f %9.3f %11.1f |", ch,
			c->odx ? "ODX" : c->xcopy ? "XCOPY" : c->fallback_clones ? "mixed" : c->fell_back ? "sw (fb)" : "software",
			c->wall_s, c->commands,
			c->lat_p50_ms, c->lat_p90_ms, c->lat_p99_ms, c->lat_max_ms,
			(double)c->wire_bytes / 1048576.0);
		if (c->have_modeled)
			fprintf(f, " %11.3f %11.4f %7.1f%%\n", c->modeled_duration_s, c->modeled_peak_latency_ms,
				c->modeled_peak_cpu_pct);
		else
			fprintf(f, " %11s %11s %8s\n", "-", "-", "-");
	}
	/* Notes once per table, not once per chunk of a sweep. */
	double scale = 0;
	bool bound_note = false;
	for (unsigned i = 0; i < r->n; i++) {
		const struct clone_run *c = &r->runs[i];
		if (c->fallback_reason[0] && (i == 0 || strcmp(c->fallback_reason, r->runs[i - 1].fallback_reason)))
			fprintf(f, "note: %s\n", c->fallback_reason);
		if (c->odx_tokens) {
			char ch[32];
			fmt_size(ch, sizeof(ch), c->chunk);
			fprintf(f, "note: chunk %s: ODX, %u token%s: time in POPULATE TOKEN %.3f s, RRTI %.3f s, WRITE USING "
				"TOKEN %.3f s (slowest %.3f ms), summed over the commands\n", ch, c->odx_tokens,
				c->odx_tokens == 1 ? "" : "s", (double)c->odx_pt_ns / 1e9, (double)c->odx_rrti_ns / 1e9,
				(double)c->odx_wut_ns / 1e9, (double)c->odx_wut_max_ns / 1e6);
		}
		if (c->odx_bytes && c->software_bytes) {
			char ch[32], ob[32], sb[32];
			fmt_size(ch, sizeof(ch), c->chunk);
			fmt_size(ob, sizeof(ob), c->odx_bytes);
			fmt_size(sb, sizeof(sb), c->software_bytes);
			fprintf(f, "note: chunk %s: %s cloned by ODX (WRITE USING TOKEN), %s by host READ + WRITE%s\n",
				ch, ob, sb, c->fallback_clones ? " (clones that fell back part way)" : "");
		}
		if (c->xcopy_bytes && c->software_bytes) {
			char ch[32], xb[32], sb[32];
			fmt_size(ch, sizeof(ch), c->chunk);
			fmt_size(xb, sizeof(xb), c->xcopy_bytes);
			fmt_size(sb, sizeof(sb), c->software_bytes);
			fprintf(f, "note: chunk %s: %s cloned by EXTENDED COPY, %s by the software datamover "
				"(host READ + WRITE)", ch, xb, sb);
			if (c->fallback_clones)
				fprintf(f, "; %u clone%s fell back part way", c->fallback_clones,
					c->fallback_clones == 1 ? "" : "s");
			fprintf(f, "\n");
		}
		if (c->have_modeled && c->time_scale > 1.0)
			scale = c->time_scale;
		bound_note |= c->have_modeled && !c->machine_share_exact && c->machine_share > 0.05;
		if (c->have_modeled && c->virtual_streams && (i == 0 || !r->runs[i - 1].virtual_streams)) {
			fprintf(f, "note: the array's clock is virtual: modeled time comes from %u closed-loop host "
				"streams, not from this machine, which cannot limit the figures; ", c->virtual_streams);
			if (!strcmp(c->host_streams_source, "run"))
				fprintf(f, "lunlab-bench set them to this run's --parallel x --outstanding (%u x %u)\n",
					r->parallel, r->outstanding);
			else if (!strcmp(c->host_streams_source, "pinned"))
				fprintf(f, "the LU's configuration pins them (host_streams=%u), so this run's %u x %u = %u "
					"outstanding does not change the modeled host\n", c->virtual_streams, r->parallel,
					r->outstanding, r->parallel * r->outstanding);
			else
				fprintf(f, "the LU offers no way to set them (LOG SENSE 0x31 has no parameter 0x000E), so "
					"this run's %u outstanding does not change the modeled host\n",
					r->parallel * r->outstanding);
		}
	}
	if (scale > 0)
		fprintf(f, "note: the array ran in slow motion x%.2f (its time scale); modeled figures are in the "
			"array's time\n", scale);
	if (bound_note) {
		fprintf(f, "note: this machine added at most");
		for (unsigned i = 0; i < r->n; i++)
			if (r->runs[i].have_modeled)
				fprintf(f, " %.0f%%", r->runs[i].machine_share * 100);
		fprintf(f, " to the modeled durations (upper bounds: the LU does not report the modeled host "
			"turnaround, LOG SENSE 0x31 parameter 0x0009); if figures look low, raise the LUN's time_scale\n");
	}
	for (unsigned i = 0; i < r->n; i++) {
		const struct clone_run *c = &r->runs[i];
		if (c->machine_limited)
			fprintf(f, "note: chunk %" PRIu64 ": MACHINE-LIMITED: this machine added %.0f%% to the modeled "
				"duration (host mean %.3f ms/command vs modeled %.4f ms x scale %.2f); the modeled figures "
				"are not the array's. Rerun in slow motion: time_scale=%.0f on the LUN "
				"(lunlab-target --lun ...,time_scale=%.0f)\n",
				c->chunk, c->machine_share * 100, c->lat_mean_ms, c->modeled_mean_latency_ms,
				c->time_scale, c->suggested_time_scale + 0.5, c->suggested_time_scale + 0.5);
	}
	if (r->verified)
		fprintf(f, "verify: every clone read back equal to the template (%" PRIu64 " bytes compared)\n",
			r->verified_bytes);
	table_conn_stats(f, &r->conn, NULL);
	fprintf(f, "(latency = host-observed per command; wire = payload bytes sent/received for the copy)\n");
}

void table_drr(FILE *f, const struct drr_result *r)
{
	char sz[32];
	fmt_size(sz, sizeof(sz), r->image_bytes);
	fprintf(f, "drr: wrote %s (%s) in %.2f s\n", sz, r->source, r->write_s);
	table_conn_stats(f, &r->conn, NULL);
	if (r->readback_bytes)
		fprintf(f, "note: after the lost session, %" PRIu64 " bytes of the image were read back and found "
			"intact: the figures are the image's\n", r->readback_bytes);
	if (!r->have_capacity) {
		fprintf(f, "the LU does not report array capacity (LOG SENSE page 0x30): no data reduction figures\n");
		return;
	}
	if (r->logical_before)
		fprintf(f, "warning: the array already held %" PRIu64 " logical bytes before the image: the figures "
			"below are the whole array's (use a fresh array, e.g. a new array= name)\n", r->logical_before);
	if (!r->settled)
		fprintf(f, "warning: accounting still pending after %.1f s; figures are provisional\n", r->settle_s);
	capacity_lines(f, &r->cap);
}
