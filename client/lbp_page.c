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
	    get_count(pg, 0x0101, &c->compressed, NULL, &c->have_compressed, err, errlen))
		return -1;
	return 0;
}
