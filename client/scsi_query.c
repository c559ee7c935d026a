/* scsi_query.c - shared synchronous SCSI queries. */
#include "client/scsi_query.h"
#include "lunlab/scsi_vocab.h"

#include <stdio.h>
#include <string.h>

void q_ascii_field(char *dst, const uint8_t *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] > 0x7e)
			dst[i] = '?';
	while (n && dst[n - 1] == ' ')
		dst[--n] = 0;
}

int q_inquiry(struct bench_conn *c, int page, uint8_t *buf, size_t len)
{
	uint8_t cdb[6] = { SCSI_OP_INQUIRY };
	struct cmd_status st;
	if (page >= 0) {
		cdb[1] = 1;
		cdb[2] = (uint8_t)page;
	}
	cdb[3] = (uint8_t)(len >> 8);
	cdb[4] = (uint8_t)len;
	if (conn_cmd(c, cdb, 6, 1, NULL, 0, buf, len, &st) || st.status != 0)
		return -1;
	return (int)st.got;
}

int q_mode_sense10(struct bench_conn *c, uint8_t page, uint8_t subpage, uint8_t *buf, size_t len)
{
	uint8_t cdb[10] = { SCSI_OP_MODE_SENSE_10, 0x08 };
	struct cmd_status st;
	cdb[2] = (uint8_t)(page & 0x3f); /* PC 00b: current values */
	cdb[3] = subpage;
	cdb[7] = (uint8_t)(len >> 8);
	cdb[8] = (uint8_t)len;
	if (conn_cmd(c, cdb, 10, 1, NULL, 0, buf, len, &st) || st.status != 0)
		return -1;
	return (int)st.got;
}

int q_log_sense(struct bench_conn *c, uint8_t page, uint8_t *buf, size_t len)
{
	uint8_t cdb[10] = { SCSI_OP_LOG_SENSE };
	struct cmd_status st;
	cdb[2] = (uint8_t)(0x40 | (page & 0x3f));       /* PC 01b: cumulative values */
	cdb[7] = (uint8_t)(len >> 8);
	cdb[8] = (uint8_t)len;
	if (conn_cmd(c, cdb, 10, 1, NULL, 0, buf, len, &st) || st.status != 0)
		return -1;
	return (int)st.got;
}

int q_log_page(struct bench_conn *c, uint8_t page, struct log_page *pg, char *err, size_t errlen)
{
	static uint8_t buf[65535];
	int n = q_log_sense(c, page, buf, sizeof(buf));
	if (n < 0) {
		snprintf(err, errlen, "LOG SENSE page 0x%02x not supported by the LU", page);
		return -1;
	}
	if (logpage_parse(buf, (size_t)n, pg, err, errlen))
		return -1;
	if (pg->page_code != page) {
		snprintf(err, errlen, "LOG SENSE page 0x%02x answered with page 0x%02x", page, pg->page_code);
		return -1;
	}
	return 0;
}

bool q_log_supported(struct bench_conn *c, uint8_t page)
{
	uint8_t buf[256];
	int n = q_log_sense(c, 0x00, buf, sizeof(buf));
	return n > 0 && logpage_lists(buf, (size_t)n, page);
}

int q_log_reset(struct bench_conn *c, uint8_t page)
{
	/* LOG SELECT: PCR=1, PC=11b (default cumulative) and the page code, no parameter list. */
	uint8_t cdb[10] = { SCSI_OP_LOG_SELECT, 0x02, (uint8_t)(0xc0 | (page & 0x3f)) };
	struct cmd_status st;
	if (conn_cmd(c, cdb, 10, 0, NULL, 0, NULL, 0, &st) || st.status != 0)
		return -1;
	return 0;
}

int q_set_host_streams(struct bench_conn *c, unsigned streams)
{
	/* PCR 0, PC 01b, page code 0 in the CDB (the list names its page, SPC-4 6.8) */
	uint8_t cdb[10] = { SCSI_OP_LOG_SELECT, 0x00, 0x40, 0, 0, 0, 0, 0, 16 };
	uint8_t list[16] = { 0x31, 0x00, 0x00, 12, 0x00, 0x0a, 0x03, 8 };
	struct cmd_status st;
	for (int i = 0; i < 8; i++)
		list[8 + i] = (uint8_t)((uint64_t)streams >> (56 - 8 * i));
	if (conn_cmd(c, cdb, 10, 2, list, sizeof(list), NULL, 0, &st) || st.status != 0)
		return -1;
	return 0;
}

static int rso_query(struct bench_conn *c, uint8_t opcode, int sa, struct cmd_status *st)
{
	uint8_t cdb[12] = { SCSI_OP_MAINTENANCE_IN, SCSI_SA_REPORT_SUPPORTED_OPCODES };
	uint8_t buf[64];
	/* REPORTING OPTIONS 001b (opcode only) or 010b (opcode + service action). */
	cdb[2] = sa >= 0 ? 0x02 : 0x01;
	cdb[3] = opcode;
	cdb[4] = (uint8_t)((sa >= 0 ? sa : 0) >> 8);
	cdb[5] = (uint8_t)(sa >= 0 ? sa : 0);
	cdb[9] = sizeof(buf);
	if (conn_cmd(c, cdb, 12, 1, NULL, 0, buf, sizeof(buf), st) || st->status != 0 || st->got < 2)
		return -1;
	unsigned support = buf[1] & 0x07;
	if (support == 3 || support == 5)
		return 1;
	if (support == 1)
		return 0;
	return -1;
}

int q_opcode_supported(struct bench_conn *c, uint8_t opcode, int sa)
{
	struct cmd_status st;
	int r = rso_query(c, opcode, sa, &st);
	/* Some targets (tgt) answer an unsupported opcode with ILLEGAL REQUEST / INVALID FIELD IN
	 * CDB instead of SUPPORT 001b: if the same query succeeds for READ(10), read that as "no". */
	if (r < 0 && st.status == SCSI_STAT_CHECK_CONDITION && st.key == SCSI_SK_ILLEGAL_REQUEST &&
	    st.asc == scsi_asc(SCSI_ASC_INVALID_FIELD_IN_CDB)) {
		struct cmd_status st2;
		if (rso_query(c, SCSI_OP_READ_10, -1, &st2) == 1)
			return 0;
	}
	return r;
}

int q_capacity(struct bench_conn *c, struct array_capacity *cap, char *err, size_t errlen)
{
	static struct log_page pg;
	if (q_log_page(c, 0x30, &pg, err, errlen))
		return -1;
	return logpage_capacity(&pg, cap, err, errlen);
}

int q_telemetry(struct bench_conn *c, struct model_telemetry *t, char *err, size_t errlen)
{
	static struct log_page pg;
	if (q_log_page(c, 0x31, &pg, err, errlen))
		return -1;
	return logpage_telemetry(&pg, t, err, errlen);
}
