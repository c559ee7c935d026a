/* write_data.h - what scale --write sends (--data): a dedup array's write speed depends on the
 * content, as vdbench's dedupratio/compratio say for array benchmarks.
 *   unique  every block of every write new to the array (a random base, incompressible,
 *           stamped per 4 KiB with the write's sequence number and offset): no dedup hit ever
 *   repeat  one buffer written everywhere: after the first write every block deduplicates
 *   zero    zeros: an array that drops zero blocks stores nothing
 *   win10   the synthetic Windows 10 image (synthetic_image.h) at the written offset: its
 *           zero, duplicate and compressible extents, the same bytes on every pass */
#ifndef LUNLAB_CLIENT_WRITE_DATA_H
#define LUNLAB_CLIENT_WRITE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum write_data { DATA_UNIQUE, DATA_REPEAT, DATA_ZERO, DATA_WIN10 };

/* "unique" ... -> enum; -1 when the name is none of them */
int write_data_parse(const char *name, enum write_data *out);
const char *write_data_name(enum write_data d);

/* The granularity of unique's stamps: every aligned block of at least this size is unique. */
#define WRITE_DATA_STAMP 4096u

/* Does every write need a buffer of its own (its content depends on the write)? */
bool write_data_per_write(enum write_data d);

/* Prepare a buffer of len bytes once (the base every write of it starts from). */
void write_data_init(enum write_data d, uint8_t *buf, size_t len, uint64_t seed);

/* Make buf (prepared by write_data_init) the content of write number seq at byte offset
 * off of the LU.  unique: stamps (seq, offset) into each 4 KiB; win10: the image bytes at
 * off (off and len multiples of 4 KiB); repeat and zero: nothing to do. */
void write_data_fill(enum write_data d, uint8_t *buf, size_t len, uint64_t off, uint64_t seq, uint64_t seed);

#endif
