/* xms_ids.h — identities XMS objects carry: 32-hex-digit GUIDs (random,
 * from the kernel's CSPRNG) and the versions lunlab reports as its XMS and
 * cluster software. */
#ifndef LUNLAB_XMS_IDS_H
#define LUNLAB_XMS_IDS_H

#include <stdbool.h>

#define XMS_GUID_LEN 32
/* XMS 6.3: clients pick their newest dialect (Cinder's v4.2 client needs >= 4.2) */
#define XMS_VERSION "6.3.0"
#define XMS_SW_VERSION "6.3.0-58"
#define XMS_SYS_SW_VERSION "6.3.0-58_X2"
#define XMS_RESTAPI_VERSION "3.0"
/* the XMS database of that release; no public source shows its form, but
 * XtremIO.Utils' Connect-XIOServer casts it to [System.Version], which takes
 * only dotted numbers: "6.3.0-58" would make it throw */
#define XMS_DB_VERSION "6.3.0.58"
#ifndef LUNLAB_VERSION_STRING
#define LUNLAB_VERSION_STRING "0.1.0"
#endif

/* a new GUID into out[XMS_GUID_LEN + 1]; false if the kernel gives no random bytes */
bool xms_guid_new(char out[XMS_GUID_LEN + 1]);
/* the management server's own GUID, made once per process */
const char *xms_ids_xms_guid(void);

#endif
