/* copy_fixture.c — the shared set-up of the copy handler tests
 * (copy_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "handlers/copy/copy.h"
#include "tests/unit/copy/copy_fixture.h"
#include "tests/unit/copy/xcopy_list_builder.h"
#include "tests/unit/handler/host_double.h"

void cfx_fill(uint64_t *rng, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
		p[i] = (uint8_t)(*rng >> 56);
	}
}

struct array *cfx_array(const char *prefix)
{
	static unsigned seq;
	char name[64];
	struct array_params p = { .dedup_block = CFX_DEDUP, .zlib_level = 1, .zlib_window_bits = 14, .alloc_unit = 512 };
	char *err = NULL;

	snprintf(name, sizeof(name), "%s-%d-%u", prefix, (int)getpid(), ++seq);
	struct array *a = array_get(name, &p, &err);
	if (!a)
		fail_msg("array_get: %s", err ? err : "?");
	return a;
}

void cfx_lu(struct scsi_lu *lu, struct array *a, uint32_t bs, const struct lunlab_profile *prof, uint8_t n, bool wce)
{
	struct lunlab_dev *d = &lu->dev;

	memset(d, 0, sizeof(*d));
	/* the slu[] entries are reused from test to test: a test that set
	 * write protection must not leave it to the next */
	lu->readonly = false;
	atomic_store(&lu->swp, false);
	atomic_store(&lu->wce, wce);
	d->array = a;
	d->vol = volume_create(a, CFX_LU_BYTES, bs);
	assert_non_null(d->vol);
	d->block_size = bs;
	d->num_lbas = CFX_LU_BYTES / bs;
	d->profile = prof;
	tb_naa(d->naa, n);
	lunlab_dev_register(d);
}

void cfx_lus_close(struct scsi_lu *lus, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		copy_dev_forget(&lus[i].dev);
		lunlab_dev_unregister(&lus[i].dev);
		volume_destroy(lus[i].dev.vol);
	}
}

void cfx_put(struct lunlab_dev *d, uint64_t off, const void *buf, size_t n)
{
	struct iovec io = { (void *)buf, n };

	assert_int_equal(volume_write(d->vol, off, n, &io, 1), 0);
}

void cfx_get(struct lunlab_dev *d, uint64_t off, void *buf, size_t n)
{
	struct iovec io = { buf, n };

	assert_int_equal(volume_read(d->vol, off, n, &io, 1), 0);
}

void cfx_host(struct lunlab_host_ops *host)
{
	host_double_fill(host);
	assert_ptr_equal(host_ops_adopt(host), host);
	host_double_nexus = 0;
}

int cfx_run(struct cfx_cmd *c, struct lunlab_dev *d, int (*fn)(struct scsi_cmd *), void *data, size_t len)
{
	memset(c->lib.sense_buf, 0, sizeof(c->lib.sense_buf));
	c->iov.iov_base = data;
	c->iov.iov_len = len;
	memset(&c->cmd, 0, sizeof(c->cmd));
	c->cmd.dev = d;
	c->cmd.cdb = c->cdb;
	c->cmd.iov = &c->iov;
	c->cmd.iov_cnt = 1;
	c->cmd.iov_len = len;
	c->cmd.sense = c->lib.sense_buf;
	return fn(&c->cmd);
}
