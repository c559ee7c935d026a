/* handler_hosttest.c — a tiny tcmu-runner handler used only by the host's
 * unit tests.  It registers two subtypes: "hosttest" (nr_threads 2) and
 * "hosttest0" (nr_threads 0, handle_cmd runs inline).  Vendor-specific
 * opcodes drive it:
 *   0xC0 sts [preset]    return TCMU_STS_(int8)sts; preset 1: scribble 0xAA over
 *                        the sense buffer first; preset 2: the handler's own
 *                        sense (PASSTHROUGH_ERR) / INFORMATION (MISCOMPARE) /
 *                        progress (FRMT_IN_PROGRESS) as a real handler does
 *   0xC1 sts ms          complete asynchronously from a new thread after ms
 *   0xC2                 store the Data-Out (consumed with memcpy_from_iovec)
 *   0xC3                 return the stored bytes as Data-In
 *   0xC4                 Data-In: a text line describing the device
 *   0xC5 <lba:be32@2>    tcmur_dev_update_size(dev, lba * block size)
 *   0xC6                 Data-In: the calling thread's name
 *   0xC7 ms              block the worker for ms milliseconds, then GOOD; ms 0: until
 *                        the test lets it go (hosttest_release), so that "both
 *                        workers are busy" holds however late the test runs
 *   0xC8 ms              fill the Data-In with 0x5A, call cmd_data_ready
 *                        (twice: the host forwards once), complete GOOD after ms
 *   0xC9 ready           fill the Data-In with 0x6B a quarter at a time, calling
 *                        cmd_data_progress after each quarter but the
 *                        last, then once with twice the length; ready 1: also
 *                        cmd_data_ready, then progress again; GOOD
 * cfgstring key inline=1: open() installs an inline predicate
 * (dev_set_inline) that accepts TEST UNIT READY, 0xC0, 0xC2,
 * 0xC3 and 0xC6 with at most HT_INLINE_MAX bytes of data, nothing else.
 * cfgstring key early=1: open() installs a data_arrived hook
 * (dev_set_data_arrived) whose state counts its calls and the
 * last byte count; 0xC2 records what cmd_early shows it, read
 * with hosttest_early(), which also counts the states dropped.
 * Counters are read by the tests through hosttest_counters(). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lunlab/host_ext.h"
#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"

/* lunlab-target only: its extension contract, found with the one lookup a
 * handler that also runs under tcmu-runner makes (include/lunlab/host_ext.h);
 * NULL there.  Set by handler_init, read-only afterwards. */
static const struct lunlab_host_ops *host;

#define HT_INLINE_MAX 1024

int handler_init(void);
void hosttest_counters(int *opens, int *closes, int *inits, int *destroys);
int hosttest_busy(void);
void hosttest_release(unsigned n);
void hosttest_early(unsigned *seen_calls, size_t *seen_last, int *drops);

static atomic_int n_open, n_close, n_init, n_destroy, n_busy;

/* early=1: the state data_arrived keeps for one command */
struct ht_early {
	unsigned calls;
	size_t last;
};

static atomic_uint early_seen_calls;
static atomic_size_t early_seen_last;
static atomic_int early_drops;

void hosttest_early(unsigned *seen_calls, size_t *seen_last, int *drops)
{
	*seen_calls = atomic_load(&early_seen_calls);
	*seen_last = atomic_load(&early_seen_last);
	*drops = atomic_load(&early_drops);
}

static void ht_arrived(struct tcmu_device *dev, const uint8_t *cdb, const struct iovec *iov, size_t iovcnt,
		       size_t bytes, void **state)
{
	struct ht_early *e = *state;

	(void)dev, (void)iov, (void)iovcnt;
	if (cdb[0] != 0xC2)
		return;
	if (!e && !(e = calloc(1, sizeof(*e))))
		return;
	e->calls++;
	e->last = bytes;
	*state = e;
}

static void ht_early_drop(void *state)
{
	atomic_fetch_add(&early_drops, 1);
	free(state);
}

/* commands currently blocked in 0xC7 */
int hosttest_busy(void) { return atomic_load(&n_busy); }

/* the gate of 0xC7 0: each release lets one blocked (or future) command go */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static unsigned gate_tokens;

