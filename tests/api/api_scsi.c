/*
 * api_scsi: the SCSI side of the management API's tests — a libiscsi client that logs in
 * as a given initiator (and with CHAP when the URL names a user: the secret comes from
 * LIBISCSI_CHAP_PASSWORD, never the command line) and checks what the API did to the LUs.
 *
 *   api_scsi [-i IQN] write URL LBA BLOCKS SEED   WRITE(16) of a pattern unique per
 *                                                  (SEED, LBA): no two blocks deduplicate
 *   api_scsi [-i IQN] fill URL LBA BLOCKS SEED    WRITE(16) of pseudo-random blocks (splitmix64
 *                                                  of SEED, LBA, word): neither deduplicates nor
 *                                                  compresses, so each block takes its full size
 *   api_scsi [-i IQN] verify URL LBA BLOCKS SEED  READ(16); exit 1 on the first block that
 *                                                  is not the pattern (SEED 0: zeros)
 *   api_scsi [-i IQN] capacity URL                "BYTES BLOCKSIZE" (READ CAPACITY(16))
 *   api_scsi [-i IQN] luns URL                    REPORT LUNS: the LUNs, one line
 *   api_scsi [-i IQN] logsense URL PAGE           LOG SENSE PAGE: "CODE VALUE" lines (hex
 *                                                  code, decimal value of 8-byte parameters)
 *   api_scsi [-i IQN] naa URL                     INQUIRY VPD 83h: the NAA designator in hex
 *   api_scsi [-i IQN] login URL                   log in and out: exit 0, or 3 when refused
 *   api_scsi [-i IQN] tur URL                     log in without libiscsi's TEST UNIT READY
 *                                                  (which repeats every unit attention),
 *                                                  then 2 TEST UNIT READY: "GOOD" or
 *                                                  "CHECK K/AA/QQ" each, one per line
 *   api_scsi [-i IQN] watch URL                   log in, TEST UNIT READY, print "ready";
 *                                                  then for every line read from stdin one
 *                                                  TEST UNIT READY: "GOOD" or "CHECK K/AA/QQ"
 *
 * Every command other than watch answers a UNIT ATTENTION by repeating the command (at
 * most 4 times; each attention is printed on stderr), as an initiator's midlayer does.
 * Exit 0 success, 1 SCSI or data error, 2 usage, 3 login refused.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"

static struct iscsi_context *iscsi;
static int lun;
static const char *initiator = "iqn.2026-11.org.lunlab:api-scsi";

static int connect_url(const char *url, bool keep_ua)
{
	struct iscsi_url *u;

	iscsi = iscsi_create_context(initiator);
	if (!iscsi)
		return -1;
	u = iscsi_parse_full_url(iscsi, url);
	if (!u) {
		fprintf(stderr, "bad URL '%s': %s\n", url, iscsi_get_error(iscsi));
		return -1;
	}
	iscsi_set_targetname(iscsi, u->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(iscsi, 60);
	/* LUN -1: libiscsi sends no TEST UNIT READY of its own after the login */
	if (iscsi_full_connect_sync(iscsi, u->portal, keep_ua ? -1 : u->lun) != 0) {
		fprintf(stderr, "login as %s to %s failed: %s\n", initiator, url, iscsi_get_error(iscsi));
		iscsi_destroy_url(u);
		return -3;
	}
	lun = u->lun;
	iscsi_destroy_url(u);
	return 0;
}

static bool is_ua(const struct scsi_task *t)
{
	return t && t->status == SCSI_STATUS_CHECK_CONDITION && t->sense.key == SCSI_SENSE_UNIT_ATTENTION;
}

static void print_sense(FILE *f, const char *op, const struct scsi_task *t)
{
	fprintf(f, "%s: status 0x%02x sense %x/%02x/%02x\n", op, t->status, t->sense.key,
		(t->sense.ascq >> 8) & 0xff, t->sense.ascq & 0xff);
}

/* a task that is GOOD, or NULL after printing why */
#define RUN(op, call)                                                                 \
	({                                                                            \
		struct scsi_task *t_ = NULL;                                          \
		for (int try_ = 0; try_ < 5; try_++) {                                \
			t_ = (call);                                                  \
			if (!is_ua(t_))                                               \
				break;                                                \
			print_sense(stderr, op " (unit attention, repeated)", t_);    \
			scsi_free_scsi_task(t_);                                      \
			t_ = NULL;                                                    \
		}                                                                     \
		if (!t_)                                                              \
			fprintf(stderr, "%s: %s\n", op, iscsi_get_error(iscsi));      \
		else if (t_->status != SCSI_STATUS_GOOD) {                            \
			print_sense(stderr, op, t_);                                  \
			scsi_free_scsi_task(t_);                                      \
			t_ = NULL;                                                    \
		}                                                                     \
		t_;                                                                   \
	})

