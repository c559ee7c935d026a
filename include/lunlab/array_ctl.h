/* array_ctl.h — the array-control interface: what lunlab-target's management
 * plane (target/api: the XMS-compatible REST API, /metrics, fault and
 * snapshot requests) may ask of the array that handler_lunlab.so emulates.
 *
 * Direction and layering.  The target never reaches into the handler's
 * structures.  handler_lunlab.so's handler_init hands its const struct
 * lunlab_array_ctl to lunlab-target's tcmu host through the extension
 * contract (include/lunlab/host_ext.h, handler_set_array_ctl); the
 * management plane asks the host for it (tcmu_host_array_ctl()).  Under
 * tcmu-runner there is no contract and no one asks, so the .so loads there
 * unchanged.  Everything else about a LU still goes through the
 * tcmu-runner ABI:
 *   - a volume is realised as a tcmu device, created with the standard
 *     open() path from a cfgstring (tcmu_host_create_device);
 *   - a resize is the ABI's reconfig(CONFIG_DEV_SIZE) (as LIO does it);
 *   - a deleted volume's device is closed with the ABI's close().
 *
 * Named volumes.  The cfgstring key `volume=NAME` attaches the device to the
 * array's volume called NAME, creating an empty one when none exists.  A
 * named volume outlives the device that attached it: closing the device
 * detaches it, and only volume_delete() frees it (and its blocks).  Without
 * `volume=` the device's volume is anonymous and dies with the device (the
 * behaviour of every --lun before the API existed).  A named volume is
 * attached to at most one device at a time.  Snapshots are named volumes
 * created by snapshot(); the API exposes each as a device attached to it
 * (`volume=NAME;readonly=1` for a read-only snapshot).
 *
 * Threads.  Every function may be called from any thread at any time while
 * the handler's devices run I/O; each takes the array's own locks.
 * Errors: negative errno; when err is not NULL a one-line reason (no
 * newline) is written into err[errlen].
 * Versioning: a field may only ever be appended; callers check `size`. */
#ifndef LUNLAB_ARRAY_CTL_H
#define LUNLAB_ARRAY_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/latency_buckets.h"

struct tcmu_device;

#define LUNLAB_ARRAY_CTL_VERSION 1u
#define LUNLAB_ARRAY_NAME_MAX 64   /* bytes, with the NUL */
#define LUNLAB_VOLUME_NAME_MAX 128 /* bytes, with the NUL */

/* One array's capacity figures, all in bytes unless named otherwise
 * (definitions: docs/accounting.md). */
struct lunlab_array_figures {
	uint64_t logical_bytes;       /* mapped (non-zero) blocks of every volume */
	uint64_t unique_bytes;        /* distinct blocks x dedup block */
	uint64_t physical_bytes;      /* allocated compressed size of distinct blocks */
	uint64_t compressed_bytes;    /* exact compressed size of distinct blocks */
	uint64_t unique_blocks;
	uint64_t mapped_blocks;
	uint64_t single_ref_blocks;
	uint64_t pending_blocks;      /* unique blocks whose compressed size is not known yet */
	uint64_t provisioned_bytes;   /* sum of every named and attached volume's size */
	uint64_t capacity_bytes;      /* physical capacity of the array (usable, after RAID) */
	uint64_t soft_threshold_bytes;/* physical use that raises 06/38/07; 0 = none */
	uint64_t used_bytes;          /* physical space the array counts as in use (includes
	                               * reservations for pending blocks): what the
	                               * out-of-space rule compares with capacity_bytes */
	uint32_t dedup_block;         /* bytes */
	uint32_t volumes;             /* named + anonymous volumes alive */
	char profile[32];             /* model / profile name of the array */
	uint32_t ssds;                /* SSDs its profile says it has (XMS num-of-ssds); 0 = not said */
};

/* One volume of an array, as the API lists it. */
struct lunlab_volume_info {
	char name[LUNLAB_VOLUME_NAME_MAX]; /* "" for an anonymous volume */
	uint64_t size_bytes;
	uint64_t logical_bytes;       /* mapped bytes of this volume */
	uint64_t single_ref_bytes;    /* bytes only this volume references (XMS unique space) */
	uint32_t lba_size;
	bool attached;                /* a device is attached to it now */
	bool readonly;
	char snapshot_of[LUNLAB_VOLUME_NAME_MAX]; /* "" unless created by snapshot() */
};

/* Modeled figures (array_model, lu_figures): running totals in the model's
 * own time since it was made; latency buckets as latency_buckets.h. */
struct lunlab_model_figures {
	uint64_t commands;            /* commands the model charged */
	uint64_t cpu_ns;              /* modeled CPU work, core-ns summed over cores */
	uint64_t latency_sum_ns;
	uint64_t latency_buckets[LUNLAB_LAT_BUCKETS]; /* per bucket, not cumulative */
	uint64_t modeled_elapsed_ns;  /* array only: first arrival .. last modeled completion */
	uint32_t cores;               /* array only: modeled cores; 0 = profile not modeled */
	uint32_t virtual_streams;     /* array only: > 0 = virtual clock (docs/models.md) */
	double time_scale;            /* array only: 1 real time, > 1 slow motion, 0 unpaced/virtual */
};

