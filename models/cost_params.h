/* cost_params.h — the cost-model parameters of a profile (struct lunlab_profile's
 * opaque cost_params).  Internal to models/: the handler never looks inside.
 * Units and meaning: docs/models.md "Profile format". */
#ifndef LUNLAB_MODELS_COST_PARAMS_H
#define LUNLAB_MODELS_COST_PARAMS_H

#include <stdint.h>

enum xcopy_bucket_rule {
	XCOPY_BUCKET_COVERED, /* bucket of the bytes the XCOPY covers */
	XCOPY_BUCKET_GT1MB,   /* always ">1 MB", as XtremIO's GUI shows it */
};

struct cost_params {
	uint32_t cores;                      /* count */
	uint64_t cpu_cmd_ns;                 /* core-ns per command */
	uint64_t cpu_entry_ns;               /* core-ns per map entry (dedup_block) */
	uint64_t cpu_segment_ns;             /* core-ns per XCOPY segment beyond the first */
	uint64_t cpu_mib_ns;                 /* core-ns per MiB of wire data */
	uint64_t journal_cmd_ns;             /* ns per map-updating command on the journal */
	uint64_t journal_entry_ns;           /* ns per map entry on the journal */
	uint64_t frontend_mb_s;              /* 10^6 B/s, 0 = unlimited */
	uint64_t backend_mb_s;               /* 10^6 B/s, 0 = unlimited */
	uint64_t fixed_latency_ns;           /* ns per command, reported */
	uint64_t host_turnaround_ns;         /* ns per command, host side, not reported */
	uint64_t host_turnaround_ns_per_mib; /* ns per MiB an XCOPY covers, host side */
	enum xcopy_bucket_rule xcopy_bucket;
};

#endif
