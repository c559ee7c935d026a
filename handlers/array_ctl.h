/* array_ctl.h — handler_lunlab.so's array-control table (array_ctl.c), the
 * module's side of include/lunlab/array_ctl.h.  handler_init hands it to
 * lunlab-target through the extension contract (handlers/host.h). */
#ifndef LUNLAB_HANDLER_ARRAY_CTL_H
#define LUNLAB_HANDLER_ARRAY_CTL_H

#include "lunlab/array_ctl.h"

extern const struct lunlab_array_ctl lunlab_array_ctl;

#endif
