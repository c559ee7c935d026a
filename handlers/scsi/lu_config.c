/* lu_config.c — cfgstring parser (see lu_config.h). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/scsi/lu_config.h"
#include "lunlab/errf.h"
#include "lunlab/size_parse.h"
#include "models/cost_virtual.h"
#include "models/profile.h"

const char lu_config_desc[] =
	"lunlab/key=value;... keys: model=x1|x2|fa420|unlimited (default x2), "
	"profile=PATH (profile file, overrides model), array=NAME (LUNs with the same array share one "
	"dedup store; default private), serial=TEXT (unit serial; default LIO's), "
	"time_scale=FLOAT|virtual (>=0; 1 real time, 0 unpaced; virtual: modeled clock, completions at once), "
	"host_streams=N|session (virtual clock: closed-loop host streams, 1..4096, default 4; session: one per "
	"initiator session), readonly=0|1 (write-protected LU), "
	"physical_block=BYTES (power of two, 512..4194304: LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT), "
	"volume=NAME (the array's named volume, kept when the LU closes; needs array=), "
	"array_capacity=SIZE (the array's physical capacity, K/M/G/T suffixes; default the profile's), "
	"soft_threshold=PERCENT (0..100 of the capacity: 06/38/07 when use reaches it; 0 none), "
	"tpgs=off|implicit|explicit|both (ALUA the LU reports; default the profile's), "
	"state_dir=DIR (keep the array's data, volumes and accounting in DIR across restarts), "
	"identity=lunlab|xtremio (what INQUIRY says: LUNLAB's or an XtremIO's vendor and product; default lunlab)";

#define KNOWN_KEYS \
	"model, profile, array, serial, time_scale, host_streams, readonly, physical_block, volume, " \
	"array_capacity, soft_threshold, tpgs, state_dir, identity"

/* array_capacity: 1 MiB .. 1 EiB */
#define CAPACITY_MIN (1ull << 20)
#define CAPACITY_MAX (1ull << 60)

/* the calibration host: 2 clones at a time x 2 XCOPY outstanding (docs/models.md "Host side") */
#define VIRTUAL_STREAMS_DEFAULT 4u

