/* volume_names.c — the volumes devices use (volume_names.h): named ones
 * (attach, release, delete, list) and a LU's own (array_volume_open/close,
 * kept by key in a state directory).  Names, the attached flag and the volume list are guarded by the
 * array's vol_mu; lock order: vol_mu, then a volume's resize lock (the
 * listing's count of single-referenced blocks), then the registry lock
 * (array_ref). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"
#include "handlers/array/array_state.h"
#include "handlers/array/store_db.h"
#include "handlers/array/volume_names.h"
#include "lunlab/errf.h"

static void set_err(char **err, char *m)
{
	if (err)
		*err = m;
	else
		free(m);
}

bool volume_name_ok(const char *name)
{
	size_t n = 0;

	if (!name)
		return false;
	for (const char *p = name; *p; p++, n++)
		if (*p < 0x21 || *p > 0x7e || strchr(";,/=", *p) || n >= VOLUME_NAME_MAX - 1)
			return false;
	return n > 0;
}

static int volume_delete(struct array *a, const char *name, char **err);

struct volume *vn_find(struct array *a, const char *name)
{
	return array_vol_by_name(a, name); /* the list's name index (array_core.c) */
}

int volume_attach(struct array *a, const char *name, uint64_t size_bytes, uint32_t lba_size, struct volume **out,
		  char **err)
{
	*out = NULL;
	if (err)
		*err = NULL;
	if (!volume_name_ok(name)) {
		set_err(err, ll_strf("volume '%s': want 1..%d printable characters other than space ; , / =",
				 name ? name : "", VOLUME_NAME_MAX - 1));
		return -EINVAL;
	}
	if ((lba_size != 512 && lba_size != 4096) || size_bytes % lba_size) {
		set_err(err, ll_strf("volume '%s': size %llu is not a multiple of the %u-byte block", name,
				 (unsigned long long)size_bytes, lba_size));
		return -EINVAL;
	}
	pthread_mutex_lock(&a->vol_mu);
	struct volume *v = vn_find(a, name);
	if (v) {
		int rc = 0;
		if (v->attached) {
			set_err(err, ll_strf("volume '%s' of array '%s' is attached to another device", name, a->name));
			rc = -EBUSY;
		} else if (v->lba_size != lba_size) {
			set_err(err, ll_strf("volume '%s' has %u-byte blocks, the device %u-byte blocks", name, v->lba_size,
					 lba_size));
			rc = -EINVAL;
		} else if (v->size != size_bytes) {
			set_err(err, ll_strf("volume '%s' is %llu bytes, the device %llu: attach with the volume's size "
					 "(and resize the device afterwards)",
					 name, (unsigned long long)v->size, (unsigned long long)size_bytes));
			rc = -EINVAL;
		} else {
			v->attached = true;
			*out = v;
		}
		pthread_mutex_unlock(&a->vol_mu);
		return rc;
	}
	v = array_vol_alloc(a, size_bytes, lba_size);
	if (!v || !(v->name = strdup(name))) {
		pthread_mutex_unlock(&a->vol_mu);
		if (v)
			volume_destroy(v);
		set_err(err, ll_strf("volume '%s': out of memory creating a %llu-byte volume", name,
				 (unsigned long long)size_bytes));
		return -ENOMEM;
	}
	v->attached = true;
	array_vol_link(a, v);
	array_ref(a); /* the name keeps its array alive */
	pthread_mutex_unlock(&a->vol_mu);
	*out = v;
	return 0;
}

void volume_release(struct volume *v)
{
	if (!v)
		return;
	struct array *a = volume_array(v);
	pthread_mutex_lock(&a->vol_mu);
	if (v->name) {
		v->attached = false;
		pthread_mutex_unlock(&a->vol_mu);
		return;
	}
	pthread_mutex_unlock(&a->vol_mu);
	volume_destroy(v);
}

struct volume *array_volume_open(struct array *a, const char *key, uint64_t size_bytes, uint32_t lba_size,
				 char **err)
{
	struct volume *v;
	char e[512];

	*err = NULL;
	if (!a->state) {
		v = volume_create(a, size_bytes, lba_size);
		if (!v)
			*err = ll_strf("cannot create the volume (bad size or out of memory)");
		return v;
	}
	if (strlen(key) >= STORE_KEY_MAX) {
		*err = ll_strf("volume key too long");
		return NULL;
	}
	pthread_mutex_lock(&a->vol_mu);
	for (v = a->vols; v; v = v->next)
		if (v->pkey && !strcmp(v->pkey, key))
			break;
	if (v) {
		uint64_t have = volume_size(v);

		if (v->attached)
			snprintf(e, sizeof(e), "volume %s is already in use by another LU", key);
		else if (v->lba_size != lba_size)
			snprintf(e, sizeof(e), "the stored volume %s has %u-byte blocks, this LU asks for %u", key,
				 v->lba_size, lba_size);
		else if (size_bytes < have)
			snprintf(e, sizeof(e),
				 "the stored volume %s holds %llu bytes, this LU only %llu: shrinking would drop data "
				 "(give its size, or remove the state directory)",
				 key, (unsigned long long)have, (unsigned long long)size_bytes);
		else
			e[0] = '\0';
		if (e[0]) {
			pthread_mutex_unlock(&a->vol_mu);
			*err = ll_strf("%s", e);
			return NULL;
		}
		v->attached = true;
		pthread_mutex_unlock(&a->vol_mu);
		if (size_bytes > have && volume_resize(v, size_bytes) != 0) {
			pthread_mutex_lock(&a->vol_mu);
			v->attached = false;
			pthread_mutex_unlock(&a->vol_mu);
			*err = ll_strf("out of memory growing the stored volume");
			return NULL;
		}
		return v;
	}
	pthread_mutex_unlock(&a->vol_mu);
	v = array_vol_alloc(a, size_bytes, lba_size);
	if (!v || !(v->pkey = strdup(key))) {
		if (v)
			volume_destroy(v);
		*err = ll_strf("cannot create the volume (bad size or out of memory)");
		return NULL;
	}
	v->attached = true;
	pthread_mutex_lock(&a->vol_mu);
	array_vol_link(a, v); /* gets its vid */
	pthread_mutex_unlock(&a->vol_mu);
	return v;
}

