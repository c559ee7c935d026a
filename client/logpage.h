/* logpage.h - decode LOG SENSE pages (SPC-4 format) and lunlab's vendor pages 0x30/0x31
 * (layout: docs/vendor-log-pages.md).  Parameters are read by code, never by position. */
#ifndef LUNLAB_CLIENT_LOGPAGE_H
#define LUNLAB_CLIENT_LOGPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOGPAGE_MAX_PARAMS 256

struct log_param {
	uint16_t code;
	uint8_t control;
	uint8_t len;
	uint64_t value;             /* big-endian value, when len <= 8 */
};

struct log_page {
	uint8_t page_code;
	uint8_t subpage;
	unsigned n;
	struct log_param p[LOGPAGE_MAX_PARAMS];
};

/* Parse buf[len].  Returns 0, or -1 with a one-line reason naming the field in err
 * (short header, page length past the buffer, parameter running past the page, ...). */
int logpage_parse(const uint8_t *buf, size_t len, struct log_page *out, char *err, size_t errlen);

/* Value of parameter `code`; false when the page lacks it. */
bool logpage_get(const struct log_page *pg, uint16_t code, uint64_t *value);

/* Page 0x00 (supported pages): does it list `page`? */
bool logpage_lists(const uint8_t *buf, size_t len, uint8_t page);

/* lunlab array capacity, page 0x30. have_* say which fields the LU reported. */
struct array_capacity {
	uint64_t logical_bytes, unique_bytes, physical_bytes, compressed_bytes;
	uint64_t unique_blocks, mapped_blocks, single_ref_blocks, pending_blocks;
	uint64_t metadata_bytes, dedup_block, alloc_unit, volume_mapped_bytes;
	double dedup_ratio, compression_ratio, drr;
	bool have_pending, have_ratios;
};

/* lunlab model telemetry, page 0x31. */
struct model_telemetry {
	uint64_t commands, modeled_elapsed_ns, modeled_busy_ns, cores;
	uint64_t peak_latency_ns, max_latency_ns, peak_cpu_permille, time_scale_x1000;
	uint64_t bucket_ops[13], bucket_bytes[13], bucket_latency_ns[13];
	uint64_t turnaround_ns;      /* 0x0009: host turnaround the model added, summed */
	uint64_t virtual_streams;    /* 0x000A: > 0: virtual clock with this many host streams */
	uint64_t frontend_busy_ns, backend_busy_ns, journal_busy_ns; /* 0x000B..0x000D */
	uint64_t streams_pinned;     /* 0x000E: 1: the LU's configuration fixed them (LOG SELECT refused) */
	uint64_t fault_delay_ns;     /* 0x000F: what fault rules (delay=) held commands, summed */
	uint64_t sessions;           /* 0x0010: 1: one host stream per session, page 0x32 lists them */
	uint64_t session_overflows;  /* 0x0011: commands the session host charged out of their turn */
	bool have_elapsed, have_turnaround, have_busy, have_streams_pinned;
};

int logpage_capacity(const struct log_page *pg, struct array_capacity *cap, char *err, size_t errlen);
int logpage_telemetry(const struct log_page *pg, struct model_telemetry *t, char *err, size_t errlen);

#endif
