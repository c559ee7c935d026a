/* xms_attrs.c — see xms_attrs.h.  The accepted values are XMS's own: the
 * operating systems XMS lists for initiators, and the enabled/disabled,
 * no_access/read_access/write_access words the public clients send. */
#include "target/api/xms_attrs.h"

#include "target/api/json_text.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static const char *const os_names[] = { "linux", "windows", "esx", "solaris", "aix", "hpux", "other", NULL };
static const char *const access_names[] = { "no_access", "read_access", "write_access", NULL };

static const struct {
	const char *field;
	size_t off;
} toggles[] = {
	{ "small-io-alerts", offsetof(struct xms_attrs, small_io) },
	{ "unaligned-io-alerts", offsetof(struct xms_attrs, unaligned_io) },
	{ "vaai-tp-alerts", offsetof(struct xms_attrs, vaai_tp) },
	{ "management-locked", offsetof(struct xms_attrs, mgmt_locked) },
};

static bool one_of(const char *s, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return true;
	return false;
}

/* 1 a string from names, 0 absent/null, -1 bad */
static int word(struct json_object *body, const char *field, const char *const *names, const char **out, char *err,
		size_t errlen, const char *want)
{
	struct json_object *v;

	if (!json_object_object_get_ex(body, field, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string) || !one_of(json_object_get_string(v), names)) {
		snprintf(err, errlen, "%s: want %s", field, want);
		return -1;
	}
	*out = json_object_get_string(v);
	return 1;
}

bool xms_attrs_parse(struct json_object *body, unsigned set, struct xms_attrs *a, char *err, size_t errlen)
{
	struct xms_attrs n = *a;
	const char *s;
	int rc;

	if (set & XMS_ATTR_OS) {
		rc = word(body, "operating-system", os_names, &s, err, errlen,
			  "linux, windows, esx, solaris, aix, hpux or other");
		if (rc < 0)
			return false;
		if (rc > 0)
			snprintf(n.os, sizeof(n.os), "%s", s);
	}
	if (set & XMS_ATTR_VOLUME) {
		static const char *const toggle_names[] = { "enabled", "disabled", NULL };
		for (size_t i = 0; i < sizeof(toggles) / sizeof(toggles[0]); i++) {
			rc = word(body, toggles[i].field, toggle_names, &s, err, errlen, "enabled or disabled");
			if (rc < 0)
				return false;
			if (rc > 0)
				*((uint8_t *)&n + toggles[i].off) =
					strcmp(s, "enabled") == 0 ? XMS_TOGGLE_ENABLED : XMS_TOGGLE_DISABLED;
		}
		rc = word(body, "vol-access", access_names, &s, err, errlen, "no_access, read_access or write_access");
		if (rc < 0)
			return false;
		if (rc > 0)
			snprintf(n.access, sizeof(n.access), "%s", s);
	}
	*a = n;
	return true;
}

void xms_attrs_show(const struct xms_attrs *a, unsigned set, struct json_object *o)
{
	if (set & XMS_ATTR_OS)
		json_object_object_add(o, "operating-system", json_object_new_string(a->os[0] ? a->os : "other"));
	if (set & XMS_ATTR_VOLUME) {
		for (size_t i = 0; i < sizeof(toggles) / sizeof(toggles[0]); i++) {
			uint8_t t = *((const uint8_t *)a + toggles[i].off);
			/* XMS's default for every one of these is off */
			json_object_object_add(o, toggles[i].field,
					       json_object_new_string(t == XMS_TOGGLE_ENABLED ? "enabled" : "disabled"));
		}
		if (a->access[0])
			json_object_object_add(o, "vol-access", json_object_new_string(a->access));
	}
}

void xms_attrs_text(const struct xms_attrs *a, unsigned set, struct json_text *w)
{
	if (set & XMS_ATTR_OS)
		jt_kstr(w, "operating-system", a->os[0] ? a->os : "other");
	if (set & XMS_ATTR_VOLUME) {
		for (size_t i = 0; i < sizeof(toggles) / sizeof(toggles[0]); i++) {
			uint8_t t = *((const uint8_t *)a + toggles[i].off);
			jt_kstr(w, toggles[i].field, t == XMS_TOGGLE_ENABLED ? "enabled" : "disabled");
		}
		if (a->access[0])
			jt_kstr(w, "vol-access", a->access);
	}
}

struct json_object *xms_attrs_to_json(const struct xms_attrs *a)
{
	struct json_object *o = json_object_new_object();
	bool any = false;

	if (a->os[0]) {
		json_object_object_add(o, "operating-system", json_object_new_string(a->os));
		any = true;
	}
	if (a->access[0]) {
		json_object_object_add(o, "vol-access", json_object_new_string(a->access));
		any = true;
	}
	for (size_t i = 0; i < sizeof(toggles) / sizeof(toggles[0]); i++) {
		uint8_t t = *((const uint8_t *)a + toggles[i].off);
		if (t != XMS_TOGGLE_UNSET) {
			json_object_object_add(o, toggles[i].field,
					       json_object_new_string(t == XMS_TOGGLE_ENABLED ? "enabled" : "disabled"));
			any = true;
		}
	}
	if (a->ntags) {
		struct json_object *t = json_object_new_array();
		for (size_t i = 0; i < a->ntags; i++)
			json_object_array_add(t, json_object_new_int64((int64_t)a->tags[i]));
		json_object_object_add(o, "tag-ids", t);
		any = true;
	}
	if (!any) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int xms_attrs_from_json(struct json_object *o, struct xms_attrs *a, char *err, size_t errlen)
{
	struct json_object *ids;

	memset(a, 0, sizeof(*a));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "attrs: want an object");
		return -1;
	}
	if (!xms_attrs_parse(o, XMS_ATTR_OS | XMS_ATTR_VOLUME, a, err, errlen))
		return -1;
	if (!json_object_object_get_ex(o, "tag-ids", &ids) || !ids)
		return 0;
	if (!json_object_is_type(ids, json_type_array) || json_object_array_length(ids) > XMS_TAGS_PER_OBJECT) {
		snprintf(err, errlen, "tag-ids: want a list of at most %d tag indexes", XMS_TAGS_PER_OBJECT);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		struct json_object *e = json_object_array_get_idx(ids, i);
		if (!e || !json_object_is_type(e, json_type_int) || json_object_get_int64(e) < 1) {
			snprintf(err, errlen, "tag-ids[%zu]: want a tag index >= 1", i);
			a->ntags = 0;
			return -1;
		}
		a->tags[a->ntags++] = (uint64_t)json_object_get_int64(e);
	}
	return 0;
}
