/* report_json.c - --json output (json-c).  Keys are the interface scripts depend on:
 * keep them in step with docs/bench.md "JSON schema". */
#include "client/report.h"
#include "client/write_data.h"

#include <json-c/json.h>

static void add_d(json_object *o, const char *k, double v) { json_object_object_add(o, k, json_object_new_double(v)); }
static void add_i(json_object *o, const char *k, int64_t v) { json_object_object_add(o, k, json_object_new_int64(v)); }
static void add_b(json_object *o, const char *k, bool v) { json_object_object_add(o, k, json_object_new_boolean(v)); }
static void add_s(json_object *o, const char *k, const char *v) { json_object_object_add(o, k, json_object_new_string(v)); }

static json_object *capacity_obj(const struct array_capacity *c)
{
	json_object *o = json_object_new_object();
	add_i(o, "logical_bytes", (int64_t)c->logical_bytes);
	add_i(o, "unique_bytes", (int64_t)c->unique_bytes);
	add_i(o, "physical_bytes", (int64_t)c->physical_bytes);
	add_i(o, "pending_blocks", (int64_t)c->pending_blocks);
	/* the array's memory for maps, block records, the index and live ODX tokens (page 0x30
	 * parameter 0x0009): what bench/odx-speed.sh measures a live token by */
	add_i(o, "metadata_bytes", (int64_t)c->metadata_bytes);
	add_d(o, "dedup_ratio", c->dedup_ratio);
	add_d(o, "compression_ratio", c->compression_ratio);
	add_d(o, "drr", c->drr);
	return o;
}

json_object *json_conn_stats(const struct conn_stats *s)
{
	json_object *o = json_object_new_object();
	add_i(o, "reconnects", s->reconnects);
	add_d(o, "outage_s", s->outage_s);
	add_d(o, "longest_outage_s", s->longest_outage_s);
	add_i(o, "resent", s->resent);
	add_i(o, "timeouts", s->timeouts);
	add_i(o, "aborts", s->aborts);
	add_i(o, "busy", s->busy);
	add_i(o, "task_set_full", s->task_set_full);
	add_i(o, "unit_attentions", s->unit_attentions);
	add_i(o, "resets", s->resets);
	add_i(o, "not_ready", s->not_ready);
	add_i(o, "aborted_commands", s->aborted_commands);
	return o;
}

static json_object *tri(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v > 0);
}

