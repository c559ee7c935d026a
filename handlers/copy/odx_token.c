/* odx_token.c — ROD tokens: build, MAC, verify, and the per-array registry
 * of live ones with their expiry (odx_token.h has the layout and rules). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "handlers/copy/odx_token.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

#define OFF_ID 8
#define OFF_CREATOR 16
#define OFF_BYTES 48
#define OFF_NONCE 96
#define OFF_TIME 112
#define OFF_BLOCK 120
#define OFF_NRANGES 124
#define OFF_RANGES 128
#define RANGE_BYTES 12
#define OFF_MAC 480
#define MAC_LEN 32
#define KEY_LEN 32
#define NONCE_LEN 16
#define ROD_TOKEN_LENGTH 0x01F8u  /* bytes after the first 8 */
/* dead tokens remembered per array, to tell expired from deleted from unknown */
#define TOMBS 64u
#define REAP_PERIOD_MS 1000u

_Static_assert(OFF_RANGES + ODX_RANGES_HARD_MAX * RANGE_BYTES <= OFF_MAC, "ranges must fit the token");

struct tomb {
	uint64_t id;
	enum odx_tok_status why;
};

struct actx;

struct odx_live {
	struct actx *ctx;
	struct odx_live *next;
	uint64_t id;
	unsigned refs;               /* the registry's (while live) + users' */
	const struct lunlab_dev *src;
	struct vol_hold *hold;
	uint64_t bytes;
	uint64_t timeout_ms, last_use_ms;
};

/* One array's ODX identity and tokens. */
struct actx {
	const struct array *array;
	struct actx *next;
	uint8_t key[KEY_LEN];
	uint8_t nonce[NONCE_LEN];
	uint64_t next_id;
	struct odx_live *live;
	unsigned nlive;
	struct tomb tombs[TOMBS];
	unsigned tomb_next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct actx *ctxs;
static uint64_t (*clock_fn)(void);
static pthread_once_t reaper_once = PTHREAD_ONCE_INIT;

static uint64_t real_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now_ms(void)
{
	return clock_fn ? clock_fn() : real_now_ms();
}

void odx_clock_set(uint64_t (*fn)(void))
{
	pthread_mutex_lock(&lock);
	clock_fn = fn;
	pthread_mutex_unlock(&lock);
}

uint16_t odx_tok_asc(enum odx_tok_status s)
{
	switch (s) {
	case ODX_TOK_UNSUPPORTED: return SCSI_ASC_TOKEN_UNSUPPORTED_TYPE;
	case ODX_TOK_CORRUPT: return SCSI_ASC_TOKEN_CORRUPT;
	case ODX_TOK_UNKNOWN: return SCSI_ASC_TOKEN_UNKNOWN;
	case ODX_TOK_EXPIRED: return SCSI_ASC_TOKEN_EXPIRED;
	case ODX_TOK_CANCELLED: return SCSI_ASC_TOKEN_CANCELLED;
	case ODX_TOK_DELETED: return SCSI_ASC_TOKEN_DELETED;
	case ODX_TOK_NO_RESOURCES: return SCSI_ASC_INSUFFICIENT_RESOURCES_FOR_ROD;
	case ODX_TOK_RANGE: return SCSI_ASC_LBA_OUT_OF_RANGE;
	case ODX_TOK_OK: break;
	}
	return SCSI_ASC_NO_ADDITIONAL_SENSE;
}

static int fresh_identity(struct actx *c)
{
	if (gnutls_rnd(GNUTLS_RND_KEY, c->key, sizeof(c->key)) < 0 ||
	    gnutls_rnd(GNUTLS_RND_NONCE, c->nonce, sizeof(c->nonce)) < 0)
		return -1;
	return 0;
}

/* The array's context, made (key and nonce drawn) at its first use; lock held. */
static struct actx *ctx_of(const struct array *a, bool create)
{
	for (struct actx *c = ctxs; c; c = c->next)
		if (c->array == a)
			return c;
	if (!create)
		return NULL;
	struct actx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (fresh_identity(c)) {
		free(c);
		return NULL;
	}
	c->array = a;
	c->next_id = 1;
	c->next = ctxs;
	ctxs = c;
	return c;
}

static void tomb_add(struct actx *c, uint64_t id, enum odx_tok_status why)
{
	c->tombs[c->tomb_next % TOMBS] = (struct tomb){ .id = id, .why = why };
	c->tomb_next++;
}

static enum odx_tok_status tomb_find(const struct actx *c, uint64_t id)
{
	for (unsigned i = 0; i < TOMBS; i++)
		if (c->tombs[i].id == id && id)
			return c->tombs[i].why;
	return ODX_TOK_UNKNOWN;
}

/* Take t out of the live list (lock held); returns it if the caller must
 * free it (no user holds a reference), else NULL. */
static struct odx_live *unlink_live(struct odx_live *t)
{
	struct actx *c = t->ctx;

