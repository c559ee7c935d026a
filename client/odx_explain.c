/* odx_explain.c - clone --mode odx --explain: one ODX copy, command by command, as Windows'
 * copy engine sends it, with the array's capacity page before and after each step. */
#include "client/odx_explain.h"

#include "client/odx_builder.h"
#include "client/scsi_query.h"
#include "client/xcopy_builder.h"

static bool capacity(struct bench_conn *c, struct array_capacity *cap)
{
	char e[200];
	return q_capacity(c, cap, e, sizeof(e)) == 0;
}

/* --explain of ODX: what one capacity snapshot to the next says the array did. */
static void odx_capacity_delta(FILE *f, const struct array_capacity *b, const struct array_capacity *a, bool writes)
{
	long long mapped = (long long)(a->mapped_blocks - b->mapped_blocks);
	long long uniq = (long long)(a->unique_bytes - b->unique_bytes);
	long long phys = (long long)(a->physical_bytes - b->physical_bytes);
	fprintf(f, "  array: map entries %+lld blocks (of %llu bytes); data bytes stored: %+lld unique, %+lld physical",
		mapped, (unsigned long long)a->dedup_block, uniq, phys);
	if (writes)
		fprintf(f, " -> data moved: %s\n", uniq == 0 && phys == 0 ? "none (a metadata copy)" : "some");
	else
		fprintf(f, " -> the token holds references to the source's blocks (no data copied)\n");
}

/* One ODX command of --explain: send it, say how the array answered. */
static bool odx_explain_cmd(FILE *f, struct bench_conn *c, const uint8_t cdb[16], int dir, const uint8_t *out,
			    size_t outlen, uint8_t *in, size_t inlen, struct cmd_status *st, const char *what)
{
	uint64_t t0 = now_ns();
	int rc = conn_cmd(c, cdb, 16, dir, out, outlen, in, inlen, st);
	double ms = (double)(now_ns() - t0) / 1e6;
	if (rc || st->status) {
		char a[100];
		conn_describe_status(st->status, st->key, st->asc, st->ascq, a, sizeof(a));
		fprintf(f, "  %s: refused (%s): Windows' copy engine would copy this piece with READ + WRITE\n", what, a);
		return false;
	}
	fprintf(f, "  %s: GOOD in %.3f ms\n", what, ms);
	return true;
}

/* --explain for --mode odx: the first chunks of clone 0, command by command, as Windows'
 * copy engine sends them, with what the array's capacity page says each one did. */
