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
			if (op == SCSI_OP_THIRD_PARTY_COPY_OUT && sa == SCSI_SA_COPY_OPERATION_ABORT) o->copy_operation_abort = true;
			if (op == SCSI_OP_THIRD_PARTY_COPY_IN && sa == SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION) o->rrti = true;
		}
		off += 2u + n;
	}
	o->have_commands = true;
	return 0;
}

/* 0108h: [6] ROD TYPE DESCRIPTORS LENGTH, then 64-byte descriptors: type, flags, preference. */
static int rod_types(const uint8_t *d, size_t dlen, struct tpc_vpd *o, char *err, size_t errlen)
{
	if (dlen < 8) {
		snprintf(err, errlen, "VPD 0x8F: supported ROD types descriptor of %zu bytes is truncated", dlen);
		return -1;
	}
	size_t l = get_be16(d + 6);
	if (8 + l > dlen || l % 64) {
		snprintf(err, errlen, "VPD 0x8F: ROD TYPE DESCRIPTORS LENGTH %zu %s", l,
			 l % 64 ? "is not a multiple of 64" : "runs past its descriptor");
		return -1;
	}
	o->n_rod_types = (unsigned)(l / 64);
	for (unsigned i = 0; i < o->n_rod_types && i < VPD8F_MAX_ROD_TYPES; i++) {
		const uint8_t *r = d + 8 + 64 * (size_t)i;
		o->rod_types[i] = (struct tpc_rod_type){
			.type = get_be32(r), .ecpy_int = r[4] & 0x80, .token_in = r[4] & 0x02,
			.token_out = r[4] & 0x01, .preference = get_be16(r + 6),
		};
	}
	o->have_rod_types = true;
	return 0;
}

/* 0106h: lifetimes, then [46] the length of the device-type features; the block device's
 * (peripheral type 0, 48 bytes) holds the optimal sizes Windows sizes its pieces with. */
static int rod_features(const uint8_t *d, size_t dlen, struct tpc_vpd *o, char *err, size_t errlen)
{
	if (dlen < 48) {
		snprintf(err, errlen, "VPD 0x8F: ROD token features descriptor has %zu bytes, too short for its fields", dlen);
		return -1;
	}
	o->remote_tokens = d[4] & 0x0f;
	o->min_token_lifetime_s = get_be32(d + 16);
	o->max_token_lifetime_s = get_be32(d + 20);
	o->max_token_inactivity_s = get_be32(d + 24);
	size_t l = get_be16(d + 46);
	if (48 + l > dlen) {
		snprintf(err, errlen, "VPD 0x8F: ROD DEVICE TYPE SPECIFIC FEATURES DESCRIPTORS LENGTH %zu runs past its descriptor", l);
		return -1;
	}
	for (size_t off = 48; off < 48 + l;) {
		if (48 + l - off < 4) {
			snprintf(err, errlen, "VPD 0x8F: ROD device type features header at byte %zu is truncated", off);
			return -1;
		}
		const uint8_t *f = d + off;
		size_t flen = 4 + (size_t)get_be16(f + 2);
		if (flen > 48 + l - off) {
			snprintf(err, errlen, "VPD 0x8F: ROD device type %02xh features of %zu bytes run past their list", f[0] & 0x1f, flen);
			return -1;
		}
		if ((f[0] & 0x1f) == 0 && flen >= 40) {
			o->have_rod_block_features = true;
			o->optimal_length_granularity = get_be16(f + 6);
			o->rod_max_bytes = get_be64(f + 8);
			o->rod_optimal_bytes = get_be64(f + 16);
			o->optimal_bytes_to_token = get_be64(f + 24);
			o->optimal_bytes_from_token = get_be64(f + 32);
		}
		off += flen;
	}
	o->have_rod_features = true;
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
			o->max_inactivity_timeout_s = get_be32(d + 12);
			o->default_inactivity_timeout_s = get_be32(d + 16);
			o->max_token_transfer = get_be64(d + 20);
			o->optimal_transfer_count = get_be64(d + 28);
			break;
		case 0x0108:
			if (rod_types(d, dlen, o, err, errlen))
				return -1;
			break;
		case 0x0106:
			if (rod_features(d, dlen, o, err, errlen))
				return -1;
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
