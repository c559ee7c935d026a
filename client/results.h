/* results.h - what each scenario measured; the report writers (table, JSON, CSV, SVG)
 * render these and nothing else, so every output format shows the same numbers. */
#ifndef LUNLAB_CLIENT_RESULTS_H
#define LUNLAB_CLIENT_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "client/conn_stats.h"
#include "client/logpage.h"
#include "client/vpd8f.h"
#include "client/xms_client.h"

struct info_result {
	char vendor[9], product[17], revision[5];
	uint64_t num_blocks;
	uint32_t block_size;
	bool tpc;                        /* INQUIRY 3PC bit */
	int xcopy_opcode;                /* REPORT SUPPORTED OPCODES 0x83/0: 1 yes, 0 no, -1 unknown */
	int caw, write_same16, unmap;    /* same, for 0x89, 0x93, 0x42 */
	bool naa_binary;                 /* VPD 0x83 binary NAA (needed for 0xE4 descriptors) */
	char naa_hex[41];
	bool vpd_b0, vpd_b2, vpd_8f;
	uint32_t max_xfer_blocks, opt_xfer_blocks, max_unmap_lba, max_unmap_desc;
	uint64_t max_write_same_blocks;
	bool lbpme, lbpu, lbpws, lbpws10;
	unsigned provisioning_type;     /* VPD B2: 0 full, 1 resource, 2 thin */
	bool rcr_ok;                     /* RECEIVE COPY RESULTS SA 3 answered */
	unsigned rcr_max_tgt, rcr_max_seg;
	uint32_t rcr_max_desc_list, rcr_max_seg_len;
	unsigned vpd8f_descriptors;
	struct tpc_vpd vpd8f;            /* VPD 0x8F decoded (when vpd_8f) */
	char vpd8f_error[160];           /* why it could not be decoded, "" when fine */
	bool have_capacity;
	struct array_capacity cap;
	bool have_telemetry;
	struct model_telemetry tel;
	/* --api: the cluster (array) the LU belongs to, from the management API */
	bool have_cluster;
	bool cluster_of_lu;              /* found by the LU's serial (false: the API's first cluster) */
	char api_volume[128];            /* the LU's volume in the API, "" when it is none */
	struct xms_cluster_figures cluster;
	struct conn_stats conn;          /* what the connection layer did (conn_stats.h) */
};

#define SCALE_MAX_VMS 1024
struct scale_run {
	unsigned vms;
	double total_mbps;
	double min_mbps, avg_mbps, max_mbps;
	double fairness;                 /* max / min per-VM throughput */
	uint64_t ios;
	double seconds;
	double client_cpu_pct;           /* lunlab-bench's own CPU over the run, % of one core */
	/* the LU's model (page 0x31) against what the client saw, when the LU models */
	bool have_modeled;
	double time_scale;               /* the array's slow motion (1 = real time) */
	unsigned virtual_streams;        /* > 0: virtual clock: the machine cannot limit the figures */
	double host_mean_latency_ms;     /* every completed command of the run, as the client saw it */
	double modeled_mean_latency_ms;  /* the model's, over the same run */
	double injected_latency_ms;      /* of host_mean_latency_ms, what fault rules (delay=) held
	                                  * each command on average (page 0x31 0x000F) */
	double array_utilization;        /* busiest modeled resource's busy time / modeled elapsed */
	double machine_share;            /* share of the client's latency this machine added (0 when
	                                  * the array was saturated: its queue absorbed it) */
	bool machine_share_exact;        /* false: upper bound (no modeled turnaround reported) */
	bool machine_limited;            /* the machine, not the modeled array, set the pace */
	double suggested_time_scale;     /* slow motion that would bring machine_share under 2% */
	struct conn_stats conn;          /* the run's sessions: re-logins, retries, aborts */
	unsigned count;                  /* --count: commands per VM (0: a --duration window) */
	bool have_modeled_rate;          /* --count on a modeled LU: the model's own throughput */
	uint64_t modeled_bytes;          /* bytes the model charged over the run */
	double modeled_seconds;          /* how far its modeled clock moved */
	double modeled_mbps;             /* modeled_bytes / modeled_seconds, MB/s */
	/* --count on a virtual clock whose host is one stream per session (page 0x32): each VM's
	 * modeled rate (session_rates.h) and the fairness of the sharing */
	bool have_session_rates;
	unsigned modeled_sessions;       /* sessions that moved data in the run */
	double modeled_vm_min_mbps, modeled_vm_max_mbps;
	double modeled_fairness;         /* max / min of them */
	bool modeled_order_exact;        /* no command was charged out of its modeled turn (page
	                                  * 0x31 0x0011 did not move): the figures are the model's */
	uint64_t failed_ios;             /* --keep-going: commands that failed */
	char first_failure[512];         /* --keep-going: the first of them */
};

