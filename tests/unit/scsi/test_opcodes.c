/* test_opcodes.c — the command table's lookup (opcodes.c, scsi_op_find):
 * the 256-entry opcode index finds exactly what a scan of the whole table
 * finds, for every opcode and service action, with the same "known opcode"
 * and "has service actions" answers. */
#include "fixture.h"

static const struct scsi_op *scan(uint8_t opcode, uint16_t sa, bool *has_sa, bool *known)
{
	const struct scsi_op *hit = NULL;
	*has_sa = *known = false;
	for (size_t i = 0; i < scsi_op_count(); i++) {
		const struct scsi_op *e = scsi_op_at(i);
		if (e->opcode != opcode)
			continue;
		*known = true;
		*has_sa = scsi_op_has_sa(e);
		if (!hit && (!scsi_op_has_sa(e) || e->sa == sa))
			hit = e;
	}
	return hit;
}

static void test_index_equals_scan(void **state)
{
	unsigned found = 0;
	for (unsigned op = 0; op < 256; op++)
		for (uint16_t sa = 0; sa < 32; sa++) {
			bool has_sa, known, want_has_sa, want_known;
			const struct scsi_op *got = scsi_op_find((uint8_t)op, sa, &has_sa, &known);
			const struct scsi_op *want = scan((uint8_t)op, sa, &want_has_sa, &want_known);
			assert_ptr_equal(got, want);
			assert_int_equal(known, want_known);
			assert_int_equal(has_sa, want_has_sa);
			found += got != NULL;
		}
	/* every entry is reachable: opcodes without service actions once per sa */
	unsigned expect = 0;
	for (size_t i = 0; i < scsi_op_count(); i++)
		expect += scsi_op_has_sa(scsi_op_at(i)) ? 1 : 32;
	assert_int_equal(found, expect);
	/* and NULL flag pointers are allowed */
	assert_non_null(scsi_op_find(0x28, 0, NULL, NULL));
	assert_null(scsi_op_find(0xff, 0, NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_equals_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