static int capacity(uint64_t *bytes, uint32_t *bs)
{
	struct scsi_task *t = RUN("READ CAPACITY(16)", iscsi_readcapacity16_sync(iscsi, lun));
	struct scsi_readcapacity16 *rc;

	if (!t)
		return -1;
	rc = scsi_datain_unmarshall(t);
	if (!rc || !rc->block_length) {
		scsi_free_scsi_task(t);
		return -1;
	}
	*bs = rc->block_length;
	*bytes = (rc->returned_lba + 1) * rc->block_length;
	scsi_free_scsi_task(t);
	return 0;
}

static bool incompressible; /* fill: pseudo-random words instead of the pattern */

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void pattern(uint8_t *buf, uint64_t lba, uint32_t blocks, uint32_t bs, uint64_t seed)
{
	for (uint32_t b = 0; b < blocks; b++)
		for (uint32_t w = 0; w < bs / 8; w++) {
			uint64_t v = seed ? (seed << 48) ^ ((lba + b) << 12) ^ w ^ 0x5a5a000000000000ull : 0;
			if (incompressible)
				v = splitmix64(v);
			memcpy(buf + (size_t)b * bs + (size_t)w * 8, &v, 8);
		}
}

static int rw(bool write, uint64_t lba, uint32_t blocks, uint64_t seed)
{
	uint64_t bytes;
	uint32_t bs;
	uint8_t *want, *got;
	struct scsi_task *t;
	int rc = 0;

	if (capacity(&bytes, &bs) < 0)
		return 1;
	want = malloc((size_t)blocks * bs);
	if (!want)
		return 1;
	pattern(want, lba, blocks, bs, seed);
	if (write) {
		t = RUN("WRITE(16)", iscsi_write16_sync(iscsi, lun, lba, want, blocks * bs, bs, 0, 0, 0, 0, 0));
		rc = t ? 0 : 1;
	} else {
		t = RUN("READ(16)", iscsi_read16_sync(iscsi, lun, lba, blocks * bs, bs, 0, 0, 0, 0, 0));
		if (!t) {
			rc = 1;
		} else {
			got = t->datain.data;
			for (uint32_t b = 0; b < blocks && !rc; b++) {
				if (!got || t->datain.size < (int)((b + 1) * bs) ||
				    memcmp(got + (size_t)b * bs, want + (size_t)b * bs, bs) != 0) {
					fprintf(stderr, "verify: LBA %" PRIu64 " does not hold the pattern of seed %" PRIu64 "\n",
						lba + b, seed);
					rc = 1;
				}
			}
		}
	}
	if (t)
		scsi_free_scsi_task(t);
	free(want);
	return rc;
}

static int report_luns(void)
{
	struct scsi_task *t = RUN("REPORT LUNS", iscsi_reportluns_sync(iscsi, 0, 16384));
	struct scsi_reportluns_list *l;

	if (!t)
		return 1;
	l = scsi_datain_unmarshall(t);
	if (!l) {
		scsi_free_scsi_task(t);
		return 1;
	}
	for (uint32_t i = 0; i < l->num; i++)
		printf("%s%u", i ? " " : "", l->luns[i]);
	printf("\n");
	scsi_free_scsi_task(t);
	return 0;
}

/* LOG SENSE (SPC-4 6.7): current cumulative values (PC 01b) of a page */
static struct scsi_task *logsense_sync(int page)
{
	unsigned char cdb[10] = { SCSI_OP_LOG_SENSE, 0, (unsigned char)(0x40 | (page & 0x3f)), 0, 0, 0, 0, 0x10, 0x00, 0 };
	struct scsi_task *t = scsi_create_task(10, cdb, SCSI_XFER_READ, 4096);

	if (!t)
		return NULL;
	if (!iscsi_scsi_command_sync(iscsi, lun, t, NULL)) {
		scsi_free_scsi_task(t);
		return NULL;
	}
	return t;
}

static int log_sense(int page)
{
	struct scsi_task *t = RUN("LOG SENSE", logsense_sync(page));
	const uint8_t *p;
	int len;

	if (!t)
		return 1;
	p = t->datain.data;
	len = t->datain.size;
	if (len < 4) {
		scsi_free_scsi_task(t);
		return 1;
	}
	for (int at = 4; at + 4 <= len;) {
		int code = p[at] << 8 | p[at + 1], plen = p[at + 3];
		uint64_t v = 0;

		if (at + 4 + plen > len)
			break;
		for (int i = 0; i < plen && i < 8; i++)
			v = v << 8 | p[at + 4 + i];
		printf("%04x %" PRIu64 "\n", code, v);
		at += 4 + plen;
	}
	scsi_free_scsi_task(t);
	return 0;
}

