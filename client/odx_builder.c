/* odx_builder.c - build ODX CDBs and parameter lists, decode RRTI answers (SBC-3 5.7 / 5.52,
 * SPC-4 6.18.4).  Field offsets are T10's; docs/xcopy.md "ODX" lists them. */
#include "client/odx_builder.h"

#include <stdio.h>
#include <string.h>
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* Ranges at buf + off: every one non-empty; false otherwise. */
static bool put_ranges(const struct odx_range *r, unsigned n, uint8_t *p)
{
	for (unsigned i = 0; i < n; i++, p += ODX_RANGE_LEN) {
		if (r[i].blocks == 0)
			return false;
		put_be64(p, r[i].lba);
		put_be32(p + 8, r[i].blocks);
		memset(p + 12, 0, 4);
	}
	return true;
}

/* The common frame of both lists: header of hdr bytes, then n ranges.  -1 when it cannot be
 * a list (the descriptor length and the data length are 16-bit fields). */
static int frame(unsigned n, size_t hdr, size_t cap)
{
	size_t total = hdr + (size_t)n * ODX_RANGE_LEN;
	if (n == 0 || (size_t)n * ODX_RANGE_LEN > 0xffff || total - 2 > 0xffff || total > cap)
		return -1;
	return (int)total;
}

int odx_pt_build(const struct odx_pt_args *a, const struct odx_range *r, unsigned n, uint8_t *buf, size_t cap)
{
	int total = frame(n, ODX_PT_HDR_LEN, cap);
	if (total < 0)
		return -1;
	memset(buf, 0, ODX_PT_HDR_LEN);
	put_be16(buf, (uint16_t)(total - 2));          /* DATA LENGTH excludes its own 2 bytes */
	buf[2] = (uint8_t)((a->rod_type ? 0x02 : 0) | (a->immed ? 0x01 : 0));  /* RTV, IMMED */
	put_be32(buf + 4, a->inactivity_timeout_s);
	put_be32(buf + 8, a->rod_type);
	put_be16(buf + 14, (uint16_t)(n * ODX_RANGE_LEN));
	if (!put_ranges(r, n, buf + ODX_PT_HDR_LEN))
		return -1;
	return total;
}

int odx_wut_build(const struct odx_wut_args *a, const struct odx_range *r, unsigned n, uint8_t *buf, size_t cap)
{
	int total = frame(n, ODX_WUT_HDR_LEN, cap);
	if (total < 0 || !a->token)
		return -1;
	memset(buf, 0, ODX_WUT_HDR_LEN);
	put_be16(buf, (uint16_t)(total - 2));
	buf[2] = (uint8_t)((a->del_tkn ? 0x02 : 0) | (a->immed ? 0x01 : 0));  /* DEL_TKN, IMMED */
	put_be64(buf + 8, a->offset_blocks);
	memcpy(buf + 16, a->token, ODX_TOKEN_LEN);
	put_be16(buf + 534, (uint16_t)(n * ODX_RANGE_LEN));
	if (!put_ranges(r, n, buf + ODX_WUT_HDR_LEN))
		return -1;
	return total;
}

/* POPULATE TOKEN and WRITE USING TOKEN share one CDB layout. */
static void out_cdb(uint8_t cdb[16], uint8_t sa, uint32_t list_id, uint32_t list_len)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_OUT;
	cdb[1] = sa;
	put_be32(cdb + 6, list_id);
	put_be32(cdb + 10, list_len);
}

void odx_pt_cdb(uint8_t cdb[16], uint32_t list_id, uint32_t list_len)
{
	out_cdb(cdb, SCSI_SA_POPULATE_TOKEN, list_id, list_len);
}

void odx_wut_cdb(uint8_t cdb[16], uint32_t list_id, uint32_t list_len)
{
	out_cdb(cdb, SCSI_SA_WRITE_USING_TOKEN, list_id, list_len);
}

void odx_rrti_cdb(uint8_t cdb[16], uint32_t list_id, uint32_t alloc_len)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_IN;
	cdb[1] = SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION;
	put_be32(cdb + 2, list_id);
	put_be32(cdb + 10, alloc_len);
}

void odx_abort_cdb(uint8_t cdb[16], uint32_t list_id)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_OUT;
	cdb[1] = SCSI_SA_COPY_OPERATION_ABORT;
	put_be32(cdb + 2, list_id);
}

/* RRTI parameter data: a 32-byte header (AVAILABLE DATA counts the bytes after its own 4),
 * SENSE DATA of byte 13's length, then ROD TOKEN DESCRIPTORS LENGTH (4), and when it is not
 * 0, 2 reserved bytes and the token. */