/* utilization of the busiest modeled resource from which a run counts as the array's
 * capacity, whatever the host added */
#define SCALE_SATURATED 0.97
/* unique and win10 writes need a buffer per command in flight: at most this much in all */
#define SCALE_MAX_WRITE_BUFFERS (2ull << 30)

struct scale_result {
	bool write;
	bool random;                     /* --random offsets instead of sequential */
	int data;                        /* enum write_data: what the writes carried */
	uint64_t bs;
	unsigned qd;
	unsigned n;
	struct scale_run runs[32];
};

struct clone_run {
	uint64_t chunk;
	bool xcopy;                      /* true when every clone went through EXTENDED COPY */
	bool fell_back;                  /* XCOPY refused or failed: the software datamover did some of it */
	unsigned fallback_clones;        /* clones whose EXTENDED COPY failed part way (the rest of each
	                                  * in software); 0 when the whole run fell back */
	uint64_t xcopy_bytes;            /* template bytes cloned by EXTENDED COPY */
	bool odx;                        /* true when every clone went through ODX (PT + RRTI + WUT) */
	uint64_t odx_bytes;              /* template bytes cloned by WRITE USING TOKEN */
	uint64_t odx_pt_ns, odx_rrti_ns, odx_wut_ns;   /* host-observed time in each ODX command, summed */
	uint64_t odx_wut_max_ns;         /* the slowest WRITE USING TOKEN */
	unsigned odx_tokens;             /* tokens populated (one per chunk) */
	uint64_t software_bytes;         /* template bytes cloned by host READ + WRITE */
	char fallback_reason[400];
	double wall_s;
	uint64_t commands;
	uint64_t bytes_cloned;
	uint64_t wire_bytes;             /* payload over the wire: parameter lists or READ+WRITE data */
	double lat_p50_ms, lat_p90_ms, lat_p99_ms, lat_max_ms;
	bool have_modeled;
	double modeled_duration_s, modeled_peak_latency_ms, modeled_peak_cpu_pct, modeled_max_latency_ms;
	double time_scale;               /* array's slow motion factor (1 = real time) */
	unsigned virtual_streams;        /* > 0: the array's clock is virtual, with this many modeled
	                                  * host streams: the machine cannot limit the figures */
	char host_streams_source[8];     /* virtual clock: "run" (set to --parallel x --outstanding),
	                                  * "pinned" (the LU's host_streams=N), "lu" (the LU offers no
	                                  * way to set them) */
	bool machine_limited;            /* this machine, not the modeled array, set the pace */
	double lat_mean_ms;              /* host-observed mean per command */
	double modeled_mean_latency_ms;  /* the model's mean per command (bucket latency / ops) */
	double machine_share;            /* share of the modeled duration added by this machine */
	double suggested_time_scale;     /* slow motion that would bring machine_share under 2% */
	bool machine_share_exact;        /* false: upper bound (the LU does not report modeled turnaround) */
	struct conn_stats conn;          /* during this run's copy phase */
};

struct clone_result {
	uint64_t template_size;
	uint64_t plot_job_bytes;         /* --plot-job: durations plotted scaled to this many bytes cloned */
	unsigned clones, parallel, outstanding;
	bool two_lus;
	bool verified;                   /* --verify: every clone read back equal to the template */
	uint64_t verified_bytes;
	struct conn_stats conn;          /* the whole command: template, runs, verify */
	unsigned n;
	struct clone_run runs[32];
};

struct drr_result {
	uint64_t image_bytes;
	double write_s;
	double settle_s;
	bool settled;
	struct array_capacity cap;
	bool have_capacity;
	const char *source;              /* "synthetic win10 seed N" or the file name */
	uint64_t logical_before;         /* the array's logical bytes before the image was written */
	char source_buf[300];
	struct conn_stats conn;
	uint64_t readback_bytes;         /* after a lost session: bytes read back and found intact */
};

/* clone --mode snapshot (scenario_snapclone.c): clones made by the array's management API */
struct snapclone_result {
	uint64_t template_size;
	unsigned clones, made;
	char volume[128];                /* the template's XMS volume */
	uint64_t volume_index;
	double wall_s;                   /* every POST snapshots, back to back */
	uint64_t bytes_cloned;           /* logical: clones x template */
	double lat_mean_ms, lat_p50_ms, lat_p90_ms, lat_max_ms; /* per POST snapshots */
	struct xms_cluster_figures before, after;
	bool verified;
	uint64_t verified_bytes;
	bool kept;                       /* --keep-clones */
	struct conn_stats conn;          /* the template's session and --verify's (conn_stats.h) */
	uint64_t readback_bytes;         /* after a lost session: template bytes read back intact */
};

#endif
