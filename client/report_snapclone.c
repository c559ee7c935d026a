/* report_snapclone.c - clone --mode snapshot as a table, JSON (docs/bench.md) and CSV. */
#include <json-c/json.h>
#include <stdio.h>

#include "client/report.h"

static double gib(uint64_t b)
{
	return (double)b / (double)(1ull << 30);
}

static double rate_gib_s(const struct snapclone_result *r)
{
	return r->wall_s > 0 ? gib(r->bytes_cloned) / r->wall_s : 0;
}

static long long grew(uint64_t before, uint64_t after)
{
	return (long long)after - (long long)before;
}

void table_snapclone(FILE *f, const struct snapclone_result *r)
{
	char tmpl[32];

	fmt_size(tmpl, sizeof(tmpl), r->template_size);
	fprintf(f, "Clone by snapshot (management API): %u clones of volume %s (%s template) on cluster %s\n", r->made,
		r->volume, tmpl, r->before.name);
	fprintf(f, "%-34s %.3f s for %u POST snapshots (%.1f GiB/s logical cloned)\n", "wall time", r->wall_s, r->made,
		rate_gib_s(r));
	fprintf(f, "%-34s mean %.2f ms, p50 %.2f ms, p90 %.2f ms, max %.2f ms\n", "snapshot latency (API round trip)",
		r->lat_mean_ms, r->lat_p50_ms, r->lat_p90_ms, r->lat_max_ms);
	fprintf(f, "%-34s %.3f GiB -> %.3f GiB (%+lld bytes)\n", "provisioned (vol-size)", gib(r->before.provisioned_bytes),
		gib(r->after.provisioned_bytes), grew(r->before.provisioned_bytes, r->after.provisioned_bytes));
	fprintf(f, "%-34s %.3f GiB -> %.3f GiB (%+lld bytes)\n", "logical in use", gib(r->before.logical_bytes),
		gib(r->after.logical_bytes), grew(r->before.logical_bytes, r->after.logical_bytes));
	fprintf(f, "%-34s %.3f GiB -> %.3f GiB (%+lld bytes)\n", "physical in use",
		gib(r->before.in_use_bytes), gib(r->after.in_use_bytes), grew(r->before.in_use_bytes, r->after.in_use_bytes));
	fprintf(f, "%-34s %.3f -> %.3f\n", "data reduction ratio", r->before.drr, r->after.drr);
	if (r->verified)
		fprintf(f, "%-34s every clone read back equal to the template (%llu bytes compared)\n", "verified",
			(unsigned long long)r->verified_bytes);
	fprintf(f, "%-34s %s\n", "clones", r->kept ? "kept (--keep-clones)" : "deleted at the end");
	table_conn_stats(f, &r->conn, NULL);
}

static struct json_object *figures(const struct xms_cluster_figures *c)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "physical_capacity_bytes", json_object_new_int64((int64_t)c->capacity_bytes));
	json_object_object_add(o, "physical_in_use_bytes", json_object_new_int64((int64_t)c->in_use_bytes));
	json_object_object_add(o, "provisioned_bytes", json_object_new_int64((int64_t)c->provisioned_bytes));
	json_object_object_add(o, "logical_in_use_bytes", json_object_new_int64((int64_t)c->logical_bytes));
	json_object_object_add(o, "data_reduction_ratio", json_object_new_double(c->drr));
	return o;
}

