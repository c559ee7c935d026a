/* api.c — see api.h. */
#include "target/api/api.h"

#include "target/api/api_router.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_resources.h"

static const struct xms_type *const xms_all_types[] = {
	&xms_type_xms,
};

int api_start(const struct api_server_cfg *cfg, char *err, size_t errlen)
{
	if (xms_routes_register(xms_all_types, sizeof(xms_all_types) / sizeof(xms_all_types[0]), err, errlen) < 0)
		return -1;
	if (api_server_start(cfg, err, errlen) < 0) {
		api_routes_clear();
		return -1;
	}
	return 0;
}

void api_stop(void)
{
	api_server_stop();
	api_routes_clear();
}
