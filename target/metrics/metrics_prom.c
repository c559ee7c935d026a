/* metrics_prom.c — the snapshot as Prometheus text (metrics_prom.h).
 * Naming follows Prometheus' naming guide: base units (bytes, seconds),
 * counters end in _total, one family per quantity with the variants as
 * labels (kind, result, type).  Every LU series carries the labels array,
 * lun, volume and profile; every array series array and profile. */
#include "target/metrics/metrics_prom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/metrics/prom_text.h"

#define NS 1e-9

struct lu_labels {
	struct prom_label l[5];
	char lun[24];
};

static size_t lu_labels(const struct metrics_lu *u, struct lu_labels *o)
{
	if (u->global)
		snprintf(o->lun, sizeof(o->lun), "%llu", (unsigned long long)u->lun);
	else
		o->lun[0] = 0; /* an API volume: each initiator may see it at a LUN of its own */
	o->l[0] = (struct prom_label){ "array", u->arr.array };
	o->l[1] = (struct prom_label){ "lun", o->lun };
	o->l[2] = (struct prom_label){ "volume", u->arr.volume };
	o->l[3] = (struct prom_label){ "profile", u->arr.profile };
	return 4;
}

static size_t array_labels(const struct metrics_array *a, struct prom_label *l)
{
	l[0] = (struct prom_label){ "array", a->name };
	l[1] = (struct prom_label){ "profile", a->profile };
	return 2;
}

/* one family of per-LU, per-kind counters; field picks the figure */
enum kind_field { KF_COMMANDS, KF_ERRORS, KF_BYTES };

static void lu_kind_counters(struct prom_out *o, const struct metrics_snapshot *s, const char *name,
			     const char *help, enum kind_field field)
{
	prom_family(o, name, PROM_COUNTER, help);
	for (size_t i = 0; i < s->nlu; i++) {
		struct lu_labels ll;
		size_t n = lu_labels(&s->lu[i], &ll);

		for (unsigned k = 0; k < LU_KINDS; k++) {
			const struct lu_kind_figures *f = &s->lu[i].host[k];
			uint64_t v = field == KF_COMMANDS ? f->commands : field == KF_ERRORS ? f->errors : f->bytes;

			ll.l[n] = (struct prom_label){ "kind", lu_kind_name((enum lu_kind)k) };
			prom_sample_u64(o, ll.l, n + 1, v);
		}
	}
}

static void lu_observed_latency(struct prom_out *o, const struct metrics_snapshot *s)
{
	prom_family(o, "lunlab_observed_latency_seconds", PROM_HISTOGRAM,
		    "Latency as the target core saw it: from a command's PDU to its response (what the "
		    "initiator waits, less the network), by command kind.");
	for (size_t i = 0; i < s->nlu; i++) {
		struct lu_labels ll;
		size_t n = lu_labels(&s->lu[i], &ll);

		for (unsigned k = 0; k < LU_KINDS; k++) {
			const struct lu_kind_figures *f = &s->lu[i].host[k];

			ll.l[n] = (struct prom_label){ "kind", lu_kind_name((enum lu_kind)k) };
			prom_histogram(o, ll.l, n + 1, metrics_lat_bounds_s, f->latency_buckets, LUNLAB_LAT_BOUNDS,
				       (double)f->latency_sum_ns * NS);
		}
	}
}

/* one per-LU figure the array reports (only LUs whose handler answers) */
static void lu_array_u64(struct prom_out *o, const struct metrics_snapshot *s, const char *name,
			 enum prom_type type, const char *help, size_t offset)
{
	prom_family(o, name, type, help);
	for (size_t i = 0; i < s->nlu; i++) {
		struct lu_labels ll;
		size_t n;

		if (!s->lu[i].have_array)
			continue;
		n = lu_labels(&s->lu[i], &ll);
		prom_sample_u64(o, ll.l, n, *(const uint64_t *)(const void *)((const char *)&s->lu[i].arr + offset));
	}
}

