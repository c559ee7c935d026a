/* clone_probe.c — the I/O of bench/clone-scale.sh (not a test: it prints figures).
 *
 *   clone_probe write URL --base LBA --stride LBAS --count N [--seed S]
 *       one 4 KiB WRITE(16) into each of N clones (clone i spans LBAs base + i x stride ..
 *       + stride), at a random 4 KiB-aligned place of it, with data derived from (seed, i);
 *       prints "writes N s T"
 *   clone_probe verify URL --base LBA --stride LBAS --count N --sample K [--seed S]
 *       for K clones spread over the N: reads the 4 KiB `write` put there and 64 KiB at a
 *       random place of the clone, which must equal the template (LBA 0 on, the same offset)
 *       where the write did not land; prints "verified K mismatches M"; exit 1 on a mismatch
 *   clone_probe xcopy URL --src LBA --dst LBA --lbas N [--chunk LBAS]
 *       EXTENDED COPY of N LBAs within the LU, --chunk LBAs per command (default 8192 = 4 MiB)
 *   clone_probe iops URL --lba LBA --lbas N --ops K (--read | --write) [--seed S]
 *       K random 4 KiB READ(16) or WRITE(16) at queue depth 1 within [LBA, LBA + N); prints
 *       "us_per_op X"
 *
 * Logical blocks of 512 bytes.  Exit 0, 1 on an error or mismatch, 2 on usage. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "client/xcopy_builder.h"

#define LBA 512u
#define W4K 4096u
#define PROBE (64u << 10)

static struct iscsi_context *is;
static int lun;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void fill(uint8_t *p, size_t n, uint64_t key)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = mix(key + i);
		memcpy(p + i, &v, 8);
	}
}

static int good(struct scsi_task *t, const char *op)
{
	if (!t) {
		fprintf(stderr, "clone_probe: %s: %s\n", op, iscsi_get_error(is));
		return 0;
	}
	if (t->status != SCSI_STATUS_GOOD) {
		fprintf(stderr, "clone_probe: %s: status 0x%02x sense %x/%02x/%02x\n", op, t->status, t->sense.key,
			t->sense.ascq >> 8, t->sense.ascq & 0xff);
		scsi_free_scsi_task(t);
		return 0;
	}
	return 1;
}

static int wr(uint64_t lba, uint8_t *buf, uint32_t len)
{
	struct scsi_task *t = iscsi_write16_sync(is, lun, lba, buf, len, LBA, 0, 0, 0, 0, 0);
	if (!good(t, "WRITE(16)"))
		return -1;
	scsi_free_scsi_task(t);
	return 0;
}

static int rd(uint64_t lba, uint8_t *buf, uint32_t len)
{
	struct scsi_task *t = iscsi_read16_sync(is, lun, lba, len, LBA, 0, 0, 0, 0, 0);
	if (!good(t, "READ(16)"))
		return -1;
	if ((uint32_t)t->datain.size < len) {
		fprintf(stderr, "clone_probe: READ(16): short data\n");
		scsi_free_scsi_task(t);
		return -1;
	}
	memcpy(buf, t->datain.data, len);
	scsi_free_scsi_task(t);
	return 0;
}

static int connect_url(const char *url)
{
	is = iscsi_create_context("iqn.2026-12.org.lunlab:clone-probe");
	struct iscsi_url *u = is ? iscsi_parse_full_url(is, url) : NULL;
	if (!u) {
		fprintf(stderr, "clone_probe: bad URL '%s'\n", url);
		return -1;
	}
	iscsi_set_targetname(is, u->target);
	iscsi_set_session_type(is, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(is, 120);
	if (iscsi_full_connect_sync(is, u->portal, u->lun) != 0) {
		fprintf(stderr, "clone_probe: login to %s: %s\n", url, iscsi_get_error(is));
		iscsi_destroy_url(u);
		return -1;
	}
	lun = u->lun;
	iscsi_destroy_url(u);
	return 0;
}

/* where clone i's 4 KiB write goes (an LBA inside the clone) */
static uint64_t spot(uint64_t seed, uint64_t i, uint64_t stride)
{
	return (mix(seed * 1000003u + i) % (stride / 8)) * 8;
}

