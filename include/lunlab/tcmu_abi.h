/* tcmu_abi.h — lunlab's own declarations of the tcmu-runner 1.5.4 handler ABI.
 *
 * Written from the interface facts (struct layouts, offsets, symbol names) of
 * Debian 12's tcmu-runner/libtcmu, not copied from their sources.  Layouts are
 * the ABI: the static assertions at the bottom pin every offset the facts give,
 * so a handler built against this header loads in the real tcmu-runner and the
 * embedded host (target/tcmu/) alike.
 *
 * Both sides include this file: handlers/ calls these functions, target/tcmu/
 * defines them (exported from lunlab-target with -rdynamic). */
#ifndef LUNLAB_TCMU_ABI_H
#define LUNLAB_TCMU_ABI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

struct tcmu_device; /* opaque: owned by the host */

/* Status codes a handler returns (or passes to tcmur_cmd_complete). */
enum {
	TCMU_STS_ASYNC_HANDLED = -2,
	TCMU_STS_NOT_HANDLED = -1,
	TCMU_STS_OK = 0,
	TCMU_STS_NO_RESOURCE = 1,
	TCMU_STS_PASSTHROUGH_ERR = 2,
	TCMU_STS_BUSY = 3,
	TCMU_STS_WR_ERR = 4,
	TCMU_STS_RD_ERR = 5,
	TCMU_STS_MISCOMPARE = 6,
	TCMU_STS_INVALID_CMD = 7,
	TCMU_STS_INVALID_CDB = 8,
	TCMU_STS_INVALID_PARAM_LIST = 9,
	TCMU_STS_INVALID_PARAM_LIST_LEN = 10,
	TCMU_STS_TIMEOUT = 11,
	TCMU_STS_FENCED = 12,
	TCMU_STS_HW_ERR = 13,
	TCMU_STS_RANGE = 14,
	TCMU_STS_FRMT_IN_PROGRESS = 15,
	TCMU_STS_CAPACITY_CHANGED = 16,
	TCMU_STS_NOTSUPP_SAVE_PARAMS = 17,
	TCMU_STS_WR_ERR_INCOMPAT_FRMT = 18,
	TCMU_STS_TRANSITION = 19,
	TCMU_STS_IMPL_TRANSITION_ERR = 20,
	TCMU_STS_EXPL_TRANSITION_ERR = 21,
	TCMU_STS_NO_LOCK_HOLDERS = 22,
	TCMU_STS_NOTSUPP_SEG_DESC_TYPE = 23,
	TCMU_STS_NOTSUPP_TGT_DESC_TYPE = 24,
	TCMU_STS_CP_TGT_DEV_NOTCONN = 25,
	TCMU_STS_INVALID_CP_TGT_DEV_TYPE = 26,
	TCMU_STS_TOO_MANY_SEG_DESC = 27,
	TCMU_STS_TOO_MANY_TGT_DESC = 28,
};

#define TCMU_SENSE_BUFFERSIZE 96

struct tcmulib_cmd {
	uint16_t cmd_id;                       /* @0 */
	uint8_t *cdb;                          /* @8 */
	struct iovec *iovec;                   /* @16 */
	size_t iov_cnt;                        /* @24 */
	uint8_t sense_buf[TCMU_SENSE_BUFFERSIZE]; /* @32 */
	void *hm_private;                      /* @128: the tcmur_cmd */
};

struct tcmur_cmd {
	struct tcmulib_cmd *lib_cmd;           /* @0 */
	struct iovec *iovec;                   /* @8 */
	size_t iov_cnt;                        /* @16 */
	void *iov_base_copy;                   /* @24 */
	void *cmd_state;                       /* @32 */
	size_t requested;                      /* @40 */
	struct { void *next, *prev; } cmds_list_entry; /* @48 */
	struct timespec start_time;            /* @64 */
	bool timed_out;                        /* @80 */
	void (*done)(struct tcmu_device *, struct tcmur_cmd *, int); /* @88 */
};

enum tcmulib_cfg_type { TCMULIB_CFG_DEV_CFGSTR = 0, TCMULIB_CFG_DEV_SIZE, TCMULIB_CFG_WRITE_CACHE };

struct tcmulib_cfg_info {
	enum tcmulib_cfg_type type;
	union {
		uint64_t dev_size;
		char *dev_cfgstring;
		bool write_cache;
	} data;
};

typedef int (*tcmur_rw_fn_t)(struct tcmu_device *, struct tcmur_cmd *, struct iovec *, size_t, size_t, off_t);

