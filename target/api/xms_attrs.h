/* xms_attrs.h — settings an XMS keeps on an object that change nothing
 * lunlab emulates, but that clients set and read back: an initiator's or
 * group's operating-system, a volume's alert switches (small-io-alerts,
 * unaligned-io-alerts, vaai-tp-alerts), management-locked and vol-access,
 * and the tags an object carries (as tag indexes: their names, and the
 * tag-list of bodies, need the model: xms_tags.h).  Accepting them is what an XMS does (docbert's modules and
 * PyXtremIO send them and fail on a 400); showing them back is what a
 * client that set them checks.  vol-access is shown, not enforced: the LU
 * keeps the access its snapshot type gives it (docs/api.md says so).
 *
 * Plain data, parsed and written with json-c only, so the model can store
 * it and the fuzzer can feed it. */
#ifndef LUNLAB_XMS_ATTRS_H
#define LUNLAB_XMS_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct json_text;

#define XMS_TAGS_PER_OBJECT 16  /* tags one object carries, at most (lunlab's bound) */

enum xms_toggle { XMS_TOGGLE_UNSET, XMS_TOGGLE_ENABLED, XMS_TOGGLE_DISABLED };

struct xms_attrs {
	char os[16];                 /* operating-system; "" unset */
	char access[16];             /* vol-access given by a client; "" none */
	uint8_t small_io, unaligned_io, vaai_tp, mgmt_locked; /* enum xms_toggle */
	uint64_t tags[XMS_TAGS_PER_OBJECT]; /* the tags (indexes) it carries, in the order given */
	uint8_t ntags;
};

/* which of them a type takes */
enum xms_attr_set {
	XMS_ATTR_OS = 1u << 0,       /* operating-system */
	XMS_ATTR_VOLUME = 1u << 1,   /* the alert switches, management-locked, vol-access */
	/* tag-list: xms_attrs_field (xms_common.h) reads it through xms_tags.h,
	 * which resolves the names; xms_attrs_parse and _show leave it alone */
	XMS_ATTR_TAGS = 1u << 2,
};

/* The attributes of set present in body, over a (absent ones stay).  false
 * with a one-line reason naming the field in err; a is then unchanged. */
bool xms_attrs_parse(struct json_object *body, unsigned set, struct xms_attrs *a, char *err, size_t errlen);
/* Their properties, as XMS shows them, added to an object's content.
 * vol-access only when a client set one (the volume shows its own else). */
void xms_attrs_show(const struct xms_attrs *a, unsigned set, struct json_object *content);
/* the same properties written as text (json_text.h), byte for byte as xms_attrs_show's are sent */
void xms_attrs_text(const struct xms_attrs *a, unsigned set, struct json_text *w);
/* The stored form (only what is set; the tags as "tag-ids": [indexes]);
 * NULL when nothing is. */
struct json_object *xms_attrs_to_json(const struct xms_attrs *a);
/* From the stored form (NULL: none); -1 with the bad field in err.  A
 * "tag-list" of older versions (text kept as given, naming no tag) is
 * dropped: there were no tags to name. */
int xms_attrs_from_json(struct json_object *o, struct xms_attrs *a, char *err, size_t errlen);

#endif
