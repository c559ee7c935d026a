/* report_csv.c - --csv output: one header line, one row per run (spreadsheets, gnuplot). */
#include "client/report.h"

#include <inttypes.h>

void csv_info(FILE *f, const struct info_result *r)
{
	fprintf(f, "vendor,product,capacity_bytes,block_size,extended_copy,compare_and_write,write_same,unmap,"
		"lbpme,logical_bytes,physical_bytes,drr\n");
	fprintf(f, "\"%s\",\"%s\",%" PRIu64 ",%u,%d,%d,%d,%d,%d,%" PRIu64 ",%" PRIu64 ",%.4f\n",
		r->vendor, r->product, r->num_blocks * r->block_size, r->block_size, r->xcopy_opcode, r->caw,
		r->write_same16, r->unmap, r->lbpme, r->cap.logical_bytes, r->cap.physical_bytes, r->cap.drr);
}

void csv_scale(FILE *f, const struct scale_result *r)
{
	fprintf(f, "vms,total_mbps,min_mbps,avg_mbps,max_mbps,fairness,ios,seconds,client_cpu_pct,"
		"host_mean_latency_ms,modeled_mean_latency_ms,time_scale,machine_share,machine_limited\n");
	for (unsigned i = 0; i < r->n; i++) {
		const struct scale_run *s = &r->runs[i];
		fprintf(f, "%u,%.3f,%.3f,%.3f,%.3f,%.4f,%" PRIu64 ",%.3f,%.1f", s->vms, s->total_mbps, s->min_mbps,
			s->avg_mbps, s->max_mbps, s->fairness, s->ios, s->seconds, s->client_cpu_pct);
		if (s->have_modeled)
			fprintf(f, ",%.4f,%.4f,%.3f,%.4f,%d\n", s->host_mean_latency_ms, s->modeled_mean_latency_ms,
				s->time_scale, s->machine_share, s->machine_limited);
		else
			fprintf(f, ",,,,,%d\n", s->machine_limited);
	}
}

void csv_clone(FILE *f, const struct clone_result *r)
{
	fprintf(f, "chunk,xcopy,fell_back,wall_s,commands,wire_bytes,p50_ms,p90_ms,p99_ms,max_ms,"
		"modeled_duration_s,modeled_peak_latency_ms,modeled_peak_cpu_pct,time_scale,machine_limited,"
		"xcopy_bytes,software_bytes,odx,odx_bytes\n");
	for (unsigned i = 0; i < r->n; i++) {
		const struct clone_run *c = &r->runs[i];
		fprintf(f, "%" PRIu64 ",%d,%d,%.4f,%" PRIu64 ",%" PRIu64 ",%.4f,%.4f,%.4f,%.4f,", c->chunk, c->xcopy,
			c->fell_back, c->wall_s, c->commands, c->wire_bytes, c->lat_p50_ms, c->lat_p90_ms,
			c->lat_p99_ms, c->lat_max_ms);
		if (c->have_modeled)
			fprintf(f, "%.4f,%.5f,%.2f,%.3f,%d,", c->modeled_duration_s, c->modeled_peak_latency_ms,
				c->modeled_peak_cpu_pct, c->time_scale, c->machine_limited);
		else
			fprintf(f, ",,,,%d,", c->machine_limited);
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 "\n", c->xcopy_bytes, c->software_bytes, c->odx,
			c->odx_bytes);
	}
}

void csv_drr(FILE *f, const struct drr_result *r)
{
	fprintf(f, "image_bytes,logical_bytes,unique_bytes,physical_bytes,dedup_ratio,compression_ratio,drr,settled\n");
	fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f,%.4f,%.4f,%d\n", r->image_bytes,
		r->cap.logical_bytes, r->cap.unique_bytes, r->cap.physical_bytes, r->cap.dedup_ratio,
		r->cap.compression_ratio, r->cap.drr, r->settled);
}
