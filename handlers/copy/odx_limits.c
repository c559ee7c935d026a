/* odx_limits.c — an LU's ODX limits, from its profile (odx_limits.h). */
#include <string.h>

#include "handlers/copy/odx_limits.h"

bool odx_offered(const struct lunlab_dev *dev)
{
	return dev && dev->profile && dev->profile->odx && dev->block_size;
}

bool odx_limits_of(const struct lunlab_dev *dev, struct odx_limits *out)
{
	memset(out, 0, sizeof(*out));
	if (!odx_offered(dev))
		return false;
	const struct lunlab_profile *p = dev->profile;
	out->offered = true;
	out->max_ranges = p->odx_max_ranges < ODX_RANGES_HARD_MAX ? p->odx_max_ranges : ODX_RANGES_HARD_MAX;
	out->max_token_blocks = p->odx_max_token_bytes / dev->block_size;
	out->default_timeout_s = p->odx_default_timeout_s;
	out->max_timeout_s = p->odx_max_timeout_s;
	out->num_lbas = dev->num_lbas;
	return true;
}