	for (struct odx_live **pp = &c->live; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			c->nlive--;
			t->next = NULL;
			break;
		}
	}
	return --t->refs == 0 ? t : NULL;
}

/* The references go back to the array.  vol_hold_free may drop the array's
 * last reference, which must not happen inside a command bracket of that
 * array (volume.h): it cannot here, as a token dies inside a command only
 * through an LU of its own array, whose reference outlives the command;
 * otherwise the reaper thread or an LU's close frees it. */
static void free_live(struct odx_live *t)
{
	if (!t)
		return;
	if (t->hold)
		vol_hold_free(t->hold);
	free(t);
}

static void mac_of(const struct actx *c, const uint8_t tok[ODX_TOKEN_LEN], uint8_t mac[MAC_LEN])
{
	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, c->key, sizeof(c->key), tok, OFF_MAC, mac) < 0)
		memset(mac, 0, MAC_LEN);   /* verifies nothing: never equal to a real MAC's use */
}

static bool mac_ok(const struct actx *c, const uint8_t tok[ODX_TOKEN_LEN])
{
	uint8_t mac[MAC_LEN];
	uint8_t diff = 0;

	mac_of(c, tok, mac);
	for (unsigned i = 0; i < MAC_LEN; i++)   /* constant time: no oracle for forgers */
		diff |= (uint8_t)(mac[i] ^ tok[OFF_MAC + i]);
	return diff == 0;
}

static void *reaper(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts = { .tv_sec = REAP_PERIOD_MS / 1000u, .tv_nsec = 0 };
		nanosleep(&ts, NULL);
		odx_tokens_reap();
	}
	return NULL;
}

static void start_reaper(void)
{
	pthread_t th;
	pthread_attr_t at;

	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* without the thread, tokens still expire at their next use; only the
	 * early release of references is lost */
	(void)pthread_create(&th, &at, reaper, NULL);
	pthread_attr_destroy(&at);
}

static void build(const struct actx *c, const struct odx_live *t, const struct lunlab_dev *src,
		  const struct odx_ranges *r, uint64_t created, uint8_t out[ODX_TOKEN_LEN])
{
	memset(out, 0, ODX_TOKEN_LEN);
	put_be32(out, ODX_ROD_TYPE_PIT_DEFAULT);
	put_be16(out + 6, ROD_TOKEN_LENGTH);
	put_be64(out + OFF_ID, t->id);
	out[OFF_CREATOR] = 0x01;             /* code set: binary */
	out[OFF_CREATOR + 1] = 0x03;         /* association: LU, designator type: NAA */
	out[OFF_CREATOR + 3] = 16;
	memcpy(out + OFF_CREATOR + 4, src->naa, 16);
	put_be64(out + OFF_BYTES + 8, t->bytes);
	memcpy(out + OFF_NONCE, c->nonce, NONCE_LEN);
	put_be64(out + OFF_TIME, created);
	put_be32(out + OFF_BLOCK, src->block_size);
	put_be16(out + OFF_NRANGES, (uint16_t)r->n);
	for (unsigned i = 0; i < r->n; i++) {
		put_be64(out + OFF_RANGES + i * RANGE_BYTES, r->r[i].lba);
		put_be32(out + OFF_RANGES + i * RANGE_BYTES + 8, r->r[i].nblocks);
	}
	size_t pad = OFF_RANGES + r->n * RANGE_BYTES;
	/* random padding: no two tokens share a predictable tail */
	if (gnutls_rnd(GNUTLS_RND_NONCE, out + pad, OFF_MAC - pad) < 0)
		memset(out + pad, 0, OFF_MAC - pad);
	mac_of(c, out, out + OFF_MAC);
}

