/* device_attrs.c — the tcmu_dev_* accessors and the configfs look-ups a
 * handler may call.  In tcmu-runner these read what LIO wrote into configfs;
 * here the same values come from struct tcmu_host_dev_cfg. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/tcmu/host_priv.h"

char *tcmu_dev_get_cfgstring(struct tcmu_device *dev) { return dev->cfgstring; }

void tcmu_dev_set_block_size(struct tcmu_device *dev, uint32_t block_size)
{
	dev->block_size = block_size;
	dev->be.block_size = block_size;
}

uint32_t tcmu_dev_get_block_size(struct tcmu_device *dev) { return dev->block_size; }

void tcmu_dev_set_num_lbas(struct tcmu_device *dev, uint64_t num_lbas)
{
	atomic_store(&dev->num_lbas, num_lbas);
	dev->be.num_lbas = num_lbas;
}

uint64_t tcmu_dev_get_num_lbas(struct tcmu_device *dev) { return atomic_load(&dev->num_lbas); }

/* upstream shifts by log2(block size); a division gives the same result for
 * the power-of-two sizes LIO allows and cannot misbehave on others */
uint64_t tcmu_lba_to_byte(struct tcmu_device *dev, uint64_t lba) { return lba * dev->block_size; }

uint64_t tcmu_byte_to_lba(struct tcmu_device *dev, uint64_t byte)
{
	return dev->block_size ? byte / dev->block_size : 0;
}

uint64_t tcmu_cdb_to_byte(struct tcmu_device *dev, uint8_t *cdb)
{
	return tcmu_lba_to_byte(dev, tcmu_cdb_get_lba(cdb));
}

void tcmu_dev_set_max_xfer_len(struct tcmu_device *dev, uint32_t len) { dev->max_xfer_len = len; }
uint32_t tcmu_dev_get_max_xfer_len(struct tcmu_device *dev) { return dev->max_xfer_len; }
void tcmu_dev_set_opt_xcopy_rw_len(struct tcmu_device *dev, uint32_t len) { dev->opt_xcopy_rw_len = len; }
uint32_t tcmu_dev_get_opt_xcopy_rw_len(struct tcmu_device *dev) { return dev->opt_xcopy_rw_len; }
void tcmu_dev_set_max_unmap_len(struct tcmu_device *dev, uint32_t len) { dev->max_unmap_len = len; }
uint32_t tcmu_dev_get_max_unmap_len(struct tcmu_device *dev) { return dev->max_unmap_len; }

void tcmu_dev_set_opt_unmap_gran(struct tcmu_device *dev, uint32_t len, bool split)
{
	dev->opt_unmap_gran = len;
	dev->split_unmaps = split;
}

uint32_t tcmu_dev_get_opt_unmap_gran(struct tcmu_device *dev) { return dev->opt_unmap_gran; }
void tcmu_dev_set_unmap_gran_align(struct tcmu_device *dev, uint32_t len) { dev->unmap_gran_align = len; }
uint32_t tcmu_dev_get_unmap_gran_align(struct tcmu_device *dev) { return dev->unmap_gran_align; }
void tcmu_dev_set_write_cache_enabled(struct tcmu_device *dev, bool enabled) { dev->write_cache = enabled; }
bool tcmu_dev_get_write_cache_enabled(struct tcmu_device *dev) { return dev->write_cache; }
void tcmu_dev_set_solid_state_media(struct tcmu_device *dev, bool solid_state) { dev->solid_state = solid_state; }
bool tcmu_dev_get_solid_state_media(struct tcmu_device *dev) { return dev->solid_state; }
void tcmu_dev_set_unmap_enabled(struct tcmu_device *dev, bool enabled) { dev->unmap_enabled = enabled; }
bool tcmu_dev_get_unmap_enabled(struct tcmu_device *dev) { return dev->unmap_enabled; }
const char *tcmu_dev_get_uio_name(struct tcmu_device *dev) { return dev->uio_name; }

