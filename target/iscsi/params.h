/* params.h — operational parameters of a session (RFC 7143 section 13) and
 * their negotiation, one key at a time, as the target side. */
#ifndef LUNLAB_ISCSI_PARAMS_H
#define LUNLAB_ISCSI_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "target/iscsi/text.h"

/* What lunlab-target offers.  MaxRecvDataSegmentLength is what we accept in
 * one PDU; the burst limits cap initiator proposals (LIO's maxima). */
#define TGT_MAX_RECV_DSL 262144u
#define TGT_MAX_BURST 16776192u
#define TGT_MAX_OUTSTANDING_R2T 16u
#define TGT_TIME2RETAIN 20u

struct iscsi_params {
	bool header_digest;
	bool data_digest;
	uint32_t max_recv_dsl; /* ours: the largest data segment we accept */
	uint32_t max_xmit_dsl; /* the initiator's MaxRecvDataSegmentLength: we send no more */
	uint32_t max_burst;
	uint32_t first_burst;
	uint32_t max_r2t;
	uint32_t time2wait;
	uint32_t time2retain;
	bool immediate_data;
	bool initial_r2t;
	bool data_pdu_in_order;
	bool data_seq_in_order;
	uint8_t erl;
	uint32_t max_connections;
};

/* RFC defaults, before anything is negotiated. */
void params_defaults(struct iscsi_params *p);

enum params_rc {
	PARAMS_HANDLED = 0,  /* answered (or declarative: recorded) */
	PARAMS_NOT_OPERATIONAL = 1, /* not one of ours: the caller decides */
	PARAMS_FAIL = -1,    /* the login must fail: *err says why */
};

/* Negotiates one key the initiator sent; appends the target's answer to out.
 * discovery: keys that only matter to normal sessions get "Irrelevant". */
enum params_rc params_negotiate(struct iscsi_params *p, const char *key, const char *val,
				bool discovery, struct text_buf *out, const char **err);

/* Strict parse of a numeric value (decimal or 0x hex); false on garbage or
 * out-of-range. */
bool params_parse_num(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);

#endif