enum odx_tok_status odx_token_create(struct lunlab_dev *src, const struct odx_ranges *ranges, uint32_t timeout_s,
				     uint8_t out[ODX_TOKEN_LEN])
{
	struct vol_range vr[ODX_RANGES_HARD_MAX];
	size_t n = 0;

	for (unsigned i = 0; i < ranges->n && i < ODX_RANGES_HARD_MAX; i++)
		if (ranges->r[i].nblocks)
			vr[n++] = (struct vol_range){ .off = ranges->r[i].lba * src->block_size,
						      .len = (uint64_t)ranges->r[i].nblocks * src->block_size };
	pthread_once(&reaper_once, start_reaper);
	pthread_mutex_lock(&lock);
	struct actx *c = ctx_of(src->array, true);
	bool full = !c || c->nlive >= ODX_LIVE_TOKENS_MAX;
	pthread_mutex_unlock(&lock);
	if (full)
		return ODX_TOK_NO_RESOURCES;

	/* a token of no blocks (every range empty) holds nothing: WRITE USING
	 * TOKEN then finds any offset past its end */
	struct vol_hold *h = NULL;
	int rc = n ? volume_hold_create(src->vol, vr, n, &h) : 0;
	if (rc == -ERANGE)
		return ODX_TOK_RANGE;
	if (rc < 0)
		return ODX_TOK_NO_RESOURCES;
	struct odx_live *t = calloc(1, sizeof(*t));
	if (!t) {
		vol_hold_free(h);
		return ODX_TOK_NO_RESOURCES;
	}
	t->src = src;
	t->hold = h;
	t->bytes = h ? vol_hold_bytes(h) : 0;
	t->timeout_ms = (uint64_t)timeout_s * 1000u;
	t->refs = 1;

	pthread_mutex_lock(&lock);
	c = ctx_of(src->array, true);
	if (!c || c->nlive >= ODX_LIVE_TOKENS_MAX) {
		pthread_mutex_unlock(&lock);
		free_live(t);
		return ODX_TOK_NO_RESOURCES;
	}
	t->ctx = c;
	t->id = c->next_id++;
	t->last_use_ms = now_ms();
	build(c, t, src, ranges, t->last_use_ms, out);
	t->next = c->live;
	c->live = t;
	c->nlive++;
	pthread_mutex_unlock(&lock);
	return ODX_TOK_OK;
}

/* Whether t has outlived its inactivity timeout at now. */
static bool expired(const struct odx_live *t, uint64_t now)
{
	return now - t->last_use_ms >= t->timeout_ms;
}

/* The live token tok names in c, after its MAC; lock held.  *why on NULL. */
static struct odx_live *find_live(struct actx *c, const uint8_t tok[ODX_TOKEN_LEN], enum odx_tok_status *why)
{
	if (!mac_ok(c, tok)) {
		*why = ODX_TOK_CORRUPT;
		return NULL;
	}
	uint64_t id = get_be64(tok + OFF_ID);
	for (struct odx_live *t = c->live; t; t = t->next)
		if (t->id == id)
			return t;
	*why = tomb_find(c, id);
	return NULL;
}

/* Which context a token claims, and if none answers for it, why. */
static struct actx *claimed_ctx(const struct lunlab_dev *dev, const uint8_t tok[ODX_TOKEN_LEN],
				enum odx_tok_status *why)
{
	if (get_be32(tok) != ODX_ROD_TYPE_PIT_DEFAULT) {
		*why = ODX_TOK_UNSUPPORTED;
		return NULL;
	}
	struct actx *c = ctx_of(dev->array, false);
	if (c && memcmp(tok + OFF_NONCE, c->nonce, NONCE_LEN) == 0)
		return c;
	/* Not this run's nonce.  A token naming an LU of this array as its
	 * creator was issued before the array's key changed (a restart):
	 * unknown.  Anything else is another array's or made up: corrupt. */
	const uint8_t *creator = tok + OFF_CREATOR;
	bool ours = creator[1] == 0x03 && creator[3] == 16 && lunlab_dev_find_by_naa(dev->array, creator + 4);
	*why = ours ? ODX_TOK_UNKNOWN : ODX_TOK_CORRUPT;
	return NULL;
}

enum odx_tok_status odx_token_get(const struct lunlab_dev *dev, const uint8_t tok[ODX_TOKEN_LEN], struct odx_live **out)
{
	enum odx_tok_status why = ODX_TOK_UNKNOWN;
	struct odx_live *gone = NULL;