void odx_explain(const struct odx_explain_args *a, FILE *f)
{
	bool cap_ok = q_log_supported(a->src, 0x30);
	fprintf(f, "== explain: the first %u ODX copies of clone 0 (one token per chunk) ==\n", a->count);
	if (!a->offered) {
		fprintf(f, "VPD 0x8F does not list POPULATE TOKEN, WRITE USING TOKEN and RRTI: Windows' copy engine "
			"would not try ODX and copies with READ + WRITE\n== end of explain ==\n\n");
		return;
	}
	for (unsigned i = 0; i < a->count; i++) {
		uint64_t off = (uint64_t)i * a->chunk_blocks;
		if (off >= a->tmpl_blocks)
			break;
		uint64_t blocks = a->tmpl_blocks - off < a->chunk_blocks ? a->tmpl_blocks - off : a->chunk_blocks;
		uint64_t bytes = blocks * a->block_size;
		struct odx_range src = { .lba = off, .blocks = (uint32_t)blocks };
		struct odx_range dst = { .lba = a->dst_base + off, .blocks = (uint32_t)blocks };
		const uint32_t pt_id = 0x7e000000u + 2 * i, wut_id = pt_id + 1;
		fprintf(f, "\n#%u  copy template blocks %llu..%llu (%llu blocks, %llu bytes) to LBA %llu\n", i + 1,
			(unsigned long long)off, (unsigned long long)(off + blocks - 1),
			(unsigned long long)blocks, (unsigned long long)bytes, (unsigned long long)dst.lba);
		uint8_t list[ODX_WUT_HDR_LEN + ODX_RANGE_LEN], cdb[16], in[ODX_RRTI_ALLOC];
		char text[2048];
		struct cmd_status st;
		struct array_capacity c0, c1, c2;
		bool have = cap_ok && capacity(a->src, &c0);
		/* 1. POPULATE TOKEN on the source: the run's list (ROD type and timeout the array's) */
		struct odx_pt_args pa = { .immed = false };
		int len = odx_pt_build(&pa, &src, 1, list, sizeof(list));
		odx_pt_describe(list, (size_t)len, text, sizeof(text));
		fprintf(f, " 1. POPULATE TOKEN (83h/10h) to the source LU, list id %u, parameter list %d bytes:\n%s",
			pt_id, len, text);
		odx_pt_cdb(cdb, pt_id, (uint32_t)len);
		if (!odx_explain_cmd(f, a->src, cdb, 2, list, (size_t)len, NULL, 0, &st, "POPULATE TOKEN"))
			continue;
		if (have && capacity(a->src, &c1))
			odx_capacity_delta(f, &c0, &c1, false);
		/* 2. RRTI fetches the token */
		fprintf(f, " 2. RECEIVE ROD TOKEN INFORMATION (84h/07h) to the source LU, list id %u, allocation %u bytes\n",
			pt_id, ODX_RRTI_ALLOC);
		odx_rrti_cdb(cdb, pt_id, ODX_RRTI_ALLOC);
		if (!odx_explain_cmd(f, a->src, cdb, 1, NULL, 0, in, sizeof(in), &st, "RRTI"))
			continue;
		struct odx_rrti info;
		char perr[160];
		unsigned rrti_got = (unsigned)st.got;
		if (odx_rrti_parse(in, st.got, &info, perr, sizeof(perr)) || !info.have_token) {
			fprintf(f, "  RRTI answer (%u bytes): %s\n", (unsigned)st.got, info.have_token ? perr : "no token");
			continue;
		}
		fprintf(f, "  answer %u bytes: %s, transfer count %llu %s, a %u-byte token of type %08Xh "
			"(the host keeps it; it may carry it to another LU, session or host of the array)\n",
			(unsigned)st.got, odx_status_name(info.status), (unsigned long long)info.transfer_count,
			info.transfer_count_units == 0xf1 ? "blocks" : "units", ODX_TOKEN_LEN,
			(unsigned)info.token[0] << 24 | (unsigned)info.token[1] << 16 | (unsigned)info.token[2] << 8 | info.token[3]);
		/* 3. WRITE USING TOKEN on the destination */
		struct odx_wut_args wa = { .del_tkn = a->del_tkn, .token = info.token };
		len = odx_wut_build(&wa, &dst, 1, list, sizeof(list));
		odx_wut_describe(list, (size_t)len, text, sizeof(text));
		fprintf(f, " 3. WRITE USING TOKEN (83h/11h) to the destination LU, list id %u, parameter list %d bytes:\n%s",
			wut_id, len, text);
		if (have)
			have = capacity(a->src, &c1);
		odx_wut_cdb(cdb, wut_id, (uint32_t)len);
		if (!odx_explain_cmd(f, a->dst, cdb, 2, list, (size_t)len, NULL, 0, &st, "WRITE USING TOKEN"))
			continue;
		if (have && capacity(a->src, &c2))
			odx_capacity_delta(f, &c1, &c2, true);
		else if (!cap_ok)
			fprintf(f, "  (the LU reports no capacity page 0x30: map entries not visible)\n");
		fprintf(f, "  over the wire: %d + %u + %d bytes (PT list, RRTI answer, WUT list); EXTENDED COPY would "
			"have sent one list of %d bytes, the software datamover %llu bytes (READ %llu in + WRITE %llu out)\n",
			ODX_PT_HDR_LEN + ODX_RANGE_LEN, rrti_got, len, XCOPY_HDR_LEN + (a->two_lus ? 2 : 1) * XCOPY_TGT_DESC_LEN + XCOPY_SEG_DESC_LEN,
			(unsigned long long)(2 * bytes), (unsigned long long)bytes, (unsigned long long)bytes);
	}
	fprintf(f, "== end of explain ==\n\n");
}
