/* test_caw.c — COMPARE AND WRITE: miscompare offset, no write on
 * miscompare, and atomicity against concurrent writers of the same blocks. */
#include <errno.h>
#include <pthread.h>
#include "array_test_util.h"

static void caw_basic(void **state)
{
	const uint32_t B = 8192;
	struct array *a = new_array(B, 6, 512);
	struct volume *v = volume_create(a, 16 * B, 512);
	unsigned char cur[2048], cmp[2048], nw[2048], got[2048];
	uint64_t seed = 3, mo = 0;
	fill_random(cur, sizeof(cur), &seed);
	fill_random(nw, sizeof(nw), &seed);
	uint64_t off = B - 1024; /* straddles a block boundary */
	assert_int_equal(wr(v, off, cur, sizeof(cur)), 0);
	memcpy(cmp, cur, sizeof(cmp));
	cmp[1500] ^= 0x10;
	assert_int_equal(volume_compare_and_write(v, off, sizeof(cmp), cmp, nw, &mo), -EILSEQ);
	assert_int_equal(mo, 1500);
	assert_int_equal(rd(v, off, got, sizeof(got)), 0);
	assert_memory_equal(got, cur, sizeof(cur)); /* untouched */
	assert_int_equal(volume_compare_and_write(v, off, sizeof(cur), cur, nw, &mo), 0);
	assert_int_equal(rd(v, off, got, sizeof(got)), 0);
	assert_memory_equal(got, nw, sizeof(nw));
	/* Against unmapped space: compares with zeros. */
	unsigned char z[512] = { 0 };
	assert_int_equal(volume_compare_and_write(v, 10 * B, 512, z, nw, &mo), 0);
	assert_int_equal(rd(v, 10 * B, got, 512), 0);
	assert_memory_equal(got, nw, 512);
	assert_int_equal(volume_compare_and_write(v, 16 * B - 512, 1024, z, nw, &mo), -ERANGE);
	volume_destroy(v);
	array_put(a);
}

/* Threads increment a counter held in a straddling 1 KiB range with CAW
 * (read, then CAW old -> old+1, retry on -EILSEQ) while plain writers hammer
 * the neighbouring bytes of the same blocks.  Atomicity means no increment is
 * lost and the neighbours' last writes survive. */
#define THREADS 4
#define INCS 150
struct cctx {
	struct volume *v;
	uint64_t off;
	int id;
	int fails;
};

static void *incrementer(void *arg)
{
	struct cctx *c = arg;
	for (int i = 0; i < INCS; i++) {
		for (;;) {
			unsigned char old[1024], nw[1024];
			uint64_t mo;
			if (rd(c->v, c->off, old, sizeof(old)))
				return (void *)1;
			uint64_t n;
			memcpy(&n, old, 8);
			memcpy(nw, old, sizeof(nw));
			n++;
			memcpy(nw, &n, 8);
			memset(nw + 8, (int)(n & 0xff), sizeof(nw) - 8);
			int r = volume_compare_and_write(c->v, c->off, sizeof(old), old, nw, &mo);
			if (r == 0)
				break;
			if (r != -EILSEQ)
				return (void *)2;
			c->fails++;
		}
	}
	return NULL;
}

static void *neighbour(void *arg)
{
	struct cctx *c = arg;
	unsigned char buf[512];
	for (int i = 0; i < 2 * INCS; i++) {
		memset(buf, c->id, sizeof(buf));
		if (wr(c->v, c->off, buf, sizeof(buf)))
			return (void *)3;
	}
	return NULL;
}

static void caw_concurrent(void **state)
{
	const uint32_t B = 8192;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 8 * B, 512);
	uint64_t off = B - 512;
	pthread_t t[THREADS + 2];
	struct cctx c[THREADS + 2];
	for (int i = 0; i < THREADS; i++) {
		c[i] = (struct cctx){ v, off, i, 0 };
		pthread_create(&t[i], NULL, incrementer, &c[i]);
	}
	c[THREADS] = (struct cctx){ v, off - 512, 0x41, 0 };     /* same block, before */
	c[THREADS + 1] = (struct cctx){ v, off + 1024, 0x42, 0 }; /* next block, after */
	for (int i = THREADS; i < THREADS + 2; i++)
		pthread_create(&t[i], NULL, neighbour, &c[i]);
	for (int i = 0; i < THREADS + 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		assert_null(r);
	}
	unsigned char got[2048];
	assert_int_equal(rd(v, off - 512, got, sizeof(got)), 0);
	uint64_t n;
	memcpy(&n, got + 512, 8);
	assert_int_equal(n, THREADS * INCS);
	for (int i = 0; i < 512; i++) {
		assert_int_equal(got[i], 0x41);
		assert_int_equal(got[1536 + i], 0x42);
	}
	for (int i = 8; i < 1024; i++)
		assert_int_equal(got[512 + i], (unsigned char)(n & 0xff));
	volume_destroy(v);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(caw_basic),
		cmocka_unit_test(caw_concurrent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