struct json_object *json_snapclone(const struct snapclone_result *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "command", json_object_new_string("clone"));
	json_object_object_add(o, "mode", json_object_new_string("snapshot"));
	json_object_object_add(o, "cluster", json_object_new_string(r->before.name));
	json_object_object_add(o, "volume", json_object_new_string(r->volume));
	json_object_object_add(o, "template_bytes", json_object_new_int64((int64_t)r->template_size));
	json_object_object_add(o, "clones", json_object_new_int((int)r->made));
	json_object_object_add(o, "wall_s", json_object_new_double(r->wall_s));
	json_object_object_add(o, "bytes_cloned", json_object_new_int64((int64_t)r->bytes_cloned));
	json_object_object_add(o, "latency_mean_ms", json_object_new_double(r->lat_mean_ms));
	json_object_object_add(o, "latency_p50_ms", json_object_new_double(r->lat_p50_ms));
	json_object_object_add(o, "latency_p90_ms", json_object_new_double(r->lat_p90_ms));
	json_object_object_add(o, "latency_max_ms", json_object_new_double(r->lat_max_ms));
	json_object_object_add(o, "before", figures(&r->before));
	json_object_object_add(o, "after", figures(&r->after));
	json_object_object_add(o, "verified", json_object_new_boolean(r->verified));
	json_object_object_add(o, "verified_bytes", json_object_new_int64((int64_t)r->verified_bytes));
	json_object_object_add(o, "kept", json_object_new_boolean(r->kept));
	json_object_object_add(o, "readback_bytes", json_object_new_int64((int64_t)r->readback_bytes));
	json_object_object_add(o, "connection", json_conn_stats(&r->conn));
	return o;
}

void csv_snapclone(FILE *f, const struct snapclone_result *r)
{
	fprintf(f, "mode,clones,template_bytes,wall_s,latency_mean_ms,latency_p90_ms,latency_max_ms,"
		   "physical_in_use_before,physical_in_use_after,logical_before,logical_after,verified\n");
	fprintf(f, "snapshot,%u,%llu,%.6f,%.3f,%.3f,%.3f,%llu,%llu,%llu,%llu,%d\n", r->made,
		(unsigned long long)r->template_size, r->wall_s, r->lat_mean_ms, r->lat_p90_ms, r->lat_max_ms,
		(unsigned long long)r->before.in_use_bytes, (unsigned long long)r->after.in_use_bytes,
		(unsigned long long)r->before.logical_bytes, (unsigned long long)r->after.logical_bytes, r->verified);
}

void table_cluster(FILE *f, const struct info_result *r)
{
	const struct xms_cluster_figures *c = &r->cluster;

	fprintf(f, "Cluster (management API)%s\n", r->cluster_of_lu ? "" : " - the API's first: the LU is none of its volumes");
	fprintf(f, "  name              %s (software %s)%s%s\n", c->name, c->sw_version,
		r->cluster_of_lu ? ", volume " : "", r->cluster_of_lu ? r->api_volume : "");
	fprintf(f, "  physical          %.3f GiB in use of %.3f GiB (%.1f%%)\n", gib(c->in_use_bytes), gib(c->capacity_bytes),
		c->capacity_bytes ? 100.0 * (double)c->in_use_bytes / (double)c->capacity_bytes : 0.0);
	fprintf(f, "  provisioned       %.3f GiB in %u volumes\n", gib(c->provisioned_bytes), c->volumes);
	fprintf(f, "  logical in use    %.3f GiB\n", gib(c->logical_bytes));
	fprintf(f, "  ratios            dedup %.3f, compression %.3f, data reduction %.3f, thin provisioning %.3f\n",
		c->dedup_ratio, c->compression_factor, c->drr, c->thin_ratio);
	fprintf(f, "  CHAP              authentication %s, discovery %s\n", c->chap_auth, c->chap_discovery);
}

struct json_object *json_cluster(const struct info_result *r)
{
	struct json_object *o = figures(&r->cluster);

	json_object_object_add(o, "name", json_object_new_string(r->cluster.name));
	json_object_object_add(o, "sw_version", json_object_new_string(r->cluster.sw_version));
	json_object_object_add(o, "of_lu", json_object_new_boolean(r->cluster_of_lu));
	json_object_object_add(o, "volume", json_object_new_string(r->api_volume));
	json_object_object_add(o, "volumes", json_object_new_int((int)r->cluster.volumes));
	json_object_object_add(o, "dedup_ratio", json_object_new_double(r->cluster.dedup_ratio));
	json_object_object_add(o, "compression_factor", json_object_new_double(r->cluster.compression_factor));
	json_object_object_add(o, "thin_provisioning_ratio", json_object_new_double(r->cluster.thin_ratio));
	json_object_object_add(o, "chap_authentication_mode", json_object_new_string(r->cluster.chap_auth));
	json_object_object_add(o, "chap_discovery_mode", json_object_new_string(r->cluster.chap_discovery));
	return o;
}
