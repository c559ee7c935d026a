/* profile.h — an emulated array's parameters, read from a human-readable
 * profile (models/profiles/<name>.yaml, embedded in the handler at build time;
 * a path may name another file).  Every parameter carries its unit and source
 * in the file; see docs/models.md. */
#ifndef LUNLAB_PROFILE_H
#define LUNLAB_PROFILE_H

/* The largest dedup block a lunlab array models (handlers/array/array_core.c: a block's exact
 * compressed size must fit its record's 16-bit field); profiles and calibrate stay within it. */
#define PROFILE_DEDUP_BLOCK_MAX 32768u

#include <stdbool.h>
#include <stdint.h>

/* A token carries its ranges in its 512 bytes (handlers/copy/odx_token.h): at most 24 fit
 * beside the header, the MAC and the random padding. */
#define PROFILE_ODX_RANGES_MAX 24u
/* Defaults of the optional odx_* keys (FreeBSD CTL's token timeouts, 60 s and 600 s; 16
 * ranges; 16 GiB so one WRITE USING TOKEN covers a 10 GiB range, docs/xcopy.md). */
#define PROFILE_ODX_DEF_RANGES 16u
#define PROFILE_ODX_DEF_TOKEN_BYTES (16ull << 30)
#define PROFILE_ODX_DEF_TIMEOUT_S 60u
#define PROFILE_ODX_DEF_MAX_TIMEOUT_S 600u

struct lunlab_profile {
	char name[32];
	char description[128];
	/* data reduction (feeds struct array_params) */
	uint32_t dedup_block;      /* bytes */
	int zlib_level;
	int zlib_window_bits;
	uint32_t alloc_unit;       /* bytes */
	bool modeled;              /* false for "unlimited": no cost, no pacing */
	/* asymmetric access the array reports (INQUIRY TPGS): 0 off (the default;
	 * XtremIO is active/active without ALUA), 1 implicit, 2 explicit, 3 both;
	 * the target core keeps the port groups (target/lu/alua.h) */
	uint8_t tpgs;
	/* physical capacity (the array's default; array_capacity= overrides it) */
	uint64_t capacity_bytes;   /* usable, after RAID: what reduced data may fill */
	uint32_t soft_threshold_percent; /* of capacity_bytes: 06/38/07 when use reaches it; 0 = none */
	uint32_t ssds;             /* SSDs of the brick the capacity is for (XMS num-of-ssds); 0 = not said */
	/* token copy offload (ODX: POPULATE TOKEN / WRITE USING TOKEN, docs/xcopy.md), optional
	 * keys: off when `odx` is absent; the limits VPD 8Fh advertises and the commands enforce */
	bool odx;
	uint32_t odx_max_ranges;        /* range descriptors per command, 1..PROFILE_ODX_RANGES_MAX */
	uint64_t odx_max_token_bytes;   /* bytes one token may stand for */
	uint32_t odx_default_timeout_s; /* inactivity timeout when the host asks for 0 */
	uint32_t odx_max_timeout_s;     /* the largest one a host may ask for */
	/* cost-model parameters: owned by models/, opaque to the handler */
	void *cost_params;
};

/* name: one of the built-in profiles (x1, x2, fa420, unlimited) or a path to
 * a profile file.  Returns a profile that lives until exit, or NULL with
 * *err (malloc'd, one line naming the bad field/line). Thread safe. */
const struct lunlab_profile *profile_get(const char *name, char **err);
/* NULL-terminated list of built-in names. */
const char *const *profile_builtin_names(void);

#endif
