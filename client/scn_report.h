/* scn_report.h - a scenario run's outcome as JUnit XML (one test case per expectation, what
 * CI systems show) and as JSON (the timeline, the workloads' own reports, every
 * expectation with its observed value). */
#ifndef LUNLAB_CLIENT_SCN_REPORT_H
#define LUNLAB_CLIENT_SCN_REPORT_H

#include <stdio.h>

#include <json-c/json.h>

#include "client/scn_model.h"
#include "client/scn_run.h"

int scn_junit_write(FILE *f, const struct scn_model *m, const struct scn_result *r, uint64_t seed);
json_object *scn_json_report(const struct scn_model *m, const struct scn_result *r, uint64_t seed);
/* text with & < > " ' escaped and control characters (not allowed in XML 1.0) dropped */
void scn_xml_escape(FILE *f, const char *s);

#endif
