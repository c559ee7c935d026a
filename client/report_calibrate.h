/* report_calibrate.h - calibrate's table and JSON (docs/calibrate.md). */
#ifndef LUNLAB_CLIENT_REPORT_CALIBRATE_H
#define LUNLAB_CLIENT_REPORT_CALIBRATE_H

#include <stdio.h>

#include "client/calib_result.h"

struct json_object;

void table_calibrate(FILE *f, const struct calib_result *r);
struct json_object *json_calibrate(const struct calib_result *r);

#endif