static void lu_modeled(struct prom_out *o, const struct metrics_snapshot *s)
{
	prom_family(o, "lunlab_modeled_latency_seconds", PROM_HISTOGRAM,
		    "Latency the array's cost model gave this LU's commands, in modeled time.");
	for (size_t i = 0; i < s->nlu; i++) {
		struct lu_labels ll;
		size_t n;

		if (!s->lu[i].have_array)
			continue;
		n = lu_labels(&s->lu[i], &ll);
		prom_histogram(o, ll.l, n, metrics_lat_bounds_s, s->lu[i].arr.model.latency_buckets, LUNLAB_LAT_BOUNDS,
			       (double)s->lu[i].arr.model.latency_sum_ns * NS);
	}
	prom_family(o, "lunlab_modeled_cpu_seconds_total", PROM_COUNTER,
		    "Array CPU work the cost model charged for this LU's commands, core-seconds in modeled time.");
	for (size_t i = 0; i < s->nlu; i++) {
		struct lu_labels ll;
		size_t n;

		if (!s->lu[i].have_array)
			continue;
		n = lu_labels(&s->lu[i], &ll);
		prom_sample(o, ll.l, n, (double)s->lu[i].arr.model.cpu_ns * NS);
	}
}

/* one array gauge from struct lunlab_array_figures */
static void array_u64(struct prom_out *o, const struct metrics_snapshot *s, const char *name, const char *help,
		      size_t offset, bool u32)
{
	prom_family(o, name, PROM_GAUGE, help);
	for (size_t i = 0; i < s->narr; i++) {
		struct prom_label l[2];
		const char *p = (const char *)&s->arr[i].fig + offset;
		uint64_t v = u32 ? *(const uint32_t *)(const void *)p : *(const uint64_t *)(const void *)p;

		if (s->arr[i].have_figures)
			prom_sample_u64(o, l, array_labels(&s->arr[i], l), v);
	}
}

#define FIG(field) offsetof(struct lunlab_array_figures, field), false
#define FIG32(field) offsetof(struct lunlab_array_figures, field), true

static void arrays(struct prom_out *o, const struct metrics_snapshot *s)
{
	static const struct {
		const char *name, *help;
		int which; /* 0 dedup, 1 compression, 2 data reduction */
	} ratios[] = {
		{ "lunlab_array_dedup_ratio", "Logical / unique bytes (LOG SENSE 30h 0010h / 1000); 0 when empty.", 0 },
		{ "lunlab_array_compression_ratio", "Unique / physical bytes (LOG SENSE 30h 0011h / 1000); 0 when empty.", 1 },
		{ "lunlab_array_data_reduction_ratio",
		  "Logical / physical bytes (LOG SENSE 30h 0012h / 1000); 0 when empty.", 2 },
	};

	array_u64(o, s, "lunlab_array_logical_bytes", "Mapped (non-zero) bytes of every volume of the array.",
		  FIG(logical_bytes));
	array_u64(o, s, "lunlab_array_unique_bytes", "Distinct blocks x the dedup block size.", FIG(unique_bytes));
	array_u64(o, s, "lunlab_array_physical_bytes", "Allocated compressed size of the distinct blocks.",
		  FIG(physical_bytes));
	array_u64(o, s, "lunlab_array_compressed_bytes", "Exact compressed size of the distinct blocks.",
		  FIG(compressed_bytes));
	array_u64(o, s, "lunlab_array_pending_blocks",
		  "Distinct blocks whose compressed size is not known yet (the ratios are exact at 0).",
		  FIG(pending_blocks));
	array_u64(o, s, "lunlab_array_used_bytes",
		  "Physical space the array counts as in use, reservations for pending blocks included.",
		  FIG(used_bytes));
	array_u64(o, s, "lunlab_array_capacity_bytes", "Usable physical capacity of the array.", FIG(capacity_bytes));
	array_u64(o, s, "lunlab_array_soft_threshold_bytes",
		  "Physical use that raises the thin-provisioning threshold unit attention; 0 = none.",
		  FIG(soft_threshold_bytes));
	array_u64(o, s, "lunlab_array_provisioned_bytes", "Sum of the sizes of the array's volumes.",
		  FIG(provisioned_bytes));
	array_u64(o, s, "lunlab_array_volumes", "Volumes alive in the array.", FIG32(volumes));
	array_u64(o, s, "lunlab_array_dedup_block_bytes", "The array's deduplication block size.", FIG32(dedup_block));
	for (size_t r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++) {
		prom_family(o, ratios[r].name, PROM_GAUGE, ratios[r].help);
		for (size_t i = 0; i < s->narr; i++) {
			const struct lunlab_array_figures *f = &s->arr[i].fig;
			struct prom_label l[2];
			double v = ratios[r].which == 0 ? metrics_ratio(f->logical_bytes, f->unique_bytes)
				 : ratios[r].which == 1 ? metrics_ratio(f->unique_bytes, f->physical_bytes)
							: metrics_ratio(f->logical_bytes, f->physical_bytes);

			if (s->arr[i].have_figures)
				prom_sample(o, l, array_labels(&s->arr[i], l), v);
		}
	}
}

