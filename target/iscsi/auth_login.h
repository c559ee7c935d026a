/* auth_login.h — the security stage of a login as the target sees it
 * (RFC 7143 sections 6.3.1 and 12.1.3): AuthMethod, then CHAP_A, CHAP_I/C
 * from us, CHAP_N/R (and for mutual CHAP CHAP_I/C) from the initiator. */
#ifndef LUNLAB_ISCSI_AUTH_LOGIN_H
#define LUNLAB_ISCSI_AUTH_LOGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/iscsi/auth_chap.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/text.h"

enum auth_stage {
	AUTH_START = 0,   /* no AuthMethod seen yet */
	AUTH_WAIT_A,      /* AuthMethod=CHAP answered: CHAP_A next */
	AUTH_WAIT_R,      /* challenge sent: CHAP_N + CHAP_R next */
	AUTH_DONE,        /* authenticated, or AuthMethod=None accepted */
};

/* Per-login state; all zero at the start of a login. */
struct auth_session {
	enum auth_stage stage;
	bool chap;                           /* authenticated with CHAP */
	bool mutual;                         /* and we answered the initiator's challenge */
	uint8_t id;                          /* our CHAP_I */
	uint8_t challenge[CHAP_CHALLENGE_LEN]; /* our CHAP_C */
	char user[64];                       /* CHAP_N we accepted, for the login log line */
};

/* true when a key belongs to the security stage (AuthMethod, CHAP_*) */
bool auth_login_is_auth_key(const char *key);

/* Handles the security keys of one Login Request in the security stage and
 * appends the answers to out.  cfg may be NULL (open target).  Returns 0, or
 * a login status (class << 8 | detail) with a one-line reason in why; the
 * reason names the CHAP user when there is one, never a secret. */
unsigned auth_login_step(struct auth_session *s, const struct auth_config *cfg,
			 const struct text_list *kv, struct text_buf *out, char *why, size_t whylen);

/* May the login leave the security stage now?  0: yes; AUTH_STAY: not yet
 * (the exchange is under way: answer with T=0); else the status that ends
 * the login (CHAP required but never negotiated). */
#define AUTH_STAY 1u
unsigned auth_login_may_leave(const struct auth_session *s, const struct auth_config *cfg,
			      const char **why);

#endif
