/* fuzz_iscsi_rx.c — libFuzzer target: any bytes as the stream an initiator
 * sends on one connection.  The bytes go through a socketpair into the real
 * receive state machine (conn_rx.c: BHS validation, AHS + extended CDB,
 * data segments, padding), and from there into login.c / params.c / text.c,
 * discovery.c (SendTargets), NOP, TMF, logout, SCSI command headers and
 * Data-Out (no LU is configured, so SCSI commands are answered by the
 * target itself).  Responses stay queued on the connection (no I/O thread)
 * and are freed when it closes.
 *
 * Byte 0 is a mode byte, not stream: bit 0 prepends a canned, valid normal
 * session login (so the fuzzer spends its time in full feature phase instead
 * of rediscovering the login), bit 1 makes that login a discovery session.
 * Pass condition: no crash, no sanitizer report, no leak, and the
 * connection ends closed once the stream ends. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "target/iscsi/conn.h"
#include "target/iscsi/pdu.h"
#include "target/iscsi/target.h"
#include "fuzz_conn.h"

#define IQN "iqn.2026-11.org.lunlab:fuzz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One Login Request PDU (CSG operational -> FFP, T bit) carrying text. */
static size_t canned_login(uint8_t *out, bool discovery)
{
	static const char normal[] = "InitiatorName=iqn.2026-11.org.lunlab:fuzzer\0SessionType=Normal\0"
				     "TargetName=" IQN "\0HeaderDigest=None\0DataDigest=None\0"
				     "ImmediateData=Yes\0InitialR2T=No\0MaxRecvDataSegmentLength=65536\0";
	static const char disc[] = "InitiatorName=iqn.2026-11.org.lunlab:fuzzer\0SessionType=Discovery\0"
				   "HeaderDigest=None\0DataDigest=None\0";
	const char *text = discovery ? disc : normal;
	uint32_t len = (uint32_t)(discovery ? sizeof(disc) - 1 : sizeof(normal) - 1);

	memset(out, 0, ISCSI_BHS_LEN);
	out[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ;
	out[1] = ISCSI_LOGIN_TRANSIT | (1 << 2) | 3; /* CSG=1 operational, NSG=3 FFP */
	put_be24(out + 5, len);
	memcpy(out + 8, "\x80\x12\x34\x56\x00\x00", 6);
	put_be32(out + 16, 1); /* ITT */
	put_be32(out + 24, 1); /* CmdSN */
	memcpy(out + ISCSI_BHS_LEN, text, len);
	memset(out + ISCSI_BHS_LEN + len, 0, pdu_pad4(len));
	return ISCSI_BHS_LEN + len + pdu_pad4(len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t login[ISCSI_BHS_LEN + 512];
	struct conn *c;
	int peer;

	if (size < 1 || size > FUZZ_CONN_MAX_STREAM)
		return 0;
	g_target.iqn = IQN;
	g_target.quiet = true;
	g_target.max_sessions = 1u << 30;
	size_t n = 0;
	if (data[0] & 1)
		n = canned_login(login, data[0] & 2);
	c = conn_new(fuzz_conn_stream(login, n, data + 1, size - 1, &peer), NULL);
	if (!c)
		abort();
	c->refs++; /* ours, so c outlives conn_close() (which drops the owner's) */
	/* each call reads a bounded budget; the end of the stream closes c */
	for (int i = 0; i < 100000 && !c->closed; i++) {
		conn_on_readable(c);
		fuzz_conn_paused_peer_gone(c);
	}
	if (!c->closed)
		abort(); /* a stream that ended must end the connection */
	conn_put(c); /* our reference: frees c (conn_close closed its socket) */
	close(peer);
	return 0;
}
