/* pr_persist.c — Persist Through Power Loss (SPC-4 5.13.5): the persistent
 * part of an LU's reservation state as bytes (encode/decode, for the
 * target's state directory), and saving it after every PERSISTENT RESERVE
 * OUT that changed it while APTPL is active.
 *
 * Layout (all integers big-endian; version 1):
 *   0  version (1)   1  flags: 01h APTPL, 02h reserved   2  type   3  nregs
 *   4  4 bytes zero
 *   8  holder: name length (1), name, ISID (6)     (a zero-length name when
 *      there is no single holder)
 *   .. nregs x { key (8), name length (1), name, ISID (6) }
 * The whole record carries a CRC32C in the store (state_kv.h); decoding
 * still checks every length against what is left, so a record from anywhere
 * can neither overrun nor restore an inconsistent state. */
#include "target/lu/pr_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PR_BLOB_VERSION 1
#define F_APTPL 0x01
#define F_RESERVED 0x02

static size_t put_port(uint8_t *p, const struct pr_port *port)
{
	size_t n = strnlen(port->iqn, PR_IQN_MAX - 1);

	p[0] = (uint8_t)n;
	memcpy(p + 1, port->iqn, n);
	memcpy(p + 1 + n, port->isid, 6);
	return 1 + n + 6;
}

