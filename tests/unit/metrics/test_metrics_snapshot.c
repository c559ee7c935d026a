/* test_metrics_snapshot.c — target/metrics/metrics_snapshot.c with the real
 * handler_lunlab.so behind the real tcmu host and LU table: the snapshot
 * finds each LU's labels and the array's figures through the handler's
 * array-control table (array_ctl.h), and they are exactly what the
 * commands did: 64 KiB written on LUN 0, copied to LUN 1 by one EXTENDED
 * COPY.  The target core's own counters (commands, wire bytes, observed
 * latency) are the transport's and are tested with real PDUs in
 * tests/unit/iscsi/test_iscsi_stats.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lunlab/scsi_vocab.h"
#include "target/lu/lu_table.h"
#include "target/metrics/metrics_snapshot.h"
#include "target/tcmu/host.h"

static struct lu_backend *be[2];

static int setup_all(void **state)
{
	char *err = NULL;
	static const char *serial[2] = { "snap-src", "snap-dst" };

	(void)state;
	if (tcmu_host_load_handlers(LUNLAB_HANDLER_DIR, &err) < 1) {
		fprintf(stderr, "load: %s\n", err ? err : "no handler");
		return -1;
	}
	lu_table_reset();
	for (int i = 0; i < 2; i++) {
		char cfgstring[96], name[8];
		struct tcmu_host_dev_cfg cfg = {
			.cfgstring = cfgstring, .size_bytes = 16u << 20, .block_size = 512, .wwn = serial[i], .name = name,
		};

		snprintf(cfgstring, sizeof(cfgstring), "lunlab/model=x2;array=snap;time_scale=0;serial=%s", serial[i]);
		snprintf(name, sizeof(name), "lun%d", i);
		be[i] = tcmu_host_create_device(&cfg, &err);
		if (!be[i] || lu_table_add(be[i]) != i) {
			fprintf(stderr, "create: %s\n", err ? err : "?");
			return -1;
		}
	}
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	lu_table_reset();
	tcmu_host_shutdown();
	return 0;
}

/* one command, submitted as the transport does, waited for */
static struct {
	struct lu_cmd lu;
	pthread_mutex_t m;
	pthread_cond_t c;
	bool done;
	struct iovec iov;
	uint8_t buf[65536];
} cmd = { .m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER };

static void done(struct lu_cmd *lu)
{
	(void)lu;
	pthread_mutex_lock(&cmd.m);
	cmd.done = true;
	pthread_cond_signal(&cmd.c);
	pthread_mutex_unlock(&cmd.m);
}

static uint8_t run(struct lu_backend *b, const uint8_t *cdb, size_t cdb_len, enum lu_dir dir, const void *data,
		   size_t len)
{
	memset(&cmd.lu, 0, sizeof(cmd.lu));
	memcpy(cmd.lu.cdb, cdb, cdb_len);
	cmd.lu.cdb_len = (uint8_t)cdb_len;
	cmd.lu.dir = dir;
	cmd.lu.xfer_len = len;
	cmd.lu.done = done;
	cmd.iov = (struct iovec){ cmd.buf, len };
	cmd.lu.iov = &cmd.iov;
	cmd.lu.iov_cnt = 1;
	if (data)
		memcpy(cmd.buf, data, len);
	cmd.done = false;
	b->ops->submit(b, &cmd.lu);
	pthread_mutex_lock(&cmd.m);
	while (!cmd.done)
		pthread_cond_wait(&cmd.c, &cmd.m);
	pthread_mutex_unlock(&cmd.m);
	return cmd.lu.status;
}

/* what lunlab-bench's datamover sends: two 0xE4 CSCDs (the LUs' NAA from VPD 0x83), one
 * block-to-block segment of `blocks` from LBA 0 to LBA 0 */
static size_t xcopy_list(uint8_t *p, const uint8_t naa[2][16], uint16_t blocks)
{
	memset(p, 0, 108);
	p[1] = 0x18;           /* LIST ID USAGE 11b */
	p[3] = 64;             /* CSCD descriptors length */
	p[11] = 28;            /* segment descriptors length */
	for (int i = 0; i < 2; i++) {
		uint8_t *d = p + 16 + 32 * i;
		d[0] = 0xe4;
		d[4] = 0x01;   /* code set binary */
		d[5] = 0x03;   /* association LU, designator type NAA */
		d[7] = 16;
		memcpy(d + 8, naa[i], 16);
		d[30] = 0x02;  /* disk block length 512 */
	}
	uint8_t *s = p + 80;
	s[0] = 0x02;           /* block -> block */
	s[3] = 24;
	s[7] = 1;              /* destination CSCD 1 */
	s[10] = (uint8_t)(blocks >> 8);
	s[11] = (uint8_t)blocks;
	return 108;
}

/* the NAA designator of a LU from VPD 0x83 */
static void naa_of(struct lu_backend *b, uint8_t naa[16])
{
	static const uint8_t cdb[6] = { SCSI_OP_INQUIRY, 0x01, 0x83, 0, 255, 0 };

	assert_int_equal(run(b, cdb, 6, LU_DIR_READ, NULL, 255), 0);
	/* first designator: header at 4, the NAA (type 3, 16 bytes) from 8 */
	assert_int_equal(cmd.buf[5] & 0x0f, 3);
	memcpy(naa, cmd.buf + 8, 16);
}

