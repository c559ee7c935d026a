/* happenings.c — see happenings.h.  A ring of fixed-size records under one
 * mutex; the posters are rare (state changes, and sense conditions folded
 * per HAPPENINGS_REPEAT_MS), so the lock is never contended on the I/O
 * path's common case, which never calls here. */
#include "target/lu/happenings.h"
#include "lunlab/scsi_vocab.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static struct happening ring[HAPPENINGS_MAX];
static uint64_t next_seq = 1;                 /* the seq the next post gets */
static struct {
	uint64_t subject, ms, seq;            /* the last post of a kind */
} last[HAPPEN_KINDS];
static uint64_t (*clock_fn)(void);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const kind_names[HAPPEN_KINDS] = {
	"soft_threshold", "out_of_space", "fault_fired", "portal_down", "portal_up", "alua",
};

const char *happening_kind_name(enum happening_kind k)
{
	return (unsigned)k < HAPPEN_KINDS ? kind_names[k] : "unknown";
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	if (clock_fn)
		return clock_fn();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void happening_post(enum happening_kind kind, uint64_t subject, const char *fmt, ...)
{
	char text[HAPPENING_TEXT_MAX];
	struct timespec rt;
	struct happening *h;
	uint64_t now;
	va_list ap;

	if ((unsigned)kind >= HAPPEN_KINDS)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (char *p = text; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
	clock_gettime(CLOCK_REALTIME, &rt);
	pthread_mutex_lock(&lock);
	now = mono_ms();
	/* the same condition again soon: counted in the record already there
	 * (if the ring still holds it) */
	if ((kind == HAPPEN_SOFT_THRESHOLD || kind == HAPPEN_OUT_OF_SPACE) && last[kind].seq &&
	    last[kind].subject == subject && now - last[kind].ms < HAPPENINGS_REPEAT_MS &&
	    next_seq - last[kind].seq <= HAPPENINGS_MAX) {
		ring[(last[kind].seq - 1) % HAPPENINGS_MAX].repeats++;
		pthread_mutex_unlock(&lock);
		return;
	}
	h = &ring[(next_seq - 1) % HAPPENINGS_MAX];
	memset(h, 0, sizeof(*h));
	h->seq = next_seq++;
	h->sec = (int64_t)rt.tv_sec;
	h->usec = (uint32_t)(rt.tv_nsec / 1000);
	h->kind = kind;
	h->subject = subject;
	memcpy(h->text, text, sizeof(text));
	last[kind].subject = subject;
	last[kind].ms = now;
	last[kind].seq = h->seq;
	pthread_mutex_unlock(&lock);
}

/* sense key, ASC, ASCQ of fixed (70h/71h) or descriptor (72h/73h) sense */
static bool sense_triple(const uint8_t *s, size_t len, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	if (!s || len < 4)
		return false;
	switch (s[0] & 0x7f) {
	case SCSI_SENSE_FMT_FIXED_CURRENT:
	case SCSI_SENSE_FMT_FIXED_DEFERRED:
		if (len < 14)
			return false;
		*key = s[2] & 0x0f;
		*asc = s[12];
		*ascq = s[13];
		return true;
	case SCSI_SENSE_FMT_DESC_CURRENT:
	case SCSI_SENSE_FMT_DESC_DEFERRED:
		*key = s[1] & 0x0f;
		*asc = s[2];
		*ascq = s[3];
		return true;
	default:
		return false;
	}
}

void happening_check_sense(uint64_t lu_id, uint64_t lun, uint8_t status, const uint8_t *sense, size_t len)
{
	uint8_t key, asc, ascq;

	if (status != SCSI_STAT_CHECK_CONDITION || !sense_triple(sense, len, &key, &asc, &ascq))
		return;
	if (key == SCSI_SK_UNIT_ATTENTION && scsi_asc_pair(asc, ascq) == SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD)
		happening_post(HAPPEN_SOFT_THRESHOLD, lu_id,
			       "LUN %llu: thin provisioning soft threshold reached (06/38/07 sent)",
			       (unsigned long long)lun);
	else if (key == SCSI_SK_DATA_PROTECT && scsi_asc_pair(asc, ascq) == SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT)
		happening_post(HAPPEN_OUT_OF_SPACE, lu_id,
			       "LUN %llu: out of space, write refused (07/27/07 SPACE ALLOCATION FAILED WRITE PROTECT)",
			       (unsigned long long)lun);
}

size_t happenings_read(uint64_t *cursor, struct happening *out, size_t max, uint64_t *missed)
{
	size_t n = 0;
	uint64_t first, miss = 0;

	pthread_mutex_lock(&lock);
	/* the oldest the ring still holds */
	first = next_seq > HAPPENINGS_MAX ? next_seq - HAPPENINGS_MAX : 1;
	if (*cursor + 1 < first) {
		miss = first - (*cursor + 1);
		*cursor = first - 1;
	}
	while (n < max && *cursor + 1 < next_seq) {
		out[n++] = ring[*cursor % HAPPENINGS_MAX];
		(*cursor)++;
	}
	pthread_mutex_unlock(&lock);
	if (missed)
		*missed = miss;
	return n;
}

void happenings_reset(void)
{
	pthread_mutex_lock(&lock);
	memset(ring, 0, sizeof(ring));
	memset(last, 0, sizeof(last));
	next_seq = 1;
	pthread_mutex_unlock(&lock);
}

void happenings_set_clock(uint64_t (*now_ms)(void))
{
	pthread_mutex_lock(&lock);
	clock_fn = now_ms;
	pthread_mutex_unlock(&lock);
}