	*out = NULL;
	pthread_mutex_lock(&lock);
	struct actx *c = claimed_ctx(dev, tok, &why);
	struct odx_live *t = c ? find_live(c, tok, &why) : NULL;
	if (t) {
		uint64_t now = now_ms();
		if (expired(t, now)) {
			/* the reaper has not come round yet: the same verdict */
			tomb_add(c, t->id, ODX_TOK_EXPIRED);
			gone = unlink_live(t);
			why = ODX_TOK_EXPIRED;
		} else {
			t->refs++;
			t->last_use_ms = now;   /* the inactivity timeout restarts at each use */
			*out = t;
			why = ODX_TOK_OK;
		}
	}
	pthread_mutex_unlock(&lock);
	free_live(gone);
	return why;
}

void odx_token_put(struct odx_live *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&lock);
	bool last = --t->refs == 0;
	if (!last && t->ctx)
		t->last_use_ms = now_ms();   /* a long write is use too: the timer starts after it */
	pthread_mutex_unlock(&lock);
	if (last)
		free_live(t);
}

struct vol_hold *odx_live_hold(const struct odx_live *t)
{
	return t->hold;
}

uint64_t odx_live_bytes(const struct odx_live *t)
{
	return t->bytes;
}

void odx_token_kill(const struct lunlab_dev *dev, const uint8_t tok[ODX_TOKEN_LEN], enum odx_tok_status why)
{
	enum odx_tok_status ignored;
	struct odx_live *gone = NULL;

	pthread_mutex_lock(&lock);
	struct actx *c = claimed_ctx(dev, tok, &ignored);
	struct odx_live *t = c ? find_live(c, tok, &ignored) : NULL;
	if (t) {
		tomb_add(c, t->id, why);
		gone = unlink_live(t);
	}
	pthread_mutex_unlock(&lock);
	free_live(gone);
}

/* Move every token of c that matches (or all) to *dead; lock held. */
static unsigned collect(struct actx *c, const struct lunlab_dev *src, bool only_expired, uint64_t now,
			struct odx_live **dead)
{
	unsigned n = 0;
	struct odx_live **pp = &c->live;

	while (*pp) {
		struct odx_live *t = *pp;
		bool match = only_expired ? expired(t, now) : (!src || t->src == src);
		if (!match) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		c->nlive--;
		if (only_expired)
			tomb_add(c, t->id, ODX_TOK_EXPIRED);
		t->next = NULL;
		n++;
		if (--t->refs == 0) {
			t->next = *dead;
			*dead = t;
		}
	}
	return n;
}

static void free_list(struct odx_live *dead)
{
	while (dead) {
		struct odx_live *next = dead->next;
		free_live(dead);
		dead = next;
	}
}

unsigned odx_tokens_reap(void)
{
	struct odx_live *dead = NULL;
	unsigned n = 0;

	pthread_mutex_lock(&lock);
	uint64_t now = now_ms();
	for (struct actx *c = ctxs; c; c = c->next)
		n += collect(c, NULL, true, now, &dead);
	pthread_mutex_unlock(&lock);
	free_list(dead);
	return n;
}

void odx_tokens_forget_dev(const struct lunlab_dev *dev)
{
	struct odx_live *dead = NULL;

	pthread_mutex_lock(&lock);
	struct actx *c = ctx_of(dev->array, false);
	if (c)
		collect(c, dev, false, 0, &dead);
	pthread_mutex_unlock(&lock);
	free_list(dead);
}

unsigned odx_tokens_live(const struct lunlab_dev *dev)
{
	pthread_mutex_lock(&lock);
	struct actx *c = ctx_of(dev->array, false);
	unsigned n = c ? c->nlive : 0;
	pthread_mutex_unlock(&lock);
	return n;
}

void odx_array_rekey(const struct lunlab_dev *dev)
{
	struct odx_live *dead = NULL;

	pthread_mutex_lock(&lock);
	struct actx *c = ctx_of(dev->array, true);
	if (c) {
		collect(c, NULL, false, 0, &dead);
		memset(c->tombs, 0, sizeof(c->tombs));
		if (fresh_identity(c))
			memset(c->key, 0, sizeof(c->key));
	}
	pthread_mutex_unlock(&lock);
	free_list(dead);
}
