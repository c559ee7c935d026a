/* lbp_page.c - LOG SENSE page 0Ch resource counts, bounds-checked. */
#include "client/lbp_page.h"

#include <stdio.h>
#include <string.h>

static int get_count(const struct log_page *pg, uint16_t code, uint32_t *count, uint8_t *scope, bool *have,
		     char *err, size_t errlen)
{
	for (unsigned i = 0; i < pg->n; i++) {
		const struct log_param *p = &pg->p[i];
		if (p->code != code)
			continue;
		if (p->len != 8) {
			snprintf(err, errlen, "log page 0x0c: parameter 0x%04x is %u bytes, a resource count is 8", code,
				 p->len);
			return -1;
		}
		*count = (uint32_t)(p->value >> 32);
		if (scope)
			*scope = (uint8_t)((p->value >> 24) & 0x03);
		*have = true;
		return 0;
	}
	return 0;
}

/* 0003h: a 2-byte percentage first (then the SCOPE), in a parameter of 4 bytes (SBC-4) or 8 */
static int get_percentage(const struct log_page *pg, struct lbp_counts *c, char *err, size_t errlen)
{
	for (unsigned i = 0; i < pg->n; i++) {
		const struct log_param *p = &pg->p[i];
		if (p->code != 0x0003)
			continue;
		if (p->len != 4 && p->len != 8) {
			snprintf(err, errlen, "log page 0x0c: parameter 0x0003 is %u bytes, a percentage is 4 or 8",
				 p->len);
			return -1;
		}
		c->avail_pct = (uint16_t)(p->value >> (8 * (p->len - 2)));
		if (c->avail_pct > 100) {
			snprintf(err, errlen, "log page 0x0c: parameter 0x0003 says %u%% available", c->avail_pct);
			return -1;
		}
		c->have_avail_pct = true;
		return 0;
	}
	return 0;
}

int lbp_threshold_decode(const uint8_t *buf, size_t n, struct lbp_threshold *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (n < 8) {
		snprintf(err, errlen, "MODE SENSE(10): %zu bytes, shorter than its 8-byte header", n);
		return -1;
	}
	size_t total = 2 + (((size_t)buf[0] << 8) | buf[1]);
	size_t p = 8 + (((size_t)buf[6] << 8) | buf[7]); /* after the block descriptors */
	if (total < n)
		n = total;
	if (p + 4 > n) {
		snprintf(err, errlen, "MODE SENSE(10): BLOCK DESCRIPTOR LENGTH %zu leaves no page", p - 8);
		return -1;
	}
	if ((buf[p] & 0x3f) != 0x1c || !(buf[p] & 0x40) || buf[p + 1] != 0x02) {
		snprintf(err, errlen, "MODE SENSE(10): page %02xh subpage %02xh, not 1Ch/02h", buf[p] & 0x3f,
			 buf[p] & 0x40 ? buf[p + 1] : 0);
		return -1;
	}
	size_t end = p + 4 + (((size_t)buf[p + 2] << 8) | buf[p + 3]);
	if (end > n) {
		snprintf(err, errlen, "MODE SENSE(10): PAGE LENGTH %zu runs past the %zu bytes received", end - p - 4,
			 n - p - 4);
		return -1;
	}
	/* 16 bytes of page header, then 8-byte threshold descriptors */
	for (size_t d = p + 16; d + 8 <= end; d += 8) {
		unsigned type = (buf[d] >> 3) & 0x7, arming = buf[d] & 0x7;
		if (buf[d + 1] != 0x01 || type != 0 || arming != 0)
			continue;
		t->have = true;
		t->enabled = buf[d] & 0x80;
		t->count = ((uint32_t)buf[d + 4] << 24) | ((uint32_t)buf[d + 5] << 16) | ((uint32_t)buf[d + 6] << 8) |
			   buf[d + 7];
		return 0;
	}
	return 0;
}

int lbp_counts_decode(const struct log_page *pg, struct lbp_counts *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (pg->page_code != 0x0c) {
		snprintf(err, errlen, "expected log page 0x0c, got 0x%02x", pg->page_code);
		return -1;
	}
	if (get_count(pg, 0x0001, &c->available, NULL, &c->have_available, err, errlen) ||
	    get_count(pg, 0x0002, &c->used, &c->used_scope, &c->have_used, err, errlen) ||
	    get_count(pg, 0x0100, &c->dedup, NULL, &c->have_dedup, err, errlen) ||
	    get_count(pg, 0x0101, &c->compressed, NULL, &c->have_compressed, err, errlen) ||
	    get_percentage(pg, c, err, errlen))
		return -1;
	return 0;
}