void array_volume_close(struct volume *v)
{
	struct array *a;
	bool keep;

	if (!v)
		return;
	a = v->owner;
	pthread_mutex_lock(&a->vol_mu);
	keep = a->state && v->pkey;
	if (keep)
		v->attached = false;
	pthread_mutex_unlock(&a->vol_mu);
	if (!keep)
		volume_release(v); /* a named volume stays, an anonymous one goes */
}

bool volume_is_readonly(struct volume *v)
{
	struct array *a = volume_array(v);
	pthread_mutex_lock(&a->vol_mu);
	bool ro = v->readonly;
	pthread_mutex_unlock(&a->vol_mu);
	return ro;
}

int array_volume_delete(struct array *a, const char *name, char **err)
{
	if (err)
		*err = NULL;
	/* the volume gone and its references dropped: one piece of a commit */
	bs_mutation_begin(a->bs);
	int rc = volume_delete(a, name, err);
	bs_mutation_end(a->bs);
	return rc;
}

static int volume_delete(struct array *a, const char *name, char **err)
{
	pthread_mutex_lock(&a->vol_mu);
	struct volume *v = name ? vn_find(a, name) : NULL;
	if (!v) {
		pthread_mutex_unlock(&a->vol_mu);
		set_err(err, ll_strf("volume '%s': no such volume in array '%s'", name ? name : "", a->name));
		return -ENOENT;
	}
	if (v->attached) {
		pthread_mutex_unlock(&a->vol_mu);
		set_err(err, ll_strf("volume '%s' of array '%s' is attached to a device: close the device first", name,
				 a->name));
		return -EBUSY;
	}
	for (struct volume **pp = &a->vols; *pp; pp = &(*pp)->next)
		if (*pp == v) {
			*pp = v->next;
			break;
		}
	pthread_mutex_unlock(&a->vol_mu);
	volume_destroy(v); /* drops every reference its map held */
	array_put(a);      /* the name's reference; the caller still holds one */
	return 0;
}

/* v's entry (under vol_mu) */
static void info_of(struct array *a, struct volume *v, struct volume_info *o)
{
	uint64_t B = a->p.dedup_block;

	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", v->name ? v->name : "");
	snprintf(o->snapshot_of, sizeof(o->snapshot_of), "%s", v->snapshot_of ? v->snapshot_of : "");
	o->size_bytes = v->size;
	o->mapped_bytes = atomic_load(&v->mapped) * B;
	o->single_ref_bytes = vol_single_ref_entries(v) * B;
	o->lba_size = v->lba_size;
	o->attached = v->name ? v->attached : true; /* an anonymous volume lives with its device */
	o->readonly = v->readonly;
}

int array_volumes_info(struct array *a, struct volume_info *out, int max, uint64_t *provisioned)
{
	int n = 0;
	uint64_t prov = 0;

	pthread_mutex_lock(&a->vol_mu);
	for (struct volume *v = a->vols; v; v = v->next) {
		if (v->hidden)
			continue; /* an ODX hold's: no volume a host or the API knows */
		int i = n++;
		prov += v->size;
		if (!out || i >= max)
			continue;
		info_of(a, v, &out[i]);
	}
	pthread_mutex_unlock(&a->vol_mu);
	if (provisioned)
		*provisioned = prov;
	return n;
}

int array_volume_info(struct array *a, const char *name, struct volume_info *out)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&a->vol_mu);
	/* through the name index, and this volume's map entries alone */
	struct volume *v = vn_find(a, name);
	if (v && !v->hidden) {
		info_of(a, v, out);
		rc = 0;
	}
	pthread_mutex_unlock(&a->vol_mu);
	return rc;
}

/* Delete the unattached named volumes of one array.  An array kept in a
 * state directory keeps them: its last commit goes first, and what follows
 * only frees the memory (array_state.h). */
static void drop_in(struct array *a)
{
	array_state_detach(a);
	for (;;) {
		char name[VOLUME_NAME_MAX] = "";
		pthread_mutex_lock(&a->vol_mu);
		for (struct volume *v = a->vols; v; v = v->next)
			if (v->name && !v->attached) {
				snprintf(name, sizeof(name), "%s", v->name);
				break;
			}
		pthread_mutex_unlock(&a->vol_mu);
		if (!name[0] || array_volume_delete(a, name, NULL) != 0)
			return;
	}
}

void array_drop_named_volumes(void)
{
	int n = array_names(NULL, 0);
	char (*names)[ARRAY_NAME_MAX] = n > 0 ? calloc((size_t)n, sizeof(*names)) : NULL;

	if (!names)
		return;
	int m = array_names(names, n);
	n = m < n ? m : n;
	for (int i = 0; i < n; i++) {
		struct array *a = array_lookup(names[i]);
		if (!a)
			continue;
		drop_in(a);
		array_put(a);
	}
	free(names);
}