json_object *json_info(const struct info_result *r)
{
	json_object *o = json_object_new_object();
	add_s(o, "command", "info");
	add_s(o, "vendor", r->vendor);
	add_s(o, "product", r->product);
	add_s(o, "revision", r->revision);
	add_i(o, "capacity_bytes", (int64_t)(r->num_blocks * r->block_size));
	add_i(o, "block_size", r->block_size);
	add_s(o, "naa", r->naa_binary ? r->naa_hex : "");
	json_object *v = json_object_new_object();
	json_object_object_add(v, "extended_copy", tri(r->xcopy_opcode));
	add_b(v, "tpc", r->tpc);
	json_object_object_add(v, "compare_and_write", tri(r->caw));
	json_object_object_add(v, "write_same", tri(r->write_same16));
	json_object_object_add(v, "unmap", tri(r->unmap));
	add_b(v, "vpd_8f", r->vpd_8f);
	if (r->vpd_8f && !r->vpd8f_error[0]) {
		json_object *t = json_object_new_object();
		add_i(t, "descriptors", r->vpd8f.descriptors);
		add_b(t, "lid1_extended_copy", r->vpd8f.lid1_xcopy);
		add_b(t, "populate_token", r->vpd8f.populate_token);
		add_b(t, "write_using_token", r->vpd8f.write_using_token);
		add_b(t, "receive_rod_token_information", r->vpd8f.rrti);
		add_b(t, "copy_operation_abort", r->vpd8f.copy_operation_abort);
		if (r->vpd8f.have_rod) {
			json_object *l = json_object_new_object();
			add_i(l, "max_range_descriptors", r->vpd8f.max_range_descriptors);
			add_i(l, "max_inactivity_timeout_s", r->vpd8f.max_inactivity_timeout_s);
			add_i(l, "default_inactivity_timeout_s", r->vpd8f.default_inactivity_timeout_s);
			add_i(l, "max_token_transfer_blocks", (int64_t)r->vpd8f.max_token_transfer);
			add_i(l, "optimal_transfer_count_blocks", (int64_t)r->vpd8f.optimal_transfer_count);
			json_object_object_add(t, "rod_token_limits", l);
		}
		if (r->vpd8f.have_rod_types) {
			json_object *a = json_object_new_array();
			for (unsigned i = 0; i < r->vpd8f.n_rod_types && i < VPD8F_MAX_ROD_TYPES; i++) {
				json_object *e = json_object_new_object();
				add_i(e, "type", r->vpd8f.rod_types[i].type);
				add_b(e, "token_in", r->vpd8f.rod_types[i].token_in);
				add_b(e, "token_out", r->vpd8f.rod_types[i].token_out);
				json_object_array_add(a, e);
			}
			json_object_object_add(t, "rod_types", a);
		}
		if (r->vpd8f.have_rod_features) {
			json_object *e = json_object_new_object();
			add_i(e, "remote_tokens", r->vpd8f.remote_tokens);
			add_i(e, "min_token_lifetime_s", r->vpd8f.min_token_lifetime_s);
			add_i(e, "max_token_lifetime_s", r->vpd8f.max_token_lifetime_s);
			add_i(e, "max_token_inactivity_s", r->vpd8f.max_token_inactivity_s);
			if (r->vpd8f.have_rod_block_features) {
				add_i(e, "max_bytes_in_rod", (int64_t)r->vpd8f.rod_max_bytes);
				add_i(e, "optimal_bytes_to_token_per_segment", (int64_t)r->vpd8f.optimal_bytes_to_token);
				add_i(e, "optimal_bytes_from_token_per_segment", (int64_t)r->vpd8f.optimal_bytes_from_token);
			}
			json_object_object_add(t, "rod_token_features", e);
		}
		if (r->vpd8f.have_params) {
			add_i(t, "max_cscd_descriptors", r->vpd8f.max_cscd);
			add_i(t, "max_segment_descriptors", r->vpd8f.max_segments);
			add_i(t, "max_descriptor_list_length", r->vpd8f.max_list_len);
		}
		if (r->vpd8f.have_general) {
			add_i(t, "total_concurrent_copies", r->vpd8f.total_concurrent);
			add_i(t, "max_segment_length", r->vpd8f.max_segment_len);
		}
		json_object_object_add(v, "vpd_8f_limits", t);
	}
	add_b(v, "receive_copy_results", r->rcr_ok);
	if (r->rcr_ok) {
		json_object *l = json_object_new_object();
		add_i(l, "max_target_descriptors", r->rcr_max_tgt);
		add_i(l, "max_segment_descriptors", r->rcr_max_seg);
		add_i(l, "max_descriptor_list_length", r->rcr_max_desc_list);
		add_i(l, "max_segment_length", r->rcr_max_seg_len);
		json_object_object_add(v, "copy_limits", l);
	}
	json_object_object_add(o, "vaai", v);
	json_object *t = json_object_new_object();
	add_b(t, "lbpme", r->lbpme);
	add_b(t, "lbpu", r->lbpu);
	add_b(t, "lbpws", r->lbpws);
	add_i(t, "provisioning_type", r->provisioning_type);
	json_object_object_add(o, "thin", t);
	json_object_object_add(o, "array", r->have_capacity ? capacity_obj(&r->cap) : NULL);
	json_object_object_add(o, "connection", json_conn_stats(&r->conn));
	return o;
}

/* The machine check clone and scale both report (docs/bench.md "Machine-limited runs"). */
static void add_machine_check(json_object *m, double time_scale, unsigned virtual_streams, double mean_ms,
			      double share, bool exact, double suggested)
{
	add_d(m, "time_scale", time_scale);
	add_s(m, "clock", virtual_streams ? "virtual" : "real");
	if (virtual_streams)
		add_i(m, "host_streams", virtual_streams);
	add_d(m, "mean_latency_ms", mean_ms);
	add_d(m, "machine_share", share);
	add_b(m, "machine_share_exact", exact);
	add_d(m, "suggested_time_scale", suggested);
}

