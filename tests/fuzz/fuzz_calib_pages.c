/* fuzz_calib_pages.c - libFuzzer target: the SCSI answers lunlab-bench calibrate decodes from
 * any LU (client/logpage.c, client/lbp_page.c, client/vpd_b0.c).  Byte 0 picks the decoder,
 * the rest is the answer as it came off the wire, an exact-size heap copy so that ASan sees
 * any read past it:
 *   0  a LOG SENSE page, then page 0Ch's resource counts (calibrate's data reduction) and
 *      page 31h's telemetry (its host-streams parameters too)
 *   1  VPD page B0h, every limit calibrate sizes its commands by
 *   2  page 32h, each session's modeled figures (lunlab-bench scale: client/session_rates.c),
 *      then the fairness of the sessions against themselves
 * Checks beyond "no crash/UB/leak": a refusal comes with a one-line reason naming the field,
 * and what is accepted holds only what the page held. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/lbp_page.h"
#include "client/logpage.h"
#include "client/session_rates.h"
#include "client/vpd_b0.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(int rc, const char *err)
{
	if (rc && (!err[0] || strchr(err, '\n'))) {
		fprintf(stderr, "error is not one line: [%s]\n", err);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct log_page pg;
	char err[256];
	if (size < 1)
		return 0;
	size_t len = size - 1;
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	err[0] = 0;
	if (data[0] % 3 == 2) {
		static struct session_page sp;
		struct session_fairness f;
		int rc = session_page_parse(buf, len, &sp, err, sizeof(err));
		one_line(rc, err);
		/* every session is whole in the page: 60 bytes each after the header */
		if (!rc && 4 + (size_t)sp.n * 60 > len) {
			fprintf(stderr, "%u sessions from a %zu-byte page\n", sp.n, len);
			abort();
		}
		if (!rc && session_fairness_of(NULL, &sp, &f) && f.fairness != 0 && f.fairness < 1) {
			fprintf(stderr, "fairness %g below 1\n", f.fairness);
			abort();
		}
	} else if (data[0] & 1) {
		struct b0_limits b;
		int rc = vpd_b0_decode(buf, len, &b, err, sizeof(err));
		one_line(rc, err);
		/* a limit is only reported when the page held its bytes */
		if (!rc && len < 44 && b.max_write_same_blocks) {
			fprintf(stderr, "MAXIMUM WRITE SAME LENGTH read from a %zu-byte page\n", len);
			abort();
		}
	} else {
		int rc = logpage_parse(buf, len, &pg, err, sizeof(err));
		one_line(rc, err);
		if (!rc) {
			struct lbp_counts c;
			struct model_telemetry t;
			err[0] = 0;
			rc = lbp_counts_decode(&pg, &c, err, sizeof(err));
			one_line(rc, err);
			err[0] = 0;
			rc = logpage_telemetry(&pg, &t, err, sizeof(err));
			one_line(rc, err);
			if (!rc && t.have_streams_pinned && pg.page_code != 0x31) {
				fprintf(stderr, "telemetry decoded from page %02x\n", pg.page_code);
				abort();
			}
		}
	}
	free(buf);
	return 0;
}