/* INQUIRY VPD 83h (SPC-4 7.8.6): the first NAA designator of the LU, in hex */
static int naa(void)
{
	struct scsi_task *t = RUN("INQUIRY VPD 83h", iscsi_inquiry_sync(iscsi, lun, 1, 0x83, 255));
	const uint8_t *p;
	int len;

	if (!t)
		return 1;
	p = t->datain.data;
	len = t->datain.size;
	for (int at = 4; len >= 4 && at + 4 <= len && at + 4 <= 4 + (p[2] << 8 | p[3]);) {
		int dlen = p[at + 3];
		if (at + 4 + dlen > len)
			break;
		if ((p[at + 1] & 0x0f) == 3 && (p[at + 1] & 0x30) == 0) { /* NAA, associated with the LU */
			for (int i = 0; i < dlen; i++)
				printf("%02x", p[at + 4 + i]);
			printf("\n");
			scsi_free_scsi_task(t);
			return 0;
		}
		at += 4 + dlen;
	}
	scsi_free_scsi_task(t);
	return 1;
}

static int watch(void)
{
	char line[64];

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		struct scsi_task *t = iscsi_testunitready_sync(iscsi, lun);
		if (!t) {
			printf("ERROR %s\n", iscsi_get_error(iscsi));
		} else if (t->status == SCSI_STATUS_GOOD) {
			printf("GOOD\n");
		} else {
			printf("CHECK %x/%02x/%02x\n", t->sense.key, (t->sense.ascq >> 8) & 0xff, t->sense.ascq & 0xff);
		}
		fflush(stdout);
		if (t)
			scsi_free_scsi_task(t);
	}
	return 0;
}

/* one TEST UNIT READY, not repeated: its status on stdout */
static void tur_once(void)
{
	struct scsi_task *t = iscsi_testunitready_sync(iscsi, lun);

	if (!t)
		printf("ERROR %s\n", iscsi_get_error(iscsi));
	else if (t->status == SCSI_STATUS_GOOD)
		printf("GOOD\n");
	else
		printf("CHECK %x/%02x/%02x\n", t->sense.key, (t->sense.ascq >> 8) & 0xff, t->sense.ascq & 0xff);
	if (t)
		scsi_free_scsi_task(t);
}

static int usage(void)
{
	fprintf(stderr, "usage: api_scsi [-i IQN] write|verify URL LBA BLOCKS SEED | capacity|luns|naa|login|tur|watch URL | "
			"logsense URL PAGE\n");
	return 2;
}

int main(int argc, char **argv)
{
	int opt, rc;
	const char *cmd;

	while ((opt = getopt(argc, argv, "i:")) != -1) {
		if (opt != 'i')
			return usage();
		initiator = optarg;
	}
	if (argc - optind < 2)
		return usage();
	cmd = argv[optind];
	rc = connect_url(argv[optind + 1], !strcmp(cmd, "tur"));
	if (rc == -3)
		return 3;
	if (rc < 0)
		return 1;
	incompressible = !strcmp(cmd, "fill");
	if ((!strcmp(cmd, "write") || !strcmp(cmd, "verify") || incompressible) && argc - optind == 5) {
		rc = rw(cmd[0] == 'w' || incompressible, strtoull(argv[optind + 2], NULL, 0), (uint32_t)strtoul(argv[optind + 3], NULL, 0),
			strtoull(argv[optind + 4], NULL, 0));
	} else if (!strcmp(cmd, "capacity") && argc - optind == 2) {
		uint64_t bytes;
		uint32_t bs;
		rc = capacity(&bytes, &bs) < 0 ? 1 : 0;
		if (!rc)
			printf("%" PRIu64 " %u\n", bytes, bs);
	} else if (!strcmp(cmd, "luns") && argc - optind == 2) {
		rc = report_luns();
	} else if (!strcmp(cmd, "logsense") && argc - optind == 3) {
		rc = log_sense((int)strtol(argv[optind + 2], NULL, 0));
	} else if (!strcmp(cmd, "naa") && argc - optind == 2) {
		rc = naa();
	} else if (!strcmp(cmd, "login") && argc - optind == 2) {
		rc = 0;
	} else if (!strcmp(cmd, "tur") && argc - optind == 2) {
		tur_once();
		tur_once();
		rc = 0;
	} else if (!strcmp(cmd, "watch") && argc - optind == 2) {
		rc = watch();
	} else {
		rc = usage();
	}
	iscsi_logout_sync(iscsi);
	iscsi_destroy_context(iscsi);
	return rc;
}
