/* logpage.c - bounds-checked LOG SENSE page decoding. */
#include "client/logpage.h"

#include <stdio.h>
#include <string.h>

int logpage_parse(const uint8_t *buf, size_t len, struct log_page *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!buf || len < 4) {
		snprintf(err, errlen, "log page: %zu bytes, shorter than the 4-byte header", buf ? len : 0);
		return -1;
	}
	out->page_code = buf[0] & 0x3f;
	out->subpage = buf[1];
	size_t page_len = ((size_t)buf[2] << 8) | buf[3];
	if (4 + page_len > len) {
		snprintf(err, errlen, "log page 0x%02x: PAGE LENGTH %zu runs past the %zu bytes received",
			 out->page_code, page_len, len);
		return -1;
	}
	size_t off = 4, end = 4 + page_len;
	while (off < end) {
		if (end - off < 4) {
			snprintf(err, errlen, "log page 0x%02x: parameter header at offset %zu is truncated",
				 out->page_code, off);
			return -1;
		}
		uint16_t code = (uint16_t)((buf[off] << 8) | buf[off + 1]);
		uint8_t control = buf[off + 2];
		uint8_t plen = buf[off + 3];
		if (plen > end - off - 4) {
			snprintf(err, errlen, "log page 0x%02x: parameter 0x%04x length %u runs past the page",
				 out->page_code, code, plen);
			return -1;
		}
		if (out->n >= LOGPAGE_MAX_PARAMS) {
			snprintf(err, errlen, "log page 0x%02x: more than %d parameters",
				 out->page_code, LOGPAGE_MAX_PARAMS);
			return -1;
		}
		struct log_param *p = &out->p[out->n++];
		p->code = code;
		p->control = control;
		p->len = plen;
		/* Values longer than 8 bytes are not counters; keep the low 8 bytes' worth. */
		uint64_t v = 0;
		size_t first = plen > 8 ? plen - 8u : 0;
		for (size_t i = first; i < plen; i++)
			v = (v << 8) | buf[off + 4 + i];
		p->value = v;
		off += 4u + plen;
	}
	return 0;
}

bool logpage_get(const struct log_page *pg, uint16_t code, uint64_t *value)
{
	for (unsigned i = 0; i < pg->n; i++) {
		if (pg->p[i].code == code) {
			*value = pg->p[i].value;
			return true;
		}
	}
	return false;
}

bool logpage_lists(const uint8_t *buf, size_t len, uint8_t page)
{
	if (!buf || len < 4)
		return false;
	size_t page_len = ((size_t)buf[2] << 8) | buf[3];
	size_t end = 4 + page_len < len ? 4 + page_len : len;
	for (size_t i = 4; i < end; i++)
		if ((buf[i] & 0x3f) == page)
			return true;
	return false;
}

int logpage_capacity(const struct log_page *pg, struct array_capacity *cap, char *err, size_t errlen)
{
	memset(cap, 0, sizeof(*cap));
	if (pg->page_code != 0x30) {
		snprintf(err, errlen, "expected log page 0x30, got 0x%02x", pg->page_code);
		return -1;
	}
	if (!logpage_get(pg, 0x0001, &cap->logical_bytes) ||
	    !logpage_get(pg, 0x0003, &cap->physical_bytes)) {
		snprintf(err, errlen, "log page 0x30: logical_bytes (0x0001) or physical_bytes (0x0003) missing");
		return -1;
	}
	logpage_get(pg, 0x0002, &cap->unique_bytes);
	logpage_get(pg, 0x0004, &cap->compressed_bytes);
	logpage_get(pg, 0x0005, &cap->unique_blocks);
	logpage_get(pg, 0x0006, &cap->mapped_blocks);
	logpage_get(pg, 0x0007, &cap->single_ref_blocks);
	cap->have_pending = logpage_get(pg, 0x0008, &cap->pending_blocks);
	logpage_get(pg, 0x0009, &cap->metadata_bytes);
	logpage_get(pg, 0x000A, &cap->dedup_block);
	logpage_get(pg, 0x000B, &cap->alloc_unit);
	logpage_get(pg, 0x0020, &cap->volume_mapped_bytes);
	uint64_t d, c, r;
	if (logpage_get(pg, 0x0010, &d) && logpage_get(pg, 0x0011, &c) && logpage_get(pg, 0x0012, &r)) {
		cap->dedup_ratio = (double)d / 1000.0;
		cap->compression_ratio = (double)c / 1000.0;
		cap->drr = (double)r / 1000.0;
		cap->have_ratios = true;
	} else {
		/* Derive from the byte counts when the ratios are absent. */
		cap->dedup_ratio = cap->unique_bytes ? (double)cap->logical_bytes / (double)cap->unique_bytes : 0;
		cap->compression_ratio = cap->physical_bytes ? (double)cap->unique_bytes / (double)cap->physical_bytes : 0;
		cap->drr = cap->physical_bytes ? (double)cap->logical_bytes / (double)cap->physical_bytes : 0;
	}
	return 0;
}

int logpage_telemetry(const struct log_page *pg, struct model_telemetry *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (pg->page_code != 0x31) {
		snprintf(err, errlen, "expected log page 0x31, got 0x%02x", pg->page_code);
		return -1;
	}
	if (!logpage_get(pg, 0x0002, &t->modeled_elapsed_ns)) {
		snprintf(err, errlen, "log page 0x31: modeled_elapsed_ns (0x0002) missing");
		return -1;
	}
	t->have_elapsed = true;
	logpage_get(pg, 0x0001, &t->commands);
	logpage_get(pg, 0x0003, &t->modeled_busy_ns);
	logpage_get(pg, 0x0004, &t->cores);
	logpage_get(pg, 0x0005, &t->peak_latency_ns);
	logpage_get(pg, 0x0006, &t->max_latency_ns);
	logpage_get(pg, 0x0007, &t->peak_cpu_permille);
	t->have_turnaround = logpage_get(pg, 0x0009, &t->turnaround_ns);
	logpage_get(pg, 0x000a, &t->virtual_streams);
	t->have_busy = logpage_get(pg, 0x000b, &t->frontend_busy_ns);
	t->have_busy &= logpage_get(pg, 0x000c, &t->backend_busy_ns);
	t->have_busy &= logpage_get(pg, 0x000d, &t->journal_busy_ns);
	t->have_streams_pinned = logpage_get(pg, 0x000e, &t->streams_pinned);
	logpage_get(pg, 0x000f, &t->fault_delay_ns); /* absent (older targets, other arrays): 0 */
	logpage_get(pg, 0x0010, &t->sessions);
	logpage_get(pg, 0x0011, &t->session_overflows);
	if (!logpage_get(pg, 0x0008, &t->time_scale_x1000))
		t->time_scale_x1000 = 1000;
	for (unsigned b = 0; b < 13; b++) {
		logpage_get(pg, (uint16_t)(0x0200 + b), &t->bucket_ops[b]);
		logpage_get(pg, (uint16_t)(0x0300 + b), &t->bucket_bytes[b]);
		logpage_get(pg, (uint16_t)(0x0400 + b), &t->bucket_latency_ns[b]);
	}
	return 0;
}
