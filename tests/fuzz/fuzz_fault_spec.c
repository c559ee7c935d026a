/* fuzz_fault_spec.c — libFuzzer target: any bytes as the three small specs
 * of failing on purpose: a fault rule (--fault SPEC, the API's rule bodies;
 * target/lu/fault_spec.c), an ALUA state (--alua SPEC; alua_spec.c) and a
 * --listen value's options (portal_spec.c).  The input is cut at its first
 * NUL, as a C string from a command line or a JSON string would be.
 *   - fault rules: an accepted rule's fields are in range, its canonical
 *     text reads back as a rule that formats identically (what the API
 *     lists is what a script can add again); a refused one gives one line;
 *   - --alua and --listen: accepted values are in range, refusals one line;
 *   - --fault's hardware form (target/api/xms_hw_fault_spec.c): an accepted
 *     one names a component (a kind, a non-empty printable name), a refusal
 *     is one line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/xms_hw_fault_spec.h"
#include "target/iscsi/portal.h"
#include "target/lu/alua.h"
#include "target/lu/fault_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *what, const char *err)
{
	if (!err[0] || strchr(err, '\n')) {
		fprintf(stderr, "%s: the error is not one line: [%s]\n", what, err);
		abort();
	}
}

static void fault_rule(const char *text)
{
	struct fault_spec s, t;
	char err[320], a[FAULT_SPEC_MAX + 64], b[FAULT_SPEC_MAX + 64];
	int n;

	if (!fault_spec_parse(text, &s, err, sizeof(err))) {
		one_line("fault_spec_parse", err);
		return;
	}
	if ((s.has_lun && s.lun > FAULT_LUN_MAX) || s.every < 1 || !(s.p > 0.0 && s.p <= 1.0) ||
	    (s.has_lba && s.lba_last < s.lba_first) ||
	    (s.has_window && s.window_end_ms <= s.window_start_ms) || s.delay_a_us > FAULT_DELAY_MAX_US ||
	    s.delay_b_us > FAULT_DELAY_MAX_US || (int)s.action < 0 || s.action >= FAULT_ACTIONS ||
	    !memchr(s.initiator, '\0', sizeof(s.initiator)) || !memchr(s.portal, '\0', sizeof(s.portal))) {
		fprintf(stderr, "fault_spec_parse accepted an out-of-range rule: %s\n", text);
		abort();
	}
	n = fault_spec_format(&s, a, sizeof(a));
	if (n <= 0 || (size_t)n >= sizeof(a)) {
		fprintf(stderr, "fault_spec_format: %d bytes for %s\n", n, text);
		abort();
	}
	if (!fault_spec_parse(a, &t, err, sizeof(err))) {
		fprintf(stderr, "canonical rule [%s] of [%s] refused: %s\n", a, text, err);
		abort();
	}
	fault_spec_format(&t, b, sizeof(b));
	if (strcmp(a, b) != 0) {
		fprintf(stderr, "canonical rule changes when read back: [%s] -> [%s]\n", a, b);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[320];
	struct alua_spec as;
	struct portal_spec ps;
	struct xms_hw_fault_spec hs;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	fault_rule(text);
	if (alua_spec_parse(text, &as, err, sizeof(err))) {
		if (as.tpg == 0 || (as.has_lun && as.lun > 16383) || as.pref < -1 || as.pref > 1 ||
		    as.transition_ms > 600000) {
			fprintf(stderr, "alua_spec_parse accepted out of range: %s\n", text);
			abort();
		}
	} else {
		one_line("alua_spec_parse", err);
	}
	if (portal_spec_parse(text, &ps, err, sizeof(err))) {
		if (ps.tpgt > 65535 || ps.adv_port > 65535 || !memchr(ps.listen, '\0', sizeof(ps.listen)) ||
		    !memchr(ps.adv_host, '\0', sizeof(ps.adv_host))) {
			fprintf(stderr, "portal_spec_parse accepted out of range: %s\n", text);
			abort();
		}
	} else {
		one_line("portal_spec_parse", err);
	}
	if (xms_hw_fault_spec_parse(text, &hs, err, sizeof(err))) {
		if ((hs.kind != XMS_HW_SSD && hs.kind != XMS_HW_SC) || !hs.name[0] ||
		    !memchr(hs.name, '\0', sizeof(hs.name)) || !memchr(hs.cluster, '\0', sizeof(hs.cluster)) ||
		    !xms_hw_fault_spec_is(text)) {
			fprintf(stderr, "xms_hw_fault_spec_parse accepted out of range: %s\n", text);
			abort();
		}
		for (const char *c = hs.name; *c; c++)
			if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
				abort();
	} else {
		one_line("xms_hw_fault_spec_parse", err);
	}
	free(text);
	return 0;
}
