/* io_thread.h — N event loops (one epoll each).  A connection lives on one
 * thread; backends complete commands from their own threads into that
 * thread's lock-free completion stack, then poke its eventfd. */
#ifndef LUNLAB_ISCSI_IO_THREAD_H
#define LUNLAB_ISCSI_IO_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "target/iscsi/bufcache.h"
#include "target/lu/lu_cmd.h"

struct conn;
struct icmd;

/* "close the session of this initiator + ISID on portal group tpgt, unless
 * it is keep_tsih"; or, with portal >= 0, "close every connection that came
 * in through that portal" (it was set down) */
struct reinstate_req {
	struct reinstate_req *next;
	char initiator[224];
	uint8_t isid[6];
	uint16_t keep_tsih;
	uint16_t tpgt;
	int portal;
	unsigned portal_gen;     /* with portal: close the connections accepted before this down */
	unsigned release_rule;  /* > 0: neither of those: let go what this hold rule holds */
	char why[96];
};

/* an accepted socket waiting for its thread, and the portal it came through */
struct new_conn {
	int fd;
	int portal;
	unsigned portal_gen;
};

struct io_thread {
	int idx;
	/* its shard of the command figures (lu_stats.h): idx, | LU_STATS_SOLE
	 * when there are no more threads than shards (then no other thread
	 * ever adds to it: only I/O threads count commands, each its own) */
	unsigned stats_shard;
	int epfd;
	int evfd;
	pthread_t tid;
	atomic_bool stop;
	_Atomic(struct icmd *) done_head; /* MPSC: backends push, loop pops all */
	/* true while the loop may be blocked in epoll_wait: the first completer
	 * to find it true clears it and writes the eventfd; a busy loop gets
	 * no eventfd writes at all (it looks at done_head before sleeping) */
	atomic_bool armed;
	pthread_mutex_t new_lock;         /* accept hand-off only, never hot */
	struct new_conn *new_fds;
	int new_n, new_cap;
	struct reinstate_req *reinstate;  /* under new_lock */
	struct conn *conns;               /* every connection of this thread */
	struct conn *dirty;               /* connections with output to flush */
	struct bufcache cache;
	/* backends that got submit_deferred() commands in this loop iteration:
	 * kick()ed once at its end */
	struct lu_backend *kick[16];
	int nkick;
	struct timespec last_sweep;       /* timeouts are checked once a second */
	struct conn *resume;              /* paused receivers whose budget came back */
	/* tasks a fault rule delays (scsi_fault.c), soonest first; each holds
	 * a task reference until it goes to its LU or is dropped */
	struct icmd *delayed;
	/* tasks a hold rule holds (scsi_fault.c), in the order held; each holds
	 * a task reference until it is released, aborted or its connection goes */
	struct icmd *held;
};

/* Seconds a connection may take from accept to the end of login, and may
 * stay silent in the middle of a PDU (a partial BHS, header or data
 * segment); then it is closed.  0 disables.  Defaults 15 and 30; set before
 * io_threads_start().  lunlab-target takes them from LUNLAB_LOGIN_TIMEOUT and
 * LUNLAB_STALL_TIMEOUT (io_timeouts_from_env), then from --login-timeout and
 * --stall-timeout, which win. */
extern unsigned g_login_timeout_s, g_stall_timeout_s;
void io_timeouts_from_env(void);

int io_threads_start(int n);
/* Takes c's socket out of its thread's epoll set (no-op without a thread).
 * conn_close calls it before close(): closing alone does not remove the fd
 * while another process holds a copy of it (a fork that has not exec'ed
 * yet), and an event for a freed conn would then still arrive. */
void io_thread_unwatch(struct conn *c);
/* Round-robin hand-off of an accepted socket of portal `portal` (-1: none),
 * accepted while the portal's down-count was portal_gen (portal.h). */
void io_threads_assign(int fd, int portal, unsigned portal_gen);
void io_threads_stop(void);
void io_threads_free(void);

/* Session reinstatement (RFC 7143 6.3.5): a new login with the same
 * initiator name and ISID ends the old session, wherever it lives. */
void io_threads_reinstate(const char *initiator, const uint8_t isid[6], uint16_t tpgt, uint16_t keep_tsih);
/* A portal was set down (its down-count now portal_gen): every connection
 * that came in through it before closes.  The request reaches each I/O
 * thread later than the portal may be up again: a connection accepted after
 * that (a higher or equal count) is not the down's to close. */
void io_threads_close_portal(int portal, unsigned portal_gen, const char *why);

/* A fault rule delays this task: it goes to its LU after delay_us
 * (scsi_fault.c), on the task's own I/O thread. */
void io_thread_delay(struct io_thread *t, struct icmd *ic, uint64_t delay_us);

/* A hold rule holds this task (scsi_fault.c) until io_threads_release_held
 * lets it go, or it is aborted or its connection closes. */
void io_thread_hold(struct io_thread *t, struct icmd *ic, unsigned rule);
/* Hold rule `rule` was released (POST /api/lunlab/faults/ID/release): every
 * thread sends the tasks it holds for it on to their LU, in the order held. */
void io_threads_release_held(unsigned rule);

/* lu_cmd.done for every command: any thread. */
void io_thread_cmd_done(struct lu_cmd *lc);
/* lu_cmd.data_ready (early Data-In of a READ): any thread, before done. */
void io_thread_cmd_data_ready(struct lu_cmd *lc);
/* lu_cmd.data_progress: any thread, before done. */
void io_thread_cmd_data_progress(struct lu_cmd *lc, size_t bytes);

/* Hands a command to its backend on this thread: deferred (kicked at the
 * end of the loop iteration) when the backend supports it. */
void io_thread_submit(struct io_thread *t, struct lu_backend *be, struct lu_cmd *lc);

/* epoll interest: readable unless the receiver is paused (data budget),
 * writable when output is queued */
void io_thread_watch(struct conn *c, bool want_out);

#endif
