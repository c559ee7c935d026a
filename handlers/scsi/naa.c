/* naa.c — the LU's NAA designator, derived from its unit serial so that the
 * same serial gives the same designator in every run and in both hosts
 * (EXTENDED COPY target descriptors and multipath tools key on it).
 *
 * Format: NAA 6 "IEEE Registered Extended" (SPC-4 7.8.6.6.5), 16 bytes:
 *   4 bits NAA = 6 | 24 bits company id | 36 bits vendor specific id | 64 bits extension.
 * Company id 0A-4C-55: a CID (the X bit of the first octet set, so it can
 * never collide with an assigned MA-L/OUI); "4C 55" is "LU".
 * The 100 id bits are a hash of the serial: two FNV-1a 64 passes with
 * different offset bases, each finished with the splitmix64 mixer; 36 bits of
 * the first and all 64 of the second.  Not cryptographic: serials are chosen
 * by the operator, the hash only has to spread them. */
#include <string.h>

#include "handlers/scsi/naa.h"
#include "lunlab/fnv1a.h"

#define LUNLAB_CID 0x0A4C55u

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void naa_from_serial(const char *serial, uint8_t naa[16])
{
	size_t n = strlen(serial);
	uint64_t vsi = mix64(ll_fnv1a64(LL_FNV1A64_BASIS, serial, n)) & 0xfffffffffull; /* 36 bits */
	uint64_t ext = mix64(ll_fnv1a64(0x84222325cbf29ce4ull ^ n, serial, n));

	naa[0] = (uint8_t)(0x60 | ((LUNLAB_CID >> 20) & 0x0f));
	naa[1] = (uint8_t)(LUNLAB_CID >> 12);
	naa[2] = (uint8_t)(LUNLAB_CID >> 4);
	naa[3] = (uint8_t)(((LUNLAB_CID & 0x0f) << 4) | (uint8_t)(vsi >> 32));
	naa[4] = (uint8_t)(vsi >> 24);
	naa[5] = (uint8_t)(vsi >> 16);
	naa[6] = (uint8_t)(vsi >> 8);
	naa[7] = (uint8_t)vsi;
	for (int i = 0; i < 8; i++)
		naa[8 + i] = (uint8_t)(ext >> (56 - 8 * i));
}