struct tcmur_handler {
	const char *name;                                                    /* @0 */
	const char *subtype;                                                 /* @8 */
	const char *cfg_desc;                                                /* @16 */
	void *opaque;                                                        /* @24 */
	bool (*check_config)(const char *cfgstring, char **reason);          /* @32 */
	int (*reconfig)(struct tcmu_device *, struct tcmulib_cfg_info *);    /* @40 */
	int (*open)(struct tcmu_device *, bool reopen);                      /* @48 */
	void (*close)(struct tcmu_device *);                                 /* @56 */
	int nr_threads;                                                      /* @64 */
	int (*handle_cmd)(struct tcmu_device *, struct tcmur_cmd *);         /* @72 */
	tcmur_rw_fn_t read;                                                  /* @80 */
	tcmur_rw_fn_t write;                                                 /* @88 */
	int (*flush)(struct tcmu_device *, struct tcmur_cmd *);              /* @96 */
	int (*unmap)(struct tcmu_device *, struct tcmur_cmd *, uint64_t, uint64_t); /* @104 */
	int (*writesame)(struct tcmu_device *, struct tcmur_cmd *, uint64_t, uint64_t, struct iovec *, size_t); /* @112 */
	int (*caw)(struct tcmu_device *, struct tcmur_cmd *, uint64_t, uint64_t, struct iovec *, size_t);       /* @120 */
	int (*report_event)(struct tcmu_device *);                           /* @128 */
	int (*lock)(struct tcmu_device *, uint16_t tag);                     /* @136 */
	int (*unlock)(struct tcmu_device *);                                 /* @144 */
	int (*get_lock_tag)(struct tcmu_device *, uint16_t *tag);            /* @152 */
	int (*get_lock_state)(struct tcmu_device *);                         /* @160 */
	bool _is_dbus_handler;                                               /* @168 */
	bool (*update_logdir)(void);                                         /* @176 */
	int (*init)(void);                                                   /* @184 */
	void (*destroy)(void);                                               /* @192 */
};

#if defined(__x86_64__)
_Static_assert(sizeof(struct tcmulib_cmd) == 136, "tcmulib_cmd size");
_Static_assert(offsetof(struct tcmulib_cmd, sense_buf) == 32, "sense_buf offset");
_Static_assert(offsetof(struct tcmulib_cmd, hm_private) == 128, "hm_private offset");
_Static_assert(sizeof(struct tcmur_cmd) == 96, "tcmur_cmd size");
_Static_assert(offsetof(struct tcmur_cmd, cmd_state) == 32, "cmd_state offset");
_Static_assert(offsetof(struct tcmur_cmd, requested) == 40, "requested offset");
_Static_assert(offsetof(struct tcmur_cmd, start_time) == 64, "start_time offset");
_Static_assert(offsetof(struct tcmur_cmd, done) == 88, "done offset");
_Static_assert(sizeof(struct tcmur_handler) == 200, "tcmur_handler size");
_Static_assert(offsetof(struct tcmur_handler, nr_threads) == 64, "nr_threads offset");
_Static_assert(offsetof(struct tcmur_handler, handle_cmd) == 72, "handle_cmd offset");
_Static_assert(offsetof(struct tcmur_handler, _is_dbus_handler) == 168, "dbus offset");
_Static_assert(offsetof(struct tcmur_handler, destroy) == 192, "destroy offset");
#endif

/* ---- exported by the tcmu-runner executable (and by lunlab-target) ---- */
int tcmur_register_handler(struct tcmur_handler *handler);
void tcmur_dev_set_private(struct tcmu_device *dev, void *priv);
void *tcmur_dev_get_private(struct tcmu_device *dev);
void tcmur_cmd_complete(struct tcmu_device *dev, void *tcmur_cmd, int rc);
int tcmur_dev_update_size(struct tcmu_device *dev, uint64_t new_size);
void tcmu_notify_lock_lost(struct tcmu_device *dev);
void tcmu_notify_conn_lost(struct tcmu_device *dev);
void tcmu_notify_cmd_timed_out(struct tcmu_device *dev);

