/* test_logpage.c - LOG SENSE decoding on crafted pages: values by parameter code, pages 0x30
 * and 0x31 into their structs, and truncated or garbage pages rejected with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/logpage.h"

struct builder { uint8_t b[4096]; size_t n; };

static void begin(struct builder *p, uint8_t page)
{
	memset(p, 0, sizeof(*p));
	p->b[0] = page;
	p->n = 4;
}

static void param(struct builder *p, uint16_t code, uint64_t v, uint8_t len)
{
	p->b[p->n++] = (uint8_t)(code >> 8);
	p->b[p->n++] = (uint8_t)code;
	p->b[p->n++] = 0x03;
	p->b[p->n++] = len;
	for (int i = len - 1; i >= 0; i--)
		p->b[p->n++] = (uint8_t)(i < 8 ? v >> (8 * i) : 0);
}

static void end(struct builder *p)
{
	p->b[2] = (uint8_t)((p->n - 4) >> 8);
	p->b[3] = (uint8_t)(p->n - 4);
}

static void capacity_page(void **state)
{
	struct builder p;
	begin(&p, 0x30);
	/* out of order on purpose: parameters are found by code, not position */
	param(&p, 0x0012, 1712, 8);
	param(&p, 0x0003, 6990000000ull, 8);
	param(&p, 0x0001, 11970000000ull, 8);
	param(&p, 0x0002, 9000000000ull, 8);
	param(&p, 0x0008, 5, 8);
	param(&p, 0x0010, 1330, 8);
	param(&p, 0x0011, 1287, 8);
	param(&p, 0x0020, 4096, 4);         /* a 4-byte value */
	param(&p, 0x7777, 1, 2);            /* unknown code: ignored */
	end(&p);
	struct log_page pg;
	char err[200];
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), 0);
	assert_int_equal(pg.page_code, 0x30);
	assert_int_equal(pg.n, 9);
	struct array_capacity cap;
	assert_int_equal(logpage_capacity(&pg, &cap, err, sizeof(err)), 0);
	assert_int_equal(cap.logical_bytes, 11970000000ull);
	assert_int_equal(cap.physical_bytes, 6990000000ull);
	assert_int_equal(cap.unique_bytes, 9000000000ull);
	assert_int_equal(cap.pending_blocks, 5);
	assert_true(cap.have_pending);
	assert_int_equal(cap.volume_mapped_bytes, 4096);
	assert_true(cap.have_ratios);
	assert_true(cap.drr > 1.7115 && cap.drr < 1.7125);
	assert_true(cap.dedup_ratio > 1.3295 && cap.dedup_ratio < 1.3305);
	assert_true(cap.compression_ratio > 1.2865 && cap.compression_ratio < 1.2875);
}

static void capacity_ratios_derived(void **state)
{
	struct builder p;
	begin(&p, 0x30);
	param(&p, 0x0001, 1400, 8);
	param(&p, 0x0002, 1000, 8);
	param(&p, 0x0003, 500, 8);
	end(&p);
	struct log_page pg;
	struct array_capacity cap;
	char err[200];
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), 0);
	assert_int_equal(logpage_capacity(&pg, &cap, err, sizeof(err)), 0);
	assert_false(cap.have_ratios);
	assert_false(cap.have_pending);
	assert_true(cap.dedup_ratio == 1.4);
	assert_true(cap.compression_ratio == 2.0);
	assert_true(cap.drr == 2.8);
	/* without physical_bytes the page is unusable, and the error names the field */
	begin(&p, 0x30);
	param(&p, 0x0001, 1400, 8);
	end(&p);
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), 0);
	assert_int_equal(logpage_capacity(&pg, &cap, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "physical_bytes (0x0003)"));
}

