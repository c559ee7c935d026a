/* scn_report.c - JUnit XML and JSON of a scenario run (scn_report.h).  The JUnit layout is
 * the one Jenkins, GitLab and the GitHub test-report actions read: testsuites > testsuite >
 * testcase with time in seconds, <failure message=...> for an expectation that did not hold,
 * <error> when the scenario could not run. */
#include "client/scn_report.h"

#include <string.h>
#include <time.h>

void scn_xml_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (*p >= 0x20 || *p == '\n' || *p == '\t')
				fputc(*p, f);
		}
	}
}

static void timeline_text(FILE *f, const struct scn_result *r)
{
	for (size_t i = 0; r->timeline && i < json_object_array_length(r->timeline); i++) {
		json_object *e = json_object_array_get_idx(r->timeline, i), *t, *w;
		json_object_object_get_ex(e, "t", &t);
		json_object_object_get_ex(e, "what", &w);
		char line[1200];
		snprintf(line, sizeof(line), "[%8.3fs] %s\n", json_object_get_double(t), json_object_get_string(w));
		scn_xml_escape(f, line);
	}
}

int scn_junit_write(FILE *f, const struct scn_model *m, const struct scn_result *r, uint64_t seed)
{
	unsigned failures = 0, errors = r->status == 2 ? 1 : 0, tests = m->n_expect + errors;
	if (r->status != 2)
		for (unsigned i = 0; i < m->n_expect; i++)
			failures += !r->x[i].ok;
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"lunlab scenarios\" tests=\"%u\" failures=\"%u\" errors=\"%u\" time=\"%.3f\">\n",
		tests, failures, errors, r->seconds);
	fprintf(f, "  <testsuite name=\"");
	scn_xml_escape(f, m->name);
	fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\" timestamp=\"%s\">\n", tests,
		failures, errors, r->status == 2 ? m->n_expect : 0, r->seconds, ts);
	fprintf(f, "    <properties>\n      <property name=\"file\" value=\"");
	scn_xml_escape(f, m->file);
	fprintf(f, "\"/>\n      <property name=\"seed\" value=\"%llu\"/>\n    </properties>\n", (unsigned long long)seed);
	if (r->status == 2) {
		fprintf(f, "    <testcase classname=\"");
		scn_xml_escape(f, m->name);
		fprintf(f, "\" name=\"scenario runs\" time=\"%.3f\">\n      <error type=\"could-not-run\" message=\"", r->seconds);
		scn_xml_escape(f, r->error);
		fprintf(f, "\">");
		scn_xml_escape(f, r->error);
		fprintf(f, "</error>\n    </testcase>\n");
	}
	for (unsigned i = 0; i < m->n_expect; i++) {
		fprintf(f, "    <testcase classname=\"");
		scn_xml_escape(f, m->name);
		fprintf(f, "\" name=\"");
		scn_xml_escape(f, m->expect[i].name);
		fprintf(f, "\" time=\"%.3f\"", r->x[i].time_s);
		if (r->status == 2) {
			fprintf(f, ">\n      <skipped message=\"the scenario could not run\"/>\n    </testcase>\n");
		} else if (!r->x[i].ok) {
			char msg[SCN_TEXT * 2];
			snprintf(msg, sizeof(msg), "%s: observed %s", m->expect[i].name, r->x[i].observed);
			fprintf(f, ">\n      <failure type=\"expectation\" message=\"");
			scn_xml_escape(f, msg);
			fprintf(f, "\">");
			scn_xml_escape(f, m->file);
			fprintf(f, ":%u:%u: ", m->expect[i].mark.line, m->expect[i].mark.col);
			scn_xml_escape(f, msg);
			fprintf(f, "</failure>\n    </testcase>\n");
		} else {
			fprintf(f, "/>\n");
		}
	}
	fprintf(f, "    <system-out>");
	timeline_text(f, r);
	fprintf(f, "</system-out>\n  </testsuite>\n</testsuites>\n");
	return ferror(f) ? -1 : 0;
}

json_object *scn_json_report(const struct scn_model *m, const struct scn_result *r, uint64_t seed)
{
	json_object *j = json_object_new_object();
	json_object_object_add(j, "scenario", json_object_new_string(m->name));
	json_object_object_add(j, "file", json_object_new_string(m->file));
	json_object_object_add(j, "seed", json_object_new_int64((int64_t)seed));
	json_object_object_add(j, "status", json_object_new_int(r->status));
	json_object_object_add(j, "error", r->status == 2 ? json_object_new_string(r->error) : NULL);
	json_object_object_add(j, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(j, "runner_cpu_s", json_object_new_double(r->runner_cpu_s));
	json_object_object_add(j, "workloads_cpu_s", json_object_new_double(r->workloads_cpu_s));
	json_object *xs = json_object_new_array();
	for (unsigned i = 0; i < m->n_expect; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "name", json_object_new_string(m->expect[i].name));
		json_object_object_add(x, "line", json_object_new_int((int)m->expect[i].mark.line));
		json_object_object_add(x, "held", r->status == 2 ? NULL : json_object_new_boolean(r->x[i].ok));
		json_object_object_add(x, "observed", json_object_new_string(r->x[i].observed));
		json_object_object_add(x, "seconds", json_object_new_double(r->x[i].time_s));
		json_object_array_add(xs, x);
	}
	json_object_object_add(j, "expectations", xs);
	json_object_object_add(j, "workloads", r->workloads ? json_object_get(r->workloads) : NULL);
	json_object_object_add(j, "timeline", r->timeline ? json_object_get(r->timeline) : NULL);
	return j;
}
