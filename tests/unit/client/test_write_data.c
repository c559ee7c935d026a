/* test_write_data.c - scale --write's content (write_data.c): unique never repeats a 4 KiB
 * block (nor any larger aligned block) across writes, offsets and runs and is incompressible;
 * repeat is one non-zero buffer whose blocks are all distinct; zero is zeros; win10 is exactly
 * the synthetic image at the written offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "client/synthetic_image.h"
#include "client/write_data.h"

static int cmp_blk(const void *a, const void *b) { return memcmp(*(uint8_t *const *)a, *(uint8_t *const *)b, 4096); }

static void names(void **state)
{
	enum write_data d;
	const char *all[] = { "unique", "repeat", "zero", "win10" };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(write_data_parse(all[i], &d), 0);
		assert_string_equal(write_data_name(d), all[i]);
	}
	assert_int_equal(write_data_parse("random", &d), -1);
	assert_true(write_data_per_write(DATA_UNIQUE) && write_data_per_write(DATA_WIN10));
	assert_false(write_data_per_write(DATA_REPEAT) || write_data_per_write(DATA_ZERO));
}

/* 2 slots x 16 writes of 64 KiB, the same offsets written again, and a second run with
 * another seed: every 4 KiB block distinct, and incompressible. */
static void unique_blocks_never_repeat(void **state)
{
	enum { LEN = 65536, N = 2 * 2 * 16 * (LEN / 4096) };
	uint8_t *slot[2] = { malloc(LEN), malloc(LEN) };
	uint8_t **blocks = calloc(N, sizeof(*blocks));
	size_t n = 0;
	uint64_t seq = 0;
	for (uint64_t run = 0; run < 2; run++) {
		write_data_init(DATA_UNIQUE, slot[0], LEN, 100 + run);
		write_data_init(DATA_UNIQUE, slot[1], LEN, 200 + run);
		for (int w = 0; w < 16; w++) {
			uint8_t *b = slot[w % 2];
			write_data_fill(DATA_UNIQUE, b, LEN, (uint64_t)(w % 4) * LEN, seq++, 77 + run);
			for (size_t p = 0; p < LEN; p += 4096) {
				blocks[n] = malloc(4096);
				memcpy(blocks[n++], b + p, 4096);
			}
		}
		seq = 0; /* a second run starts its count again: its seed alone keeps it apart */
	}
	qsort(blocks, n, sizeof(*blocks), cmp_blk);
	for (size_t i = 1; i < n; i++)
		assert_true(memcmp(blocks[i - 1], blocks[i], 4096) != 0);
	/* incompressible: deflate cannot shrink a block */
	uLongf clen = compressBound(4096);
	uint8_t *c = malloc(clen);
	assert_int_equal(compress2(c, &clen, blocks[n / 2], 4096, 1), Z_OK);
	assert_true(clen > 4000);
	for (size_t i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	free(c);
	free(slot[0]);
	free(slot[1]);
}

static void repeat_zero_win10(void **state)
{
	enum { LEN = 65536 };
	uint8_t *a = malloc(LEN), *b = malloc(LEN), *img = malloc(LEN);
	write_data_init(DATA_REPEAT, a, LEN, 1);
	memcpy(b, a, LEN);
	write_data_fill(DATA_REPEAT, a, LEN, 12345 * 4096, 9, 1);
	assert_memory_equal(a, b, LEN);            /* the same bytes for every write */
	for (size_t p = 4096; p < LEN; p += 4096)
		assert_true(memcmp(a, a + p, 4096) != 0); /* but not one block repeated inside */
	size_t nz = 0;
	for (size_t i = 0; i < LEN; i++)
		nz += a[i] != 0;
	assert_true(nz > LEN / 2);
	write_data_init(DATA_ZERO, a, LEN, 1);
	for (size_t i = 0; i < LEN; i++)
		assert_int_equal(a[i], 0);
	write_data_init(DATA_WIN10, a, LEN, 5);
	write_data_fill(DATA_WIN10, a, LEN, 64ull << 20, 3, 5);
	synth_win10_fill(5, 64ull << 20, img, LEN);
	assert_memory_equal(a, img, LEN);
	free(a);
	free(b);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(unique_blocks_never_repeat),
		cmocka_unit_test(repeat_zero_win10),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
