/* synthetic_image.c - deterministic Windows-10-like image, one 4 KiB block at a time.
 *
 * Everything is derived from mix(seed, domain, index...) so a block never depends on the
 * blocks written before it.  Extents (64 KiB) carry the kind, so duplicates are aligned to
 * any dedup block size that divides 64 KiB (X1: 8 KiB, X2: 16 KiB): a duplicated DLL
 * dedups the same way on both arrays and the X1/X2 difference comes from compression,
 * as the public X2 material says. */
#include "client/synthetic_image.h"

#include <string.h>

const unsigned synth_win10_permille[SYNTH_KINDS] = {
	[SYNTH_ZERO] = 80,
	[SYNTH_DUPLICATE] = 170,
	[SYNTH_PAGEFILE] = 30,
	[SYNTH_TEXT] = 170,
	[SYNTH_BINARY] = 300,
	[SYNTH_MEDIA] = 250,
};

static const char *const kind_names[SYNTH_KINDS] = {
	"zero", "duplicate", "pagefile", "text", "binary", "media",
};

const char *synth_kind_name(enum synth_kind k)
{
	return (unsigned)k < SYNTH_KINDS ? kind_names[k] : "?";
}

/* splitmix64 finaliser: a good 64-bit mixer, cheap, no state. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t key3(uint64_t seed, uint64_t domain, uint64_t a, uint64_t b)
{
	return mix64(mix64(mix64(seed ^ (domain << 56)) ^ a) ^ b);
}

/* xorshift64* stream seeded from a key (never zero). */
struct rng { uint64_t s; };