/* ---- exported by libtcmu.so.2 (and by lunlab-target) ---- */
char *tcmu_dev_get_cfgstring(struct tcmu_device *dev);
void tcmu_dev_set_block_size(struct tcmu_device *dev, uint32_t block_size);
uint32_t tcmu_dev_get_block_size(struct tcmu_device *dev);
uint64_t tcmu_lba_to_byte(struct tcmu_device *dev, uint64_t lba);
uint64_t tcmu_byte_to_lba(struct tcmu_device *dev, uint64_t byte);
void tcmu_dev_set_num_lbas(struct tcmu_device *dev, uint64_t num_lbas);
uint64_t tcmu_dev_get_num_lbas(struct tcmu_device *dev);
void tcmu_dev_set_max_xfer_len(struct tcmu_device *dev, uint32_t len);
uint32_t tcmu_dev_get_max_xfer_len(struct tcmu_device *dev);
void tcmu_dev_set_opt_xcopy_rw_len(struct tcmu_device *dev, uint32_t len);
uint32_t tcmu_dev_get_opt_xcopy_rw_len(struct tcmu_device *dev);
void tcmu_dev_set_max_unmap_len(struct tcmu_device *dev, uint32_t len);
uint32_t tcmu_dev_get_max_unmap_len(struct tcmu_device *dev);
void tcmu_dev_set_opt_unmap_gran(struct tcmu_device *dev, uint32_t len, bool split);
uint32_t tcmu_dev_get_opt_unmap_gran(struct tcmu_device *dev);
void tcmu_dev_set_unmap_gran_align(struct tcmu_device *dev, uint32_t len);
uint32_t tcmu_dev_get_unmap_gran_align(struct tcmu_device *dev);
void tcmu_dev_set_write_cache_enabled(struct tcmu_device *dev, bool enabled);
bool tcmu_dev_get_write_cache_enabled(struct tcmu_device *dev);
void tcmu_dev_set_solid_state_media(struct tcmu_device *dev, bool solid_state);
bool tcmu_dev_get_solid_state_media(struct tcmu_device *dev);
void tcmu_dev_set_unmap_enabled(struct tcmu_device *dev, bool enabled);
bool tcmu_dev_get_unmap_enabled(struct tcmu_device *dev);
const char *tcmu_dev_get_uio_name(struct tcmu_device *dev);
void tcmu_set_thread_name(const char *prefix, struct tcmu_device *dev);
char *tcmu_cfgfs_dev_get_wwn(struct tcmu_device *dev);
/* configfs attrib/<name> as an int, -errno if unknown */
int tcmu_cfgfs_dev_get_attr_int(struct tcmu_device *dev, const char *name);
/* returns the value; *fn_ret = 0 or -errno (upstream: 0 and -EINVAL when the name is absent) */
uint64_t tcmu_cfgfs_dev_get_info_u64(struct tcmu_device *dev, const char *name, int *fn_ret);

size_t tcmu_iovec_length(struct iovec *iovec, size_t iov_cnt);
size_t tcmu_memcpy_into_iovec(struct iovec *iovec, size_t iov_cnt, void *src, size_t len);
size_t tcmu_memcpy_from_iovec(void *dest, size_t len, struct iovec *iovec, size_t iov_cnt);
off_t tcmu_iovec_compare(void *mem, struct iovec *iovec, size_t size);
size_t tcmu_iovec_seek(struct iovec *iovec, size_t count); /* returns iovecs fully consumed */
void tcmu_iovec_zero(struct iovec *iovec, size_t iov_cnt);
bool tcmu_iovec_zeroed(struct iovec *iovec, size_t iov_cnt);

int tcmu_cdb_get_length(uint8_t *cdb);
uint64_t tcmu_cdb_get_lba(uint8_t *cdb);
uint32_t tcmu_cdb_get_xfer_length(uint8_t *cdb);
uint64_t tcmu_cdb_to_byte(struct tcmu_device *dev, uint8_t *cdb);

struct tcmulib_cmd;
void tcmu_cmd_seek(struct tcmulib_cmd *cmd, size_t count); /* seek + iov_cnt update */

int tcmu_sense_set_data(uint8_t *sense_buf, uint8_t key, uint16_t asc_ascq);
void tcmu_sense_set_info(uint8_t *sense_buf, uint32_t info);
void tcmu_sense_set_key_specific_info(uint8_t *sense_buf, uint16_t info);
/* key + ASC/ASCQ without clearing the buffer (keeps INFORMATION / SKS set
 * before with the two functions above, which clear the first 18 bytes) */
void __tcmu_sense_set_data(uint8_t *sense_buf, uint8_t key, uint16_t asc_ascq);
/* the CDB in hex (+ info) as a debug log line */
void tcmu_cdb_print_info(struct tcmu_device *dev, const struct tcmulib_cmd *cmd, const char *info);

void tcmu_crit_message(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tcmu_err_message(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tcmu_warn_message(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tcmu_info_message(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tcmu_dbg_message(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tcmu_dbg_scsi_cmd_message(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define tcmu_dev_crit(dev, ...) tcmu_crit_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_err(dev, ...) tcmu_err_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_warn(dev, ...) tcmu_warn_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_info(dev, ...) tcmu_info_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_dbg(dev, ...) tcmu_dbg_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_dbg_scsi_cmd(dev, ...) tcmu_dbg_scsi_cmd_message(dev, __func__, __LINE__, __VA_ARGS__)

#endif
