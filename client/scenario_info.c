/* scenario_info.c - what the LU is and which VAAI primitives it offers. */
#include "client/scenarios.h"

#include <stdio.h>
#include <string.h>

#include "client/conn.h"
#include "client/scsi_query.h"
#include "client/xcopy_builder.h"
#include "client/xms_client.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static bool vpd_listed(const uint8_t *p, int n, uint8_t page)
{
	if (n < 4)
		return false;
	int end = 4 + ((p[2] << 8) | p[3]);
	if (end > n)
		end = n;
	for (int i = 4; i < end; i++)
		if (p[i] == page)
			return true;
	return false;
}

/* --api: the capacity figures of the LU's cluster, as the management API reports them */
static int info_cluster(const struct bench_opts *o, struct bench_conn *c, struct info_result *r, char *err,
			size_t errlen)
{
	struct xms_client xc;
	char serial[128] = "", cluster[64], why[256];
	uint8_t page[260];
	uint64_t index;
	int n = q_inquiry(c, 0x80, page, sizeof(page)), ret;

	if (n >= 4) {
		size_t len = (size_t)(page[2] << 8 | page[3]), s = 0;
		if (len > (size_t)n - 4)
			len = (size_t)n - 4;
		while (s < len && page[4 + s] == ' ')
			s++;
		while (len > s && page[4 + len - 1] == ' ')
			len--;
		if (len - s < sizeof(serial)) {
			memcpy(serial, page + 4 + s, len - s);
			serial[len - s] = '\0';
		}
	}
	if (xms_client_open(&xc, o->api_url, o->api_user, o->api_cacert, o->api_insecure, err, errlen))
		return -1;
	r->cluster_of_lu = serial[0] && xms_client_volume_by_serial(&xc, serial, r->api_volume, sizeof(r->api_volume),
								     &index, cluster, sizeof(cluster), why,
								     sizeof(why)) == 0;
	ret = xms_client_cluster(&xc, r->cluster_of_lu ? cluster : NULL, &r->cluster, err, errlen);
	r->have_cluster = ret == 0;
	xms_client_close(&xc);
	return ret;
}

int scenario_info(const struct bench_opts *o, struct info_result *r, char *err, size_t errlen)
{
	struct bench_conn c;
	uint8_t buf[1024];
	memset(r, 0, sizeof(*r));
	if (conn_open(o->url, o->initiator, &c, err, errlen))
		return -1;
	r->num_blocks = c.num_blocks;
	r->block_size = c.block_size;
	r->lbpme = c.lbpme;

	int n = q_inquiry(&c, -1, buf, 96);
	if (n < 36) {
		snprintf(err, errlen, "%s: standard INQUIRY returned %d bytes (< 36)", c.url, n);
		conn_close(&c);
		return -1;
	}
	q_ascii_field(r->vendor, buf + 8, 8);
	q_ascii_field(r->product, buf + 16, 16);
	q_ascii_field(r->revision, buf + 32, 4);
	r->tpc = (buf[5] & 0x08) != 0;

	uint8_t vpdlist[256];
	int nl = q_inquiry(&c, 0x00, vpdlist, sizeof(vpdlist));
	r->vpd_b0 = vpd_listed(vpdlist, nl, 0xb0);
	r->vpd_b2 = vpd_listed(vpdlist, nl, 0xb2);
	r->vpd_8f = vpd_listed(vpdlist, nl, 0x8f);

	n = q_inquiry(&c, 0x83, buf, sizeof(buf));
	struct xcopy_lu lu;
	if (n > 0 && vpd83_find_naa(buf, (size_t)n, &lu) == 0) {
		r->naa_binary = true;
		for (unsigned i = 0; i < lu.naa_len; i++)
			snprintf(r->naa_hex + 2 * i, 3, "%02x", lu.naa[i]);
	}
	if (r->vpd_b0 && (n = q_inquiry(&c, 0xb0, buf, 64)) >= 16) {
		r->max_xfer_blocks = get_be32(buf + 8);
		r->opt_xfer_blocks = get_be32(buf + 12);
		if (n >= 44) {
			r->max_unmap_lba = get_be32(buf + 20);
			r->max_unmap_desc = get_be32(buf + 24);
			r->max_write_same_blocks = ((uint64_t)get_be32(buf + 36) << 32) | get_be32(buf + 40);
		}
	}
	if (r->vpd_b2 && (n = q_inquiry(&c, 0xb2, buf, 64)) >= 8) {
		r->lbpu = (buf[5] & 0x80) != 0;
		r->lbpws = (buf[5] & 0x40) != 0;
		r->lbpws10 = (buf[5] & 0x20) != 0;
		r->provisioning_type = buf[6] & 0x07;
	}
	if (r->vpd_8f && (n = q_inquiry(&c, 0x8f, buf, sizeof(buf))) >= 0) {
		if (vpd8f_parse(buf, (size_t)n, &r->vpd8f, r->vpd8f_error, sizeof(r->vpd8f_error)) == 0)
			r->vpd8f_descriptors = r->vpd8f.descriptors;
	}

	r->xcopy_opcode = q_opcode_supported(&c, 0x83, 0x00);
	if (r->xcopy_opcode < 0)
		r->xcopy_opcode = q_opcode_supported(&c, 0x83, -1);
	r->caw = q_opcode_supported(&c, 0x89, -1);
	r->write_same16 = q_opcode_supported(&c, 0x93, -1);
	r->unmap = q_opcode_supported(&c, 0x42, -1);

	/* RECEIVE COPY RESULTS, OPERATING PARAMETERS (SA 3): the copy limits. */
	uint8_t cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS };
	struct cmd_status st;
	cdb[13] = 255;
	if (conn_cmd(&c, cdb, 16, 1, NULL, 0, buf, 255, &st) == 0 && st.status == 0 && st.got >= 20) {
		r->rcr_ok = true;
		r->rcr_max_tgt = (unsigned)((buf[8] << 8) | buf[9]);
		r->rcr_max_seg = (unsigned)((buf[10] << 8) | buf[11]);
		r->rcr_max_desc_list = get_be32(buf + 12);
		r->rcr_max_seg_len = get_be32(buf + 16);
	}

	char lerr[256];
	if (q_log_supported(&c, 0x30) && q_capacity(&c, &r->cap, lerr, sizeof(lerr)) == 0)
		r->have_capacity = true;
	if (q_log_supported(&c, 0x31) && q_telemetry(&c, &r->tel, lerr, sizeof(lerr)) == 0)
		r->have_telemetry = true;
	int ret = o->api_url ? info_cluster(o, &c, r, err, errlen) : 0;
	r->conn = c.stats;
	conn_close(&c);
	return ret;
}
