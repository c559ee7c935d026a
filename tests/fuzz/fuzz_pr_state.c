/* fuzz_pr_state.c — libFuzzer target for the saved reservations of an LU
 * (target/lu/pr_persist.c: the bytes DIR/target.db keeps while APTPL is on).
 * Any bytes go to pr_state_decode; what it accepts must encode back to the
 * very same bytes (nothing lost, nothing invented), and the restored state
 * must answer the gate and PERSISTENT RESERVE IN like any other. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/core/ua_queue.h"
#include "target/lu/pr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t enc[PR_ENCODED_MAX];
	struct ua_queue *ua = ua_queue_new();
	struct pr_state *st = pr_state_new(ua);
	struct pr_answer ans;
	struct pr_port p;
	char err[256];
	uint8_t buf[8 + 8 * PR_REGS_MAX + 64 * 300];
	static const uint8_t isid[6] = { 0x80, 0, 0, 0, 0, 1 };
	static const uint8_t rd[16] = { 0x28 }, wr[16] = { 0x2a };

	if (!st)
		return 0;
	if (pr_state_decode(st, data, size, err, sizeof(err)) == 0) {
		size_t n = pr_state_encode(st, enc, sizeof(enc));

		if (n != size || memcmp(enc, data, size) != 0)
			abort(); /* accepted bytes must be exactly what encode writes */
		pr_port_set(&p, "iqn.2026-11.org.lunlab.fuzz:a", isid);
		(void)pr_gate(st, rd, sizeof(rd), &p, buf, sizeof(buf), &ans);
		(void)pr_gate(st, wr, sizeof(wr), &p, buf, sizeof(buf), &ans);
		for (uint8_t sa = 0; sa < 4; sa++) {
			uint8_t cdb[10] = { 0x5e, sa, 0, 0, 0, 0, 0, 0xff, 0xff, 0 };

			pr_execute(st, cdb, sizeof(cdb), &p, 1, buf, sizeof(buf), &ans);
			if (ans.status == 0 && ans.data_len > sizeof(buf))
				abort();
		}
	} else if (!err[0] || strchr(err, '\n')) {
		abort(); /* a refusal says why, on one line */
	}
	pr_state_free(st);
	ua_queue_free(ua);
	return 0;
}
