/* params.c — negotiation of the operational keys, target side.  Result
 * functions from RFC 7143 section 13: Min, Max, AND, OR, list choice. */
#include "target/iscsi/params.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void params_defaults(struct iscsi_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_recv_dsl = 8192;
	p->max_xmit_dsl = 8192;
	p->max_burst = 262144;
	p->first_burst = 65536;
	p->max_r2t = 1;
	p->time2wait = 2;
	p->time2retain = 20;
	p->immediate_data = true;
	p->initial_r2t = true;
	p->data_pdu_in_order = true;
	p->data_seq_in_order = true;
	p->erl = 0;
	p->max_connections = 1;
}

bool params_parse_num(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int parse_bool(const char *s)
{
	if (strcmp(s, "Yes") == 0)
		return 1;
	if (strcmp(s, "No") == 0)
		return 0;
	return -1;
}

/* Picks the first of the initiator's comma-separated choices we support. */
static const char *choose_digest(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 4 && strncmp(p, "None", 4) == 0)
			return "None";
		if (n == 6 && strncmp(p, "CRC32C", 6) == 0)
			return "CRC32C";
		p += n;
		if (*p == ',')
			p++;
	}
	return NULL;
}

/* Keys that mean nothing in a discovery session (RFC 7143 13: "Irrelevant
 * when SessionType=Discovery"). */
static bool normal_only(const char *key)
{
	static const char *const keys[] = {
		"MaxBurstLength", "FirstBurstLength", "ImmediateData", "InitialR2T",
		"MaxOutstandingR2T", "DataPDUInOrder", "DataSequenceInOrder", NULL,
	};
	for (int i = 0; keys[i]; i++)
		if (strcmp(keys[i], key) == 0)
			return true;
	return false;
}

enum params_rc params_negotiate(struct iscsi_params *p, const char *key, const char *val,
				bool discovery, struct text_buf *out, const char **err)
{
	uint32_t n;
	int b;

	/* an answer word from the initiator never needs a reply */
	if (strcmp(val, "NotUnderstood") == 0 || strcmp(val, "Irrelevant") == 0 ||
	    strcmp(val, "Reject") == 0)
		return PARAMS_HANDLED;

	if (discovery && normal_only(key)) {
		text_add(out, key, "Irrelevant");
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "HeaderDigest") == 0 || strcmp(key, "DataDigest") == 0) {
		const char *pick = choose_digest(val);
		if (!pick) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		if (key[0] == 'H')
			p->header_digest = pick[0] == 'C';
		else
			p->data_digest = pick[0] == 'C';
		text_add(out, key, pick);
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "MaxRecvDataSegmentLength") == 0) {
		/* declarative: it limits what we send; no answer */
		if (!params_parse_num(val, 512, 16777215, &n)) {
			*err = "MaxRecvDataSegmentLength out of range 512..16777215";
			return PARAMS_FAIL;
		}
		p->max_xmit_dsl = n;
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "MaxBurstLength") == 0 || strcmp(key, "FirstBurstLength") == 0) {
		if (!params_parse_num(val, 512, 16777215, &n)) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		if (n > TGT_MAX_BURST)
			n = TGT_MAX_BURST;
		if (key[0] == 'M')
			p->max_burst = n;
		else
			p->first_burst = n;
		text_add_u32(out, key, n);
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "MaxOutstandingR2T") == 0) {
		if (!params_parse_num(val, 1, 65535, &n)) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		p->max_r2t = n < TGT_MAX_OUTSTANDING_R2T ? n : TGT_MAX_OUTSTANDING_R2T;
		text_add_u32(out, key, p->max_r2t);
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "DefaultTime2Wait") == 0 || strcmp(key, "DefaultTime2Retain") == 0) {
		if (!params_parse_num(val, 0, 3600, &n)) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		if (key[12] == 'W') {
			p->time2wait = n; /* Max(initiator, our 0) */
		} else {
			p->time2retain = n < TGT_TIME2RETAIN ? n : TGT_TIME2RETAIN; /* Min */
			n = p->time2retain;
		}
		text_add_u32(out, key, n);
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "ErrorRecoveryLevel") == 0) {
		if (!params_parse_num(val, 0, 2, &n)) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		p->erl = 0; /* Min(initiator, our 0) */
		text_add_u32(out, key, 0);
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "MaxConnections") == 0) {
		if (!params_parse_num(val, 1, 65535, &n)) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		p->max_connections = 1;
		text_add_u32(out, key, 1);
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "ImmediateData") == 0 || strcmp(key, "InitialR2T") == 0 ||
	    strcmp(key, "DataPDUInOrder") == 0 || strcmp(key, "DataSequenceInOrder") == 0 ||
	    strcmp(key, "IFMarker") == 0 || strcmp(key, "OFMarker") == 0) {
		b = parse_bool(val);
		if (b < 0) {
			text_add(out, key, "Reject");
			return PARAMS_HANDLED;
		}
		if (strcmp(key, "ImmediateData") == 0) {
			p->immediate_data = b; /* AND(initiator, our Yes) */
		} else if (strcmp(key, "InitialR2T") == 0) {
			p->initial_r2t = b; /* OR(initiator, our No) */
		} else if (key[0] == 'D') {
			b = 1; /* OR(initiator, our Yes): we only do in-order */
			if (key[4] == 'P')
				p->data_pdu_in_order = true;
			else
				p->data_seq_in_order = true;
		} else {
			b = 0; /* markers: AND(initiator, our No) */
		}
		text_add(out, key, b ? "Yes" : "No");
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "OFMarkInt") == 0 || strcmp(key, "IFMarkInt") == 0) {
		text_add(out, key, "Irrelevant");
		return PARAMS_HANDLED;
	}
	if (strcmp(key, "TargetAlias") == 0 || strcmp(key, "TargetAddress") == 0 ||
	    strcmp(key, "TargetPortalGroupTag") == 0) {
		*err = "initiator sent a key only a target may send";
		return PARAMS_FAIL;
	}
	return PARAMS_NOT_OPERATIONAL;
}
