/* xms_names.c — see xms_names.h.  tsearch/tfind/tdelete (glibc's
 * red-black tree, <search.h>) hold one node per key; a node's object
 * indexes are a small sorted array (one entry but for duplicates). */
/* tdestroy is a GNU extension: the build defines _GNU_SOURCE */
#include "target/api/xms_names.h"

#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct key {
	enum xms_name_kind kind;
	uint64_t cluster;
	uint64_t *idx;       /* ascending */
	size_t n, cap;
	const char *name;    /* points into the node (or the caller's string for a search) */
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->cluster != b->cluster)
		return a->cluster < b->cluster ? -1 : 1;
	/* iSCSI names are not case-sensitive (RFC 3720 3.2.6.1): ordered so */
	return a->kind == XMS_NAME_PORT ? strcasecmp(a->name, b->name) : strcmp(a->name, b->name);
}

static struct key *lookup(const struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name)
{
	struct key probe = { .kind = k, .cluster = cluster, .name = name };
	struct key **found = tfind(&probe, &t->root, key_cmp);

	return found ? *found : NULL;
}

/* index into (k, cluster, name); *added: it was not there.  false: out of memory */
static bool put(struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name, uint64_t index,
		bool *added)
{
	struct key *key = lookup(t, k, cluster, name);
	size_t at;

	*added = false;
	if (!key) {
		size_t len = strlen(name);
		struct key **slot;

		key = calloc(1, sizeof(*key) + len + 1);
		if (!key)
			return false;
		key->kind = k;
		key->cluster = cluster;
		key->name = memcpy((char *)(key + 1), name, len + 1);
		slot = tsearch(key, &t->root, key_cmp);
		if (!slot || *slot != key) {
			free(key);
			return false;
		}
	}
	for (at = key->n; at > 0 && key->idx[at - 1] > index; at--)
		;
	if (at > 0 && key->idx[at - 1] == index)
		return true;
	if (key->n == key->cap) {
		size_t nc = key->cap ? 2 * key->cap : 1;
		uint64_t *nv = realloc(key->idx, nc * sizeof(*nv));
		if (!nv) {
			if (!key->n) { /* made above for this index: it goes again */
				tdelete(key, &t->root, key_cmp);
				free(key);
			}
			return false;
		}
		key->idx = nv;
		key->cap = nc;
	}
	memmove(&key->idx[at + 1], &key->idx[at], (key->n - at) * sizeof(*key->idx));
	key->idx[at] = index;
	key->n++;
	t->pairs++;
	*added = true;
	return true;
}

static void take(struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name, uint64_t index)
{
	struct key *key = lookup(t, k, cluster, name);

	if (!key)
		return;
	for (size_t i = 0; i < key->n; i++) {
		if (key->idx[i] != index)
			continue;
		memmove(&key->idx[i], &key->idx[i + 1], (key->n - i - 1) * sizeof(*key->idx));
		key->n--;
		t->pairs--;
		break;
	}
	if (!key->n) {
		tdelete(key, &t->root, key_cmp);
		free(key->idx);
		free(key);
	}
}

/* do (kind, a, an) and (kind, b, bn) name one key? */
static bool same_key(enum xms_name_kind k, uint64_t a, const char *an, uint64_t b, const char *bn)
{
	struct key x = { .kind = k, .cluster = a, .name = an }, y = { .kind = k, .cluster = b, .name = bn };

	return an && bn && key_cmp(&x, &y) == 0;
}

/* the keys of one change: its cluster's and the every-cluster one (one
 * key when the cluster is 0) */
static size_t keys_of(uint64_t cluster, uint64_t out[2])
{
	out[0] = cluster;
	out[1] = 0;
	return cluster ? 2 : 1;
}

bool xms_names_apply(struct xms_names *t, const struct xms_name_change *c, size_t n)
{
	bool added[XMS_NAMES_CHANGES_MAX][2] = { { false } };
	uint64_t keys[2], kept[2];

	if (n > XMS_NAMES_CHANGES_MAX)
		return false;
	/* every new key first: a failure takes back what this call added */
	for (size_t i = 0; i < n; i++) {
		size_t nk = keys_of(c[i].new_cluster, keys);

		for (size_t j = 0; c[i].new_name && j < nk; j++) {
			if (put(t, c[i].kind, keys[j], c[i].new_name, c[i].index, &added[i][j]))
				continue;
			for (size_t bi = 0; bi <= i; bi++) {
				size_t bk = keys_of(c[bi].new_cluster, kept);
				for (size_t bj = 0; bj < bk; bj++)
					if (added[bi][bj])
						take(t, c[bi].kind, kept[bj], c[bi].new_name, c[bi].index);
			}
			return false;
		}
	}
	/* then the old ones the object no longer has */
	for (size_t i = 0; i < n; i++) {
		size_t no = keys_of(c[i].old_cluster, keys), nn = keys_of(c[i].new_cluster, kept);

		for (size_t j = 0; c[i].old_name && j < no; j++) {
			bool stays = false;

			for (size_t q = 0; q < nn && !stays; q++)
				stays = same_key(c[i].kind, keys[j], c[i].old_name, kept[q], c[i].new_name);
			if (!stays)
				take(t, c[i].kind, keys[j], c[i].old_name, c[i].index);
		}
	}
	return true;
}

bool xms_names_move(struct xms_names *t, enum xms_name_kind k, uint64_t index, uint64_t old_cluster,
		    const char *old_name, uint64_t new_cluster, const char *new_name)
{
	struct xms_name_change c = { k, index, old_cluster, old_name, new_cluster, new_name };

	return xms_names_apply(t, &c, 1);
}

const uint64_t *xms_names_find(const struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name,
			       size_t *n)
{
	const struct key *key = name ? lookup(t, k, cluster, name) : NULL;

	*n = key ? key->n : 0;
	return key ? key->idx : NULL;
}

uint64_t xms_names_first(const struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name)
{
	size_t n;
	const uint64_t *v = xms_names_find(t, k, cluster, name, &n);

	return n ? v[0] : 0;
}

static void free_key(void *p)
{
	struct key *key = p;

	free(key->idx);
	free(key);
}

void xms_names_free(struct xms_names *t)
{
	if (t->root)
		tdestroy(t->root, free_key);
	t->root = NULL;
	t->pairs = 0;
}
