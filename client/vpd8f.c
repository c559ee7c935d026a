/* vpd8f.c - bounds-checked walk over the third-party copy descriptors of VPD page 0x8F. */
#include "client/vpd8f.h"

#include <stdio.h>
#include <string.h>
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* 0001h: [4] list length, then per command: opcode, SA count, SAs. */
static int commands(const uint8_t *d, size_t dlen, struct tpc_vpd *o, char *err, size_t errlen)
{
	if (dlen < 5) {
		snprintf(err, errlen, "VPD 0x8F: supported commands descriptor of %zu bytes is truncated", dlen);
		return -1;
	}
	size_t end = 5 + (size_t)d[4];
	if (end > dlen) {
		snprintf(err, errlen, "VPD 0x8F: COMMANDS SUPPORTED LIST LENGTH %u runs past its descriptor", d[4]);
		return -1;
	}
	for (size_t off = 5; off < end;) {
		if (off + 2 > end) {
			snprintf(err, errlen, "VPD 0x8F: supported command entry at byte %zu is truncated", off);
			return -1;
		}
		uint8_t op = d[off], n = d[off + 1];
		if (off + 2 + n > end) {
			snprintf(err, errlen, "VPD 0x8F: opcode %02xh lists %u service actions past its list", op, n);
			return -1;
		}
		for (unsigned i = 0; i < n; i++) {
			uint8_t sa = d[off + 2 + i];
			if (op == SCSI_OP_THIRD_PARTY_COPY_OUT && sa == SCSI_SA_EXTENDED_COPY_LID1) o->lid1_xcopy = true;
			if (op == SCSI_OP_THIRD_PARTY_COPY_OUT && sa == SCSI_SA_POPULATE_TOKEN) o->populate_token = true;
			if (op == SCSI_OP_THIRD_PARTY_COPY_OUT && sa == SCSI_SA_WRITE_USING_TOKEN) o->write_using_token = true;
		}
		off += 2u + n;
	}
	o->have_commands = true;
	return 0;
}

int vpd8f_parse(const uint8_t *page, size_t len, struct tpc_vpd *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (!page || len < 4 || page[1] != 0x8f) {
		snprintf(err, errlen, "VPD 0x8F: %s", !page || len < 4 ? "shorter than its 4-byte header" : "wrong page code");
		return -1;
	}
	size_t end = 4 + (size_t)get_be16(page + 2);
	if (end > len) {
		snprintf(err, errlen, "VPD 0x8F: PAGE LENGTH %zu runs past the %zu bytes received", end - 4, len);
		return -1;
	}
	for (size_t off = 4; off < end;) {
		if (end - off < 4) {
			snprintf(err, errlen, "VPD 0x8F: descriptor header at byte %zu is truncated", off);
			return -1;
		}
		uint16_t type = get_be16(page + off);
		size_t dlen = 4 + (size_t)get_be16(page + off + 2);
		if (dlen > end - off) {
			snprintf(err, errlen, "VPD 0x8F: descriptor %04xh of %zu bytes runs past the page", type, dlen);
			return -1;
		}
		const uint8_t *d = page + off;
		switch (type) {
		case 0x0001:
			if (commands(d, dlen, o, err, errlen))
				return -1;
			break;
		case 0x0004:
			if (dlen < 20)
				goto short_desc;
			o->have_params = true;
			o->max_cscd = get_be16(d + 8);
			o->max_segments = get_be16(d + 10);
			o->max_list_len = get_be32(d + 12);
			o->max_inline_len = get_be32(d + 16);
			break;
		case 0x8001:
			if (dlen < 17)
				goto short_desc;
			o->have_general = true;
			o->total_concurrent = get_be32(d + 4);
			o->max_identified = get_be32(d + 8);
			o->max_segment_len = get_be32(d + 12);
			o->data_granularity_log2 = d[16];
			break;
		case 0x0000:
			if (dlen < 36)
				goto short_desc;
			o->have_rod = true;
			o->max_range_descriptors = get_be16(d + 10);
			o->max_token_transfer = get_be64(d + 20);
			o->optimal_transfer_count = get_be64(d + 28);
			break;
		default:
			break;              /* descriptors we do not report are skipped by length */
		}
		o->descriptors++;
		off += dlen;
		continue;
short_desc:
		snprintf(err, errlen, "VPD 0x8F: descriptor %04xh has %zu bytes, too short for its fields", type, dlen);
		return -1;
	}
	return 0;
}