static void array_model(struct prom_out *o, const struct metrics_snapshot *s)
{
	struct prom_label l[2];

	prom_family(o, "lunlab_array_modeled_commands_total", PROM_COUNTER, "Commands the array's cost model charged.");
	for (size_t i = 0; i < s->narr; i++)
		if (s->arr[i].have_model)
			prom_sample_u64(o, l, array_labels(&s->arr[i], l), s->arr[i].model.commands);
	prom_family(o, "lunlab_array_modeled_cpu_seconds_total", PROM_COUNTER,
		    "Array CPU work charged, core-seconds in modeled time; busy fraction = "
		    "increase(this) / (increase(lunlab_array_modeled_elapsed_seconds_total) x cores).");
	for (size_t i = 0; i < s->narr; i++)
		if (s->arr[i].have_model)
			prom_sample(o, l, array_labels(&s->arr[i], l), (double)s->arr[i].model.cpu_ns * NS);
	prom_family(o, "lunlab_array_modeled_elapsed_seconds_total", PROM_COUNTER,
		    "Modeled time from the first command's arrival to the last modeled completion.");
	for (size_t i = 0; i < s->narr; i++)
		if (s->arr[i].have_model)
			prom_sample(o, l, array_labels(&s->arr[i], l), (double)s->arr[i].model.modeled_elapsed_ns * NS);
	prom_family(o, "lunlab_array_modeled_cores", PROM_GAUGE, "Cores of the modeled array; 0 = not modeled.");
	for (size_t i = 0; i < s->narr; i++)
		if (s->arr[i].have_model)
			prom_sample_u64(o, l, array_labels(&s->arr[i], l), s->arr[i].model.cores);
	prom_family(o, "lunlab_array_time_scale", PROM_GAUGE,
		    "Pacing: 1 real time, > 1 slow motion, 0 unpaced or a virtual clock.");
	for (size_t i = 0; i < s->narr; i++)
		if (s->arr[i].have_model)
			prom_sample(o, l, array_labels(&s->arr[i], l), s->arr[i].model.time_scale);
	prom_family(o, "lunlab_array_modeled_latency_seconds", PROM_HISTOGRAM,
		    "Latency the array's cost model gave every command of the array, in modeled time.");
	for (size_t i = 0; i < s->narr; i++)
		if (s->arr[i].have_model)
			prom_histogram(o, l, array_labels(&s->arr[i], l), metrics_lat_bounds_s,
				       s->arr[i].model.latency_buckets, LUNLAB_LAT_BOUNDS,
				       (double)s->arr[i].model.latency_sum_ns * NS);
}