json_object *json_scale(const struct scale_result *r)
{
	json_object *o = json_object_new_object();
	add_s(o, "command", "scale");
	add_b(o, "write", r->write);
	add_s(o, "pattern", r->random ? "random" : "sequential");
	if (r->write)
		add_s(o, "data", write_data_name((enum write_data)r->data));
	add_i(o, "bs", (int64_t)r->bs);
	add_i(o, "qd", r->qd);
	struct conn_stats all = { 0 };
	json_object *runs = json_object_new_array();
	for (unsigned i = 0; i < r->n; i++) {
		const struct scale_run *s = &r->runs[i];
		json_object *e = json_object_new_object();
		add_i(e, "vms", s->vms);
		add_d(e, "total_mbps", s->total_mbps);
		add_d(e, "min_mbps", s->min_mbps);
		add_d(e, "avg_mbps", s->avg_mbps);
		add_d(e, "max_mbps", s->max_mbps);
		add_d(e, "fairness", s->fairness);
		add_i(e, "ios", (int64_t)s->ios);
		add_d(e, "seconds", s->seconds);
		add_d(e, "client_cpu_pct", s->client_cpu_pct);
		if (s->have_modeled) {
			json_object *m = json_object_new_object();
			add_d(m, "host_mean_latency_ms", s->host_mean_latency_ms);
			add_d(m, "injected_latency_ms", s->injected_latency_ms);
			add_d(m, "array_utilization", s->array_utilization);
			add_machine_check(m, s->time_scale, s->virtual_streams, s->modeled_mean_latency_ms,
					  s->machine_share, s->machine_share_exact, s->suggested_time_scale);
			json_object_object_add(e, "modeled", m);
		} else {
			json_object_object_add(e, "modeled", NULL);
		}
		add_b(e, "machine_limited", s->machine_limited);
		if (s->count) {
			add_i(e, "count", s->count);
			if (s->have_modeled_rate) {
				json_object *mr = json_object_new_object();
				add_i(mr, "bytes", (int64_t)s->modeled_bytes);
				add_d(mr, "seconds", s->modeled_seconds);
				add_d(mr, "total_mbps", s->modeled_mbps);
				if (s->have_session_rates) {
					/* one stream per session (page 0x32): each VM's own modeled rate */
					add_i(mr, "sessions", s->modeled_sessions);
					add_d(mr, "vm_min_mbps", s->modeled_vm_min_mbps);
					add_d(mr, "vm_max_mbps", s->modeled_vm_max_mbps);
					add_d(mr, "fairness", s->modeled_fairness);
					add_b(mr, "order_exact", s->modeled_order_exact);
				}
				json_object_object_add(e, "modeled_rate", mr);
			} else {
				json_object_object_add(e, "modeled_rate", NULL);
			}
		}
		add_i(e, "failed_ios", (int64_t)s->failed_ios);
		if (s->failed_ios)
			add_s(e, "first_failure", s->first_failure);
		json_object_object_add(e, "connection", json_conn_stats(&s->conn));
		json_object_array_add(runs, e);
		conn_stats_add(&all, &s->conn);
	}
	json_object_object_add(o, "runs", runs);
	json_object_object_add(o, "connection", json_conn_stats(&all));
	return o;
}