void hosttest_release(unsigned n)
{
	pthread_mutex_lock(&gate_mu);
	gate_tokens += n;
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_mu);
}

static void gate_pass(void)
{
	pthread_mutex_lock(&gate_mu);
	while (!gate_tokens)
		pthread_cond_wait(&gate_cv, &gate_mu);
	gate_tokens--;
	pthread_mutex_unlock(&gate_mu);
}

void hosttest_counters(int *opens, int *closes, int *inits, int *destroys)
{
	*opens = atomic_load(&n_open);
	*closes = atomic_load(&n_close);
	*inits = atomic_load(&n_init);
	*destroys = atomic_load(&n_destroy);
}

struct ht_dev {
	unsigned char store[4096];
	size_t stored;
};

/* keys: name=TEXT, fail_open=0|1, inline=1; anything else is refused by name */
static bool ht_check_config(const char *cfgstring, char **reason)
{
	const char *p = strchr(cfgstring, '/');

	p = p ? p + 1 : cfgstring;
	while (*p) {
		size_t klen = strcspn(p, "=;");

		if (klen == 9 && !strncmp(p, "multiline", 9)) {
			/* a reason spread over lines: the host must make it one */
			*reason = strdup("multiline\nis refused\n");
			return false;
		}
		if (!((klen == 4 && !strncmp(p, "name", 4)) || (klen == 9 && !strncmp(p, "fail_open", 9)) ||
		      (klen == 6 && !strncmp(p, "inline", 6)) || (klen == 5 && !strncmp(p, "early", 5)))) {
			if (asprintf(reason, "unknown key '%.*s'", (int)klen, p) < 0)
				*reason = NULL;
			return false;
		}
		p += strcspn(p, ";");
		if (*p == ';')
			p++;
	}
	return true;
}

static bool ht_may_inline(struct tcmu_device *dev, const uint8_t *cdb, size_t data_len)
{
	(void)dev;
	switch (cdb[0]) {
	case SCSI_OP_TEST_UNIT_READY: case 0xC0: case 0xC2: case 0xC3: case 0xC6:
		return data_len <= HT_INLINE_MAX;
	default:
		return false;
	}
}

static int ht_open(struct tcmu_device *dev, bool reopen)
{
	(void)reopen;
	atomic_fetch_add(&n_open, 1);
	if (strstr(tcmu_dev_get_cfgstring(dev), "fail_open=1"))
		return -EIO;
	struct ht_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	tcmur_dev_set_private(dev, d);
	tcmu_dev_set_write_cache_enabled(dev, true);
	tcmu_dev_set_unmap_gran_align(dev, 1);
	if (strstr(tcmu_dev_get_cfgstring(dev), "inline=1") && host)
		host->dev_set_inline(dev, ht_may_inline);
	if (strstr(tcmu_dev_get_cfgstring(dev), "early=1") && host)
		host->dev_set_data_arrived(dev, ht_arrived, ht_early_drop);
	return 0;
}

static void ht_close(struct tcmu_device *dev)
{
	atomic_fetch_add(&n_close, 1);
	free(tcmur_dev_get_private(dev));
}

struct async_job {
	struct tcmu_device *dev;
	struct tcmur_cmd *cmd;
	int sts;
	int ms;
};

