/* fuzz_iscsi_login_chap.c — libFuzzer target: the login state machine
 * (login.c) with CHAP required, so the fuzzer lives in the security stage:
 * AuthMethod, CHAP_A, CHAP_N/CHAP_R (hex "0x" and base64 "0b" values),
 * mutual CHAP_I/CHAP_C, the allow-list, then the operational stage.  The
 * bytes are the stream an initiator sends on one connection, fed through a
 * socketpair into conn_on_readable() as fuzz_iscsi_rx.c does.
 *
 * The challenge must be predictable or no input could ever answer it: the
 * build links this target with -Wl,--wrap=auth_random, so auth_login.c's
 * call lands in __wrap_auth_random below: CHAP_I = 42 and CHAP_C = 00 11 22
 * .. ff (16 bytes).  tests/fuzz/make_seeds.py computes the matching
 * responses, so its seeds log in and reach full feature phase.
 *
 * Byte 0 is a mode byte, not stream:
 *   bit 0: the auth file has only the user (no 'mutual' line), so an
 *          initiator asking for mutual CHAP must be refused
 *   bit 1: an allow-list holding only the seeds' initiator name is installed
 * Checks beyond "no crash/UB/leak": a connection that reaches full feature
 * phase has authenticated (login.auth_done) and passed the allow-list, and
 * the connection ends closed once the stream ends.
 * FUZZ_VERBOSE=1 in the environment shows the target's log lines (which
 * login succeeded with which CHAP user, why one was refused). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "target/iscsi/auth_config.h"
#include "target/iscsi/conn.h"
#include "target/iscsi/target.h"
#include "fuzz_conn.h"

#define IQN "iqn.2026-11.org.lunlab:fuzz"
#define INI "iqn.2026-11.org.lunlab:fuzzer"
/* make_seeds.py uses the same names and secrets */
#define USER "alice"
#define USER_SECRET "alicesecret123"
#define USER2 "bob"
#define USER2_SECRET "bobsecret12345"
#define TARGET_USER "lunlab"
#define TARGET_SECRET "targetsecret99"

#define FIXED_ID 42

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
bool __wrap_auth_random(uint8_t *buf, size_t n);

/* The one caller asks for the 1-byte CHAP_I, then the 16-byte challenge. */
bool __wrap_auth_random(uint8_t *buf, size_t n)
{
	if (n == 1) {
		buf[0] = FIXED_ID;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 0x11);
	return true;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz-iscsi-login-chap: %s\n", what);
	abort();
}

/* built once per mode: the parser is fuzzed elsewhere (fuzz-auth-file) */
static const struct auth_config *config(unsigned mode)
{
	static struct auth_config cfgs[4];
	static bool built[4];
	struct auth_config *c = &cfgs[mode & 3];
	char err[256];

	if (built[mode & 3])
		return c;
	if (!auth_config_add_user(c, false, USER, USER_SECRET, err, sizeof(err)) ||
	    !auth_config_add_user(c, false, USER2, USER2_SECRET, err, sizeof(err)))
		die(err);
	if (!(mode & 1) && !auth_config_add_user(c, true, TARGET_USER, TARGET_SECRET, err, sizeof(err)))
		die(err);
	if ((mode & 2) && !auth_config_add_allow(c, INI, err, sizeof(err)))
		die(err);
	built[mode & 3] = true;
	return c;
}

/* a TSIH is given only on the way into full feature phase (login.c), and
 * stays after a logout closed the connection within the same read budget */
static void check_ffp(const struct conn *c)
{
	if (c->state != CS_FFP && c->tsih == 0)
		return;
	if (!c->login.auth_done)
		die("full feature phase without CHAP authentication");
	/* discovery is open to an authenticated initiator off the allow-list
	 * (SendTargets then reports no target: docs/access-control.md); a
	 * Normal session is not */
	if (!c->discovery && !auth_config_allows(g_target.auth, c->initiator))
		die("Normal session for an initiator the allow-list refuses");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conn *c;
	int peer;

	if (size < 1 || size > FUZZ_CONN_MAX_STREAM)
		return 0;
	g_target.iqn = IQN;
	/* FUZZ_VERBOSE=1: the target's login/refusal log lines, to check by
	 * hand what a seed reaches */
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	g_target.quiet = !verbose;
	g_target.max_sessions = 1u << 30;
	g_target.auth = config(data[0]);
	c = conn_new(fuzz_conn_stream(NULL, 0, data + 1, size - 1, &peer), NULL);
	if (!c)
		abort();
	c->refs++; /* ours, so c outlives conn_close() (which drops the owner's) */
	for (int i = 0; i < 100000 && !c->closed; i++) {
		conn_on_readable(c);
		check_ffp(c);
		fuzz_conn_paused_peer_gone(c);
	}
	check_ffp(c);
	if (!c->closed)
		die("a stream that ended did not end the connection");
	conn_put(c); /* our reference: frees c (conn_close closed its socket) */
	close(peer);
	g_target.auth = NULL;
	return 0;
}