static int xcopy(uint64_t src, uint64_t dst, uint64_t n, uint64_t chunk)
{
	struct scsi_task *t = iscsi_inquiry_sync(is, lun, 1, 0x83, 255);
	struct xcopy_lu lu = { .block_size = LBA };
	if (!good(t, "INQUIRY VPD 0x83"))
		return -1;
	int ok = vpd83_find_naa(t->datain.data, (size_t)t->datain.size, &lu) == 0;
	scsi_free_scsi_task(t);
	if (!ok) {
		fprintf(stderr, "clone_probe: the LU has no NAA designator\n");
		return -1;
	}
	for (uint64_t done = 0; done < n;) {
		uint64_t k = n - done < chunk ? n - done : chunk;
		struct xcopy_segment seg = { 0, 0, (uint16_t)k, src + done, dst + done };
		uint8_t list[XCOPY_HDR_LEN + XCOPY_TGT_DESC_LEN + XCOPY_SEG_DESC_LEN];
		int len = xcopy_build(&lu, 1, &seg, 1, list, sizeof(list));
		if (len < 0 || k > XCOPY_MAX_SEG_BLOCKS) {
			fprintf(stderr, "clone_probe: --chunk must be 1..65535 LBAs\n");
			return -1;
		}
		struct iscsi_data d = { .size = (size_t)len, .data = list };
		struct scsi_task *r = iscsi_extended_copy_sync(is, lun, &d);
		if (!good(r, "EXTENDED COPY"))
			return -1;
		scsi_free_scsi_task(r);
		done += k;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: clone_probe write|verify|xcopy|iops URL [options] (see the source)\n");
		return 2;
	}
	const char *cmd = argv[1];
	uint64_t base = 0, stride = 0, count = 0, sample = 0, seed = 1, src = 0, dst = 0, lbas = 0,
		 chunk = 8192, ops = 0, lba0 = 0;
	bool doread = false, dowrite = false;
	for (int i = 3; i < argc; i++) {
		const char *o = argv[i];
		uint64_t *p = !strcmp(o, "--base") ? &base : !strcmp(o, "--stride") ? &stride
			    : !strcmp(o, "--count") ? &count : !strcmp(o, "--sample") ? &sample
			    : !strcmp(o, "--seed") ? &seed : !strcmp(o, "--src") ? &src
			    : !strcmp(o, "--dst") ? &dst : !strcmp(o, "--lbas") ? &lbas
			    : !strcmp(o, "--chunk") ? &chunk : !strcmp(o, "--ops") ? &ops
			    : !strcmp(o, "--lba") ? &lba0 : NULL;
		if (!strcmp(o, "--read")) {
			doread = true;
			continue;
		}
		if (!strcmp(o, "--write")) {
			dowrite = true;
			continue;
		}
		char *end;
		if (!p || i + 1 >= argc || (*p = strtoull(argv[i + 1], &end, 0), *end)) {
			fprintf(stderr, "clone_probe: bad option '%s'\n", o);
			return 2;
		}
		i++;
	}
	if (connect_url(argv[2]) < 0)
		return 1;
	static uint8_t buf[PROBE], want[PROBE], tmpl[PROBE];
	int rc = 0;
	if (!strcmp(cmd, "write")) {
		if (stride < 16 || !count)
			return fprintf(stderr, "clone_probe: write needs --stride (>= 16) and --count\n"), 2;
		double t0 = now();
		for (uint64_t i = 0; i < count && !rc; i++) {
			fill(buf, W4K, seed * 7919u + i);
			rc = wr(base + i * stride + spot(seed, i, stride), buf, W4K);
		}
		printf("writes %" PRIu64 " s %.1f\n", count, now() - t0);
	} else if (!strcmp(cmd, "verify")) {
		if (stride < PROBE / LBA || !count || !sample)
			return fprintf(stderr, "clone_probe: verify needs --stride (>= 128), --count, --sample\n"), 2;
		uint64_t bad = 0, done = 0;
		for (uint64_t k = 0; k < sample && !rc; k++) {
			uint64_t i = sample > 1 ? k * (count - 1) / (sample - 1) : 0;
			uint64_t c0 = base + i * stride, w = spot(seed, i, stride);
			fill(want, W4K, seed * 7919u + i);
			if ((rc = rd(c0 + w, buf, W4K)) != 0)
				break;
			bad += memcmp(buf, want, W4K) != 0;
			/* 64 KiB elsewhere: the template's bytes, but where the write landed */
			uint64_t at = (mix(seed + 31 * i) % ((stride - PROBE / LBA) / 8)) * 8;
			if ((rc = rd(at, tmpl, PROBE)) != 0 || (rc = rd(c0 + at, buf, PROBE)) != 0)
				break;
			if (w + W4K / LBA > at && w < at + PROBE / LBA) {
				fill(want, W4K, seed * 7919u + i);
				memcpy(tmpl + (w - at) * LBA, want, W4K);
			}
			bad += memcmp(buf, tmpl, PROBE) != 0;
			done++;
		}
		printf("verified %" PRIu64 " mismatches %" PRIu64 "\n", done, bad);
		if (bad)
			rc = 1;
	} else if (!strcmp(cmd, "xcopy")) {
		if (!lbas)
			return fprintf(stderr, "clone_probe: xcopy needs --lbas\n"), 2;
		rc = xcopy(src, dst, lbas, chunk);
	} else if (!strcmp(cmd, "iops")) {
		if (lbas < 8 || !ops || doread == dowrite)
			return fprintf(stderr, "clone_probe: iops needs --lbas, --ops and one of --read/--write\n"), 2;
		fill(buf, W4K, seed);
		double t0 = now();
		for (uint64_t i = 0; i < ops && !rc; i++) {
			uint64_t at = lba0 + (mix(seed * 31 + i) % (lbas / 8)) * 8;
			buf[0] = (uint8_t)i;
			rc = dowrite ? wr(at, buf, W4K) : rd(at, buf, W4K);
		}
		printf("us_per_op %.2f\n", (now() - t0) * 1e6 / (double)ops);
	} else {
		fprintf(stderr, "clone_probe: unknown command '%s'\n", cmd);
		rc = 2;
	}
	iscsi_logout_sync(is);
	iscsi_destroy_context(is);
	return rc < 0 ? 1 : rc;
}
