/* xms_hw_fault_spec.h — the hardware form of --fault (and the config
 * file's `fault:` entries): a component of the emulated X-Brick failed from
 * the start, as PUT /api/lunlab/hardware fails it at run time
 * (docs/faults.md "Hardware faults").
 *
 *   hw=ssd:N | hw=ssd:NAME | hw=storage-controller:N | hw=storage-controller:NAME
 *   [,cluster=NAME]      (default: the API's first cluster)
 *
 * N is the component's number from 1 (an SSD's slot, X1-SC1 is 1); NAME is
 * its name as the inventory lists it (wwn-0x..., X1-SC2); `sc` is short
 * for storage-controller.  A SPEC with a `hw=` key is this form and takes
 * no other key: the command rules' keys (lun=, op=, sense=, ...) are
 * about SCSI commands, which a failed SSD does not fail (XDP rebuilds
 * around it).  Pure parsing: whether the component exists is known only
 * once the clusters are set up (api_hw_fault_apply, api.h). */
#ifndef LUNLAB_XMS_HW_FAULT_SPEC_H
#define LUNLAB_XMS_HW_FAULT_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#define XMS_HW_NAME_MAX 64

enum xms_hw_kind { XMS_HW_SSD, XMS_HW_SC };

struct xms_hw_fault_spec {
	enum xms_hw_kind kind;
	char name[XMS_HW_NAME_MAX];    /* a number from 1 or a component's name */
	char cluster[XMS_HW_NAME_MAX]; /* "" = the first cluster */
};

/* Has spec a hw= key (then it is this form, not a command rule)? */
bool xms_hw_fault_spec_is(const char *spec);

/* true, or false with a one-line reason naming the bad key. */
bool xms_hw_fault_spec_parse(const char *spec, struct xms_hw_fault_spec *out, char *err, size_t errlen);

#endif
