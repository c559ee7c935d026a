/* persist_io.c — the I/O of bench/persist.sh (not a test: it prints figures).
 *
 *   persist_io write URL BYTES [--bs SIZE] [--sync-every SIZE] [--seed N] [--sessions N]
 *       BYTES of unique data (no 16 KiB block equal to another) from LBA 0 with WRITE(16)
 *       of --bs (default 1M), one command at a time per session (--sessions: each writes its
 *       own contiguous share), a SYNCHRONIZE CACHE(10) after every --sync-every bytes a session
 *       wrote (default 64M; 0: none) and one at the end; prints "MB/s N" (1e6 B/s, the final
 *       sync included)
 *   persist_io verify URL BYTES [--bs SIZE] [--seed N] [--sessions N]
 *       reads them back and compares; prints "MB/s N mismatches M"; exit 1 on a mismatch
 *   persist_io first-read URL [--timeout S]
 *       logs in and READs LBA 0 until it succeeds; prints "ms N": the time from this
 *       program's start to the first GOOD read (bench/persist.sh starts it with the target)
 *
 * SIZE takes K/M/G suffixes (binary).  Exit 0, 1 on an error or mismatch, 2 on usage. */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/size_parse.h"

#define BLK 16384u

static const char *g_url;
static uint64_t g_bytes, g_bs = 1u << 20, g_sync = 64u << 20, g_seed = 1;
static int g_sessions = 1;
static bool g_verify;
static double t_start;
static volatile uint64_t g_mismatch, g_errors;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* the data of the 16 KiB block at byte offset off: unique per (seed, off) */
static void fill(uint8_t *p, uint64_t off)
{
	uint64_t s = (g_seed * 0x9e3779b97f4a7c15ull) ^ (off + 1) * 0xbf58476d1ce4e5b9ull;

	for (unsigned i = 0; i < BLK; i += 8) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		memcpy(p + i, &s, 8);
	}
}

static struct iscsi_context *login(const char *url, int *lun, int timeout)
{
	struct iscsi_context *is = iscsi_create_context("iqn.2026-11.org.lunlab:persist-io");
	struct iscsi_url *u;

