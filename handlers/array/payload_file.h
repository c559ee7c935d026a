/* payload_file.h — block payloads in a file of slots (--state-dir): the
 * persistent backend of payload.h.  Slot `id` is bytes [id * B, (id+1) * B)
 * of DIR/arrays/NAME/blocks.dat, B the array's dedup block.
 *
 *   - put: pwrite() into the slot (page cache: safe from a crash of the
 *     process at once, from a crash of the machine after payload_file_sync);
 *     space is reserved with fallocate() ahead of the slots, so a full disk
 *     refuses a write (NULL: no room) instead of failing later;
 *   - read: through one read-only shared mapping of the file, as memory
 *     payloads are read: the pointer put returns stays valid while the
 *     block lives;
 *   - CRC32C: every slot's checksum is known (computed at put, or given by
 *     the metadata at load) and a slot that came from the file is checked
 *     the first time it is used (payload_verify); one whose bytes differ
 *     is never served (-EIO: the read fails with MEDIUM ERROR);
 *   - memory: the file's pages are the kernel's page cache; a small thread
 *     keeps the process's share of them (RssFile) under a budget by letting
 *     go of its mappings (MADV_DONTNEED: the data stays in the file and the
 *     cache), so an array larger than RAM keeps the process small.
 * A slot is reused only after its block was freed AND that free is durable
 * (the block store's limbo, block_store.h): a crash never finds a live
 * block's slot overwritten. */
#ifndef LUNLAB_ARRAY_PAYLOAD_FILE_H
#define LUNLAB_ARRAY_PAYLOAD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct payload_store;

/* Open (create: make it when missing) the slot file at path for blocks of
 * block_bytes.  NULL with a one-line reason. */
struct payload_store *payload_file_open(const char *path, uint32_t block_bytes, bool create, char *err,
					size_t errlen);

/* Loading a state: block id is live with checksum crc.  Returns the address
 * of its bytes (not read yet: checked at first use), or NULL with a reason
 * when the file does not hold the slot (a cut file). */
void *payload_file_attach(struct payload_store *ps, uint32_t id, uint32_t crc, char *err, size_t errlen);

/* The checksum of a live block's payload (what the metadata records). */
uint32_t payload_file_crc(struct payload_store *ps, uint32_t id);

/* Every payload written so far on stable storage (fdatasync).  0 or -errno. */
int payload_file_sync(struct payload_store *ps);

/* --check-state: read slot id from the file (not the cache of checks) and
 * compare with crc.  0 equal, -EIO different, -ERANGE outside the file. */
int payload_file_check(struct payload_store *ps, uint32_t id, uint32_t crc);

/* The file's size and the bytes it occupies on disk. */
void payload_file_usage(struct payload_store *ps, uint64_t *size, uint64_t *disk);

/* Whether ps is a file store (else: memory). */
bool payload_is_file(const struct payload_store *ps);

/* The share of mapped file pages (RssFile) above which the stores let go of
 * their mappings: 256 MiB unless set (tests). */
void payload_file_set_mapped_budget(uint64_t bytes);

#endif
