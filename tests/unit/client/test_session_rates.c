/* test_session_rates.c - page 0x32 decoding (every bad field named) and each session's
 * modeled rate and the fairness lunlab-bench scale reports from two reads of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "client/session_rates.h"

static struct session_page p0, p1;

struct pagebuf {
	uint8_t b[1024];
	size_t n;
};

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void begin(struct pagebuf *pb)
{
	memset(pb, 0, sizeof(*pb));
	pb->b[0] = 0x32;
	pb->n = 4;
}

static void add(struct pagebuf *pb, uint16_t code, const uint64_t f[7])
{
	uint8_t *p = pb->b + pb->n;
	p[0] = (uint8_t)(code >> 8);
	p[1] = (uint8_t)code;
	p[2] = 0x03;
	p[3] = 56;
	for (int i = 0; i < 7; i++)
		put64(p + 4 + 8 * i, f[i]);
	pb->n += 60;
}

static void end(struct pagebuf *pb)
{
	pb->b[2] = (uint8_t)((pb->n - 4) >> 8);
	pb->b[3] = (uint8_t)(pb->n - 4);
}

/* nexus, commands, bytes, first_bytes, first_arrival, first_completion, last_completion */
static const uint64_t s1[7] = { 11, 2, 2000000, 1000000, 0, 1000000, 4000000 };
static const uint64_t s2[7] = { 12, 2, 2000000, 1000000, 0, 2000000, 5000000 };
static const uint64_t s3[7] = { 13, 1, 1000000, 1000000, 0, 4000000, 4000000 };

static void parse_page(void **state)
{
	(void)state;
	struct pagebuf pb;
	char err[200];
	begin(&pb);
	add(&pb, 0, s1);
	add(&pb, 1, s2);
	end(&pb);
	assert_int_equal(session_page_parse(pb.b, pb.n, &p1, err, sizeof(err)), 0);
	assert_int_equal(p1.n, 2);
	assert_int_equal(p1.s[1].nexus, 12);
	assert_int_equal(p1.s[1].commands, 2);
	assert_int_equal(p1.s[1].bytes, 2000000);
	assert_int_equal(p1.s[1].first_bytes, 1000000);
	assert_int_equal(p1.s[1].first_arrival_ns, 0);
	assert_int_equal(p1.s[1].first_completion_ns, 2000000);
	assert_int_equal(p1.s[1].last_completion_ns, 5000000);
	/* an empty page: no sessions (a LU whose host is pooled) */
	begin(&pb);
	end(&pb);
	assert_int_equal(session_page_parse(pb.b, pb.n, &p1, err, sizeof(err)), 0);
	assert_int_equal(p1.n, 0);
}

static void parse_errors(void **state)
{
	(void)state;
	struct pagebuf pb;
	char err[200];
	begin(&pb);
	assert_int_equal(session_page_parse(pb.b, 3, &p1, err, sizeof(err)), -1);
	assert_string_equal(err, "log page 0x32: 3 bytes, shorter than its 4-byte header");
	pb.b[0] = 0x31;
	assert_int_equal(session_page_parse(pb.b, 4, &p1, err, sizeof(err)), -1);
	assert_string_equal(err, "log page 0x32: page code 0x31");
	begin(&pb);
	add(&pb, 0, s1);
	end(&pb);
	assert_int_equal(session_page_parse(pb.b, pb.n - 1, &p1, err, sizeof(err)), -1);
	assert_string_equal(err, "log page 0x32: page length 60 runs past the 63 bytes received");
	pb.b[7] = 8; /* an 8-byte parameter */
	assert_int_equal(session_page_parse(pb.b, pb.n, &p1, err, sizeof(err)), -1);
	assert_string_equal(err, "log page 0x32: parameter 0x0000 at byte 4: length 8, want 56");
	begin(&pb);
	add(&pb, 0, s1);
	pb.n -= 4; /* the page ends inside the value */
	end(&pb);
	assert_int_equal(session_page_parse(pb.b, pb.n, &p1, err, sizeof(err)), -1);
	assert_string_equal(err, "log page 0x32: parameter at byte 4 runs past the page");
	begin(&pb);
	pb.n = 6; /* 2 bytes of a header */
	end(&pb);
	assert_int_equal(session_page_parse(pb.b, pb.n, &p1, err, sizeof(err)), -1);
	assert_string_equal(err, "log page 0x32: parameter header at byte 4 runs past the page");
}

static void rates_and_fairness(void **state)
{
	(void)state;
	struct session_fairness f;
	/* new in the run: each one's bytes after its first command over its first to last
	 * completion: 11 moved 1 MB in 3 ms, 12 the same; 13 (one command) 1 MB over 4 ms */
	memset(&p0, 0, sizeof(p0));
	memset(&p1, 0, sizeof(p1));
	p1.n = 3;
	memcpy(&p1.s[0], s1, sizeof(s1));
	memcpy(&p1.s[1], s2, sizeof(s2));
	memcpy(&p1.s[2], s3, sizeof(s3));
	assert_int_equal(session_fairness_of(&p0, &p1, &f), 3);
	assert_true(f.max_mbps > 333.333 && f.max_mbps < 333.334);
	assert_true(f.min_mbps > 249.999 && f.min_mbps < 250.001);
	assert_true(f.fairness > 1.33333 && f.fairness < 1.33334);
	/* with figures before the run: what moved since over how far the last completion moved
	 * (11: 3 MB in 6 ms = 500 MB/s; 12 moved nothing: no rate; 13 is new: 250 MB/s) */
	p0.n = 2;
	memcpy(&p0.s[0], s1, sizeof(s1));
	memcpy(&p0.s[1], s2, sizeof(s2));
	p1.s[0].commands = 5;
	p1.s[0].bytes = 5000000;
	p1.s[0].last_completion_ns = 10000000;
	assert_int_equal(session_fairness_of(&p0, &p1, &f), 2);
	assert_true(f.max_mbps > 499.999 && f.max_mbps < 500.001);
	assert_true(f.fairness > 1.99999 && f.fairness < 2.00001);
	/* figures after a reset (fewer commands than before): counted as new */
	p1.s[0].commands = 1;
	p1.s[0].bytes = 1000000;
	p1.s[0].first_bytes = 1000000;
	p1.s[0].first_arrival_ns = 9000000;
	p1.s[0].last_completion_ns = 10000000;
	assert_int_equal(session_fairness_of(&p0, &p1, &f), 2);
	assert_true(f.max_mbps > 999.999 && f.max_mbps < 1000.001);
	/* nothing moved: no figure */
	p1.n = 0;
	assert_int_equal(session_fairness_of(&p0, &p1, &f), 0);
	assert_true(f.fairness == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_page),
		cmocka_unit_test(parse_errors),
		cmocka_unit_test(rates_and_fairness),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