/* One LU (lu_figures). */
struct lunlab_lu_figures {
	char array[LUNLAB_ARRAY_NAME_MAX];
	char volume[LUNLAB_VOLUME_NAME_MAX]; /* the named volume; else the unit serial */
	char profile[32];
	uint64_t mapped_bytes;        /* this LU's mapped (non-zero) bytes */
	uint64_t xcopy_covered_bytes; /* logical bytes its EXTENDED COPY segments covered */
	uint64_t write_same_covered_bytes;
	uint64_t unmap_covered_bytes;
	struct lunlab_model_figures model; /* what the model charged for this LU's commands */
};

struct lunlab_array_ctl {
	uint32_t version;             /* LUNLAB_ARRAY_CTL_VERSION */
	uint32_t size;                /* sizeof(struct lunlab_array_ctl) of the .so */

	/* Names of the live arrays: writes up to max names, returns how many exist. */
	int (*array_list)(char (*names)[LUNLAB_ARRAY_NAME_MAX], int max);

	/* Figures of array `array`.  wait_accounting: first wait until no block's
	 * compressed size is pending, so the ratios are exact (docs/accounting.md). */
	int (*array_figures)(const char *array, bool wait_accounting,
			     struct lunlab_array_figures *out);

	/* Physical capacity and soft threshold (bytes; threshold 0 = none).
	 * -ENOSPC if capacity is below what is in use now.  A change of the
	 * threshold is reported in VPD B2 / the LBP log page from then on. */
	int (*array_set_capacity)(const char *array, uint64_t capacity_bytes,
				  uint64_t soft_threshold_bytes, char *err, size_t errlen);

	/* Volumes of an array: writes up to max entries, returns how many exist. */
	int (*volume_list)(const char *array, struct lunlab_volume_info *out, int max);

	/* Instant snapshot of n named volumes of one array, all at one point in
	 * time (writes to every source are held while the maps are copied):
	 * creates named volumes dst[i] sharing src[i]'s blocks (reference counts,
	 * no data copied), read-only when readonly.  The copy is charged to the
	 * array's cost model as a copy of every mapped block.  -ENOENT (a source
	 * is missing), -EEXIST (a destination exists), -ENOSPC (metadata space). */
	int (*snapshot)(const char *array, const char *const *src, const char *const *dst,
			size_t n, bool readonly, char *err, size_t errlen);

	/* Free a named volume that no device is attached to (-EBUSY if one is;
	 * -ENOENT if none by that name).  Its blocks' references are dropped. */
	int (*volume_delete)(const char *array, const char *name, char *err, size_t errlen);

	/* ---- appended for /metrics (issue 15) ---- */

	/* What the array's cost model charged since it was made (never reset:
	 * LOG SELECT resets only the LOG SENSE telemetry).  -ENOENT when no LU
	 * of that array is open. */
	int (*array_model)(const char *array, struct lunlab_model_figures *out);

	/* The LU behind tcmu device dev (a device of the handler module that
	 * exports this table, kept open for the whole call): its array, volume and profile (the /metrics labels), its
	 * mapped bytes, the logical bytes its copy commands covered and what
	 * the model charged for it.  -ENODEV when dev is not open. */
	int (*lu_figures)(struct tcmu_device *dev, struct lunlab_lu_figures *out);

	/* ---- appended for persistence (issue 11, docs/persistence.md) ---- */

	/* lunlab-target --check-state.  Verify the array kept in array_dir (a
	 * state directory's DIR/arrays/NAME) offline, without loading it into
	 * the running registry: its lock, SQLite's integrity, every row's
	 * checksum, every map entry's block, the reference counts against the
	 * maps, the figures against the last commit's, every payload against
	 * its CRC32C.  0 with a one-line summary in out; -1 with the first
	 * inconsistency in err.  Callers check `size` before using it. */
	int (*state_check)(const char *array_dir, char *out, size_t outlen, char *err, size_t errlen);

	/* Every change made to the array before the call (volumes created,
	 * snapshots, deletions, data) is durable in its state directory when
	 * it returns 0; 0 at once for an array kept in memory.  -ENOENT (no
	 * such array), -EIO (the state directory could not be written).  The
	 * management API calls it before it records a change of its own that
	 * names the array's volumes. */
	int (*array_sync)(const char *array, char *err, size_t errlen);

	/* ---- appended for snapshot refresh (issue 21 item 4) ---- */

	/* Refresh n named volumes of one array at one point in time: the data
	 * of dst[i] becomes src[i]'s, in place, as a metadata copy (map
	 * entries and reference counts, no data read or copied; every volume
	 * involved is held meanwhile).  A device attached to dst[i] stays
	 * attached and reads the new data from its next command: raising the
	 * unit attention its hosts are owed is the caller's (the LU layer's).
	 * Charged to the cost model as a copy of every entry that changed.
	 * -ENOENT (a volume is missing), -EINVAL (sizes or block sizes differ,
	 * a volume named twice, n == 0), -ENOSPC (metadata space). */
	int (*refresh)(const char *array, const char *const *src, const char *const *dst, size_t n, char *err,
		       size_t errlen);

	/* ---- appended for lookups of one volume (issue 21) ---- */

	/* The entry volume_list writes for named volume `name` of array
	 * `array`, alone: a lookup of one volume does not pay for counting
	 * every volume's blocks.  0, or -ENOENT (no such array or volume). */
	int (*volume_info)(const char *array, const char *name, struct lunlab_volume_info *out);
};

/* Whether ctl offers function `member`: the .so's table is long enough to
 * hold it (functions are only ever appended) and sets it. */
#define lunlab_array_ctl_has(ctl, member)                                              \
	((ctl) && (ctl)->size >= offsetof(struct lunlab_array_ctl, member) + sizeof((ctl)->member) && \
	 (ctl)->member)

#endif
