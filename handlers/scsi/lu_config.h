/* lu_config.h — the handler's cfgstring: "lunlab/key=value;key=value".
 * Parsed here, apart from handler.c, so that check_config and open() share
 * one parser and the unit tests can drive it without a tcmu host. */
#ifndef LUNLAB_LU_CONFIG_H
#define LUNLAB_LU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

struct lu_config {
	char model[32];          /* built-in profile name (default x2) */
	char profile[256];       /* optional profile file path; wins over model */
	char array[64];          /* "" = a private array named after the device */
	char serial[128];        /* "" = LIO's unit serial (wwn), else the uio name */
	double time_scale;       /* >= 0, default 1; time_scale=virtual: cost_time_virtual(N)
	                          * with N = host_streams (models/cost_virtual.h) */
	unsigned host_streams;   /* host_streams=N (virtual clock only), 0 = not given (4) */
	bool host_sessions;      /* host_streams=session: one stream per initiator session
	                          * (models/vsessions.h) */
	bool readonly;           /* readonly=1: every medium write fails with DATA PROTECT */
	unsigned physical_block; /* physical_block=BYTES, 0 = one logical block per physical
	                          * block; checked against the block size when the LU opens */
	int tpgs;                /* tpgs=off|implicit|explicit|both: 0..3; -1 = the profile's */
	char volume[128];        /* volume=NAME: the array's named volume ("" = anonymous);
	                          * needs array= (handlers/array/volume_names.h) */
	uint64_t array_capacity; /* array_capacity=SIZE: the array's physical capacity, 0 = not given */
	int soft_threshold;      /* soft_threshold=PERCENT of the capacity, -1 = not given */
	char state_dir[512];     /* state_dir=DIR: keep the LU's array in DIR (docs/persistence.md);
	                          * "" = in memory */
	bool xtremio_identity;   /* identity=xtremio: INQUIRY says what an XtremIO says (vendor
	                          * "XtremIO", product "XtremApp": the strings REX-Ray and
	                          * multipath-tools' hwtable match); identity=lunlab (default):
	                          * vendor "LUNLAB", product per profile (docs/identity.md) */
};

/* Parse cfgstring (with or without the "lunlab/" prefix) into *c.
 * Returns 0, or -1 with *reason set to a malloc'd one-line message naming
 * the key and the value at fault. Validates model names against the
 * built-in profiles (profile_get). */
int lu_config_parse(const char *cfgstring, struct lu_config *c, char **reason);

/* the keys, for tcmur_handler.cfg_desc and error messages */
extern const char lu_config_desc[];

#endif
