/* xms_hw_fault_spec.c — see xms_hw_fault_spec.h. */
#include "target/api/xms_hw_fault_spec.h"

#include <stdio.h>
#include <string.h>

#define SPEC_MAX 256

/* the key of the item that starts at p (up to '=' or ',') is k */
static bool key_is(const char *p, const char *k)
{
	size_t n = strlen(k);

	return strncmp(p, k, n) == 0 && (p[n] == '=' || p[n] == ',' || p[n] == '\0');
}

bool xms_hw_fault_spec_is(const char *spec)
{
	for (const char *p = spec; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (key_is(p, "hw"))
			return true;
	return false;
}

/* printable, no separators: a name goes into error lines and lookups */
static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= XMS_HW_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* up to 40 bytes of s for an error line: control and non-ASCII bytes as
 * '?' (the spec is outside input; the error is one line) */
static const char *shown(const char *s, char out[41])
{
	size_t i = 0;

	for (; s[i] && i < 40; i++)
		out[i] = (unsigned char)s[i] < ' ' || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	out[i] = '\0';
	return out;
}

bool xms_hw_fault_spec_parse(const char *spec, struct xms_hw_fault_spec *out, char *err, size_t errlen)
{
	char buf[SPEC_MAX], show[41];
	bool have_hw = false, have_cluster = false;
	char *save = NULL;

	memset(out, 0, sizeof(*out));
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "longer than %d bytes", SPEC_MAX - 1);
		return false;
	}
	memcpy(buf, spec, strlen(spec) + 1);
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(it, '=');
		const char *val = eq ? eq + 1 : "";

		if (eq)
			*eq = '\0';
		if (strcmp(it, "hw") == 0) {
			const char *colon = strchr(val, ':');
			size_t klen = colon ? (size_t)(colon - val) : 0;

			if (have_hw) {
				snprintf(err, errlen, "hw: given twice (one component per --fault)");
				return false;
			}
			have_hw = true;
			if (colon && klen == 3 && strncmp(val, "ssd", 3) == 0)
				out->kind = XMS_HW_SSD;
			else if (colon && ((klen == 2 && strncmp(val, "sc", 2) == 0) ||
					   (klen == 18 && strncmp(val, "storage-controller", 18) == 0)))
				out->kind = XMS_HW_SC;
			else {
				snprintf(err, errlen, "hw: want ssd:N or storage-controller:N (a number from 1 or the "
					 "component's name), not \"%s\"", shown(val, show));
				return false;
			}
			if (!name_ok(colon + 1, strlen(colon + 1)) || (colon[1] == '0' && colon[2] == '\0')) {
				snprintf(err, errlen, "hw: want a number from 1 or a name of 1..%d printable bytes after "
					 "\"%s:\"", XMS_HW_NAME_MAX - 1, out->kind == XMS_HW_SSD ? "ssd" : "storage-controller");
				return false;
			}
			snprintf(out->name, sizeof(out->name), "%s", colon + 1);
		} else if (strcmp(it, "cluster") == 0) {
			if (have_cluster || !name_ok(val, strlen(val))) {
				snprintf(err, errlen, "cluster: want one cluster's name (1..%d printable bytes)",
					 XMS_HW_NAME_MAX - 1);
				return false;
			}
			have_cluster = true;
			snprintf(out->cluster, sizeof(out->cluster), "%s", val);
		} else {
			snprintf(err, errlen, "%s: not a key of a hardware fault (want hw=, cluster=; a command "
				 "rule's keys go in a --fault of their own)", shown(it, show));
			return false;
		}
	}
	if (!have_hw) {
		snprintf(err, errlen, "hw: missing");
		return false;
	}
	return true;
}
