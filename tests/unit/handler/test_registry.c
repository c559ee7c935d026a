/* test_registry.c — handlers/registry.c: the open devices found by NAA
 * within their array and by tcmu device, through the tables' growth (3,000
 * devices: 64 buckets doubled six times), and gone once unregistered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "handlers/lunlab_dev.h"

enum { N = 3000 };

/* opaque handles stand in for the real objects: only their addresses count */
static char arrays[2], tdevs[N];
static struct lunlab_dev devs[N];

static void naa_of(int i, uint8_t naa[16])
{
	memset(naa, 0, 16);
	naa[0] = 0x60;
	naa[14] = (uint8_t)(i >> 8);
	naa[15] = (uint8_t)i;
}

static void test_find_grow_unregister(void **state)
{
	uint8_t naa[16];

	(void)state;
	for (int i = 0; i < N; i++) {
		devs[i].array = (struct array *)&arrays[i % 2];
		devs[i].tdev = (struct tcmu_device *)&tdevs[i];
		naa_of(i, devs[i].naa);
		lunlab_dev_register(&devs[i]);
	}
	for (int i = 0; i < N; i++) {
		naa_of(i, naa);
		assert_ptr_equal(lunlab_dev_find_by_naa((struct array *)&arrays[i % 2], naa), &devs[i]);
		/* the same designator in the other array is not this LU */
		assert_null(lunlab_dev_find_by_naa((struct array *)&arrays[1 - i % 2], naa));
		assert_ptr_equal(lunlab_dev_find_by_tdev((struct tcmu_device *)&tdevs[i]), &devs[i]);
	}
	naa_of(N, naa);
	assert_null(lunlab_dev_find_by_naa((struct array *)&arrays[0], naa));
	/* every third one closes */
	for (int i = 0; i < N; i += 3)
		lunlab_dev_unregister(&devs[i]);
	for (int i = 0; i < N; i++) {
		naa_of(i, naa);
		struct lunlab_dev *want = i % 3 ? &devs[i] : NULL;

		assert_ptr_equal(lunlab_dev_find_by_naa((struct array *)&arrays[i % 2], naa), want);
		assert_ptr_equal(lunlab_dev_find_by_tdev((struct tcmu_device *)&tdevs[i]), want);
	}
	/* unregistering twice is harmless; re-registering finds it again */
	lunlab_dev_unregister(&devs[0]);
	lunlab_dev_register(&devs[0]);
	naa_of(0, naa);
	assert_ptr_equal(lunlab_dev_find_by_naa((struct array *)&arrays[0], naa), &devs[0]);
	for (int i = 0; i < N; i++)
		if (i % 3 || i == 0)
			lunlab_dev_unregister(&devs[i]);
	for (int i = 0; i < N; i++)
		assert_null(lunlab_dev_find_by_tdev((struct tcmu_device *)&tdevs[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_grow_unregister),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