static bool name_ok(const char *v)
{
	if (!*v)
		return false;
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

static bool printable(const char *v)
{
	for (const char *p = v; *p; p++)
		if (*p < 0x21 || *p > 0x7e)
			return false;
	return *v != 0;
}

static bool volume_name_valid(const char *v, size_t max)
{
	size_t n = strlen(v);

	if (n == 0 || n >= max)
		return false;
	for (const char *p = v; *p; p++)
		if (*p < 0x21 || *p > 0x7e || strchr(";,/=", *p))
			return false;
	return true;
}

static int builtin_list(char *buf, size_t len)
{
	const char *const *n = profile_builtin_names();
	size_t p = 0;

	buf[0] = 0;
	for (; n && *n; n++) {
		int w = snprintf(buf + p, len - p, "%s%s", p ? ", " : "", *n);
		if (w < 0 || (size_t)w >= len - p)
			break;
		p += (size_t)w;
	}
	return 0;
}

static int set_key(struct lu_config *c, const char *key, const char *val, char **reason)
{
	if (strcmp(key, "model") == 0) {
		char *err = NULL;
		if (strlen(val) >= sizeof(c->model) || !name_ok(val) || !profile_get(val, &err)) {
			char names[128];
			builtin_list(names, sizeof(names));
			free(err);
			return ll_strerrf(reason, "model '%s': unknown profile (%s)", val, names);
		}
		strcpy(c->model, val);
	} else if (strcmp(key, "profile") == 0) {
		char *err = NULL;
		if (strlen(val) >= sizeof(c->profile) || !*val)
			return ll_strerrf(reason, "profile '%s': path empty or too long", val);
		if (!profile_get(val, &err)) {
			int r = ll_strerrf(reason, "profile '%s': %s", val, err ? err : "cannot be loaded");
			free(err);
			return r;
		}
		strcpy(c->profile, val);
	} else if (strcmp(key, "array") == 0) {
		if (strlen(val) >= sizeof(c->array) || !name_ok(val))
			return ll_strerrf(reason, "array '%s': want 1..%zu of [A-Za-z0-9._-]", val, sizeof(c->array) - 1);
		strcpy(c->array, val);
	} else if (strcmp(key, "serial") == 0) {
		if (strlen(val) >= sizeof(c->serial) || !printable(val))
			return ll_strerrf(reason, "serial '%s': want 1..%zu printable ASCII characters", val,
				    sizeof(c->serial) - 1);
		strcpy(c->serial, val);
	} else if (strcmp(key, "time_scale") == 0) {
		char *end = NULL;
		double v = strtod(val, &end);
		if (strcmp(val, "virtual") == 0) {
			c->time_scale = cost_time_virtual(VIRTUAL_STREAMS_DEFAULT); /* N fixed at the end */
			return 0;
		}
		if (!*val || *end || !isfinite(v) || v < 0)
			return ll_strerrf(reason, "time_scale '%s': want a number >= 0 or 'virtual'", val);
		c->time_scale = v;
	} else if (strcmp(key, "host_streams") == 0 && strcmp(val, "session") == 0) {
		c->host_sessions = true;
		c->host_streams = 1; /* the pooled heap is unused; 1 keeps the checks below */
	} else if (strcmp(key, "host_streams") == 0) {
		char *end = NULL;
		unsigned long v = strtoul(val, &end, 10);
		if (!*val || *end || val[0] == '-' || v < 1 || v > COST_VIRTUAL_STREAMS_MAX)
			return ll_strerrf(reason, "host_streams '%s': want 1..%u or session", val, COST_VIRTUAL_STREAMS_MAX);
		c->host_streams = (unsigned)v;
	} else if (strcmp(key, "identity") == 0) {
		if (strcmp(val, "lunlab") != 0 && strcmp(val, "xtremio") != 0)
			return ll_strerrf(reason, "identity '%s': want lunlab or xtremio", val);
		c->xtremio_identity = val[0] == 'x';
	} else if (strcmp(key, "readonly") == 0) {
		if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
			return ll_strerrf(reason, "readonly '%s': want 0 or 1", val);
		c->readonly = val[0] == '1';
	} else if (strcmp(key, "physical_block") == 0) {
		/* the READ CAPACITY(16) exponent is 4 bits: at most 2^15 logical
		 * blocks per physical block; the upper bound keeps any block size
		 * well inside it */
		char *end = NULL;
		unsigned long v = strtoul(val, &end, 10);
		if (!*val || *end || val[0] == '-' || v < 512 || v > (4ul << 20) || (v & (v - 1)))
			return ll_strerrf(reason, "physical_block '%s': want a power of two from 512 to 4194304", val);
		c->physical_block = (unsigned)v;
	} else if (strcmp(key, "tpgs") == 0) {
		static const char *const names[] = { "off", "implicit", "explicit", "both" };
		c->tpgs = -1;
		for (int i = 0; i < 4; i++)
			if (strcmp(val, names[i]) == 0)
				c->tpgs = i;
		if (c->tpgs < 0)
			return ll_strerrf(reason, "tpgs '%s': want off, implicit, explicit or both", val);
	} else if (strcmp(key, "volume") == 0) {
		if (!volume_name_valid(val, sizeof(c->volume)))
			return ll_strerrf(reason, "volume '%s': want 1..%zu printable characters other than space ; , / =", val,
				    sizeof(c->volume) - 1);
		strcpy(c->volume, val);
	} else if (strcmp(key, "array_capacity") == 0) {
		uint64_t v;
		if (!ll_size_parse(val, 0, &v) || v < CAPACITY_MIN || v > CAPACITY_MAX)
			return ll_strerrf(reason, "array_capacity '%s': want a size from 1M to 1048576T (K/M/G/T suffixes)",
				    val);
		c->array_capacity = v;
	} else if (strcmp(key, "soft_threshold") == 0) {
		char *end = NULL;
		unsigned long v = strtoul(val, &end, 10);
		if (!isdigit((unsigned char)val[0]) || (*end && strcmp(end, "%") != 0) || v > 100)
			return ll_strerrf(reason, "soft_threshold '%s': want a percentage of the capacity, 0..100 (0: none)",
				    val);
		c->soft_threshold = (int)v;
	} else if (strcmp(key, "state_dir") == 0) {
		/* an absolute path, so every LU of an array names the same one
		 * whatever the host's working directory */
		if (val[0] != '/' || strlen(val) >= sizeof(c->state_dir) || !printable(val))
			return ll_strerrf(reason, "state_dir '%s': want an absolute path of printable characters, "
				    "shorter than %zu", val, sizeof(c->state_dir));
		strcpy(c->state_dir, val);
	} else {
		return ll_strerrf(reason, "unknown key '%s' (known: " KNOWN_KEYS ")", key);
	}
	return 0;
}

int lu_config_parse(const char *cfgstring, struct lu_config *c, char **reason)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->model, "x2");
	c->time_scale = 1.0;
	c->tpgs = -1;
	c->soft_threshold = -1;
	if (reason)
		*reason = NULL;
	if (!cfgstring)
		return 0;

	const char *s = cfgstring;
	const char *slash = strchr(s, '/');
	if (slash) {
		if ((size_t)(slash - s) != strlen("lunlab") || strncmp(s, "lunlab", 6) != 0)
			return ll_strerrf(reason, "cfgstring '%s': subtype must be 'lunlab'", cfgstring);
		s = slash + 1;
	}
	char *copy = strdup(s);
	if (!copy)
		return ll_strerrf(reason, "out of memory");
	int rc = 0;
	char *save = NULL;
	for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		if (!*item)
			continue;
		char *eq = strchr(item, '=');
		if (!eq) {
			rc = ll_strerrf(reason, "'%s': want key=value (known keys: " KNOWN_KEYS ")", item);
			break;
		}
		*eq = 0;
		if ((rc = set_key(c, item, eq + 1, reason)) != 0)
			break;
	}
	free(copy);
	if (rc == 0 && c->volume[0] && !c->array[0])
		return ll_strerrf(reason, "volume '%s': needs array=NAME (a named volume lives in a named array)", c->volume);
	if (rc == 0 && c->host_streams) {
		if (!cost_time_virtual_streams(c->time_scale))
		{
			if (c->host_sessions)
				return ll_strerrf(reason, "host_streams 'session': only with time_scale=virtual");
			return ll_strerrf(reason, "host_streams '%u': only with time_scale=virtual", c->host_streams);
		}
		c->time_scale = cost_time_virtual(c->host_streams);
	}
	return rc;
}