void tcmu_set_thread_name(const char *prefix, struct tcmu_device *dev)
{
	/* "<prefix>-<uio name>", cut to the 15 characters Linux keeps */
	char full[128];

	if (!prefix)
		return;
	if (dev)
		snprintf(full, sizeof(full), "%s-%s", prefix, dev->uio_name);
	else
		snprintf(full, sizeof(full), "%s", prefix);
	full[15] = 0;
	pthread_setname_np(pthread_self(), full);
}

char *tcmu_cfgfs_dev_get_wwn(struct tcmu_device *dev)
{
	/* LIO: wwn/vpd_unit_serial; absent -> NULL (and no NAA designator) */
	if (!dev->wwn || !dev->wwn[0])
		return NULL;
	return strdup(dev->wwn);
}

uint64_t tcmu_cfgfs_dev_get_info_u64(struct tcmu_device *dev, const char *name, int *fn_ret)
{
	/* the numeric fields of LIO's info file for a TCMU device, matched
	 * case-sensitively as upstream's strstr(" Name: ") does */
	uint64_t v;

	if (name && strcmp(name, "Size") == 0)
		v = atomic_load(&dev->size_bytes);
	else if (name && strcmp(name, "SectorSize") == 0)
		v = dev->block_size;
	else if (name && strcmp(name, "HwMaxSectors") == 0)
		v = dev->max_xfer_len;
	else
		goto unknown;
	if (fn_ret)
		*fn_ret = 0;
	return v;
unknown:
	tcmu_err_message(dev, __func__, __LINE__, "no device info field \"%s\"", name ? name : "(null)");
	if (fn_ret)
		*fn_ret = -EINVAL;
	return 0;
}

int tcmu_cfgfs_dev_get_attr_int(struct tcmu_device *dev, const char *name)
{
	/* the attributes LIO shows a TCMU device that have a meaning here */
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "hw_block_size") || !strcmp(name, "block_size"))
		return (int)dev->block_size;
	if (!strcmp(name, "hw_max_sectors") || !strcmp(name, "max_sectors"))
		return (int)dev->max_xfer_len;
	if (!strcmp(name, "emulate_write_cache"))
		return dev->write_cache ? 1 : 0;
	tcmu_err_message(dev, __func__, __LINE__, "no device attribute \"%s\"", name);
	return -ENOENT;
}

void tcmur_dev_set_private(struct tcmu_device *dev, void *priv) { dev->hpriv = priv; }
void *tcmur_dev_get_private(struct tcmu_device *dev) { return dev->hpriv; }

int tcmur_dev_update_size(struct tcmu_device *dev, uint64_t new_size)
{
	if (!new_size || !dev->block_size)
		return -EINVAL;
	atomic_store(&dev->size_bytes, new_size);
	tcmu_dev_set_num_lbas(dev, new_size / dev->block_size);
	/* like the runner: the next command (not INQUIRY/REQUEST SENSE) gets
	 * UNIT ATTENTION CAPACITY DATA HAS CHANGED */
	atomic_fetch_or(&dev->pending_ua, HOST_UA_CAPACITY_CHANGED);
	return 0;
}

/* There is no cluster lock nor kernel connection to lose inside lunlab;
 * handlers that report such events get a log line. */
void tcmu_notify_lock_lost(struct tcmu_device *dev)
{
	tcmu_warn_message(dev, __func__, __LINE__, "handler reports the device lock was lost");
}

void tcmu_notify_conn_lost(struct tcmu_device *dev)
{
	tcmu_warn_message(dev, __func__, __LINE__, "handler reports its backend connection was lost");
}

void tcmu_notify_cmd_timed_out(struct tcmu_device *dev)
{
	tcmu_warn_message(dev, __func__, __LINE__, "handler reports a command timed out");
}

/* host_ext.h: the ALUA the handler's LU reports; the target core does the
 * rest from lu_backend.tpgs (target/lu/alua.h) */
void host_ext_dev_set_tpgs(struct tcmu_device *dev, unsigned tpgs)
{
	if (dev)
		dev->be.tpgs = (uint8_t)(tpgs & 3u);
}
