/* metrics_ctl.h — handler_lunlab.so's side of the array-control functions
 * /metrics needs (include/lunlab/array_ctl.h: array_model, lu_figures). */
#ifndef LUNLAB_METRICS_CTL_H
#define LUNLAB_METRICS_CTL_H

#include "lunlab/array_ctl.h"

int metrics_ctl_array_model(const char *array, struct lunlab_model_figures *out);
int metrics_ctl_lu_figures(struct tcmu_device *dev, struct lunlab_lu_figures *out);

#endif
