/* conn.c — connection and task lifetimes.
 * A connection is freed when its socket is closed AND no task of it is still
 * inside a backend (a backend may call done() long after the initiator left).
 * A task is freed when its owner let go and every queued PDU pointing into its
 * buffer has been sent. */
#include "target/iscsi/conn.h"
#include "target/lu/lu_pr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/iscsi/conn_pool.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/iscsi_stats.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"

static __thread struct conn_pool icmd_pool; /* conn_pool.h */

void conn_pools_drain(void)
{
	conn_pool_drain(&icmd_pool);
	conn_tx_pool_drain();
}

static struct bufcache *cache_of(struct conn *c)
{
	return c->thr ? &c->thr->cache : NULL;
}

struct conn *conn_new(int fd, struct io_thread *thr)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	c->thr = thr;
	c->refs = 1;
	c->rx_cap = 256 * 1024;
	c->rxbuf = malloc(c->rx_cap);
	c->pdu_data = malloc(TGT_MAX_RECV_DSL + 8);
	if (!c->rxbuf || !c->pdu_data) {
		free(c->rxbuf);
		free(c->pdu_data);
		free(c);
		return NULL;
	}
	c->portal = -1;
	c->stage = RX_BHS;
	c->rx_need = ISCSI_BHS_LEN;
	c->rx_dst = c->bhs;
	params_defaults(&c->params);
	c->params.max_recv_dsl = 8192; /* during login: the RFC default */
	c->next_ttt = 1;
	return c;
}

void conn_put(struct conn *c)
{
	if (--c->refs > 0)
		return;
	free(c->login.acc);
	free(c->rxbuf);
	free(c->pdu_data);
	scsi_core_itn_free(&c->itn);
	free(c);
}

struct icmd *icmd_new(struct conn *c, const uint8_t *bhs, enum icmd_kind kind)
{
	struct icmd *ic = conn_pool_get(&icmd_pool, sizeof(*ic));

	if (!ic)
		return NULL;
	ic->conn = c;
	c->refs++;
	ic->kind = kind;
	memcpy(ic->hdr, bhs, ISCSI_BHS_LEN);
	ic->itt = bhs_itt(bhs);
	ic->cmdsn = get_be32(bhs + 24);
	ic->immediate = bhs_immediate(bhs);
	ic->refs = 1;
	ic->scsi_tl = UINT64_MAX;
	/* link into the task list */
	ic->next = c->tasks;
	if (c->tasks)
		c->tasks->prev = ic;
	c->tasks = ic;
	c->ntasks++;
	return ic;
}

void icmd_unlink(struct icmd *ic)
{
	struct conn *c = ic->conn;

	if (!ic->prev && c->tasks != ic)
		return; /* not linked */
	if (ic->prev)
		ic->prev->next = ic->next;
	else
		c->tasks = ic->next;
	if (ic->next)
		ic->next->prev = ic->prev;
	ic->next = ic->prev = NULL;
	c->ntasks--;
}

void icmd_put(struct icmd *ic)
{
	struct conn *c;

	if (--ic->refs > 0)
		return;
	c = ic->conn;
	icmd_unlink(ic);
	if (ic->data_charge) {
		c->data_bytes -= ic->data_charge;
		conn_data_released(c);
	}
	if (ic->lc.early) {
		/* before the buffer goes: the backend's early work reads it */
		ic->lc.early_drop(ic->lc.early);
		ic->lc.early = NULL;
	}
	if (ic->buf)
		bufcache_put(cache_of(c), ic->buf, ic->buf_cap);
	conn_pool_put(&icmd_pool, ic);
	conn_put(c);
}

void conn_data_released(struct conn *c)
{
	if (!c->rx_paused || c->resume_queued || c->closed || !c->thr)
		return;
	c->resume_queued = true;
	c->refs++; /* the resume list holds the connection */
	c->resume_next = c->thr->resume;
	c->thr->resume = c;
}

struct icmd *conn_find_task(struct conn *c, uint32_t itt)
{
	for (struct icmd *ic = c->tasks; ic; ic = ic->next)
		if (ic->itt == itt && ic->state != SCSI_CMD_FINISHED)
			return ic;
	return NULL;
}

static void log_logout(struct conn *c, const char *why)
{
	char isid[13];

	for (int i = 0; i < 6; i++)
		snprintf(isid + 2 * i, 3, "%02x", c->isid[i]);
	target_log("logout: initiator=%s isid=%s tsih=%u type=%s peer=%s (%s)",
		   c->initiator[0] ? c->initiator : "?", isid, c->tsih,
		   c->discovery ? "Discovery" : "Normal", c->peer, why);
}

void conn_close(struct conn *c, const char *why)
{
	struct icmd *ic, *nx;

	bool refused;

	if (c->closed)
		return;
	c->closed = true;
	refused = c->state == CS_CLOSING; /* login_fail() answered it already */
	c->state = CS_CLOSING;
	portal_conn_change(c->portal, -1);
	if (c->counted) {
		/* an I_T nexus ends: SCSI-2 reservations it held are released
		 * (SPC-4 5.13.1; libiscsi Reserve6.Logout / ITNexusLoss) */
		if (!c->discovery)
			lu_pr_nexus_lost(c->initiator, c->isid, c->nexus_id);
		log_logout(c, why);
		atomic_fetch_sub(&g_session_count, 1);
		iscsi_stats_session_close(c->discovery);
		c->counted = false;
	} else if (c->login.started && !refused) {
		/* gone before the login got its answer */
		iscsi_stats_login(LOGIN_RESULT_ABANDONED);
		if (why && !g_target.quiet)
			target_log("connection from %s closed during login (%s)", c->peer, why);
	} else if (why && !g_target.quiet && c->login.started) {
		target_log("connection from %s closed during login (%s)", c->peer, why);
	}
	if (c->fd >= 0) {
		io_thread_unwatch(c); /* before close: see io_thread.h */
		close(c->fd);
		c->fd = -1;
	}
	conn_free_txq(c);
	c->pending = NULL;
	while (c->tmfs) {
		struct tmf_wait *t = c->tmfs;
		c->tmfs = t->next;
		free(t);
	}
	for (ic = c->tasks; ic; ic = nx) {
		nx = ic->next;
		ic->tmf = NULL;
		if (ic->state == SCSI_CMD_IN_BACKEND) {
			ic->aborted = true; /* its done() will drop it */
		} else {
			icmd_unlink(ic);
			scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
			icmd_put(ic);
		}
	}
	/* off the thread's connection list */
	if (c->thr) {
		if (c->list_prev)
			c->list_prev->list_next = c->list_next;
		else if (c->thr->conns == c)
			c->thr->conns = c->list_next;
		if (c->list_next)
			c->list_next->list_prev = c->list_prev;
	}
	c->list_next = c->list_prev = NULL;
	conn_put(c);
}
