/* volume.h — the storage interface the SCSI layer (handlers/scsi, handlers/copy)
 * programs against.  All offsets and lengths are in BYTES and must be multiples
 * of the LU's logical block size (512 or 4096); the implementation handles any
 * misalignment to its own dedup granularity with read-modify-write.
 *
 * An "array" is one emulated storage system: a content-addressed block store
 * shared by every volume created in it (global dedup), with capacity
 * accounting.  Arrays are found by name in a process-wide registry, so LUNs
 * configured with the same array= name share one store, whichever host
 * (lunlab-target or tcmu-runner) loaded the handler.
 *
 * Thread safety: every function may be called concurrently from many worker
 * threads; implementations must not serialise the data path on one lock.
 * Return values: 0 on success, negative errno on failure (-ENOMEM, -ERANGE
 * for out-of-range, -EILSEQ for a COMPARE AND WRITE miscompare). */
#ifndef LUNLAB_VOLUME_H
#define LUNLAB_VOLUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct array;
struct volume;

struct array_params {
	uint32_t dedup_block;   /* bytes per content-addressed block: 8192 (x1), 16384 (x2) */
	int zlib_level;         /* compression level used for accounting, 1..9 */
	int zlib_window_bits;   /* 9..15 */
	uint32_t alloc_unit;    /* physical allocation unit for compressed blocks, bytes */
};

/* Capacity figures, all in bytes (definitions in docs/accounting.md). */
struct array_stats {
	uint64_t logical_bytes;     /* sum over volumes of mapped (non-zero) LBA ranges, at block granularity */
	uint64_t unique_bytes;      /* distinct blocks stored x dedup_block */
	uint64_t physical_bytes;    /* sum over distinct blocks of their allocated compressed size */
	uint64_t compressed_bytes;  /* sum over distinct blocks of their exact compressed size */
	uint64_t unique_blocks;     /* distinct blocks */
	uint64_t mapped_blocks;     /* map entries pointing at a block, all volumes */
	uint64_t single_ref_blocks; /* blocks with reference count 1 */
	uint64_t metadata_bytes;    /* memory held by maps and the block index */
	uint64_t pending_blocks;    /* blocks whose compression accounting is not done yet */
};

/* Find the array called name or create it with p; p must match an existing
 * array's parameters (else NULL and *err says which field differs). */
struct array *array_get(const char *name, const struct array_params *p, char **err);
void array_put(struct array *a);
void array_get_stats(struct array *a, struct array_stats *out);
const struct array_params *array_params(const struct array *a);

struct volume *volume_create(struct array *a, uint64_t size_bytes, uint32_t lba_size);
void volume_destroy(struct volume *v);
struct array *volume_array(const struct volume *v);
uint64_t volume_size(const struct volume *v);
int volume_resize(struct volume *v, uint64_t new_size);

/* Data path.  iov is not modified. */
int volume_read(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt);
int volume_write(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt);
/* The same, but len need not be a multiple of the logical block size: a
 * write carried out exactly as far as the initiator's data reached (its last
 * logical block keeps its bytes beyond len), atomic like any write. */
int volume_write_partial(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt);
/* A WRITE's whole blocks stored while the rest of its data is still on the
 * wire (volume_early.c): lunlab-target tells its handler each time another
 * burst of Data-Out has landed, and the blocks it completes are
 * fingerprinted, looked up and copied by helper threads (split_work.h)
 * meanwhile, instead of all after the last byte.  Nothing becomes visible
 * before the WRITE itself runs (volume_write_early), which installs them
 * under its range locks as any write does.  Only stores that are not
 * persistent: a --state-dir array commits at command granularity, and
 * blocks held for a command that has not run would straddle a commit.
 * vio_early_new returns NULL where it does not apply (persistent store, a
 * write too small to be worth it, a range outside the volume). */
struct vio_early;
struct vio_early *vio_early_new(struct volume *v, uint64_t off, uint64_t len);
/* The first `bytes` bytes of the write's data (iov, the whole buffer: it
 * must stay valid and unchanged until vio_early_free) are final. */
void vio_early_feed(struct vio_early *e, const struct iovec *iov, size_t iovcnt, uint64_t bytes);
/* Waits for its helpers, drops the blocks no write took, frees e.  The
 * volume may be gone by then (the store must not: its array's owner keeps a
 * reference for e's life). */
void vio_early_free(struct vio_early *e);
/* volume_write, using what e stored (NULL: none; e stays the caller's to
 * free, after this returns). */
int volume_write_early(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt,
		       struct vio_early *e);
/* WRITE SAME: pattern is one logical block (lba_size bytes) repeated over
 * [off, off+len).  An all-zero pattern unmaps. */
