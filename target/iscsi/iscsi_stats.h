/* iscsi_stats.h — the transport's own figures for /metrics: logins by
 * result and the sessions open now, by type (LIO keeps the same in
 * iscsi_target_stat.c).  Relaxed atomics: logins are rare, any thread. */
#ifndef LUNLAB_ISCSI_STATS_H
#define LUNLAB_ISCSI_STATS_H

#include <stdbool.h>
#include <stdint.h>

enum login_result {
	LOGIN_RESULT_SUCCESS,
	LOGIN_RESULT_AUTHENTICATION_FAILURE, /* 02/01: wrong CHAP answer */
	LOGIN_RESULT_AUTHORIZATION_FAILURE,  /* 02/02: not on the allow list */
	LOGIN_RESULT_NOT_FOUND,              /* 02/03: no such target */
	LOGIN_RESULT_INITIATOR_ERROR,        /* any other status class 02 */
	LOGIN_RESULT_TARGET_ERROR,           /* status class 03 (out of resources, ...) */
	LOGIN_RESULT_ABANDONED,              /* the connection went before an answer */
	LOGIN_RESULTS
};

/* the result a Login Response status (class << 8 | detail) stands for */
enum login_result login_result_of_status(unsigned status);
/* "success", "authentication_failure", ..., "abandoned" */
const char *login_result_name(enum login_result r);

void iscsi_stats_login(enum login_result r);
uint64_t iscsi_stats_logins(enum login_result r);

/* a session entered / left full feature phase */
void iscsi_stats_session_open(bool discovery);
void iscsi_stats_session_close(bool discovery);
uint64_t iscsi_stats_sessions(bool discovery);

#endif
