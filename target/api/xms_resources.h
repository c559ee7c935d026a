/* xms_resources.h — the XMS resource types lunlab serves, one file each
 * family (xms_*.c), all listed in xms_all_types[] (api.c registers them). */
#ifndef LUNLAB_XMS_RESOURCES_H
#define LUNLAB_XMS_RESOURCES_H

#include "target/api/xms_engine.h"

extern const struct xms_type xms_type_xms;

#endif