static void *async_main(void *arg)
{
	struct async_job *j = arg;
	struct timespec ts = { j->ms / 1000, (long)(j->ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	tcmur_cmd_complete(j->dev, j->cmd, j->sts);
	free(j);
	return NULL;
}

static int preset_sense(uint8_t *sense, int sts)
{
	switch (sts) {
	case TCMU_STS_PASSTHROUGH_ERR:
		/* ILLEGAL REQUEST, INVALID FIELD IN CDB, field pointer CDB byte 2 bit 3 */
		tcmu_sense_set_data(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
		sense[15] = 0x80 | 0x40 | 0x08 | 3;
		sense[16] = 0;
		sense[17] = 2;
		break;
	case TCMU_STS_MISCOMPARE:
		tcmu_sense_set_info(sense, 0x00012345);
		break;
	case TCMU_STS_FRMT_IN_PROGRESS:
		tcmu_sense_set_key_specific_info(sense, 0x4000);
		break;
	default:
		break;
	}
	return sts;
}

static int put_text(struct tcmur_cmd *cmd, const char *text)
{
	struct tcmulib_cmd *lc = cmd->lib_cmd;

	tcmu_memcpy_into_iovec(lc->iovec, lc->iov_cnt, (void *)text, strlen(text) + 1);
	return TCMU_STS_OK;
}

static int ht_handle_cmd(struct tcmu_device *dev, struct tcmur_cmd *cmd)
{
	struct tcmulib_cmd *lc = cmd->lib_cmd;
	uint8_t *cdb = lc->cdb;
	struct ht_dev *d = tcmur_dev_get_private(dev);
	char text[512];

	switch (cdb[0]) {
	case SCSI_OP_INQUIRY: /* INQUIRY: just succeed (unit attention exemption test) */
	case SCSI_OP_TEST_UNIT_READY:
		return TCMU_STS_OK;
	case 0xC0:
		if (cdb[2] == 1)
			memset(lc->sense_buf, 0xAA, TCMU_SENSE_BUFFERSIZE);
		else if (cdb[2] == 2)
			return preset_sense(lc->sense_buf, (int8_t)cdb[1]);
		return (int8_t)cdb[1];
	case 0xC1: {
		struct async_job *j = malloc(sizeof(*j));
		pthread_t t;

		if (!j)
			return TCMU_STS_NO_RESOURCE;
		*j = (struct async_job){ dev, cmd, (int8_t)cdb[1], cdb[2] };
		if (pthread_create(&t, NULL, async_main, j) != 0) {
			free(j);
			return TCMU_STS_NO_RESOURCE;
		}
		pthread_detach(t);
		return TCMU_STS_ASYNC_HANDLED;
	}
	case 0xC2: {
		size_t want = tcmu_iovec_length(lc->iovec, lc->iov_cnt);

		const struct ht_early *e = host ? host->cmd_early(lc) : NULL;

		atomic_store(&early_seen_calls, e ? e->calls : 0);
		atomic_store(&early_seen_last, e ? e->last : 0);
		if (want > sizeof(d->store))
			return TCMU_STS_INVALID_PARAM_LIST_LEN;
		d->stored = tcmu_memcpy_from_iovec(d->store, want, lc->iovec, lc->iov_cnt);
		return TCMU_STS_OK;
	}
	case 0xC3:
		tcmu_memcpy_into_iovec(lc->iovec, lc->iov_cnt, d->store, d->stored);
		return TCMU_STS_OK;
	case 0xC4: {
		int ret = 1;
		uint64_t size = tcmu_cfgfs_dev_get_info_u64(dev, "Size", &ret);
		int ret2 = 0;
		uint64_t bad = tcmu_cfgfs_dev_get_info_u64(dev, "Colour", &ret2);

		if (bad != 0 || ret2 != -EINVAL)
			return TCMU_STS_HW_ERR;
		/* upstream matches the field name case-sensitively */
		bad = tcmu_cfgfs_dev_get_info_u64(dev, "size", &ret2);
		if (bad != 0 || ret2 != -EINVAL)
			return TCMU_STS_HW_ERR;
		if (tcmu_cfgfs_dev_get_info_u64(dev, "SectorSize", &ret2) != tcmu_dev_get_block_size(dev) || ret2)
			return TCMU_STS_HW_ERR;
		char *wwn = tcmu_cfgfs_dev_get_wwn(dev);

		snprintf(text, sizeof(text),
			 "uio=%s wwn=%s size=%llu ret=%d bs=%u lbas=%llu mxl=%u wc=%d align=%u hwbs=%d hwms=%d "
			 "nosuch=%d cfg=%s",
			 tcmu_dev_get_uio_name(dev), wwn ? wwn : "(none)", (unsigned long long)size, ret,
			 tcmu_dev_get_block_size(dev), (unsigned long long)tcmu_dev_get_num_lbas(dev),
			 tcmu_dev_get_max_xfer_len(dev), tcmu_dev_get_write_cache_enabled(dev),
			 tcmu_dev_get_unmap_gran_align(dev), tcmu_cfgfs_dev_get_attr_int(dev, "hw_block_size"),
			 tcmu_cfgfs_dev_get_attr_int(dev, "hw_max_sectors"),
			 tcmu_cfgfs_dev_get_attr_int(dev, "nosuch"), tcmu_dev_get_cfgstring(dev));
		free(wwn);
		return put_text(cmd, text);
	}
	case 0xC5: {
		uint64_t lbas = (uint64_t)cdb[2] << 24 | cdb[3] << 16 | cdb[4] << 8 | cdb[5];

		return tcmur_dev_update_size(dev, lbas * tcmu_dev_get_block_size(dev)) == 0
			       ? TCMU_STS_OK : TCMU_STS_HW_ERR;
	}
	case 0xC6:
		if (pthread_getname_np(pthread_self(), text, sizeof(text)) != 0)
			text[0] = 0;
		return put_text(cmd, text);
	case 0xC7: {
		struct timespec ts = { cdb[1] / 1000, (long)(cdb[1] % 1000) * 1000000L };

		atomic_fetch_add(&n_busy, 1);
		if (cdb[1])
			nanosleep(&ts, NULL);
		else
			gate_pass();
		atomic_fetch_sub(&n_busy, 1);
		return TCMU_STS_OK;
	}
	case 0xC8: {
		struct async_job *j = malloc(sizeof(*j));
		pthread_t t;

		if (!j)
			return TCMU_STS_NO_RESOURCE;
		for (size_t i = 0; i < lc->iov_cnt; i++)
			memset(lc->iovec[i].iov_base, 0x5A, lc->iovec[i].iov_len);
		if (host) {
			host->cmd_data_ready(dev, lc);
			host->cmd_data_ready(dev, lc);
		}
		*j = (struct async_job){ dev, cmd, TCMU_STS_OK, cdb[1] };
		if (pthread_create(&t, NULL, async_main, j) != 0) {
			free(j);
			return TCMU_STS_NO_RESOURCE;
		}
		pthread_detach(t);
		return TCMU_STS_ASYNC_HANDLED;
	}
	case 0xC9: {
		size_t len = tcmu_iovec_length(lc->iovec, lc->iov_cnt), q = len / 4;
		unsigned char *p = lc->iov_cnt == 1 ? lc->iovec[0].iov_base : NULL;

		if (!p || !host)
			return TCMU_STS_HW_ERR;
		for (int i = 0; i < 4; i++) {
			memset(p + i * q, 0x6B, i == 3 ? len - 3 * q : q);
			if (i < 3)
				host->cmd_data_progress(dev, lc, (size_t)(i + 1) * q);
		}
		host->cmd_data_progress(dev, lc, 2 * len); /* capped at the buffer */
		if (cdb[1] == 1) {
			host->cmd_data_ready(dev, lc);
			host->cmd_data_progress(dev, lc, len); /* dropped: data is final */
		}
		return TCMU_STS_OK;
	}
	default:
		return TCMU_STS_NOT_HANDLED;
	}
}

static int ht_init(void)
{
	atomic_fetch_add(&n_init, 1);
	return 0;
}

static void ht_destroy(void)
{
	atomic_fetch_add(&n_destroy, 1);
}

static struct tcmur_handler ht_threads = {
	.name = "host test handler (2 threads)",
	.subtype = "hosttest",
	.cfg_desc = "name=TEXT;fail_open=0|1;inline=1;early=1",
	.check_config = ht_check_config,
	.open = ht_open,
	.close = ht_close,
	.nr_threads = 2,
	.handle_cmd = ht_handle_cmd,
	.init = ht_init,
	.destroy = ht_destroy,
};

static struct tcmur_handler ht_inline = {
	.name = "host test handler (inline)",
	.subtype = "hosttest0",
	.check_config = ht_check_config,
	.open = ht_open,
	.close = ht_close,
	.nr_threads = 0,
	.handle_cmd = ht_handle_cmd,
	.init = ht_init,
	.destroy = ht_destroy,
};

int handler_init(void)
{
	const struct lunlab_host_ops *ops = dlsym(RTLD_DEFAULT, LUNLAB_HOST_OPS_SYMBOL);

	if (ops && LUNLAB_HOST_OPS_VERSION_MAJOR(ops->version) == LUNLAB_HOST_OPS_MAJOR &&
	    ops->size >= sizeof(struct lunlab_host_ops))
		host = ops;
	int rc = tcmur_register_handler(&ht_threads);

	if (rc)
		return rc;
	return tcmur_register_handler(&ht_inline);
}
