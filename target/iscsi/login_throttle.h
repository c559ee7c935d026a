/* login_throttle.h — failed logins slowed down, then refused, per client
 * address: wrong API passwords (HTTP Basic, the v3 login command) and wrong
 * CHAP answers (a wrong secret or an unknown CHAP_N).  Before, 30 wrong
 * passwords in a row were each answered at once and the 31st, right, one
 * let in.
 *
 * The numbers, and why:
 *   - LOGIN_THROTTLE_FREE (3) failures in a row cost nothing: a person
 *     mistyping, a script retrying a stale secret a few times;
 *   - each further failure makes the address wait before its next try:
 *     1 s, 2 s, 4 s, 8 s, 16 s, then 30 s (LOGIN_THROTTLE_MAX_WAIT_S), so a
 *     guesser goes from thousands of tries a second to one every few;
 *   - the LOGIN_THROTTLE_LOCK_FAILS-th (10th) failure in a row locks the
 *     address out for LOGIN_THROTTLE_LOCK_S (15 min): about 10 guesses per
 *     16 minutes, some 900 a day per address, while a right password from
 *     any other address is not slowed at all;
 *   - an address without a failure for LOGIN_THROTTLE_FORGET_S (15 min) is
 *     forgotten; a success forgets it at once.
 * A try inside the wait is refused without looking at the secret (so it
 * cannot confirm a guess) and does not lengthen the wait.  Nothing here
 * sleeps: the HTTP API answers 429 with Retry-After and an iSCSI login is
 * refused with 02/01 at once, so neither a server thread nor an I/O thread
 * is held (an attacker's waiting connections would otherwise fill the API's
 * 32 connection slots or stall an I/O thread's sessions).
 *
 * The table holds LOGIN_THROTTLE_ADDRS addresses; when full, the one whose
 * last failure is oldest gives its place (an attacker with more addresses
 * than that can push its own out: per-address throttling cannot stop a
 * botnet, and says so).  Any thread; one mutex (logins are rare). */
#ifndef LUNLAB_ISCSI_LOGIN_THROTTLE_H
#define LUNLAB_ISCSI_LOGIN_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

#define LOGIN_THROTTLE_FREE 3
#define LOGIN_THROTTLE_BASE_MS 1000
#define LOGIN_THROTTLE_MAX_WAIT_S 30
#define LOGIN_THROTTLE_LOCK_FAILS 10
#define LOGIN_THROTTLE_LOCK_S 900
#define LOGIN_THROTTLE_FORGET_S 900
#define LOGIN_THROTTLE_ADDRS 1024
#define LOGIN_THROTTLE_HOST_MAX 64  /* an address as text, without the port */

enum login_throttle_kind { LOGIN_THROTTLE_API, LOGIN_THROTTLE_CHAP, LOGIN_THROTTLE_KINDS };

/* "api" / "chap" (the /metrics label) */
const char *login_throttle_kind_name(enum login_throttle_kind k);

/* The address of a peer written "HOST:PORT" or "[V6]:PORT" (or a bare
 * host) into out. */
void login_throttle_host(const char *peer, char *out, size_t len);

/* May host try a secret at now_ms (a monotonic clock)?  0: yes; else the
 * milliseconds left to wait (the try is counted as refused for kind). */
uint64_t login_throttle_check(enum login_throttle_kind k, const char *host, uint64_t now_ms);
/* A wrong secret from host: counted; returns the wait it imposes now (ms,
 * 0 none) and the failures in a row into *in_row. */
uint64_t login_throttle_fail(enum login_throttle_kind k, const char *host, uint64_t now_ms, unsigned *in_row);
/* Tells the listener (the management API's event log) of a failure the
 * caller has counted: who, from where, how many in a row, the wait now. */
typedef void (*login_throttle_listener)(enum login_throttle_kind k, const char *host, const char *user,
					unsigned in_row, uint64_t wait_ms);
void login_throttle_set_listener(login_throttle_listener fn);
void login_throttle_notify(enum login_throttle_kind k, const char *host, const char *user, unsigned in_row,
			   uint64_t wait_ms);
/* A right one: host is forgotten. */
void login_throttle_ok(const char *host);

/* /metrics: failures and tries refused unchecked since the start, and the
 * addresses locked out now */
uint64_t login_throttle_failures(enum login_throttle_kind k);
uint64_t login_throttle_refused(enum login_throttle_kind k);
size_t login_throttle_locked(uint64_t now_ms);

/* a monotonic clock in ms, for the callers */
uint64_t login_throttle_now_ms(void);
/* Tests: the clock login_throttle_now_ms reads (NULL: CLOCK_MONOTONIC), so
 * a server test can hold time still and see a wait without sleeping. */
void login_throttle_set_clock(uint64_t (*clock_ms)(void));

/* Forgets everything (tests). */
void login_throttle_reset(void);

#endif