	if (!is)
		return NULL;
	u = iscsi_parse_full_url(is, url);
	if (!u) {
		fprintf(stderr, "persist_io: bad URL %s\n", url);
		iscsi_destroy_context(is);
		return NULL;
	}
	iscsi_set_targetname(is, u->target);
	iscsi_set_session_type(is, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(is, timeout);
	iscsi_set_noautoreconnect(is, 1);
	if (iscsi_full_connect_sync(is, u->portal, u->lun) != 0) {
		iscsi_destroy_url(u);
		iscsi_destroy_context(is);
		return NULL;
	}
	*lun = u->lun;
	iscsi_destroy_url(u);
	return is;
}

static bool good(struct scsi_task *t, const char *what)
{
	bool ok = t && t->status == SCSI_STATUS_GOOD;

	if (!ok) {
		fprintf(stderr, "persist_io: %s: %s\n", what, t ? "CHECK CONDITION" : "transport error");
		__atomic_add_fetch(&g_errors, 1, __ATOMIC_RELAXED);
	}
	if (t)
		scsi_free_scsi_task(t);
	return ok;
}

struct share {
	uint64_t from, to; /* bytes */
};

static void *session(void *arg)
{
	struct share *sh = arg;
	int lun;
	struct iscsi_context *is = login(g_url, &lun, 120);
	uint8_t *buf = malloc(g_bs), *want = g_verify ? malloc(g_bs) : NULL;
	uint64_t since = 0;

	if (!is || !buf) {
		fprintf(stderr, "persist_io: login failed\n");
		__atomic_add_fetch(&g_errors, 1, __ATOMIC_RELAXED);
		free(buf);
		free(want);
		return NULL;
	}
	for (uint64_t off = sh->from; off < sh->to; off += g_bs) {
		uint64_t n = sh->to - off < g_bs ? sh->to - off : g_bs;

		if (!g_verify) {
			for (uint64_t b = 0; b < n; b += BLK)
				fill(buf + b, off + b);
			if (!good(iscsi_write16_sync(is, lun, off / 512, buf, (uint32_t)n, 512, 0, 0, 0, 0, 0), "WRITE(16)"))
				break;
			since += n;
			if (g_sync && since >= g_sync) {
				since = 0;
				if (!good(iscsi_synchronizecache10_sync(is, lun, 0, 0, 0, 0), "SYNCHRONIZE CACHE"))
					break;
			}
		} else {
			struct scsi_task *t = iscsi_read16_sync(is, lun, off / 512, (uint32_t)n, 512, 0, 0, 0, 0, 0);

			if (!t || t->status != SCSI_STATUS_GOOD || t->datain.size < (int)n) {
				good(t, "READ(16)");
				break;
			}
			for (uint64_t b = 0; b < n; b += BLK) {
				fill(want + b, off + b);
				if (memcmp(want + b, t->datain.data + b, BLK))
					__atomic_add_fetch(&g_mismatch, 1, __ATOMIC_RELAXED);
			}
			scsi_free_scsi_task(t);
		}
	}
	if (!g_verify)
		good(iscsi_synchronizecache10_sync(is, lun, 0, 0, 0, 0), "final SYNCHRONIZE CACHE");
	iscsi_logout_sync(is);
	iscsi_destroy_context(is);
	free(buf);
	free(want);
	return NULL;
}

static int first_read(int timeout_s)
{
	while (now() - t_start < timeout_s) {
		int lun;
		struct iscsi_context *is = login(g_url, &lun, 10);

		if (is) {
			struct scsi_task *t = iscsi_read16_sync(is, lun, 0, 4096, 512, 0, 0, 0, 0, 0);
			bool ok = t && t->status == SCSI_STATUS_GOOD;

			if (t)
				scsi_free_scsi_task(t);
			iscsi_destroy_context(is);
			if (ok) {
				printf("ms %.0f\n", (now() - t_start) * 1e3);
				return 0;
			}
		}
		usleep(20000);
	}
	printf("ms timeout\n");
	return 1;
}

int main(int argc, char **argv)
{
	int timeout = 60;

	t_start = now();
	if (argc < 3) {
		fprintf(stderr, "usage: persist_io write|verify URL BYTES [options] | first-read URL [--timeout S]\n");
		return 2;
	}
	g_url = argv[2];
	int i = 3;
	if (strcmp(argv[1], "first-read") != 0) {
		if (argc < 4 || !ll_size_parse(argv[3], 0, &g_bytes)) {
			fprintf(stderr, "persist_io: BYTES: want a size\n");
			return 2;
		}
		i = 4;
	}
	for (; i + 1 < argc; i += 2) {
		bool ok = true;

		if (!strcmp(argv[i], "--bs"))
			ok = ll_size_parse(argv[i + 1], 0, &g_bs) && g_bs % BLK == 0 && g_bs;
		else if (!strcmp(argv[i], "--sync-every"))
			ok = ll_size_parse(argv[i + 1], 0, &g_sync);
		else if (!strcmp(argv[i], "--seed"))
			g_seed = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--sessions"))
			ok = (g_sessions = atoi(argv[i + 1])) >= 1 && g_sessions <= 64;
		else if (!strcmp(argv[i], "--timeout"))
			timeout = atoi(argv[i + 1]);
		else
			ok = false;
		if (!ok) {
			fprintf(stderr, "persist_io: bad option %s %s\n", argv[i], argv[i + 1]);
			return 2;
		}
	}
	if (!strcmp(argv[1], "first-read"))
		return first_read(timeout);
	g_verify = !strcmp(argv[1], "verify");
	if (!g_verify && strcmp(argv[1], "write")) {
		fprintf(stderr, "persist_io: unknown mode %s\n", argv[1]);
		return 2;
	}
	pthread_t tid[64];
	struct share sh[64];
	uint64_t per = (g_bytes / (uint64_t)g_sessions + g_bs - 1) / g_bs * g_bs;
	double t0 = now();

	for (int s = 0; s < g_sessions; s++) {
		sh[s].from = per * (uint64_t)s;
		sh[s].to = per * (uint64_t)(s + 1) < g_bytes ? per * (uint64_t)(s + 1) : g_bytes;
		pthread_create(&tid[s], NULL, session, &sh[s]);
	}
	for (int s = 0; s < g_sessions; s++)
		pthread_join(tid[s], NULL);
	double secs = now() - t0;
	printf("MB/s %.1f", (double)g_bytes / secs / 1e6);
	if (g_verify)
		printf(" mismatches %" PRIu64, g_mismatch);
	printf(" seconds %.2f\n", secs);
	return g_errors || g_mismatch ? 1 : 0;
}
