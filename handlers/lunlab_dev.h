/* lunlab_dev.h — one lunlab LU inside the handler, and the per-command context
 * every SCSI module receives.  Shared by handlers/scsi (SPC/SBC), handlers/copy
 * (EXTENDED COPY) and handler.c (the ABI glue). */
#ifndef LUNLAB_DEV_H
#define LUNLAB_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lunlab/tcmu_abi.h"
#include "handlers/array/volume.h"

struct lunlab_profile;
struct cost_model;

struct lunlab_dev {
	struct tcmu_device *tdev;
	struct array *array;
	struct volume *vol;
	const struct lunlab_profile *profile;
	struct cost_model *model;        /* shared by every LU of the array */
	char model_name[32];
	char array_name[64];
	char volume_name[128];           /* the named volume (volume=NAME); "" anonymous */
	char serial[128];                /* unit serial (VPD 0x80) */
	uint8_t naa[16];                 /* NAA IEEE Registered Extended (type 6), VPD 0x83 */
	uint32_t block_size;             /* logical block size, bytes */
	uint64_t num_lbas;
	uint32_t max_xfer_len;           /* blocks */
	bool write_cache;                /* WCE in the caching mode page */
	bool xtremio_identity;           /* identity=xtremio (lu_config.h): INQUIRY's vendor and product */
	struct lunlab_dev *next_by_naa;  /* registry links (registry.c's hash chains) */
	struct lunlab_dev *next_by_tdev;
};

/* Registry of open devices, so EXTENDED COPY can find a CSCD by designator.
 * Only devices of the same array are candidates. Thread safe. */
void lunlab_dev_register(struct lunlab_dev *d);
void lunlab_dev_unregister(struct lunlab_dev *d);
/* Returns the device whose NAA designator equals naa (16 bytes) and whose
 * array is a, or NULL.  The caller holds no lock afterwards: devices are only
 * unregistered from close(), which tcmu hosts never run concurrently with
 * commands of that device. */
struct lunlab_dev *lunlab_dev_find_by_naa(const struct array *a, const uint8_t naa[16]);
/* The open device whose tcmu device is tdev, or NULL (same lifetime rule). */
struct lunlab_dev *lunlab_dev_find_by_tdev(const struct tcmu_device *tdev);

/* One command as the SCSI modules see it. */
struct scsi_cmd {
	struct lunlab_dev *dev;
	const uint8_t *cdb;
	struct iovec *iov;      /* data buffer (Data-Out for writes, Data-In for reads) */
	size_t iov_cnt;
	size_t iov_len;         /* total bytes of iov */
	uint8_t *sense;         /* 96 bytes (tcmulib_cmd.sense_buf) */
	/* Set by the host glue (handler.c) when the host can send a READ's
	 * data in pieces: sbc_read then calls it each time another part of
	 * the buffer, from its start, is final.  NULL: the data goes out when
	 * the command completes. */
	void (*data_progress)(struct scsi_cmd *cmd, size_t final_bytes);
	void *host_ctx;         /* for data_progress */
	/* What sbc_write_early_feed kept while this WRITE's data arrived (the
	 * host's to drop afterwards); NULL: nothing, or not lunlab-target. */
	void *early;
	/* filled by the modules for the cost model */
	uint64_t bytes_moved;   /* data bytes read or written */
	uint64_t xcopy_bytes;   /* logical bytes covered by EXTENDED COPY segments */
	uint32_t xcopy_segments;
	/* set by a module: the command changed a medium whose write cache is
	 * off (an EXTENDED COPY's destination LU), so it completes only once
	 * its changes are durable (scsi_dispatch syncs the array) */
	bool sync_after;
};

#endif
