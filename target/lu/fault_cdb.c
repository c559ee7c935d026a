/* fault_cdb.c — command kinds and addressed blocks, as fault rules match
 * them (SBC-4 field positions). */
#include "target/lu/fault_rules.h"

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

enum fault_op fault_cdb_kind(const uint8_t *cdb)
{
	switch (cdb[0]) {
	case 0x08: case 0x28: case 0xa8: case 0x88:
		return FAULT_OP_READ;
	case 0x0a: case 0x2a: case 0xaa: case 0x8a: /* WRITE(6/10/12/16) */
	case 0x2e: case 0xae: case 0x8e:            /* WRITE AND VERIFY(10/12/16) */
	case 0x41: case 0x93:                       /* WRITE SAME(10/16) */
	case 0x9c:                                  /* WRITE ATOMIC(16) */
		return FAULT_OP_WRITE;
	case 0x83:
		return FAULT_OP_XCOPY;
	case 0x42:
		return FAULT_OP_UNMAP;
	case 0x89:
		return FAULT_OP_CAW;
	case 0x00:
		return FAULT_OP_TUR;
	case 0x35: case 0x91:
		return FAULT_OP_SYNC;
	default:
		return FAULT_OP_OPCODE;
	}
}

bool fault_cdb_exempt(const uint8_t *cdb)
{
	return cdb[0] == 0x12 || cdb[0] == 0xa0 || cdb[0] == 0x03;
}

bool fault_cdb_range(const uint8_t *cdb, uint64_t *lba, uint64_t *blocks)
{
	switch (cdb[0]) {
	case 0x08: case 0x0a: /* 21-bit LBA, 0 blocks = 256 */
		*lba = be(cdb + 1, 3) & 0x1fffff;
		*blocks = cdb[4] ? cdb[4] : 256;
		return true;
	case 0x28: case 0x2a: case 0x2e: case 0x2f: case 0x41: case 0x35:
		*lba = be(cdb + 2, 4);
		*blocks = be(cdb + 7, 2);
		break;
	case 0xa8: case 0xaa: case 0xae: case 0xaf:
		*lba = be(cdb + 2, 4);
		*blocks = be(cdb + 6, 4);
		break;
	case 0x88: case 0x8a: case 0x8e: case 0x8f: case 0x93: case 0x91: case 0x9c:
		*lba = be(cdb + 2, 8);
		*blocks = be(cdb + 10, 4);
		break;
	case 0x89: /* COMPARE AND WRITE: NUMBER OF LOGICAL BLOCKS in byte 13 */
		*lba = be(cdb + 2, 8);
		*blocks = cdb[13];
		break;
	default:
		return false;
	}
	/* 0 blocks: SYNCHRONIZE CACHE / WRITE SAME mean "to the end"; a
	 * transfer of nothing still names its LBA */
	if (*blocks == 0)
		*blocks = (cdb[0] == 0x35 || cdb[0] == 0x91 || cdb[0] == 0x41 || cdb[0] == 0x93) ? UINT64_MAX - *lba : 1;
	return true;
}

bool fault_unmap_overlaps(const uint8_t *data, size_t len, uint64_t first, uint64_t last, uint64_t *at)
{
	size_t dl;

	/* header: UNMAP DATA LENGTH (2), BLOCK DESCRIPTOR DATA LENGTH (2), 4 reserved */
	if (!data || len < 8)
		return false;
	dl = (size_t)be(data + 2, 2);
	if (dl > len - 8)
		dl = len - 8;
	for (size_t o = 8; o + 16 <= 8 + dl; o += 16) {
		uint64_t lba = be(data + o, 8), n = be(data + o + 8, 4);
		uint64_t end;

		if (n == 0)
			continue;
		end = lba + n - 1 < lba ? UINT64_MAX : lba + n - 1;
		if (lba <= last && end >= first) {
			*at = lba > first ? lba : first;
			return true;
		}
	}
	return false;
}
