/* iscsi_stats.c — logins by result, open sessions by type (iscsi_stats.h). */
#include "target/iscsi/iscsi_stats.h"

#include <stdatomic.h>

static _Atomic uint64_t logins[LOGIN_RESULTS];
static _Atomic uint64_t sessions[2]; /* [0] normal, [1] discovery */

enum login_result login_result_of_status(unsigned status)
{
	switch (status) {
	case 0x0000: return LOGIN_RESULT_SUCCESS;
	case 0x0201: return LOGIN_RESULT_AUTHENTICATION_FAILURE;
	case 0x0202: return LOGIN_RESULT_AUTHORIZATION_FAILURE;
	case 0x0203: return LOGIN_RESULT_NOT_FOUND;
	default:
		return (status >> 8) == 0x02 ? LOGIN_RESULT_INITIATOR_ERROR : LOGIN_RESULT_TARGET_ERROR;
	}
}

const char *login_result_name(enum login_result r)
{
	static const char *const names[LOGIN_RESULTS] = {
		"success", "authentication_failure", "authorization_failure", "not_found",
		"initiator_error", "target_error", "abandoned",
	};

	return (unsigned)r < LOGIN_RESULTS ? names[r] : "target_error";
}

void iscsi_stats_login(enum login_result r)
{
	if ((unsigned)r < LOGIN_RESULTS)
		atomic_fetch_add_explicit(&logins[r], 1, memory_order_relaxed);
}

uint64_t iscsi_stats_logins(enum login_result r)
{
	return (unsigned)r < LOGIN_RESULTS ? atomic_load_explicit(&logins[r], memory_order_relaxed) : 0;
}

void iscsi_stats_session_open(bool discovery)
{
	atomic_fetch_add_explicit(&sessions[discovery], 1, memory_order_relaxed);
}

void iscsi_stats_session_close(bool discovery)
{
	atomic_fetch_sub_explicit(&sessions[discovery], 1, memory_order_relaxed);
}

uint64_t iscsi_stats_sessions(bool discovery)
{
	return atomic_load_explicit(&sessions[discovery], memory_order_relaxed);
}