static void telemetry_page(void **state)
{
	struct builder p;
	begin(&p, 0x31);
	param(&p, 0x0001, 4874, 8);
	param(&p, 0x0002, 80000000000ull, 8);
	param(&p, 0x0005, 23000, 8);
	param(&p, 0x0007, 700, 8);
	param(&p, 0x0008, 4000, 8);
	param(&p, 0x000A, 4, 8);
	param(&p, 0x000B, 777000, 8);
	param(&p, 0x000C, 5, 8);
	param(&p, 0x000D, 6, 8);
	param(&p, 0x000E, 1, 8);
	param(&p, 0x020C, 4874, 8);
	param(&p, 0x030C, 1234567, 8);
	for (uint16_t i = 0; i < 32; i++)
		param(&p, (uint16_t)(0x0100 + i), i, 8);
	end(&p);
	struct log_page pg;
	struct model_telemetry t;
	char err[200];
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), 0);
	assert_int_equal(logpage_telemetry(&pg, &t, err, sizeof(err)), 0);
	assert_int_equal(t.commands, 4874);
	assert_int_equal(t.modeled_elapsed_ns, 80000000000ull);
	assert_int_equal(t.peak_latency_ns, 23000);
	assert_int_equal(t.peak_cpu_permille, 700);
	assert_int_equal(t.time_scale_x1000, 4000);
	assert_int_equal(t.virtual_streams, 4);
	assert_true(t.have_streams_pinned);
	assert_int_equal(t.streams_pinned, 1);
	assert_true(t.have_busy);
	assert_int_equal(t.frontend_busy_ns, 777000);
	assert_int_equal(t.backend_busy_ns, 5);
	assert_int_equal(t.journal_busy_ns, 6);
	assert_int_equal(t.bucket_ops[12], 4874);
	assert_int_equal(t.bucket_bytes[12], 1234567);
	assert_int_equal(t.bucket_ops[0], 0);
	uint64_t v;
	assert_true(logpage_get(&pg, 0x011f, &v));
	assert_int_equal(v, 31);
	assert_false(logpage_get(&pg, 0x0006, &v));
	/* time scale absent: real time */
	begin(&p, 0x31);
	param(&p, 0x0002, 5, 8);
	end(&p);
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), 0);
	assert_int_equal(logpage_telemetry(&pg, &t, err, sizeof(err)), 0);
	assert_int_equal(t.time_scale_x1000, 1000);
	assert_false(t.have_streams_pinned);     /* an older LU: no way to set the host streams */
	assert_false(t.have_busy);                 /* an older lunlab: no resource busy times */
	/* the wrong page is refused */
	assert_int_equal(logpage_capacity(&pg, &(struct array_capacity){ 0 }, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected log page 0x30, got 0x31"));
}

static void truncated_and_garbage(void **state)
{
	struct builder p;
	struct log_page pg;
	char err[200];
	begin(&p, 0x30);
	param(&p, 0x0001, 1, 8);
	param(&p, 0x0003, 1, 8);
	end(&p);
	/* every truncation of a valid page is an error, never a read past the buffer */
	for (size_t n = 0; n < p.n; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, p.b, n);
		assert_int_equal(logpage_parse(n ? copy : NULL, n, &pg, err, sizeof(err)), -1);
		free(copy);
	}
	assert_int_equal(logpage_parse(p.b, 3, &pg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shorter than the 4-byte header"));
	assert_int_equal(logpage_parse(p.b, p.n - 1, &pg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PAGE LENGTH"));
	/* a parameter length running past the page */
	p.b[4 + 3] = 200;
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "parameter 0x0001 length 200 runs past the page"));
	/* a page that ends inside a parameter header */
	begin(&p, 0x31);
	param(&p, 0x0002, 1, 8);
	p.b[p.n++] = 0x00;
	p.b[p.n++] = 0x05;
	end(&p);
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "truncated"));
	/* random garbage: any result, but no crash, and a failure always says why */
	uint32_t seed = 12345;
	for (int round = 0; round < 20000; round++) {
		uint8_t g[64];
		size_t n = (size_t)(round % 64);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			g[i] = (uint8_t)(seed >> 16);
		}
		if (n >= 4 && round % 3 == 0) {   /* plausible page length half of the time */
			g[2] = 0;
			g[3] = (uint8_t)(n - 4);
		}
		err[0] = 0;
		if (logpage_parse(g, n, &pg, err, sizeof(err)) != 0)
			assert_true(err[0] != 0);
		else
			assert_true(pg.n <= LOGPAGE_MAX_PARAMS);
	}
}

static void too_many_params(void **state)
{
	static struct builder p;
	begin(&p, 0x31);
	for (int i = 0; i < LOGPAGE_MAX_PARAMS + 1; i++)
		param(&p, (uint16_t)i, 0, 0);
	end(&p);
	struct log_page pg;
	char err[200];
	assert_int_equal(logpage_parse(p.b, p.n, &pg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 256 parameters"));
}

static void supported_pages(void **state)
{
	uint8_t pg0[] = { 0x00, 0x00, 0x00, 0x04, 0x00, 0x0c, 0x30, 0x31 };
	assert_true(logpage_lists(pg0, sizeof(pg0), 0x30));
	assert_true(logpage_lists(pg0, sizeof(pg0), 0x31));
	assert_false(logpage_lists(pg0, sizeof(pg0), 0x2f));
	assert_false(logpage_lists(pg0, 7, 0x31));       /* truncated: 0x31 not received */
	assert_false(logpage_lists(pg0, 3, 0x00));
	assert_false(logpage_lists(NULL, 8, 0x30));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capacity_page),
		cmocka_unit_test(capacity_ratios_derived),
		cmocka_unit_test(telemetry_page),
		cmocka_unit_test(truncated_and_garbage),
		cmocka_unit_test(too_many_params),
		cmocka_unit_test(supported_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
