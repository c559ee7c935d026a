/* fuzz_iscsi_text.c — libFuzzer target: the login/text key=value parser and
 * the operational parameter negotiation, without a connection.  The input is
 * a Login/Text data segment: text_parse() splits it (in place, in an
 * exact-size heap copy with the one spare byte text.h asks for), then every
 * key goes through params_negotiate() as a normal or a discovery session
 * (byte 0, bit 0) and the answer is built in a bounded text_buf.  Also feeds
 * the first 48 bytes as a BHS to pdu_validate_header() and bytes 8..15 as a
 * LUN field to pdu_lun_decode().
 * Checks beyond "no crash/UB/leak": negotiated values stay inside the ranges
 * the target offers (FirstBurstLength <= MaxBurstLength is enforced by
 * login.c once the whole login is in, not per key, so not checked here), and the answer never overruns its buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/iscsi/params.h"
#include "target/iscsi/pdu.h"
#include "target/iscsi/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char answer[8192];
	struct text_list kv;
	struct text_buf out;
	struct iscsi_params p;
	const char *err = NULL;

	if (size < 1)
		return 0;
	bool discovery = data[0] & 1;

	if (size >= ISCSI_BHS_LEN) {
		const char *why = NULL;
		bool ok;
		int r = pdu_validate_header(data, TGT_MAX_RECV_DSL, &why);
		if (r != 0 && !why)
			abort(); /* a reject must name its field */
		uint64_t lun = pdu_lun_decode(data + 8, &ok);
		if (ok) {
			uint8_t back[8];
			pdu_lun_encode(back, lun);
			uint8_t again[8];
			bool ok2;
			if (pdu_lun_decode(back, &ok2) != lun || !ok2)
				abort(); /* encode(decode(x)) must round-trip */
			(void)again;
		}
	}

	size_t len = size - 1;
	char *buf = malloc(len + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	if (text_parse(buf, len, &kv, &err) == 0) {
		if (kv.n < 0 || kv.n > TEXT_MAX_KEYS)
			abort();
		params_defaults(&p);
		text_buf_init(&out, answer, sizeof(answer));
		for (int i = 0; i < kv.n; i++) {
			if (!kv.kv[i].key || !kv.kv[i].val)
				abort();
			(void)text_get(&kv, kv.kv[i].key);
			const char *perr = NULL;
			enum params_rc rc = params_negotiate(&p, kv.kv[i].key, kv.kv[i].val, discovery, &out, &perr);
			if (rc == PARAMS_FAIL && !perr)
				abort(); /* a failed login must say why */
			if (rc == PARAMS_FAIL)
				break;
		}
		if (out.len > sizeof(answer))
			abort();
		if (p.max_r2t > TGT_MAX_OUTSTANDING_R2T || p.max_recv_dsl > TGT_MAX_RECV_DSL ||
		    p.max_burst > TGT_MAX_BURST || p.first_burst > TGT_MAX_BURST || p.erl != 0) {
			fprintf(stderr, "negotiated out of range: r2t %u mrdsl %u burst %u first %u erl %u\n",
				p.max_r2t, p.max_recv_dsl, p.max_burst, p.first_burst, p.erl);
			abort();
		}
	} else if (!err) {
		abort(); /* a refused list must name what is wrong */
	}
	free(buf);
	return 0;
}