static json_object *clone_run_obj(const struct clone_result *r, const struct clone_run *c)
{
	json_object *e = json_object_new_object();
	add_i(e, "chunk", (int64_t)c->chunk);
	add_d(e, "wall_s", c->wall_s);
	add_b(e, "xcopy", c->xcopy);
	add_b(e, "fell_back", c->fell_back);
	add_s(e, "fallback_reason", c->fallback_reason);
	add_i(e, "fallback_clones", c->fallback_clones);
	add_i(e, "xcopy_bytes", (int64_t)c->xcopy_bytes);
	add_b(e, "odx", c->odx);
	add_i(e, "odx_bytes", (int64_t)c->odx_bytes);
	if (c->odx_tokens) {
		json_object *d = json_object_new_object();
		add_i(d, "tokens", c->odx_tokens);
		add_d(d, "populate_token_s", (double)c->odx_pt_ns / 1e9);
		add_d(d, "rrti_s", (double)c->odx_rrti_ns / 1e9);
		add_d(d, "write_using_token_s", (double)c->odx_wut_ns / 1e9);
		add_d(d, "write_using_token_max_s", (double)c->odx_wut_max_ns / 1e9);
		json_object_object_add(e, "odx_commands", d);
	}
	add_i(e, "software_bytes", (int64_t)c->software_bytes);
	add_i(e, "commands", (int64_t)c->commands);
	add_i(e, "bytes_cloned", (int64_t)c->bytes_cloned);
	add_i(e, "wire_bytes", (int64_t)c->wire_bytes);
	json_object *l = json_object_new_object();
	add_d(l, "p50_ms", c->lat_p50_ms);
	add_d(l, "p90_ms", c->lat_p90_ms);
	add_d(l, "p99_ms", c->lat_p99_ms);
	add_d(l, "max_ms", c->lat_max_ms);
	add_d(l, "mean_ms", c->lat_mean_ms);
	json_object_object_add(e, "latency", l);
	if (c->have_modeled) {
		json_object *m = json_object_new_object();
		add_d(m, "duration_s", c->modeled_duration_s);
		add_d(m, "peak_latency_ms", c->modeled_peak_latency_ms);
		add_d(m, "peak_cpu_pct", c->modeled_peak_cpu_pct);
		add_d(m, "max_latency_ms", c->modeled_max_latency_ms);
		/* --plot-job SIZE: this run is a sample of a job of SIZE bytes cloned at the same
		 * rates (the modeled duration is linear in the bytes, docs/reproduce.md), so a
		 * script or a scenario expectation can hold the job's duration against a
		 * published figure without redoing the arithmetic */
		if (r->plot_job_bytes && c->bytes_cloned) {
			add_i(m, "job_bytes", (int64_t)r->plot_job_bytes);
			add_d(m, "job_duration_s",
			      c->modeled_duration_s * (double)r->plot_job_bytes / (double)c->bytes_cloned);
		}
		add_machine_check(m, c->time_scale, c->virtual_streams, c->modeled_mean_latency_ms, c->machine_share,
				  c->machine_share_exact, c->suggested_time_scale);
		if (c->virtual_streams) /* whose host the virtual clock modeled: run, pinned or lu */
			add_s(m, "host_streams_source", c->host_streams_source);
		json_object_object_add(e, "modeled", m);
	} else {
		json_object_object_add(e, "modeled", NULL);
	}
	add_b(e, "machine_limited", c->machine_limited);
	json_object_object_add(e, "connection", json_conn_stats(&c->conn));
	return e;
}

json_object *json_clone(const struct clone_result *r)
{
	/* The first (or only) run's fields sit at top level so "clone --chunk X --json" reads as
	 * one record; every run, sweep or not, is in runs[]. */
	json_object *o = r->n ? clone_run_obj(r, &r->runs[0]) : json_object_new_object();
	add_s(o, "command", "clone");
	add_i(o, "template_size", (int64_t)r->template_size);
	add_i(o, "clones", r->clones);
	add_i(o, "parallel", r->parallel);
	add_i(o, "outstanding", r->outstanding);
	add_b(o, "two_lus", r->two_lus);
	add_b(o, "verified", r->verified);
	json_object *runs = json_object_new_array();
	for (unsigned i = 0; i < r->n; i++)
		json_object_array_add(runs, clone_run_obj(r, &r->runs[i]));
	json_object_object_add(o, "runs", runs);
	/* top level: the whole command (template write, every run, verify) */
	json_object_object_add(o, "connection", json_conn_stats(&r->conn));
	return o;
}

json_object *json_drr(const struct drr_result *r)
{
	json_object *o = json_object_new_object();
	add_s(o, "command", "drr");
	add_s(o, "source", r->source ? r->source : "");
	add_i(o, "image_bytes", (int64_t)r->image_bytes);
	add_d(o, "write_s", r->write_s);
	add_d(o, "settle_s", r->settle_s);
	add_b(o, "settled", r->settled);
	add_i(o, "logical_bytes_before", (int64_t)r->logical_before);
	add_b(o, "reported", r->have_capacity);
	add_i(o, "logical_bytes", (int64_t)r->cap.logical_bytes);
	add_i(o, "unique_bytes", (int64_t)r->cap.unique_bytes);
	add_i(o, "physical_bytes", (int64_t)r->cap.physical_bytes);
	add_d(o, "dedup_ratio", r->cap.dedup_ratio);
	add_d(o, "compression_ratio", r->cap.compression_ratio);
	add_d(o, "drr", r->cap.drr);
	add_i(o, "readback_bytes", (int64_t)r->readback_bytes);
	json_object_object_add(o, "connection", json_conn_stats(&r->conn));
	return o;
}