static void test_snapshot(void **state)
{
	static uint8_t data[65536];
	uint8_t w10[10] = { SCSI_OP_WRITE_10, 0, 0, 0, 0, 0, 0, 0, 128, 0 }; /* WRITE(10) LBA 0, 128 blocks */
	uint8_t x[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, 0 }, list[108], naa[2][16];
	struct metrics_snapshot s;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 4096);
	naa_of(be[0], naa[0]);
	naa_of(be[1], naa[1]);
	assert_int_equal(run(be[0], w10, 10, LU_DIR_WRITE, data, sizeof(data)), 0);
	n = xcopy_list(list, naa, 128);
	x[13] = (uint8_t)n;    /* PARAMETER LIST LENGTH */
	assert_int_equal(run(be[1], x, 16, LU_DIR_WRITE, list, n), 0);

	/* the compressed sizes are accounted in the background (docs/accounting.md):
	 * a scrape never waits for them, so take snapshots until none is pending */
	for (int tries = 0;; tries++) {
		assert_int_equal(metrics_snapshot_take(&s), 0);
		assert_int_equal(s.narr, 1);
		if (s.arr[0].fig.pending_blocks == 0)
			break;
		/* no limit of our own: the background accounting finishes however loaded the
		 * machine is; one that never does ends on meson's timeout */
		metrics_snapshot_free(&s);
		usleep(10000);
	}
	assert_int_equal(s.nlu, 2);
	for (int i = 0; i < 2; i++) {
		assert_true(s.lu[i].global);
		assert_int_equal(s.lu[i].lun, (uint64_t)i);
		assert_true(s.lu[i].have_array);
		assert_string_equal(s.lu[i].arr.array, "snap");
		assert_string_equal(s.lu[i].arr.profile, "x2");
		assert_int_equal(s.lu[i].arr.mapped_bytes, 65536);
	}
	assert_string_equal(s.lu[0].arr.volume, "snap-src"); /* an anonymous volume: the serial */
	assert_int_equal(s.lu[0].arr.xcopy_covered_bytes, 0);
	assert_int_equal(s.lu[1].arr.xcopy_covered_bytes, 65536);
	/* the model charged the INQUIRY, the WRITE and the XCOPY, each on its own LU */
	assert_int_equal(s.lu[0].arr.model.commands, 2);
	assert_int_equal(s.lu[1].arr.model.commands, 2);
	assert_int_equal(s.narr, 1);
	assert_string_equal(s.arr[0].name, "snap");
	assert_string_equal(s.arr[0].profile, "x2");
	assert_true(s.arr[0].have_figures);
	assert_true(s.arr[0].have_model);
	assert_int_equal(s.arr[0].fig.logical_bytes, 2 * 65536);       /* two volumes map it */
	assert_int_equal(s.arr[0].fig.unique_bytes, 65536);            /* stored once */
	assert_true(s.arr[0].fig.physical_bytes > 0);
	assert_int_equal(s.arr[0].model.commands, 4);
	assert_int_equal(s.arr[0].model.cores, 48); /* models/profiles/x2.yaml */
	uint64_t sum = 0;
	for (unsigned b = 0; b < LUNLAB_LAT_BUCKETS; b++)
		sum += s.arr[0].model.latency_buckets[b];
	assert_int_equal(sum, 4);
	assert_true(s.rss_bytes > 0);
	metrics_snapshot_free(&s);
}

/* the fault rules' figures come from the live rule set: a rule that fired
 * twice of three matches, then its removal (the by-action total stays) */
static void test_fault_hits(void **state)
{
	static const uint8_t read10[10] = { SCSI_OP_READ_10 }, tur[6] = { 0 };
	struct fault_cmd c = { .lun = 0, .cdb = read10, .cdb_len = sizeof(read10), .initiator = "iqn.2026-12.test:i" };
	struct fault_hit hit;
	struct metrics_snapshot s;
	char err[160];
	int id;

	(void)state;
	fault_rules_clear();
	id = fault_rules_add("op=read,every=1,count=2,sense=medium-error", err, sizeof(err));
	assert_true(id > 0);
	assert_true(fault_rules_check(&c, &hit));
	assert_true(fault_rules_check(&c, &hit));
	assert_false(fault_rules_check(&c, &hit));   /* count=2: spent */
	c.cdb = tur;
	c.cdb_len = sizeof(tur);
	assert_false(fault_rules_check(&c, &hit));   /* not a read */
	assert_int_equal(metrics_snapshot_take(&s), 0);
	assert_int_equal(s.nrules, 1);
	assert_int_equal(s.rules[0].id, (unsigned)id);
	assert_int_equal(s.rules[0].hits, 2);
	assert_int_equal(s.fault_hits[FAULT_ACT_SENSE], 2);
	assert_int_equal(s.fault_hits[FAULT_ACT_DROP], 0);
	metrics_snapshot_free(&s);
	assert_int_equal(fault_rules_remove((unsigned)id), 0);
	assert_int_equal(metrics_snapshot_take(&s), 0);
	assert_int_equal(s.nrules, 0);
	assert_null(s.rules);
	assert_int_equal(s.fault_hits[FAULT_ACT_SENSE], 2);
	metrics_snapshot_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_fault_hits),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
