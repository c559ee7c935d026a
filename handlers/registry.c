/* registry.c — the open lunlab devices of this process, so EXTENDED COPY can
 * resolve a CSCD designator to an LU of the same array.  A short list under
 * one mutex: it is touched on open/close and once per copy, never per I/O. */
#include <pthread.h>
#include <string.h>

#include "handlers/lunlab_dev.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lunlab_dev *reg_head;

void lunlab_dev_register(struct lunlab_dev *d)
{
	pthread_mutex_lock(&reg_lock);
	d->next_in_array = reg_head;
	reg_head = d;
	pthread_mutex_unlock(&reg_lock);
}

void lunlab_dev_unregister(struct lunlab_dev *d)
{
	pthread_mutex_lock(&reg_lock);
	for (struct lunlab_dev **pp = &reg_head; *pp; pp = &(*pp)->next_in_array) {
		if (*pp == d) {
			*pp = d->next_in_array;
			break;
		}
	}
	d->next_in_array = NULL;
	pthread_mutex_unlock(&reg_lock);
}

struct lunlab_dev *lunlab_dev_find_by_naa(const struct array *a, const uint8_t naa[16])
{
	struct lunlab_dev *hit = NULL;

	pthread_mutex_lock(&reg_lock);
	for (struct lunlab_dev *d = reg_head; d; d = d->next_in_array) {
		if (d->array == a && memcmp(d->naa, naa, 16) == 0) {
			hit = d;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return hit;
}

struct lunlab_dev *lunlab_dev_find_by_tdev(const struct tcmu_device *tdev)
{
	struct lunlab_dev *hit = NULL;

	pthread_mutex_lock(&reg_lock);
	for (struct lunlab_dev *d = reg_head; d; d = d->next_in_array)
		if (d->tdev == tdev) {
			hit = d;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	return hit;
}
