/* fuzz_cdb_decode.c — libFuzzer target: any bytes as a CDB of exactly that many bytes (an
 * exact-size heap copy, so ASan sees any read past it) through the one CDB decoder
 * (scsi/cdb_decode.c, lunlab/cdb_decode.h):
 *   - a decoded CDB fits its row's length, its row is what cdb_layout_find gives, its
 *     direction is NONE exactly when nothing moves, READ(6)'s length is 1..256;
 *   - what it decoded writes back (cdb_build, cdb_set_length) to a CDB that decodes the
 *     same: the builder and the decoder read one table the same way;
 *   - a refused CDB leaves the output zeroed and gets a one-line reason;
 *   - libtcmu's typical layouts read any CDB as long as their group's length. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/cdb_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-cdb-decode: %s\n", what);
		abort();
	}
}

static void one(const uint8_t *cdb, size_t size, uint32_t bs)
{
	struct cdb_info ci, again;
	enum cdb_decode_status st = cdb_decode(cdb, size, bs, &ci);
	const char *why = cdb_decode_status_str(st);

	check(why[0] && !strchr(why, '\n'), "the status is not one line");
	if (st != CDB_DECODE_OK) {
		check(!ci.layout && !ci.lba && !ci.length && !ci.xfer_bytes && !ci.flags, "a refusal left fields");
		return;
	}
	const struct cdb_layout *l = ci.layout;
	int sa = cdb_service_action(cdb, size);
	check(l->cdb_len <= size && l->opcode == cdb[0], "the row does not fit the CDB");
	check(sa >= 0 && cdb_layout_find(cdb[0], (uint16_t)sa) == l, "the row is not the lookup's");
	check((ci.dir == CDB_DIR_NONE) == (ci.xfer_bytes == 0), "direction and transfer disagree");
	check(!(l->props & CDB_L_ZERO_IS_256) || (ci.length >= 1 && ci.length <= 256), "READ(6) length");
	check((ci.flags & ~l->flags) == 0, "a flag the command does not have");

	/* write what was decoded into a fresh CDB: it decodes the same */
	uint8_t b[CDB_MAX_LEN];
	check(cdb_build(b, sizeof(b), l->opcode, l->sa, ci.lba, ci.length), "cdb_build refused what cdb_decode read");
	check(cdb_decode(b, l->cdb_len, bs, &again) == CDB_DECODE_OK, "a built CDB does not decode");
	check(again.layout == l && again.lba == ci.lba && again.length == ci.length, "build/decode differ");
	/* rewriting the length with its own value changes no byte */
	uint8_t *copy = malloc(size);
	if (!copy)
		return;
	memcpy(copy, cdb, size);
	check(cdb_set_length(copy, size, ci.length) == (l->len_size != 0), "cdb_set_length");
	check(memcmp(copy, cdb, size) == 0, "cdb_set_length changed the CDB");
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64)
		size = 64;
	uint8_t *cdb = malloc(size ? size : 1);
	if (!cdb)
		return 0;
	memcpy(cdb, data, size);
	one(size ? cdb : NULL, size, 512);
	one(cdb, size, 4096);
	if (size) {
		const struct cdb_layout *t = cdb_layout_typical(cdb[0]);
		if (t && t->cdb_len <= size)
			(void)(cdb_layout_lba(t, cdb) + cdb_layout_length(t, cdb));
	}
	free(cdb);
	return 0;
}
