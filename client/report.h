/* report.h - render results as a table (default), JSON (schema: docs/bench.md) or CSV. */
#ifndef LUNLAB_CLIENT_REPORT_H
#define LUNLAB_CLIENT_REPORT_H

#include <stdio.h>

#include "client/results.h"

struct json_object;

void table_info(FILE *f, const struct info_result *r);
void table_scale(FILE *f, const struct scale_result *r);
void table_clone(FILE *f, const struct clone_result *r);
void table_drr(FILE *f, const struct drr_result *r);

/* JSON documents (json-c objects; caller owns them: json_object_put). */
struct json_object *json_info(const struct info_result *r);
struct json_object *json_scale(const struct scale_result *r);
struct json_object *json_clone(const struct clone_result *r);
struct json_object *json_drr(const struct drr_result *r);

void csv_info(FILE *f, const struct info_result *r);
void csv_scale(FILE *f, const struct scale_result *r);
void csv_clone(FILE *f, const struct clone_result *r);
void csv_drr(FILE *f, const struct drr_result *r);

/* info --api: the cluster's capacity fields (report_snapclone.c) */
void table_cluster(FILE *f, const struct info_result *r);
struct json_object *json_cluster(const struct info_result *r);

/* clone --mode snapshot (report_snapclone.c) */
void table_snapclone(FILE *f, const struct snapclone_result *r);
struct json_object *json_snapclone(const struct snapclone_result *r);
void csv_snapclone(FILE *f, const struct snapclone_result *r);

/* The connection layer's counters (conn_stats.h): a JSON object with every counter, and a
 * table line "note: connection: ..." printed only when something happened. */
struct json_object *json_conn_stats(const struct conn_stats *s);
void table_conn_stats(FILE *f, const struct conn_stats *s, const char *what);

/* "4 MiB", "256 KiB", "512 B" */
void fmt_size(char *buf, size_t len, uint64_t bytes);

#endif
