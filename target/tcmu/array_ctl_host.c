/* array_ctl_host.c — from an LU to its handler module's array-control table
 * (include/lunlab/array_ctl.h), which the module's handler_init gave the
 * host through the extension contract (host_ext.h handler_set_array_ctl,
 * registry.c).  tcmu-runner has no such table; lunlab-target's management
 * plane (/metrics, the API) reaches the array only through it. */
#include "lunlab/array_ctl.h"
#include "target/tcmu/host_priv.h"

#include <stddef.h>
#include <string.h>

const struct lunlab_array_ctl *tcmu_host_backend_array_ctl(struct lu_backend *be, struct tcmu_device **devp)
{
	struct tcmu_device *dev;

	if (!be || be->ops != &host_backend_ops)
		return NULL;
	dev = container_of_host(be, struct tcmu_device, be);
	if (devp)
		*devp = dev;
	return host_handler_array_ctl(dev->handler);
}

const struct lunlab_array_ctl *tcmu_host_array_ctl(const char *subtype)
{
	struct tcmur_handler *h = subtype ? host_find_handler(subtype, strlen(subtype)) : NULL;
	const struct lunlab_array_ctl *ctl = h ? host_handler_array_ctl(h) : NULL;

	/* a newer .so may append functions, never change the ones we know */
	if (ctl && (ctl->version != LUNLAB_ARRAY_CTL_VERSION || ctl->size < offsetof(struct lunlab_array_ctl, volume_delete) +
										sizeof(ctl->volume_delete)))
		return NULL;
	return ctl;
}
