/* dashboard_assets.h — the dashboard's files, embedded into lunlab-target at
 * build time (target/metrics/dashboard/: the page, its script and style, and
 * uPlot from npm, embed_assets.py). */
#ifndef LUNLAB_DASHBOARD_ASSETS_H
#define LUNLAB_DASHBOARD_ASSETS_H

#include <stddef.h>

struct dashboard_asset {
	const char *name;          /* file name, served as /dashboard/<name> */
	const char *content_type;
	const unsigned char *data;
	size_t len;
};

/* ends with an entry whose name is NULL */
extern const struct dashboard_asset dashboard_assets[];

/* the asset called name, or NULL */
const struct dashboard_asset *dashboard_asset_find(const char *name);

#endif