int odx_rrti_parse(const uint8_t *buf, size_t len, struct odx_rrti *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (!buf || len < 32) {
		snprintf(err, errlen, "RRTI: %zu bytes, shorter than the 32-byte header", buf ? len : 0);
		return -1;
	}
	size_t avail = 4 + (size_t)get_be32(buf);
	if (avail < 32) {
		snprintf(err, errlen, "RRTI: AVAILABLE DATA %zu is shorter than the header", avail - 4);
		return -1;
	}
	size_t end = avail < len ? avail : len;    /* what was both sent and received */
	o->service_action = buf[4] & 0x1f;
	o->status = buf[5] & 0x7f;
	o->operation_counter = get_be16(buf + 6);
	o->status_update_delay_ms = get_be32(buf + 8);
	o->sense_len = buf[13];
	o->transfer_count_units = buf[15];
	o->transfer_count = get_be64(buf + 16);
	size_t off = 32 + (size_t)o->sense_len;
	if (off > end) {
		snprintf(err, errlen, "RRTI: LENGTH OF THE SENSE DATA FIELD %u runs past the %zu bytes", o->sense_len, end);
		return -1;
	}
	const uint8_t *s = buf + 32;
	if (o->sense_len >= 14 && (s[0] & 0x7f) >= 0x70 && (s[0] & 0x7f) <= 0x71) {
		o->sense_key = s[2] & 0x0f;         /* fixed format */
		o->asc = s[12];
		o->ascq = s[13];
	} else if (o->sense_len >= 4 && (s[0] & 0x7f) >= 0x72) {
		o->sense_key = s[1] & 0x0f;         /* descriptor format */
		o->asc = s[2];
		o->ascq = s[3];
	}
	if (off + 4 > end)
		return 0;                           /* no token part: a WUT's status, an old array */
	size_t tlen = get_be32(buf + off);
	if (tlen == 0)
		return 0;
	if (tlen < 2 + ODX_TOKEN_LEN || off + 4 + 2 + ODX_TOKEN_LEN > end) {
		snprintf(err, errlen, "RRTI: ROD TOKEN DESCRIPTORS LENGTH %zu: the 512-byte token is not all there", tlen);
		return -1;
	}
	memcpy(o->token, buf + off + 6, ODX_TOKEN_LEN);
	o->have_token = true;
	return 0;
}

const char *odx_status_name(uint8_t status)
{
	switch (status) {
	case ODX_ST_GOOD: return "completed without errors";
	case ODX_ST_ERROR: return "completed with errors";
	case ODX_ST_RESIDUAL: return "completed with residual data (a partial write)";
	case ODX_ST_FOREGROUND: return "in progress (foreground)";
	case ODX_ST_BACKGROUND: return "in progress (background)";
	case ODX_ST_ABORTED: return "aborted";
	default: return "unknown status";
	}
}

#define APPEND(...) do { \
	int n_ = snprintf(out + used, outlen > used ? outlen - used : 0, __VA_ARGS__); \
	if (n_ > 0) used += (size_t)n_; } while (0)

/* The ranges of a list, hdr bytes in, descriptor length at dl_off. */
static int ranges(const uint8_t *buf, size_t len, size_t hdr, size_t dl_off, char *out, size_t outlen, size_t used)
{
	size_t dl = get_be16(buf + dl_off);
	if (hdr + dl > len) {
		APPEND("  range descriptors: %zu bytes said, %zu there\n", dl, len - hdr);
		return -1;
	}
	uint64_t total = 0;
	for (size_t i = 0; i + ODX_RANGE_LEN <= dl; i += ODX_RANGE_LEN) {
		const uint8_t *r = buf + hdr + i;
		APPEND("  range %zu: LBA %llu, %u blocks\n", i / ODX_RANGE_LEN, (unsigned long long)get_be64(r),
		       get_be32(r + 8));
		total += get_be32(r + 8);
	}
	APPEND("  %zu range%s, %llu blocks in all\n", dl / ODX_RANGE_LEN, dl / ODX_RANGE_LEN == 1 ? "" : "s",
	       (unsigned long long)total);
	return 0;
}

int odx_pt_describe(const uint8_t *buf, size_t len, char *out, size_t outlen)
{
	size_t used = 0;
	if (outlen)
		out[0] = 0;
	if (len < ODX_PT_HDR_LEN) {
		APPEND("parameter list: %zu bytes, shorter than the 16-byte header\n", len);
		return -1;
	}
	uint32_t t = get_be32(buf + 4), rod = get_be32(buf + 8);
	APPEND("  header: data length %u, RTV %u, IMMED %u, inactivity timeout %u s%s, ROD type %08Xh%s\n",
	       get_be16(buf), (buf[2] >> 1) & 1, buf[2] & 1, t, t ? "" : " (the array's default)", rod,
	       rod == ODX_ROD_TYPE_PIT_DEFAULT ? " (point in time copy)" : rod ? "" : " (the array's choice)");
	return ranges(buf, len, ODX_PT_HDR_LEN, 14, out, outlen, used);
}

int odx_wut_describe(const uint8_t *buf, size_t len, char *out, size_t outlen)
{
	size_t used = 0;
	if (outlen)
		out[0] = 0;
	if (len < ODX_WUT_HDR_LEN) {
		APPEND("parameter list: %zu bytes, shorter than the 536-byte header\n", len);
		return -1;
	}
	const uint8_t *tok = buf + 16;
	APPEND("  header: data length %u, DEL_TKN %u, IMMED %u, offset into ROD %llu blocks\n", get_be16(buf),
	       (buf[2] >> 1) & 1, buf[2] & 1, (unsigned long long)get_be64(buf + 8));
	APPEND("  ROD token: type %08Xh, length %u, first bytes %02x%02x%02x%02x%02x%02x%02x%02x... "
	       "(opaque to the host: it only carries it)\n", get_be32(tok), get_be16(tok + 6),
	       tok[8], tok[9], tok[10], tok[11], tok[12], tok[13], tok[14], tok[15]);
	return ranges(buf, len, ODX_WUT_HDR_LEN, 534, out, outlen, used);
}
