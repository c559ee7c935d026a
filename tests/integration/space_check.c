/* space_check.c — an array that runs out of physical space, through iSCSI
 * with libiscsi (run-client.sh starts lunlab-target with one LUN of a small
 * array: array_capacity and soft_threshold given on its command line, see
 * tests/integration/meson.build).
 *
 * Session A fills the array with unique (incompressible) data, 1 MiB per
 * WRITE(16):
 *   - the soft threshold: exactly one 06/38/07 THIN PROVISIONING SOFT
 *     THRESHOLD REACHED on A, on the command after the one that reached it
 *     (a unit attention stops that command, which is then sent again), and
 *     one on session B, which was logged in and idle; session C, logged in
 *     after the crossing, owes nothing;
 *   - full: the WRITE that needs space the array lacks fails with 07/27/07
 *     SPACE ALLOCATION FAILED WRITE PROTECT and writes nothing; reads go on,
 *     so do writes of data the array holds (dedup); a 4 KiB write into a new
 *     block is refused too; log page 0Ch says nothing is available;
 *   - UNMAP of 8 MiB gives 8 MiB back (log page 0Ch), writes resume for
 *     exactly 8 MiB, then 07/27/07 again;
 *   - every acknowledged byte reads back; unmapped and refused ranges read
 *     as zeros.
 *
 * Usage: space_check HOST:PORT TARGET_IQN LUN CAPACITY_MIB SOFT_PERCENT.
 * Prints one "ok:" line per check, "FAIL:" for the others; exit 0 only if
 * nothing failed. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"

#define ST_GOOD SCSI_STAT_GOOD
#define ST_CHECK SCSI_STAT_CHECK_CONDITION
#define BS 512u
#define CHUNK (1u << 20)
#define CHUNK_LBAS (CHUNK / BS)
#define SET_BYTES 16384u /* x2: a threshold set is one dedup block */

#define UA_SOFT (0x06 << 16 | 0x3807)
#define NO_SPACE (0x07 << 16 | 0x2707)

static const char *g_portal, *g_iqn;
static int g_lun, g_failed;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;
	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	g_failed += !ok;
}

static struct iscsi_context *login(const char *initiator)
{
	struct iscsi_context *c = iscsi_create_context(initiator);
	if (!c)
		return NULL;
	iscsi_set_targetname(c, g_iqn);
	iscsi_set_session_type(c, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(c, ISCSI_HEADER_DIGEST_NONE);
	if (iscsi_full_connect_sync(c, g_portal, g_lun) != 0) {
		fprintf(stderr, "login of %s failed: %s\n", initiator, iscsi_get_error(c));
		iscsi_destroy_context(c);
		return NULL;
	}
	return c;
}

static void logout(struct iscsi_context *c)
{
	if (c) {
		iscsi_logout_sync(c);
		iscsi_destroy_context(c);
	}
}

/* status of a task (-1: none), *sense = key << 16 | asc << 8 | ascq */
static int done(struct scsi_task *t, int *sense)
{
	if (!t)
		return -1;
	int st = t->status;
	if (sense)
		*sense = st == ST_CHECK ? (int)t->sense.key << 16 | t->sense.ascq : 0;
	scsi_free_scsi_task(t);
	return st;
}

/* chunk k's data in generation gen: incompressible, unique */
static void fill(uint8_t *buf, uint64_t k, uint64_t gen)
{
	uint64_t s = (k + 1) * 0x9e3779b97f4a7c15ull ^ (gen << 32);
	for (uint32_t i = 0; i < CHUNK; i += 8) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		memcpy(buf + i, &s, 8);
	}
}

static int write_chunk(struct iscsi_context *c, uint64_t at, const uint8_t *buf, int *sense)
{
	return done(iscsi_write16_sync(c, g_lun, at * CHUNK_LBAS, (unsigned char *)buf, CHUNK, BS, 0, 0, 0, 0, 0),
		    sense);
}

static bool chunk_is(struct iscsi_context *c, uint64_t at, const uint8_t *want)
{
	struct scsi_task *t = iscsi_read16_sync(c, g_lun, at * CHUNK_LBAS, CHUNK, BS, 0, 0, 0, 0, 0);
	bool ok = t && t->status == ST_GOOD && t->datain.size == (int)CHUNK && !memcmp(t->datain.data, want, CHUNK);
	if (t)
		scsi_free_scsi_task(t);
	return ok;
}

