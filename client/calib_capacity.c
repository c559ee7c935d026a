/* calib_capacity.c - usable capacity and soft threshold from standard pages
 * (calib_capacity.h). */
#include "client/calib_capacity.h"

#include <stdio.h>
#include <string.h>

#include "client/calib_ctx.h"
#include "client/lbp_page.h"
#include "client/scsi_query.h"

bool calib_capacity_from_lbp(uint64_t avail_bytes, unsigned pct, uint64_t *lo, uint64_t *hi, uint64_t *est)
{
	if (pct == 0 || pct > 100 || avail_bytes == 0)
		return false;
	/* pct = floor(100 avail / cap)  <=>  100 avail / (pct + 1) < cap <= 100 avail / pct;
	 * available never exceeds the capacity, so cap >= avail too */
	long double a = (long double)avail_bytes;
	*hi = (uint64_t)(a * 100 / pct);
	*lo = pct == 100 ? avail_bytes : (uint64_t)(a * 100 / (pct + 1)) + 1;
	if (*lo < avail_bytes)
		*lo = avail_bytes;
	if (*hi < *lo)
		*hi = *lo;
	*est = pct == 100 ? avail_bytes : *lo + (*hi - *lo) / 2;
	return true;
}

unsigned calib_soft_threshold_percent(uint64_t usable, uint64_t count_bytes)
{
	if (!usable || count_bytes >= usable)
		return 0;
	long double p = (long double)(usable - count_bytes) * 100 / (long double)usable;
	unsigned r = (unsigned)(p + 0.5L);
	return r > 100 ? 100 : r;
}

void calib_capacity(struct cctx *x)
{
	struct calib_result *r = x->r;
	struct log_page pg;
	struct lbp_counts c;
	char err[200];
	uint64_t set = x->lbp_set_blocks * r->bs;

	r->usable_bytes = r->capacity;
	r->soft_threshold_pct = 0;
	if (!x->lbp_listed) {
		snprintf(r->capacity_how, sizeof(r->capacity_how), "the LU lists no LOG SENSE page 0Ch");
		return;
	}
	if (q_log_page(x->main, 0x0c, &pg, err, sizeof(err)) || lbp_counts_decode(&pg, &c, err, sizeof(err))) {
		snprintf(r->capacity_how, sizeof(r->capacity_how), "LOG SENSE 0Ch: %s", err);
		return;
	}
	if (!c.have_available || !c.have_avail_pct) {
		snprintf(r->capacity_how, sizeof(r->capacity_how),
			 "LOG SENSE 0Ch has no %s: the LU's own capacity stands in",
			 c.have_available ? "available provisioning resource percentage (0003h)"
					  : "available LBA mapping resource count (0001h)");
		return;
	}
	uint64_t avail = (uint64_t)c.available * set;
	if (!calib_capacity_from_lbp(avail, c.avail_pct, &r->usable_lo, &r->usable_hi, &r->usable_bytes)) {
		r->usable_bytes = r->capacity;
		snprintf(r->capacity_how, sizeof(r->capacity_how),
			 "LOG SENSE 0Ch: %llu bytes available at %u%%: too full to tell the capacity",
			 (unsigned long long)avail, c.avail_pct);
		return;
	}
	r->usable_measured = true;
	snprintf(r->capacity_how, sizeof(r->capacity_how),
		 "LOG SENSE 0Ch: %llu bytes available (0001h, %llu-byte threshold sets) at %u%% available (0003h)",
		 (unsigned long long)avail, (unsigned long long)set, c.avail_pct);

	/* the soft threshold: MODE SENSE(10) 1Ch/02h */
	uint8_t buf[512];
	struct lbp_threshold t;
	int n = q_mode_sense10(x->main, 0x1c, 0x02, buf, sizeof(buf));
	if (n < 0) {
		snprintf(r->soft_how, sizeof(r->soft_how), "no Logical Block Provisioning mode page (1Ch/02h)");
		return;
	}
	if (lbp_threshold_decode(buf, (size_t)n, &t, err, sizeof(err))) {
		snprintf(r->soft_how, sizeof(r->soft_how), "%s", err);
		return;
	}
	if (!t.have || !t.enabled) {
		snprintf(r->soft_how, sizeof(r->soft_how), "mode page 1Ch/02h: %s",
			 t.have ? "the soft threshold is not enabled" : "no soft threshold on available resources");
		r->soft_measured = true;
		return;
	}
	r->soft_threshold_pct = calib_soft_threshold_percent(r->usable_bytes, (uint64_t)t.count * set);
	r->soft_measured = true;
	snprintf(r->soft_how, sizeof(r->soft_how),
		 "mode page 1Ch/02h: warns when available falls below %llu bytes (THRESHOLD COUNT %u)",
		 (unsigned long long)t.count * set, t.count);
}
