/* api_faults.h — fault rules of the management API: chosen XMS requests are
 * refused the way a busy or full XMS refuses them (400 "system_is_busy",
 * "too_many_snapshots_per_vol", ...), so a client's retry and error paths
 * can be tested (Cinder retries system_is_busy, and maps too_many_objs and
 * too_many_snapshots_per_vol to "snapshot limit exceeded").
 *
 * A rule matches by method and resource type; it lets the first `skip`
 * matching requests through, then answers the next `count` of them (0:
 * every one) with its error, before the request is looked at: nothing
 * changes.  Rules are tried in the order they were added; the first that
 * fires answers.  Any thread (one mutex); the rule set lives in memory.
 *
 *   GET    /api/lunlab/api-faults        {"api-faults": [RULE, ...]}
 *   POST   /api/lunlab/api-faults        {"error": NAME, "method": "POST"|...|"any",
 *                                         "type": "snapshots"|...|"any", "skip": N,
 *                                         "count": N, "status": 400..599}; 201 RULE
 *   GET    /api/lunlab/api-faults/ID
 *   DELETE /api/lunlab/api-faults[/ID]  */
#ifndef LUNLAB_API_FAULTS_H
#define LUNLAB_API_FAULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "target/api/api_router.h"

#define API_FAULTS_MAX 64

/* true when a rule fired for this request to XMS type `type` (rsp
 * answered with its error) */
bool api_faults_check(const struct api_request *req, const char *type, struct api_response *rsp);

/* the routes above; 0 or -1 with the reason */
int api_faults_register(char *err, size_t errlen);

/* Tests: every rule gone, ids from 1 again. */
void api_faults_reset(void);

#endif
