/* calib_load.h - calibrate's measurements: one command kind and size, a fixed number of
 * commands outstanding in a closed loop (each slot sends its next command when its last one
 * completes) over a pool of sessions, all through the connection layer (client/conn.h:
 * conn_submit and one conn_poll_many over every session of the run), so a lost connection is
 * logged in again within --timeout, a command unanswered for --timeout is aborted and resent,
 * and BUSY / TASK SET FULL are retried and counted like in every subcommand.  Also the
 * transport's own floor: the NOP-Out round trip, which no SCSI device server sees, and how
 * many NOP-Outs the transport turns around per second (NOP-Outs are not SCSI commands, so they
 * go on the session's libiscsi context while it is logged in, and are sent again after a
 * re-login). */
#ifndef LUNLAB_CLIENT_CALIB_LOAD_H
#define LUNLAB_CLIENT_CALIB_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/calib_fit.h"
#include "client/conn.h"
#include "client/xcopy_builder.h"

struct calib_target {
	struct bench_conn *conns;    /* sessions to the LU */
	unsigned nconn;
	struct bench_conn *dconns;   /* sessions that receive EXTENDED COPY (the destination LU's;
	                              * the same as conns without --dest) */
	unsigned ndconn;
	uint32_t bs;                 /* logical block size (both LUs) */
	struct xcopy_lu lus[2];      /* 0xE4 descriptors: source, then destination when two LUs */
	unsigned nlus;
	bool sparse_writes;          /* WRITE data: unique but almost all zero (--write-data sparse)
	                              * instead of incompressible */
	struct bench_conn *every;    /* every session of the run, in one array (conns and dconns
	                              * lie inside it): each poll services them all, so that the
	                              * idle ones answer the target's NOP-In pings (LIO drops a
	                              * session after 45 s without) and any of them is logged in
	                              * again when its connection is lost */
	unsigned nevery;
};

struct calib_point {
	enum calib_kind kind;
	uint64_t bytes;              /* bytes each command covers */
	unsigned segments;           /* EXTENDED COPY segment descriptors (1 otherwise) */
};

struct calib_area {
	uint64_t lba, blocks;        /* where the commands go (for XCOPY: its source) */
};

enum calib_outcome { CALIB_OK, CALIB_REFUSED, CALIB_BUSY };

struct calib_run {
	unsigned q;                  /* commands outstanding */
	uint64_t measured;           /* completions timed (after the warm-up) */
	double rate, rate_se;        /* completions per second, its standard error */
	double lat_med_ns, lat_mad_ns; /* per command, submit to completion, as this host saw it */
	double wall_s;
	double cpu_share;            /* lunlab-bench's CPU over the run, share of one core */
	enum calib_outcome outcome;  /* REFUSED: CHECK CONDITION (sense below); BUSY: the LU answered
	                              * BUSY or TASK SET FULL (too many outstanding for it; the
	                              * connection layer retried them, so the timings hold its
	                              * backoffs) */
	uint8_t key, asc, ascq;
	uint64_t written_lba_end;    /* one past the last LBA written (0: nothing) */
};

/* Wire bytes per command of a point (data, one WRITE SAME block, the UNMAP or XCOPY list). */
uint64_t calib_wire_bytes(const struct calib_point *p, uint32_t bs);

/* Run q slots (slot i on session i % nconn, its own range of the area: the caller keeps
 * q x bytes within the area) until `warmup` completions have passed and then `measure`
 * more, or max_s seconds once at least 3 were timed.  A run during which a session was lost
 * and logged in again is run again (its timings hold the outage), up to 3 times.  XCOPY copies from src to dst (dst on
 * the destination LU).  *stamp makes every written block unique (advanced).  Returns 0 (see
 * r->outcome), or -1 with err on a transport failure or a LU that stopped answering. */
int calib_load_run(struct calib_target *t, const struct calib_point *p, const struct calib_area *src,
		   const struct calib_area *dst, unsigned q, unsigned warmup, unsigned measure, double max_s,
		   uint64_t *stamp, struct calib_run *r, char *err, size_t errlen);

/* NOP-Out round trips at queue depth 1 on session c (one of t->every): median and median
 * absolute deviation, ns.  A round trip cut by a lost session is sent again once c is logged
 * in again; one unanswered for --timeout ends the run like an unanswered command (the session
 * layer's fatal error: exit 3).  Returns 0 or -1. */
int calib_nop_rtt(const struct calib_target *t, struct bench_conn *c, unsigned reps, double *median_ns,
		  double *mad_ns, char *err, size_t errlen);
/* NOP-Outs per second with q outstanding per session over t's pool sessions (t->conns), for
 * `seconds`; measured again (up to 3 times) when a session was lost on the way. */
int calib_nop_rate(const struct calib_target *t, unsigned q, double seconds, double *rate, char *err,
		   size_t errlen);

/* Median and MAD of v[n] (sorts v). */
void calib_median_mad(double *v, size_t n, double *median, double *mad);

#endif
