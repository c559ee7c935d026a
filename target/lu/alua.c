/* alua.c — target port groups, their states per LU, REPORT / SET TARGET
 * PORT GROUPS, the per-state command filter and the INQUIRY designators
 * (alua.h).  One mutex covers the states; a LU without ALUA never takes it. */
#include "target/lu/alua.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/lu/happenings.h"
#include "target/lu/lu_table.h"

struct lu_alua {
	uint8_t state[ALUA_GROUPS_MAX];
	uint8_t status[ALUA_GROUPS_MAX];
	bool pref[ALUA_GROUPS_MAX];
	uint8_t pending[ALUA_GROUPS_MAX];   /* the state after TRANSITIONING */
	uint64_t until_ms[ALUA_GROUPS_MAX]; /* when TRANSITIONING ends; 0: not timed */
	uint8_t trans_s;                    /* IMPLICIT TRANSITION TIME of the last change */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint16_t groups[ALUA_GROUPS_MAX] = { 1 };
static int ngroups = 1;
static atomic_uint timed; /* timed transitions not settled yet, of any LU */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void alua_set_groups(const uint16_t *ids, int n)
{
	pthread_mutex_lock(&lock);
	ngroups = 0;
	for (int i = 0; i < n && ngroups < ALUA_GROUPS_MAX; i++) {
		bool dup = false;
		for (int k = 0; k < ngroups; k++)
			dup |= groups[k] == ids[i];
		if (!dup && ids[i])
			groups[ngroups++] = ids[i];
	}
	if (!ngroups)
		groups[ngroups++] = 1;
	pthread_mutex_unlock(&lock);
}

int alua_groups(uint16_t *ids, int max)
{
	int n;

	pthread_mutex_lock(&lock);
	n = ngroups;
	for (int i = 0; i < n && i < max; i++)
		ids[i] = groups[i];
	pthread_mutex_unlock(&lock);
	return n;
}

static int group_index(uint16_t tpg)
{
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == tpg)
			return i;
	return -1;
}

uint8_t alua_tpgs(const struct lu_entry *e)
{
	return e && e->be ? e->be->tpgs : 0;
}

/* The LU's states (made on first use: its preferred group AO with PREF,
 * the others ANO), with timed transitions that are over settled.  Under
 * the lock; NULL only when out of memory. */
static struct lu_alua *lu_of(struct lu_entry *e, uint64_t lun)
{
	struct lu_alua *a = e->alua;
	uint64_t now;

	if (!a) {
		uint64_t seed = e->global ? lun : e->id;
		a = calloc(1, sizeof(*a));
		if (!a)
			return NULL;
		for (int g = 0; g < ALUA_GROUPS_MAX; g++) {
			bool pref = g == (int)(seed % (uint64_t)ngroups);
			a->state[g] = pref ? ALUA_AO : ALUA_ANO;
			a->pref[g] = pref;
		}
		e->alua = a;
	}
	now = 0;
	for (int g = 0; g < ngroups; g++) {
		if (a->state[g] != ALUA_TRANSITIONING || !a->until_ms[g])
			continue;
		if (!now)
			now = now_ms();
		if (now >= a->until_ms[g]) {
			a->state[g] = a->pending[g];
			a->until_ms[g] = 0;
			atomic_fetch_sub(&timed, 1);
			ua_queue_post_all(e->ua, UA_ALUA, 0); /* the transition ended: tell again */
		}
	}
	return a;
}

enum alua_state alua_state_of(struct lu_entry *e, uint64_t lun, uint16_t tpg, bool *pref)
{
	enum alua_state s = ALUA_AO;
	struct lu_alua *a;
	int g;

	if (pref)
		*pref = false;
	if (!alua_tpgs(e))
		return ALUA_AO;
	pthread_mutex_lock(&lock);
	g = group_index(tpg);
	a = g >= 0 ? lu_of(e, lun) : NULL;
	if (a) {
		s = (enum alua_state)a->state[g];
		if (pref)
			*pref = a->pref[g];
	}
	pthread_mutex_unlock(&lock);
	return s;
}

int alua_list(struct lu_entry *e, uint64_t lun, struct alua_group_info *out, int max)
{
	struct lu_alua *a;
	int n = 0;

	if (!alua_tpgs(e))
		return 0;
	pthread_mutex_lock(&lock);
	a = lu_of(e, lun);
	for (int g = 0; a && g < ngroups; g++, n++) {
		if (n >= max)
			continue;
		out[n].tpg = groups[g];
		out[n].state = (enum alua_state)a->state[g];
		out[n].pref = a->pref[g];
		out[n].status = a->status[g];
	}
	pthread_mutex_unlock(&lock);
	return n;
}

