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

#endif