size_t pr_state_encode(struct pr_state *st, uint8_t *buf, size_t cap)
{
	size_t o = 8;

	if (cap < PR_ENCODED_MAX)
		return 0;
	memset(buf, 0, 8);
	buf[0] = PR_BLOB_VERSION;
	buf[1] = (uint8_t)((st->aptpl ? F_APTPL : 0) | (st->reserved ? F_RESERVED : 0));
	buf[2] = st->reserved ? st->type : 0;
	buf[3] = (uint8_t)st->nregs;
	if (st->reserved && !pr_type_all_registrants(st->type)) {
		o += put_port(buf + o, &st->holder);
	} else {
		struct pr_port none;

		memset(&none, 0, sizeof(none));
		o += put_port(buf + o, &none);
	}
	for (size_t i = 0; i < st->nregs; i++) {
		for (int b = 0; b < 8; b++)
			buf[o + (size_t)b] = (uint8_t)(st->regs[i].key >> (56 - 8 * b));
		o += 8;
		o += put_port(buf + o, &st->regs[i].port);
	}
	return o;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* one port at blob[*o]; false if it does not fit in len */
static bool get_port(const uint8_t *blob, size_t len, size_t *o, struct pr_port *port)
{
	size_t n;

	if (*o >= len)
		return false;
	n = blob[*o];
	if (n > PR_IQN_MAX - 1 || len - *o - 1 < n + 6)
		return false;
	memset(port, 0, sizeof(*port));
	memcpy(port->iqn, blob + *o + 1, n);
	if (memchr(port->iqn, '\0', n))
		return false; /* a name never holds a NUL */
	memcpy(port->isid, blob + *o + 1 + n, 6);
	*o += 1 + n + 6;
	return true;
}

int pr_state_decode(struct pr_state *st, const uint8_t *blob, size_t len, char *err, size_t errlen)
{
	struct pr_reg regs[PR_REGS_MAX];
	struct pr_port holder;
	size_t o = 8, nregs;
	uint8_t flags, type;

	if (len < 8)
		return bad(err, errlen, "saved reservations: %zu bytes, shorter than the 8-byte header", len);
	if (blob[0] != PR_BLOB_VERSION)
		return bad(err, errlen, "saved reservations: version %u, this lunlab reads version %u", blob[0],
			   PR_BLOB_VERSION);
	flags = blob[1];
	type = blob[2];
	nregs = blob[3];
	if (flags & ~(F_APTPL | F_RESERVED))
		return bad(err, errlen, "saved reservations: unknown flags %02xh", flags);
	if (blob[4] | blob[5] | blob[6] | blob[7])
		return bad(err, errlen, "saved reservations: reserved header bytes 4..7 are not zero");
	if ((flags & F_RESERVED) && !pr_type_valid(type))
		return bad(err, errlen, "saved reservations: reservation type %u is not a valid TYPE", type);
	if (!(flags & F_RESERVED) && type)
		return bad(err, errlen, "saved reservations: type %u without a reservation", type);
	if (nregs > PR_REGS_MAX)
		return bad(err, errlen, "saved reservations: %zu registrations, at most %d", nregs, PR_REGS_MAX);
	if (!get_port(blob, len, &o, &holder))
		return bad(err, errlen, "saved reservations: the holder's name runs past the end");
	if ((!(flags & F_RESERVED) || pr_type_all_registrants(type)) &&
	    (holder.iqn[0] || memcmp(holder.isid, "\0\0\0\0\0\0", 6) != 0))
		return bad(err, errlen, "saved reservations: a holder where the reservation has none");
	for (size_t i = 0; i < nregs; i++) {
		if (len - o < 8)
			return bad(err, errlen, "saved reservations: registration %zu runs past the end", i);
		regs[i].key = 0;
		for (int b = 0; b < 8; b++)
			regs[i].key = regs[i].key << 8 | blob[o + (size_t)b];
		o += 8;
		if (!get_port(blob, len, &o, &regs[i].port))
			return bad(err, errlen, "saved reservations: registration %zu's name runs past the end", i);
		if (regs[i].key == 0)
			return bad(err, errlen, "saved reservations: registration %zu has key 0", i);
		for (size_t j = 0; j < i; j++)
			if (pr_port_eq(&regs[j].port, &regs[i].port))
				return bad(err, errlen, "saved reservations: registration %zu repeats a port", i);
		regs[i].nexus_id = 0; /* no session survives a power on */
	}
	if (o != len)
		return bad(err, errlen, "saved reservations: %zu bytes after the last registration", len - o);
	if (flags & F_RESERVED) {
		/* a reservation needs its holder among the registrants */
		bool found = false;

		for (size_t i = 0; i < nregs && !found; i++)
			found = pr_type_all_registrants(type) || pr_port_eq(&regs[i].port, &holder);
		if (!found)
			return bad(err, errlen, "saved reservations: the reservation's holder is not registered");
	}
	st->aptpl = flags & F_APTPL;
	st->reserved = flags & F_RESERVED;
	st->type = st->reserved ? type : 0;
	st->holder = holder;
	memcpy(st->regs, regs, nregs * sizeof(regs[0]));
	st->nregs = nregs;
	pr_update_active(st);
	return 0;
}

int pr_state_set_persist(struct pr_state *st, pr_persist_fn fn, void *ctx, void (*free_ctx)(void *ctx),
			 const uint8_t *blob, size_t len, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&st->lock);
	if (st->persist_free)
		st->persist_free(st->persist_ctx);
	st->persist = fn;
	st->persist_ctx = ctx;
	st->persist_free = free_ctx;
	if (len)
		rc = pr_state_decode(st, blob, len, err, errlen);
	pr_update_active(st);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

/* After a command under st->lock: save the persistent part if it changed and
 * APTPL is (or was) active.  before/blen: its encoding before the command.
 * False when it could not be saved. */
bool pr_persist_changes(struct pr_state *st, const uint8_t *before, size_t blen)
{
	uint8_t *now;
	size_t n;
	bool ok = true;

	if (!st->persist)
		return true;
	now = malloc(PR_ENCODED_MAX);
	if (!now)
		return false;
	n = pr_state_encode(st, now, PR_ENCODED_MAX);
	if (n != blen || memcmp(now, before, n) != 0) {
		bool was = blen > 1 && (before[1] & F_APTPL);

		if (st->aptpl)
			ok = st->persist(st->persist_ctx, now, n) == 0;
		else if (was)
			ok = st->persist(st->persist_ctx, NULL, 0) == 0; /* APTPL now off: forget */
	}
	free(now);
	return ok;
}