int alua_set(struct lu_entry *e, uint64_t lun, uint16_t tpg, enum alua_state state, int pref,
	     unsigned transition_ms, char *err, size_t errlen)
{
	struct lu_alua *a;
	int g;

	if (!alua_tpgs(e)) {
		snprintf(err, errlen, "LUN %llu reports no ALUA (its profile has tpgs off)", (unsigned long long)lun);
		return -1;
	}
	pthread_mutex_lock(&lock);
	g = group_index(tpg);
	if (g < 0) {
		pthread_mutex_unlock(&lock);
		snprintf(err, errlen, "no target port group %u (the groups are the --listen tpg= tags)", tpg);
		return -1;
	}
	a = lu_of(e, lun);
	if (!a) {
		pthread_mutex_unlock(&lock);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (a->until_ms[g])
		atomic_fetch_sub(&timed, 1); /* a transition still running is replaced */
	if (transition_ms && state != ALUA_TRANSITIONING) {
		atomic_fetch_add(&timed, 1);
		a->state[g] = ALUA_TRANSITIONING;
		a->pending[g] = (uint8_t)state;
		a->until_ms[g] = now_ms() + transition_ms;
		a->trans_s = (uint8_t)((transition_ms + 999) / 1000 > 255 ? 255 : (transition_ms + 999) / 1000);
	} else {
		a->state[g] = (uint8_t)state;
		a->until_ms[g] = 0;
	}
	a->status[g] = ALUA_STATUS_IMPLICIT;
	if (pref >= 0)
		a->pref[g] = pref != 0;
	ua_queue_post_all(e->ua, UA_ALUA, 0);
	pthread_mutex_unlock(&lock);
	happening_post(HAPPEN_ALUA, e->id, "LUN %llu target port group %u: %s%s", (unsigned long long)lun, tpg,
		       transition_ms && state != ALUA_TRANSITIONING ? "transitioning to " : "", alua_state_name(state));
	return 0;
}

static void check(struct alua_answer *ans, enum scsi_vocab_sense_key key, uint16_t asc_ascq)
{
	ans->status = SCSI_STAT_CHECK_CONDITION;
	ans->sense_len = lu_sense_fixed(ans->sense, key, asc_ascq, -1);
	ans->data_len = 0;
}

static void check_field(struct alua_answer *ans, enum scsi_vocab_sense_key key, uint16_t asc_ascq, int field)
{
	ans->status = SCSI_STAT_CHECK_CONDITION;
	ans->sense_len = lu_sense_fixed(ans->sense, key, asc_ascq, field);
	ans->data_len = 0;
}

bool alua_owns(const uint8_t *cdb, size_t cdb_len)
{
	uint8_t sa;

	if (cdb_len < 2)
		return false;
	sa = cdb[1] & SCSI_SA_MASK;

	return (cdb[0] == SCSI_OP_MAINTENANCE_IN && sa == SCSI_SA_REPORT_TARGET_PORT_GROUPS) ||
	       (cdb[0] == SCSI_OP_MAINTENANCE_OUT && sa == SCSI_SA_SET_TARGET_PORT_GROUPS);
}

/* SPC-4 5.15.2.4.4-5 and 5.15.2.5: what each state still accepts */
static bool allowed(enum alua_state s, const uint8_t *cdb, size_t cdb_len)
{
	uint8_t op = cdb[0], sa = cdb_len > 1 ? cdb[1] & SCSI_SA_MASK : 0;

	switch (op) {
	case SCSI_OP_INQUIRY: case SCSI_OP_REPORT_LUNS: case SCSI_OP_REQUEST_SENSE:
	case SCSI_OP_READ_BUFFER_10: case SCSI_OP_WRITE_BUFFER:
		return true; /* INQUIRY, REPORT LUNS, REQUEST SENSE, READ/WRITE BUFFER */
	case SCSI_OP_MAINTENANCE_IN:
		return sa == SCSI_SA_REPORT_TARGET_PORT_GROUPS;
	case SCSI_OP_MAINTENANCE_OUT:
		return sa == SCSI_SA_SET_TARGET_PORT_GROUPS && s != ALUA_TRANSITIONING;
	default:
		break;
	}
	if (s != ALUA_STANDBY)
		return false;
	switch (op) {
	case SCSI_OP_LOG_SELECT: case SCSI_OP_LOG_SENSE:
	case SCSI_OP_MODE_SELECT_6: case SCSI_OP_MODE_SELECT_10:
	case SCSI_OP_MODE_SENSE_6: case SCSI_OP_MODE_SENSE_10:
	case SCSI_OP_RECEIVE_DIAGNOSTIC_RESULTS: case SCSI_OP_SEND_DIAGNOSTIC:
	case SCSI_OP_PERSISTENT_RESERVE_IN: case SCSI_OP_PERSISTENT_RESERVE_OUT:
	case SCSI_OP_READ_CAPACITY_10: /* READ CAPACITY(10): as LIO, hosts size standby paths */
		return true;
	case SCSI_OP_SERVICE_ACTION_IN_16:
		return sa == SCSI_SA_READ_CAPACITY_16;
	default:
		return false;
	}
}

bool alua_refuses(enum alua_state s, const uint8_t *cdb, size_t cdb_len, struct alua_answer *ans)
{
	if (!cdb_len || s == ALUA_AO || s == ALUA_ANO || allowed(s, cdb, cdb_len))
		return false;
	check(ans, SCSI_SK_NOT_READY,
	      s == ALUA_STANDBY       ? SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY
	      : s == ALUA_UNAVAILABLE ? SCSI_ASC_LU_NOT_ACCESSIBLE_UNAVAILABLE
				      : SCSI_ASC_LU_NOT_ACCESSIBLE_TRANSITION);
	return true;
}

void alua_report_tpgs(struct lu_entry *e, uint64_t lun, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
		      struct alua_answer *ans)
{
	uint8_t out[8 + ALUA_GROUPS_MAX * 12];
	uint8_t b1 = cdb_len > 1 ? cdb[1] : 0;
	bool ext = (b1 & 0xe0) == 0x20; /* PARAMETER DATA FORMAT 001b: extended header */
	uint32_t alloc = cdb_byte_length(cdb, cdb_len); /* 0 for a CDB shorter than its 12 bytes */
	size_t o = ext ? 8 : 4, n;
	struct lu_alua *a;

	memset(ans, 0, sizeof(*ans));
	if ((b1 & 0xe0) != 0x00 && !ext) {
		check_field(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 1);
		return;
	}
	memset(out, 0, sizeof(out));
	pthread_mutex_lock(&lock);
	a = lu_of(e, lun);
	for (int g = 0; g < ngroups && a; g++) {
		uint8_t *d = out + o;
		d[0] = (uint8_t)((a->pref[g] ? 0x80 : 0) | (a->state[g] & 0x0f));
		d[1] = 0x80 | 0x08 | 0x04 | 0x02 | 0x01; /* T_SUP U_SUP S_SUP AN_SUP AO_SUP */
		put16(d + 2, groups[g]);
		d[5] = a->status[g];
		d[7] = 1;                                /* TARGET PORT COUNT */
		put16(d + 8 + 2, groups[g]);             /* its RELATIVE TARGET PORT IDENTIFIER */
		o += 12;
	}
	if (ext) {
		out[4] = 0x10;                            /* FORMAT TYPE 001b */
		out[5] = a ? a->trans_s : 0;              /* IMPLICIT TRANSITION TIME, s */
	}
	pthread_mutex_unlock(&lock);
	out[0] = (uint8_t)((o - 4) >> 24);
	out[1] = (uint8_t)((o - 4) >> 16);
	out[2] = (uint8_t)((o - 4) >> 8);
	out[3] = (uint8_t)(o - 4);
	n = o < alloc ? o : alloc;
	if (n > buflen)
		n = buflen;
	if (n)
		memcpy(buf, out, n);
	ans->status = 0x00;
	ans->data_len = n;
}

void alua_set_tpgs(struct lu_entry *e, uint64_t lun, const uint8_t *cdb, size_t cdb_len, const uint8_t *buf, size_t len,
		   struct alua_answer *ans, bool *changed)
{
	uint8_t tpgs = alua_tpgs(e);
	uint32_t pll = cdb_byte_length(cdb, cdb_len);
	struct lu_alua *a;
	int idx[ALUA_GROUPS_MAX * 4];
	size_t nd;

	memset(ans, 0, sizeof(*ans));
	*changed = false;
	if (!(tpgs & ALUA_TPGS_EXPLICIT)) { /* implicit only: the command does not exist */
		check_field(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE, -1);
		return;
	}
	if (pll == 0)
		return; /* nothing to change is not an error (SPC-4 6.38) */
	if (len > pll)
		len = pll;
	if (pll < 4 || (pll - 4) % 4 || len < pll) {
		check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
		return;
	}
	nd = (pll - 4) / 4;
	if (nd > sizeof(idx) / sizeof(idx[0])) {
		check(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
		return;
	}
	pthread_mutex_lock(&lock);
	/* every descriptor is checked before any state changes */
	for (size_t i = 0; i < nd; i++) {
		const uint8_t *d = buf + 4 + 4 * i;
		uint8_t st = d[0] & 0x0f;
		int g = group_index((uint16_t)(d[2] << 8 | d[3]));

		if (st > ALUA_UNAVAILABLE || g < 0) { /* transitioning cannot be asked for */
			pthread_mutex_unlock(&lock);
			check_field(ans, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, -1);
			if (ans->sense_len >= 18) {
				ans->sense[15] = 0x80;    /* SKSV, C/D 0: a parameter list byte */
				put16(ans->sense + 16, (unsigned)(4 + 4 * i + (st > ALUA_UNAVAILABLE ? 0 : 2)));
			}
			return;
		}
		idx[i] = g;
	}
	a = lu_of(e, lun);
	for (size_t i = 0; a && i < nd; i++) {
		uint8_t st = buf[4 + 4 * i] & 0x0f;
		int g = idx[i];
		if (a->state[g] != st || a->status[g] != ALUA_STATUS_EXPLICIT) {
			if (a->until_ms[g])
				atomic_fetch_sub(&timed, 1);
			a->state[g] = st;
			a->until_ms[g] = 0;
			a->status[g] = ALUA_STATUS_EXPLICIT;
			*changed = true;
		}
	}
	if (*changed)
		ua_queue_post_all(e->ua, UA_ALUA, 0);
	pthread_mutex_unlock(&lock);
	if (!a)
		check(ans, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE);
}

size_t alua_patch_inquiry(uint8_t tpgs, uint16_t tpg, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len, size_t cap)
{
	uint8_t des[16] = {
		0x51, 0x94, 0, 4, 0, 0, 0, 0, /* iSCSI, binary; PIV, target port, RELATIVE TARGET PORT */
		0x51, 0x95, 0, 4, 0, 0, 0, 0, /* iSCSI, binary; PIV, target port, TARGET PORT GROUP */
	};
	/* INQUIRY's; not 0 only when the CDB holds its 6 bytes, read below */
	size_t alloc = cdb_byte_length(cdb, cdb_len), full, page;

	if (!tpgs || !alloc)
		return len;
	if (cap > alloc)
		cap = alloc;
	if (!(cdb[1] & 0x01)) { /* standard data: TPGS in byte 5 bits 5..4 */
		if (len > 5 && cap > 5)
			buf[5] = (uint8_t)((buf[5] & ~0x30) | (tpgs & 3) << 4);
		return len;
	}
	if (cdb[2] != 0x83 || len < 4 || cap < 4 || buf[1] != 0x83)
		return len;
	page = (size_t)(buf[2] << 8 | buf[3]);
	full = 4 + page;
	if (page + sizeof(des) > 0xffff)
		return len;
	put16(des + 6, tpg);
	put16(des + 14, tpg);
	put16(buf + 2, (unsigned)(page + sizeof(des)));
	for (size_t i = 0; i < sizeof(des) && full + i < cap; i++)
		buf[full + i] = des[i];
	full += sizeof(des);
	return full < cap ? full : cap;
}

void alua_settle(struct lu_entry *e)
{
	if (!atomic_load_explicit(&timed, memory_order_relaxed) || !alua_tpgs(e))
		return;
	pthread_mutex_lock(&lock);
	if (e->alua)
		(void)lu_of(e, 0);
	pthread_mutex_unlock(&lock);
}

void alua_free(struct lu_entry *e)
{
	pthread_mutex_lock(&lock);
	for (int g = 0; e->alua && g < ngroups; g++)
		if (e->alua->until_ms[g])
			atomic_fetch_sub(&timed, 1);
	free(e->alua);
	e->alua = NULL;
	pthread_mutex_unlock(&lock);
}

void alua_reset(void)
{
	pthread_mutex_lock(&lock);
	atomic_store(&timed, 0);
	groups[0] = 1;
	ngroups = 1;
	pthread_mutex_unlock(&lock);
}