/* one counter family over the live fault rules: the uint64_t at field of each rule's info */
static void fault_rule_counter(struct prom_out *o, const struct metrics_snapshot *s, const char *name,
			       const char *help, size_t field)
{
	prom_family(o, name, PROM_COUNTER, help);
	for (size_t i = 0; i < s->nrules; i++) {
		char id[16];
		uint64_t v;

		memcpy(&v, (const char *)&s->rules[i] + field, sizeof(v));
		snprintf(id, sizeof(id), "%u", s->rules[i].id);
		prom_sample_u64(o, (struct prom_label[]){ { "rule", id }, { "spec", s->rules[i].spec } }, 2, v);
	}
}

/* the I_T paths' ends (path_stats.h): per portal and per initiator, the
 * figures the per-LU families have; the management API's targets and
 * initiator groups show the same counters */
static void path_family(struct prom_out *o, const char *name, const char *help, const char *label,
			const struct metrics_path *p, size_t n, int field)
{
	prom_family(o, name, PROM_COUNTER, help);
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < LU_KINDS; k++) {
			const struct lu_kind_figures *f = &p[i].f[k];
			struct prom_label l[2] = { { label, p[i].name }, { "kind", lu_kind_name((enum lu_kind)k) } };

			if (field == 2)
				prom_sample(o, l, 2, (double)f->latency_sum_ns * NS);
			else
				prom_sample_u64(o, l, 2, field == 0 ? f->commands : f->bytes);
		}
}

static void path_figures(struct prom_out *o, const struct metrics_snapshot *s)
{
	path_family(o, "lunlab_portal_commands_total", "Commands answered, by the portal they came through and kind.",
		    "portal", s->portal, s->nportal, 0);
	path_family(o, "lunlab_portal_wire_bytes_total", "Data bytes that crossed the wire, by portal and kind.",
		    "portal", s->portal, s->nportal, 1);
	path_family(o, "lunlab_portal_latency_seconds_total",
		    "Sum of the commands' latencies (PDU to response), by portal and kind.", "portal", s->portal,
		    s->nportal, 2);
	path_family(o, "lunlab_initiator_commands_total", "Commands answered, by initiator (IQN) and kind.",
		    "initiator", s->ini, s->nini, 0);
	path_family(o, "lunlab_initiator_wire_bytes_total", "Data bytes that crossed the wire, by initiator and kind.",
		    "initiator", s->ini, s->nini, 1);
	path_family(o, "lunlab_initiator_latency_seconds_total",
		    "Sum of the commands' latencies (PDU to response), by initiator and kind.", "initiator", s->ini,
		    s->nini, 2);
	prom_family(o, "lunlab_initiator_untracked_commands_total", PROM_COUNTER,
		    "Commands of initiators beyond the 256 counted one by one (path_stats.h).");
	prom_sample_u64(o, NULL, 0, s->ini_untracked);
}

