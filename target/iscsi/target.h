/* target.h — the target-wide configuration every connection reads (set once
 * at start, read-only afterwards, so no lock). */
#ifndef LUNLAB_ISCSI_TARGET_H
#define LUNLAB_ISCSI_TARGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct auth_config;

/* One listening address as SendTargets reports it. */
struct target_portal {
	char host[64];   /* numeric address, no brackets */
	unsigned port;
	bool v6;
	bool wildcard;   /* 0.0.0.0 or ::: report the address the initiator used */
	/* --listen ...,advertise=HOST[:PORT]: what SendTargets reports instead
	 * (a NAT, qemu's user network, a container's port mapping) */
	char adv_host[64];  /* "" none */
	unsigned adv_port;
	bool adv_v6;
	uint16_t tpgt;      /* its portal group (tpg=); 0: g_target.tpgt */
	char name[80];      /* "host:port" as bound ("[v6]:port"), for fault rules and the API */
	char adv_name[80];  /* the advertised "host:port", "" none */
};

/* The portal group tag of portal i (-1: a connection of no known portal). */
uint16_t target_portal_tpgt(int i);

#define TARGET_MAX_PORTALS 16

struct target_cfg {
	const char *iqn;
	const char *alias;      /* TargetAlias; NULL: none */
	uint16_t tpgt;          /* TargetPortalGroupTag */
	uint32_t max_sessions;
	bool quiet;
	bool trace_pdus;        /* --trace: also commands the target answers itself */
	/* access control (auth_config.h); NULL: open to every initiator.  The one
	 * field that changes while running (SIGHUP re-reads the auth file,
	 * target/auth_reload.c): read it with target_auth(), which pairs with the
	 * release store there; a replaced config is kept until exit */
	const struct auth_config *auth;
	/* every portal (--listen), for SendTargets; none: the connection's own */
	struct target_portal portals[TARGET_MAX_PORTALS];
	int nportals;
};

extern struct target_cfg g_target;

/* the access control in force (see target_cfg.auth) */
static inline const struct auth_config *target_auth(void)
{
	return __atomic_load_n(&g_target.auth, __ATOMIC_ACQUIRE);
}

/* live sessions (normal + discovery), for --max-sessions */
extern atomic_uint g_session_count;
/* TSIH allocator: never 0 */
uint16_t target_alloc_tsih(void);
/* I_T nexus identity for lu_cmd.nexus_id: unique per session */
uint64_t target_next_nexus(void);

/* one log line (stderr, unless --quiet) */
void target_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* one log line even with --quiet: what a user cannot learn otherwise (the address a
 * --listen HOST:0 got) */
void target_log_always(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
