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

static bool tags(struct json_object *body, char *out, char *err, size_t errlen)
{
	struct json_object *v;
	const char *text;

	if (!json_object_object_get_ex(body, "tag-list", &v) || !v)
		return true;
	if (!json_object_is_type(v, json_type_array)) {
		snprintf(err, errlen, "tag-list: want a list of tag names or ids");
		return false;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		bool ok = e && (json_object_is_type(e, json_type_string) || json_object_is_type(e, json_type_int));
		/* an object id [guid, name, index] is a tag too */
		if (e && json_object_is_type(e, json_type_array)) {
			ok = json_object_array_length(e) <= 3;
			for (size_t k = 0; ok && k < json_object_array_length(e); k++) {
				struct json_object *p = json_object_array_get_idx(e, k);
				ok = p && (json_object_is_type(p, json_type_string) || json_object_is_type(p, json_type_int));
			}
		}
		if (!ok) {
			snprintf(err, errlen, "tag-list[%zu]: want a tag name, index or object id", i);
			return false;
		}
	}
	text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	if (strlen(text) >= XMS_TAGS_TEXT_MAX) {
		snprintf(err, errlen, "tag-list: %zu bytes as JSON, at most %d kept", strlen(text), XMS_TAGS_TEXT_MAX - 1);
		return false;
	}
	memcpy(out, text, strlen(text) + 1);
	return true;
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
	if ((set & XMS_ATTR_TAGS) && !tags(body, n.tags, err, errlen))
		return false;
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
	if (set & XMS_ATTR_TAGS) {
		struct json_object *t = a->tags[0] ? json_tokener_parse(a->tags) : NULL;
		json_object_object_add(o, "tag-list", t ? t : json_object_new_array());
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
	if (set & XMS_ATTR_TAGS) {
		/* kept as plain JSON text: re-written the way xms_attrs_show's object is sent */
		struct json_object *t = a->tags[0] ? json_tokener_parse(a->tags) : NULL;
		size_t len = 0;
		const char *s = t ? json_object_to_json_string_length(
					    t, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
				  : NULL;

		jt_key(w, "tag-list");
		if (s)
			jt_raw(w, s, len);
		else
			jt_raw(w, "[ ]", 3);
		json_object_put(t);
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
	if (a->tags[0]) {
		struct json_object *t = json_tokener_parse(a->tags);
		if (t) {
			json_object_object_add(o, "tag-list", t);
			any = true;
		}
	}
	if (!any) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int xms_attrs_from_json(struct json_object *o, struct xms_attrs *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "attrs: want an object");
		return -1;
	}
	return xms_attrs_parse(o, XMS_ATTR_OS | XMS_ATTR_VOLUME | XMS_ATTR_TAGS, a, err, errlen) ? 0 : -1;
}
