/* xms_ids.c — see xms_ids.h. */
#include "target/api/xms_ids.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "target/iscsi/auth_crypto.h"

bool xms_guid_new(char out[XMS_GUID_LEN + 1])
{
	uint8_t b[XMS_GUID_LEN / 2];

	if (!auth_random(b, sizeof(b)))
		return false;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return true;
}

static char xms_guid[XMS_GUID_LEN + 1];
static pthread_once_t xms_once = PTHREAD_ONCE_INIT;

static void make_xms_guid(void)
{
	if (!xms_guid_new(xms_guid))
		snprintf(xms_guid, sizeof(xms_guid), "%032x", 1u);
}

const char *xms_ids_xms_guid(void)
{
	pthread_once(&xms_once, make_xms_guid);
	return xms_guid;
}