static int tur(struct iscsi_context *c, int *sense)
{
	return done(iscsi_testunitready_sync(c, g_lun), sense);
}

static int unmap(struct iscsi_context *c, uint64_t at, uint32_t chunks)
{
	struct unmap_list l = { at * CHUNK_LBAS, chunks * CHUNK_LBAS };
	return done(iscsi_unmap_sync(c, g_lun, 0, 0, &l, 1), NULL);
}

/* LOG SENSE 0Ch: the available LBA mapping resource count (threshold sets)
 * and the available percentage; false if the page is not as expected */
static bool lbp_available(struct iscsi_context *c, uint32_t *sets, uint16_t *pct)
{
	/* LOG SENSE, PC 01b (cumulative), page 0Ch; libiscsi has no wrapper */
	unsigned char cdb[10] = { SCSI_OP_LOG_SENSE, 0, 0x40 | 0x0c, 0, 0, 0, 0, 1, 0, 0 };
	struct scsi_task *t = scsi_create_task(10, cdb, SCSI_XFER_READ, 256);
	bool ok = false;
	if (t && !iscsi_scsi_command_sync(c, g_lun, t, NULL))
		t = NULL; /* failed in transport: not ours to free any more */
	*sets = 0;
	*pct = 0;
	if (t && t->status == ST_GOOD && t->datain.size >= 4) {
		const uint8_t *b = t->datain.data;
		size_t end = 4 + ((size_t)b[2] << 8 | b[3]);
		if (end > (size_t)t->datain.size)
			end = (size_t)t->datain.size;
		for (size_t p = 4; p + 12 <= end; p += 4 + b[p + 3]) {
			unsigned code = (unsigned)b[p] << 8 | b[p + 1];
			if (code == 0x0001) {
				*sets = (uint32_t)b[p + 4] << 24 | (uint32_t)b[p + 5] << 16 | (uint32_t)b[p + 6] << 8 | b[p + 7];
				ok = true;
			} else if (code == 0x0003) {
				*pct = (uint16_t)(b[p + 4] << 8 | b[p + 5]);
			}
		}
	}
	if (t)
		scsi_free_scsi_task(t);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: %s HOST:PORT TARGET_IQN LUN CAPACITY_MIB SOFT_PERCENT\n", argv[0]);
		return 2;
	}
	char portal[256];
	snprintf(portal, sizeof(portal), "%s", argv[1]);
	g_portal = portal;
	g_iqn = argv[2];
	g_lun = atoi(argv[3]);
	const uint64_t cap_chunks = strtoull(argv[4], NULL, 10);
	const uint64_t soft_chunks = cap_chunks * strtoull(argv[5], NULL, 10) / 100;
	uint8_t *buf = malloc(CHUNK), *zero = calloc(1, CHUNK);
	int sense = 0, st = -1;

	struct iscsi_context *a = login("iqn.2026-11.org.lunlab:space-a");
	struct iscsi_context *b = login("iqn.2026-11.org.lunlab:space-b");
	if (!a || !b || !buf || !zero) {
		printf("FAIL: sessions A and B log in\n");
		return 1;
	}
	check(tur(a, NULL) == ST_GOOD && tur(b, NULL) == ST_GOOD, "sessions A and B log in, no unit attention");

	/* fill */
	uint64_t acked = 0, ua_seen = 0, ua_after = 0;
	for (uint64_t guard = 0; guard < cap_chunks + 8; guard++) {
		fill(buf, acked, 0);
		st = write_chunk(a, acked, buf, &sense);
		if (st == ST_GOOD) {
			acked++;
		} else if (st == ST_CHECK && sense == UA_SOFT) {
			ua_seen++;
			ua_after = acked;
		} else if (st == ST_CHECK && sense == NO_SPACE) {
			break;
		} else {
			check(false, "WRITE of chunk %" PRIu64 ": status 0x%02x sense %06x", acked, st, sense);
			break;
		}
	}
	check(ua_seen == 1, "one 06/38/07 on session A while filling (seen %" PRIu64 ")", ua_seen);
	check(ua_after == soft_chunks, "the unit attention came after %" PRIu64 " MiB: the soft threshold (%" PRIu64
	      " MiB)", ua_after, soft_chunks);
	check(acked == cap_chunks, "%" PRIu64 " MiB of unique data acknowledged: the capacity, %" PRIu64 " MiB",
	      acked, cap_chunks);
	check(st == ST_CHECK && sense == NO_SPACE, "then WRITE fails with 07/27/07 SPACE ALLOCATION FAILED WRITE PROTECT");
	check(chunk_is(a, acked, zero), "the refused WRITE wrote nothing");

	/* the idle session B is told once; C, born after the crossing, is not */
	st = tur(b, &sense);
	check(st == ST_CHECK && sense == UA_SOFT, "session B's next command gets 06/38/07");
	check(tur(b, NULL) == ST_GOOD, "  ... once");
	struct iscsi_context *c = login("iqn.2026-11.org.lunlab:space-c");
	check(c && tur(c, NULL) == ST_GOOD, "session C, logged in after the crossing, gets none");
	logout(c);

	/* full: reads and dedup writes work, new blocks do not */
	fill(buf, 0, 0);
	check(write_chunk(a, 0, buf, NULL) == ST_GOOD, "rewriting chunk 0 with its own data works when full");
	check(write_chunk(a, cap_chunks + 20, buf, NULL) == ST_GOOD,
	      "writing data the array holds at a new LBA works when full (dedup)");
	check(chunk_is(a, cap_chunks + 20, buf), "  ... and reads back");
	check(unmap(a, cap_chunks + 20, 1) == ST_GOOD, "  ... UNMAP of it works");
	st = done(iscsi_write16_sync(a, g_lun, (cap_chunks + 30) * CHUNK_LBAS, buf, 4096, BS, 0, 0, 0, 0, 0), &sense);
	check(st == ST_CHECK && sense == NO_SPACE, "a 4 KiB WRITE into a new block: 07/27/07");
	uint32_t sets = 0;
	uint16_t pct = 0;
	bool page = lbp_available(a, &sets, &pct);
	check(page && sets == 0 && pct == 0, "log page 0Ch: no threshold set available, 0%% (got %u sets, %u%%)", sets,
	      pct);
	bool all = true;
	for (uint64_t k = 0; k < acked; k++) {
		fill(buf, k, 0);
		all &= chunk_is(a, k, buf);
	}
	check(all, "every acknowledged MiB reads back");

	/* UNMAP frees; exactly that much can be written again */
	check(unmap(a, 0, 8) == ST_GOOD, "UNMAP of 8 MiB when full");
	page = lbp_available(a, &sets, &pct);
	check(page && sets == 8 * CHUNK / SET_BYTES && pct == 12,
	      "log page 0Ch: 8 MiB available again (%u threshold sets of 16 KiB, %u%%)", sets, pct);
	uint64_t again = 0;
	for (uint64_t k = 0; k < 10; k++) {
		fill(buf, cap_chunks + k, 1);
		st = write_chunk(a, cap_chunks + k, buf, &sense);
		if (st != ST_GOOD)
			break;
		again++;
	}
	check(again == 8, "writes resume: 8 MiB of new data acknowledged (%" PRIu64 ")", again);
	check(st == ST_CHECK && sense == NO_SPACE, "then 07/27/07 again");
	check(tur(a, NULL) == ST_GOOD && tur(b, NULL) == ST_GOOD,
	      "no second 06/38/07: use never fell below the threshold");

	/* everything acknowledged, once more */
	all = true;
	for (uint64_t k = 0; k < 8; k++)
		all &= chunk_is(a, k, zero);
	check(all, "the unmapped 8 MiB read as zeros");
	all = true;
	for (uint64_t k = 8; k < cap_chunks; k++) {
		fill(buf, k, 0);
		all &= chunk_is(a, k, buf);
	}
	for (uint64_t k = 0; k < again; k++) {
		fill(buf, cap_chunks + k, 1);
		all &= chunk_is(a, cap_chunks + k, buf);
	}
	check(all, "all acknowledged data reads back");

	logout(a);
	logout(b);
	free(buf);
	free(zero);
	printf("%s: %d check(s) failed\n", g_failed ? "FAIL" : "ok", g_failed);
	return g_failed ? 1 : 0;
}
