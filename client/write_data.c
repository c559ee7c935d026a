/* write_data.c - the content of scale --write's writes (write_data.h). */
#include "client/write_data.h"

#include <string.h>

#include "client/synthetic_image.h"

int write_data_parse(const char *name, enum write_data *out)
{
	static const char *names[] = { "unique", "repeat", "zero", "win10" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum write_data)i;
			return 0;
		}
	return -1;
}

const char *write_data_name(enum write_data d)
{
	switch (d) {
	case DATA_UNIQUE: return "unique";
	case DATA_REPEAT: return "repeat";
	case DATA_ZERO: return "zero";
	case DATA_WIN10: return "win10";
	}
	return "?";
}

bool write_data_per_write(enum write_data d)
{
	return d == DATA_UNIQUE || d == DATA_WIN10;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void write_data_init(enum write_data d, uint8_t *buf, size_t len, uint64_t seed)
{
	switch (d) {
	case DATA_ZERO:
		memset(buf, 0, len);
		break;
	case DATA_REPEAT:
		/* non-zero, and not repeating within the buffer: every block of it is a
		 * distinct block, written again and again */
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)((i * 2654435761u) >> 13);
		break;
	case DATA_UNIQUE: {
		/* random: incompressible, like vdbench's compratio=1 */
		uint64_t s = seed ^ (uint64_t)(uintptr_t)buf;
		for (size_t i = 0; i + 8 <= len; i += 8) {
			uint64_t v = splitmix(&s);
			memcpy(buf + i, &v, 8);
		}
		for (size_t i = len & ~(size_t)7; i < len; i++)
			buf[i] = (uint8_t)splitmix(&s);
		break;
	}
	case DATA_WIN10:
		break; /* filled per write */
	}
}

void write_data_fill(enum write_data d, uint8_t *buf, size_t len, uint64_t off, uint64_t seq, uint64_t seed)
{
	switch (d) {
	case DATA_UNIQUE:
		/* 16 bytes per 4 KiB: which write, where.  No two writes of a run share a
		 * 4 KiB block, nor a block of any larger aligned size. */
		for (size_t p = 0; p < len; p += WRITE_DATA_STAMP) {
			uint64_t stamp[2] = { seq ^ (seed << 40), off + p };
			memcpy(buf + p, stamp, len - p < sizeof(stamp) ? len - p : sizeof(stamp));
		}
		break;
	case DATA_WIN10:
		synth_win10_fill(seed, off, buf, len);
		break;
	case DATA_REPEAT:
	case DATA_ZERO:
		break;
	}
}
