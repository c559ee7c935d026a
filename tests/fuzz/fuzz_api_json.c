/* fuzz_api_json.c — a request body as the HTTP API reads it: the bounded
 * parser api_json_parse_body() (target/api/api_json.c), then every field
 * reader on the fields XMS requests carry and the XMS size parser on each
 * string field, and the kept settings (xms_attrs.c: operating-system, alert
 * switches, vol-access, tag-list) with their stored form read back equal.  Invariants: a refused body has a one-line reason; an
 * accepted one is an object; a reader answers 1 only with a value inside
 * its limits, -1 only with a reason naming the field. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/size_parse.h"
#include "target/api/api_json.h"
#include "target/api/xms_attrs.h"

static const char *const names[] = {
	"vol-name", "vol-size", "lb-size", "volume-list", "snapshot-set-name", "snap-suffix", "snapshot-type",
	"consistency-group-id", "vol-list", "ig-id", "port-address", "lun", "cluster-id", "name", "index",
	"initiator-authentication-password", "tag-list", "operating-system", "vol-access",
	/* refresh (xms_refresh.c) */
	"from-volume-id", "to-volume-id", "from-consistency-group-id", "to-consistency-group-id",
	"from-snapshot-set-id", "to-snapshot-set-id", "backup-snap-suffix", "no-backup",
};

static void one_line(const char *err, const char *field)
{
	if (!*err || strchr(err, '\n') || (field && strncmp(err, field, strlen(field)) != 0))
		abort();
}

/* the kept settings: accepted ones are XMS's words and survive the store */
static void attrs(struct json_object *o)
{
	struct xms_attrs a, before, back;
	struct json_object *stored;
	char err[200];

	memset(&a, 0, sizeof(a));
	before = a;
	err[0] = '\0';
	if (!xms_attrs_parse(o, XMS_ATTR_OS | XMS_ATTR_VOLUME | XMS_ATTR_TAGS, &a, err, sizeof(err))) {
		one_line(err, NULL);
		if (memcmp(&a, &before, sizeof(a)) != 0) /* a refusal changes nothing */
			abort();
		return;
	}
	if (a.ntags > XMS_TAGS_PER_OBJECT || a.small_io > XMS_TOGGLE_DISABLED)
		abort();
	stored = xms_attrs_to_json(&a);
	if (xms_attrs_from_json(stored, &back, err, sizeof(err)) != 0 || memcmp(&a, &back, sizeof(a)) != 0)
		abort();
	json_object_put(stored);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[320];
	struct json_object *o;

	err[0] = '\0';
	o = api_json_parse_body((const char *)data, size, err, sizeof(err));
	if (!o) {
		one_line(err, "body");
		return 0;
	}
	if (!json_object_is_type(o, json_type_object))
		abort();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *s, *list[16];
		uint64_t u, bytes;
		size_t n;
		int rc;

		err[0] = '\0';
		rc = api_json_string(o, names[i], 128, &s, err, sizeof(err));
		if (rc == 1 && (strlen(s) == 0 || strlen(s) > 128))
			abort();
		if (rc == 1)
			(void)ll_size_parse(s, 10, &bytes); /* vol-size: KiB unless it says */
		if (rc < 0)
			one_line(err, names[i]);
		err[0] = '\0';
		rc = api_json_uint(o, names[i], 16383, &u, err, sizeof(err));
		if ((rc == 1 && u > 16383) || (rc < 0 && (one_line(err, names[i]), 0)))
			abort();
		err[0] = '\0';
		rc = api_json_string_list(o, names[i], 16, 128, list, &n, err, sizeof(err));
		if (rc == 1 && (n == 0 || n > 16))
			abort();
		for (size_t j = 0; rc == 1 && j < n; j++)
			if (!*list[j] || strlen(list[j]) > 128)
				abort();
		if (rc < 0)
			one_line(err, names[i]);
	}
	attrs(o);
	json_object_put(o);
	return 0;
}
