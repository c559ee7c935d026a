/* xms_dirty.c — see xms_dirty.h. */
#include "target/api/xms_dirty.h"

#include <stdlib.h>

#include "target/api/xms_model.h"

const char *xms_kind_name(enum xms_kind k)
{
	static const char *const names[XMS_KINDS] = { "clusters",         "volumes",          "snapshot-sets",
						      "consistency-groups", "initiator-groups", "initiators",
						      "lun-maps",         "tags",             "inventory-tags" };

	return (unsigned)k < XMS_KINDS ? names[k] : "";
}

void xms_model_changed(struct xms_model *m, enum xms_kind k, uint64_t index)
{
	struct xms_dirty *d = &m->dirty;

	if ((unsigned)k >= XMS_KINDS || d->all)
		return;
	if (d->of[k].n == d->of[k].cap) {
		size_t nc = d->of[k].cap ? 2 * d->of[k].cap : 16;
		uint64_t *nv = realloc(d->of[k].v, nc * sizeof(*nv));

		if (!nv) { /* losing a mark would lose a change: write everything instead */
			xms_model_changed_all(m);
			return;
		}
		d->of[k].v = nv;
		d->of[k].cap = nc;
	}
	d->of[k].v[d->of[k].n++] = index;
}

void xms_model_changed_all(struct xms_model *m)
{
	xms_dirty_free(&m->dirty);
	m->dirty.all = true;
}

bool xms_dirty_all(const struct xms_model *m)
{
	return m->dirty.all;
}

static int by_index(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

const uint64_t *xms_dirty_of(struct xms_model *m, enum xms_kind k, size_t *n)
{
	uint64_t *v;
	size_t out = 0;

	*n = 0;
	if ((unsigned)k >= XMS_KINDS || !m->dirty.of[k].n)
		return NULL;
	v = m->dirty.of[k].v;
	qsort(v, m->dirty.of[k].n, sizeof(*v), by_index);
	for (size_t i = 0; i < m->dirty.of[k].n; i++)
		if (out == 0 || v[out - 1] != v[i])
			v[out++] = v[i];
	m->dirty.of[k].n = out;
	*n = out;
	return v;
}

size_t xms_dirty_count(const struct xms_model *m)
{
	size_t n = 0;

	for (int k = 0; k < XMS_KINDS; k++)
		n += m->dirty.of[k].n;
	return n;
}

void xms_dirty_clear(struct xms_model *m)
{
	for (int k = 0; k < XMS_KINDS; k++)
		m->dirty.of[k].n = 0;
	m->dirty.all = false;
}

void xms_dirty_free(struct xms_dirty *d)
{
	for (int k = 0; k < XMS_KINDS; k++)
		free(d->of[k].v);
	*d = (struct xms_dirty){ 0 };
}
