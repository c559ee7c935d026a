/* copy_fixture.h — what the copy handler tests (test_xcopy_exec.c,
 * test_odx_exec.c) set up alike: arrays of their own, LUs registered on
 * them, data written into and read back from a volume, the stand-in host
 * contract, and one command run through a handler entry point with its
 * sense buffer inside a library command (so the copy manager can ask the
 * host which I_T nexus sent it, as under a real host). */
#ifndef LUNLAB_TEST_COPY_FIXTURE_H
#define LUNLAB_TEST_COPY_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handlers/array/array_admin.h"
#include "handlers/host.h"
#include "handlers/scsi/scsi.h"
#include "lunlab/cdb_decode.h"
#include "models/profile.h"

#define CFX_LU_BYTES (8u << 20)
#define CFX_DEDUP 8192u          /* the arrays' dedup block: a copy shares whole ones */

/* One command: what a handler entry point reads and writes. */
struct cfx_cmd {
	struct tcmulib_cmd lib;        /* holds the sense buffer (host_double.h) */
	struct scsi_cmd cmd;
	struct iovec iov;
	uint8_t cdb[CDB_MAX_LEN];      /* rcr_handle decodes a whole CDB */
};

/* Pseudo-random bytes from *rng (a data pattern the tests read back). */
void cfx_fill(uint64_t *rng, uint8_t *p, size_t n);
/* A new array of its own (8 KiB dedup blocks, zlib level 1), named
 * prefix-PID-N so parallel test runs never share one. */
struct array *cfx_array(const char *prefix);
/* LU number n (its NAA, tb_naa) of CFX_LU_BYTES with block size bs on a,
 * registered; profile prof (NULL: none); write protection off, write
 * cache wce. */
void cfx_lu(struct scsi_lu *lu, struct array *a, uint32_t bs, const struct lunlab_profile *prof, uint8_t n, bool wce);
/* Forget the copy state of lus[0..n-1], unregister and destroy them. */
void cfx_lus_close(struct scsi_lu *lus, unsigned n);
/* n bytes at byte offset off of d's volume, asserting success. */
void cfx_put(struct lunlab_dev *d, uint64_t off, const void *buf, size_t n);
void cfx_get(struct lunlab_dev *d, uint64_t off, void *buf, size_t n);
/* Adopt host (filled by host_double_fill) as the host contract, the nexus
 * unknown (0) until a test names one. */
void cfx_host(struct lunlab_host_ops *host);
/* Run fn on d with c->cdb and data[0..len) as the command's buffer, sense
 * cleared first; the handler's status. */
int cfx_run(struct cfx_cmd *c, struct lunlab_dev *d, int (*fn)(struct scsi_cmd *), void *data, size_t len);

#endif