static uint64_t rng_next(struct rng *r)
{
	uint64_t x = r->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void rng_seed(struct rng *r, uint64_t key)
{
	r->s = key ? key : 0x6a09e667f3bcc909ull;
}

enum { DOM_KIND = 1, DOM_BLOCK, DOM_LIBRARY, DOM_PATTERN, DOM_PICK };

/* The kinds of the SYNTH_GROUP_EXTENTS extents of group `group`: the fixed multiset of
 * synth_win10_permille (per 1000 -> per 100 extents) in a seeded order (Fisher-Yates).
 * Every whole group holds exactly the documented fractions, so the composition, and with
 * it dedup and compression, does not depend on the image's size (round 1 drew each extent's
 * kind independently and shared a 512-extent library across the image: small images then
 * paid the library's first copies more, x1 DRR 1.48 at 512 MiB vs 1.38 at 11.9 GiB). */
static void group_kinds(uint64_t seed, uint64_t group, uint8_t kinds[SYNTH_GROUP_EXTENTS])
{
	unsigned n = 0;
	for (unsigned k = 0; k < SYNTH_KINDS; k++)
		for (unsigned i = 0; i < synth_win10_permille[k] * SYNTH_GROUP_EXTENTS / 1000u; i++)
			kinds[n++] = (uint8_t)k;
	struct rng r;
	rng_seed(&r, key3(seed, DOM_KIND, group, 0));
	for (unsigned i = SYNTH_GROUP_EXTENTS - 1; i > 0; i--) {
		unsigned j = (unsigned)(rng_next(&r) % (i + 1u));
		uint8_t t = kinds[i];
		kinds[i] = kinds[j];
		kinds[j] = t;
	}
}

/* Kind of extent `extent` and, for duplicates, its rank among the group's duplicates. */
static enum synth_kind extent_kind(uint64_t seed, uint64_t extent, unsigned *dup_rank)
{
	uint8_t kinds[SYNTH_GROUP_EXTENTS];
	unsigned slot = (unsigned)(extent % SYNTH_GROUP_EXTENTS);
	group_kinds(seed, extent / SYNTH_GROUP_EXTENTS, kinds);
	if (dup_rank) {
		unsigned rank = 0;
		for (unsigned i = 0; i < slot; i++)
			rank += kinds[i] == SYNTH_DUPLICATE;
		*dup_rank = rank;
	}
	return (enum synth_kind)kinds[slot];
}

enum synth_kind synth_win10_kind(uint64_t seed, uint64_t block)
{
	return extent_kind(seed, block / SYNTH_EXTENT_BLOCKS, NULL);
}

static void fill_random(struct rng *r, uint8_t *out)
{
	for (size_t i = 0; i < SYNTH_BLOCK_SIZE; i += 8) {
		uint64_t v = rng_next(r);
		memcpy(out + i, &v, 8);
	}
}

/* Text: words from a small vocabulary, separators, now and then a number.  About 1.5 bits
 * of information per byte, which general-purpose compressors turn into ~3-4x. */
static void fill_text(struct rng *r, uint8_t *out)
{
	static const char *const words[32] = {
		"Windows", "System32", "<Component", "name=", "version=", "\"10.0.19041.1\"",
		"publicKeyToken=", "processorArchitecture=", "amd64", "language=", "neutral",
		"/>", "<file", "hash=", "HKLM\\SOFTWARE\\Microsoft", "Installed", "Info:",
		"CBS", "Loaded", "Servicing", "Stack", "dll", "manifest", "Microsoft-Windows-",
		"Deployment", "value", "type=", "REG_SZ", "the", "of", "and", "Error:",
	};
	size_t n = 0;
	while (n < SYNTH_BLOCK_SIZE) {
		uint64_t v = rng_next(r);
		const char *w = words[v & 31];
		size_t wl = strlen(w);
		for (size_t i = 0; i < wl && n < SYNTH_BLOCK_SIZE; i++)
			out[n++] = (uint8_t)w[i];
		if (((v >> 5) & 7) == 0) {      /* a number: 4 random digits */
			for (int d = 0; d < 4 && n < SYNTH_BLOCK_SIZE; d++)
				out[n++] = (uint8_t)('0' + ((v >> (8 + 4 * d)) % 10));
		}
		if (n < SYNTH_BLOCK_SIZE)
			out[n++] = ((v >> 40) & 15) == 0 ? '\n' : ' ';
	}
}

/* Binary: per byte, zero (35%), one of 16 common opcode/prefix bytes (25%) or uniform
 * random (40%); about 4.6 bits per byte, ~1.5-2x with general-purpose compressors. */
static void fill_binary(struct rng *r, uint8_t *out)
{
	static const uint8_t common[16] = {
		0x48, 0x89, 0x8b, 0xe8, 0xff, 0x0f, 0x85, 0x84,
		0x4c, 0x24, 0xc3, 0xcc, 0x90, 0x83, 0xc7, 0x01,
	};
	for (size_t i = 0; i < SYNTH_BLOCK_SIZE; i += 4) {
		uint64_t v = rng_next(r);
		for (int b = 0; b < 4; b++) {
			uint32_t x = (uint32_t)(v >> (16 * b)) & 0xffff;
			unsigned sel = x % 100u;
			uint8_t byte;
			if (sel < 35)
				byte = 0;
			else if (sel < 60)
				byte = common[(x >> 8) & 15];
			else
				byte = (uint8_t)(x >> 8) ^ (uint8_t)(v >> 56);
			out[i + (size_t)b] = byte;
		}
	}
}

static void fill_pattern(uint64_t seed, uint64_t pattern, uint8_t *out)
{
	static const unsigned lens[4] = { 4, 8, 16, 64 };
	struct rng r;
	uint8_t pat[64];
	rng_seed(&r, key3(seed, DOM_PATTERN, pattern, 0));
	unsigned len = lens[pattern % 4];
	for (unsigned i = 0; i < len; i++)
		pat[i] = (uint8_t)rng_next(&r);
	for (size_t i = 0; i < SYNTH_BLOCK_SIZE; i++)
		out[i] = pat[i % len];
}

void synth_win10_block(uint64_t seed, uint64_t block, uint8_t *out)
{
	uint64_t extent = block / SYNTH_EXTENT_BLOCKS;
	uint64_t in_ext = block % SYNTH_EXTENT_BLOCKS;
	uint64_t group = extent / SYNTH_GROUP_EXTENTS;
	unsigned dup_rank = 0;
	struct rng r;

	switch (extent_kind(seed, extent, &dup_rank)) {
	case SYNTH_ZERO:
		memset(out, 0, SYNTH_BLOCK_SIZE);
		return;
	case SYNTH_DUPLICATE: {
		/* The group's duplicates are copies of SYNTH_GROUP_LIBRARY library extents of this
		 * group (a DLL in WinSxS and System32, a component in several versions), in turn:
		 * the same number of distinct extents per group, whatever the image size. */
		uint64_t j = dup_rank % SYNTH_GROUP_LIBRARY;
		rng_seed(&r, key3(seed, DOM_LIBRARY, group * SYNTH_GROUP_LIBRARY + j, in_ext));
		fill_binary(&r, out);
		return;
	}
	case SYNTH_PAGEFILE:
		/* One fill pattern per group: all its page-file blocks are the same content. */
		fill_pattern(seed, key3(seed, DOM_PICK, group, 1), out);
		return;
	case SYNTH_TEXT:
		rng_seed(&r, key3(seed, DOM_BLOCK, block, 0));
		fill_text(&r, out);
		return;
	case SYNTH_BINARY:
		rng_seed(&r, key3(seed, DOM_BLOCK, block, 0));
		fill_binary(&r, out);
		return;
	case SYNTH_MEDIA:
	default:
		rng_seed(&r, key3(seed, DOM_BLOCK, block, 0));
		fill_random(&r, out);
		return;
	}
}

void synth_win10_fill(uint64_t seed, uint64_t offset, uint8_t *out, size_t len)
{
	for (size_t done = 0; done + SYNTH_BLOCK_SIZE <= len; done += SYNTH_BLOCK_SIZE)
		synth_win10_block(seed, (offset + done) / SYNTH_BLOCK_SIZE, out + done);
}

/* "pattern": 8 distinct 4 KiB blocks cycling, so a template of any size maps to 8 unique
 * blocks at 4 KiB granularity and to a few at 8/16 KiB: the array keeps only a few blocks in
 * memory while every destination block is still mapped (what the copy cost depends on). */
void template_fill(enum template_content c, uint64_t seed, uint64_t offset, uint8_t *out, size_t len)
{
	switch (c) {
	case TEMPLATE_ZERO:
		memset(out, 0, len);
		return;
	case TEMPLATE_SYNTHETIC:
		synth_win10_fill(seed, offset, out, len);
		return;
	case TEMPLATE_PATTERN:
	default:
		for (size_t done = 0; done + SYNTH_BLOCK_SIZE <= len; done += SYNTH_BLOCK_SIZE) {
			uint64_t which = ((offset + done) / SYNTH_BLOCK_SIZE) % 8;
			fill_pattern(seed ^ 0x5eedull, 1000 + which, out + done);
			/* Stamp the pattern number so the 8 blocks differ even if patterns collide. */
			out[done] = (uint8_t)which;
		}
		return;
	}
}