int volume_write_same(struct volume *v, uint64_t off, uint64_t len, const void *pattern);
int volume_unmap(struct volume *v, uint64_t off, uint64_t len);
/* Atomic against every other writer of the same range: compare [off,off+len)
 * with cmp; on mismatch return -EILSEQ and set *miscompare_off to the byte
 * offset (from off) of the first differing byte, else write wr. */
int volume_compare_and_write(struct volume *v, uint64_t off, uint64_t len, const void *cmp, const void *wr,
			     uint64_t *miscompare_off);
/* Metadata copy: dst may equal src (overlap handled as memmove); both volumes
 * must belong to the same array (else -EXDEV).  Moves map entries and
 * reference counts, never data, except partial blocks at unaligned edges. */
int volume_copy(struct volume *dst, uint64_t dst_off, struct volume *src, uint64_t src_off, uint64_t len,
		uint64_t *blocks_moved);
/* GET LBA STATUS: is off mapped, and how many bytes from off share that state. */
int volume_get_status(struct volume *v, uint64_t off, bool *mapped, uint64_t *run_len);
/* Volume-level figures (logical bytes mapped in this volume). */
uint64_t volume_mapped_bytes(struct volume *v);

/* ---- ODX holds (issue 24; docs/xcopy.md "The token") ----
 * A point-in-time hold on ranges of one volume: what ODX's ROD token stands
 * for.  POPULATE TOKEN makes one, WRITE USING TOKEN writes what it holds,
 * the token's expiry frees it.  It is built like a snapshot of just those
 * ranges (vol_hold.c): a hidden volume of the array takes the ranges' map
 * entries (whole 4 MiB map chunks shared where they line up, the same
 * metadata copy volume_copy makes), so the hold costs references and map
 * pointers, never a data copy, and later writes to the source allocate new
 * blocks and leave the hold's alone.  The hold names no volume after
 * vol_hold_create (the source may be destroyed meanwhile); it keeps its
 * array alive.  Holds are not kept across a restart: in a --state-dir array
 * the hidden volume is dropped when the state is opened (so a crash never
 * leaves its references behind), and every token is invalid then anyway.
 * Accounting (docs/accounting.md "ODX holds"): the held blocks stay stored
 * (unique/physical/compressed bytes keep them, and a held block is not
 * single-referenced); logical_bytes and mapped_blocks stay the volumes'. */
struct vol_hold;
struct vol_range { uint64_t off, len; };   /* bytes, multiples of the LU block size */
/* Takes references to the blocks of r[0..n) (concatenated in order) as a
 * snapshot does: later writes/unmaps of src do not change what the hold
 * writes.  No data copy.  All ranges are taken at one point in time (under
 * one set of src's range locks).  A zero-length range adds nothing.
 * Errors: -ERANGE (range past the end), -EINVAL (n==0, misaligned, nothing
 * to hold), -ENOMEM (and -ENOSPC only where a block's reference count is
 * saturated, > 64 TiB of one block: its content is stored again). */
int volume_hold_create(struct volume *src, const struct vol_range *r, size_t n, struct vol_hold **out);
uint64_t vol_hold_bytes(const struct vol_hold *h);  /* total bytes held */
/* Memory the hold costs, bytes: what vol_hold_free would give back (its
 * structures, its hidden volume's map tables and the map chunks no volume
 * shares with it).  It grows when the source overwrites a shared chunk
 * (figures in docs/accounting.md "ODX holds"). */
uint64_t vol_hold_mem(const struct vol_hold *h);
/* Metadata copy of held bytes [hold_off, hold_off+len) to dst at dst_off
 * (like volume_copy: map entries and references move, no data, except
 * read-modify-write of unaligned edges).  dst must be in the same array
 * (-EXDEV).  -ERANGE if beyond the hold or dst, -EINVAL if hold_off, len or
 * dst_off is not a multiple of dst's block size.  The copy goes in pieces
 * that end at the hold's range boundaries (and, where data must be copied
 * because dst sits at another offset within a block, at dst's map-chunk
 * boundaries), so that on a failure part way (e.g. -ENOSPC) *done_bytes
 * says how many bytes from the start were written (a block boundary:
 * everything before it is the hold's data; on -ENOSPC nothing after it
 * changed, as each piece sets its space aside first); blocks_moved as
 * volume_copy's (whole blocks moved as map entries).  Several writes of one
 * hold may run at once; the caller frees it only after they returned. */
int vol_hold_write(struct vol_hold *h, uint64_t hold_off, struct volume *dst, uint64_t dst_off,
		   uint64_t len, uint64_t *blocks_moved, uint64_t *done_bytes);
/* Releases the references; safe after src was destroyed.  It may drop the
 * array's last reference (its LUs gone), which closes a --state-dir array
 * with a last commit: not inside array_cmd_begin/end of that array. */
void vol_hold_free(struct vol_hold *h);

#endif