static void target_figures(struct prom_out *o, const struct metrics_snapshot *s)
{
	path_figures(o, s);
	prom_family(o, "lunlab_iscsi_sessions", PROM_GAUGE, "iSCSI sessions in full feature phase now, by type.");
	prom_sample_u64(o, &(struct prom_label){ "type", "normal" }, 1, s->sessions[0]);
	prom_sample_u64(o, &(struct prom_label){ "type", "discovery" }, 1, s->sessions[1]);
	prom_family(o, "lunlab_iscsi_logins_total", PROM_COUNTER,
		    "Logins by result: success, a refusal's status class, or abandoned before an answer.");
	for (unsigned r = 0; r < LOGIN_RESULTS; r++)
		prom_sample_u64(o, &(struct prom_label){ "result", login_result_name((enum login_result)r) }, 1,
				s->logins[r]);
	prom_family(o, "lunlab_login_failures_total", PROM_COUNTER,
		    "Wrong secrets since the start: API passwords (api) and CHAP answers (chap).");
	for (unsigned k = 0; k < LOGIN_THROTTLE_KINDS; k++)
		prom_sample_u64(o, &(struct prom_label){ "kind", login_throttle_kind_name((enum login_throttle_kind)k) },
				1, s->auth_failures[k]);
	prom_family(o, "lunlab_login_throttled_total", PROM_COUNTER,
		    "Logins refused unchecked because their address was waiting after failures.");
	for (unsigned k = 0; k < LOGIN_THROTTLE_KINDS; k++)
		prom_sample_u64(o, &(struct prom_label){ "kind", login_throttle_kind_name((enum login_throttle_kind)k) },
				1, s->auth_refused[k]);
	prom_family(o, "lunlab_login_locked_addresses", PROM_GAUGE,
		    "Client addresses locked out now after 10 failed logins in a row.");
	prom_sample_u64(o, NULL, 0, s->auth_locked);
	prom_family(o, "lunlab_fault_hits_total", PROM_COUNTER,
		    "Commands a fault rule acted on since the start, by action (kept when a rule is removed).");
	for (unsigned a = 0; a < FAULT_ACTIONS; a++)
		prom_sample_u64(o, &(struct prom_label){ "action", fault_action_name((enum fault_action)a) }, 1,
				s->fault_hits[a]);
	fault_rule_counter(o, s, "lunlab_fault_rule_hits_total",
			   "Commands each live fault rule acted on (the series ends when the rule is removed).",
			   offsetof(struct fault_rule_info, hits));
	fault_rule_counter(o, s, "lunlab_fault_rule_matches_total",
			   "Commands that fitted each live fault rule's match keys (fired or not).",
			   offsetof(struct fault_rule_info, matches));
	prom_family(o, "process_resident_memory_bytes", PROM_GAUGE, "Resident memory size of lunlab-target.");
	prom_sample_u64(o, NULL, 0, s->rss_bytes);
	prom_family(o, "process_cpu_seconds_total", PROM_COUNTER, "User and system CPU time of lunlab-target.");
	prom_sample(o, NULL, 0, s->cpu_seconds);
}

char *metrics_prom_render(const struct metrics_snapshot *s, size_t *len, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct prom_out o;
	const char *why;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	prom_init(&o, f);
	lu_kind_counters(&o, s, "lunlab_commands_total", "Commands answered, by kind.", KF_COMMANDS);
	lu_kind_counters(&o, s, "lunlab_command_errors_total",
			 "Commands answered with a status other than GOOD, by kind.", KF_ERRORS);
	lu_kind_counters(&o, s, "lunlab_wire_bytes_total",
			 "Data bytes that crossed the wire (Data-Out received, Data-In sent), by kind.", KF_BYTES);
	lu_array_u64(&o, s, "lunlab_xcopy_covered_bytes_total", PROM_COUNTER,
		     "Logical bytes EXTENDED COPY segments covered (copied inside the array, not over the wire).",
		     offsetof(struct lunlab_lu_figures, xcopy_covered_bytes));
	lu_array_u64(&o, s, "lunlab_write_same_covered_bytes_total", PROM_COUNTER,
		     "Logical bytes WRITE SAME commands covered.", offsetof(struct lunlab_lu_figures, write_same_covered_bytes));
	lu_array_u64(&o, s, "lunlab_unmap_covered_bytes_total", PROM_COUNTER, "Logical bytes UNMAP commands covered.",
		     offsetof(struct lunlab_lu_figures, unmap_covered_bytes));
	lu_array_u64(&o, s, "lunlab_lu_mapped_bytes", PROM_GAUGE, "Mapped (non-zero) bytes of this LU's volume.",
		     offsetof(struct lunlab_lu_figures, mapped_bytes));
	lu_observed_latency(&o, s);
	lu_modeled(&o, s);
	arrays(&o, s);
	array_model(&o, s);
	target_figures(&o, s);
	why = prom_error(&o);
	if (why)
		snprintf(err, errlen, "%s", why);
	if (fclose(f) != 0 && !why) {
		why = "out of memory";
		snprintf(err, errlen, "%s", why);
	}
	if (why) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}
