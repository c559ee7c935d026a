/* test_array_ctl.c — the array-control interface of the real handler_lunlab.so
 * (handlers/array_ctl.c, include/lunlab/array_ctl.h), as the module's
 * handler_init gives it to the host through the extension contract
 * (include/lunlab/host_ext.h) and the management plane finds it, with devices created through the
 * host from cfgstrings: named volumes (volume=) outliving their device and
 * attached to one device at a time, array_capacity= agreement between LUNs,
 * the figures against the data written over SCSI, a read-only snapshot that
 * reads back its moment through its own device and refuses writes, the
 * snapshot charged to the cost model (page 31h), capacity changes, deletion,
 * and every error path with its message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/array_ctl.h"
#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host.h"
#include "tcmu_test_util.h"

static const struct lunlab_array_ctl *ctl;

static int setup_all(void **state)
{
	char *err = NULL;

	(void)state;
	if (tcmu_host_load_handlers(LUNLAB_HANDLER_DIR, &err) < 1) {
		fprintf(stderr, "load: %s\n", err ? err : "no handler");
		return -1;
	}
	/* the table the module's handler_init gave the host through the
	 * extension contract (include/lunlab/host_ext.h) */
	if (!(ctl = tcmu_host_array_ctl("lunlab"))) {
		fprintf(stderr, "handler_lunlab.so gave the host no array-control table\n");
		return -1;
	}
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	tcmu_host_shutdown();
	return 0;
}

static struct lu_backend *mkdev(const char *cfgstring, const char *name, uint64_t size, char **why)
{
	char *err = NULL;
	struct tcmu_host_dev_cfg cfg = {
		.cfgstring = cfgstring, .size_bytes = size, .block_size = 512, .name = name,
	};
	struct lu_backend *d = tcmu_host_create_device(&cfg, &err);

	if (why)
		*why = err;
	else
		free(err);
	return d;
}

/* one command; buf (up to 4096 bytes) in and out of t->buf */
static struct tcmd *run(struct lu_backend *d, const uint8_t *cdb, size_t cdb_len, enum lu_dir dir, size_t len,
			const void *out)
{
	struct tcmd *t = tcmd_new(cdb, cdb_len, dir, len, 1);

	if (out)
		memcpy(t->buf, out, len);
	d->ops->submit(d, &t->lu);
	tcmd_wait(t);
	return t;
}

static uint8_t write_at(struct lu_backend *d, uint32_t lba, const uint8_t *data, size_t len)
{
	uint8_t cdb[10] = { SCSI_OP_WRITE_10, 0, (uint8_t)(lba >> 24), (uint8_t)(lba >> 16), (uint8_t)(lba >> 8), (uint8_t)lba,
			    0, 0, (uint8_t)(len / 512), 0 };
	struct tcmd *t = run(d, cdb, 10, LU_DIR_WRITE, len, data);
	uint8_t st = t->lu.status;

	if (st)
		assert_int_equal(t->lu.sense[2] & 0x0f, 0x07); /* the only failure expected: DATA PROTECT */
	tcmd_free(t);
	return st;
}

static void read_at(struct lu_backend *d, uint32_t lba, uint8_t *data, size_t len)
{
	uint8_t cdb[10] = { SCSI_OP_READ_10, 0, (uint8_t)(lba >> 24), (uint8_t)(lba >> 16), (uint8_t)(lba >> 8), (uint8_t)lba,
			    0, 0, (uint8_t)(len / 512), 0 };
	struct tcmd *t = run(d, cdb, 10, LU_DIR_READ, len, NULL);

	assert_int_equal(t->lu.status, 0);
	memcpy(data, t->buf, len);
	tcmd_free(t);
}

/* LOG SENSE 31h code 0001h: commands the array's cost model has charged */
static uint64_t model_commands(struct lu_backend *d)
{
	const uint8_t cdb[10] = { SCSI_OP_LOG_SENSE, 0, 0x40 | 0x31, 0, 0, 0, 0x01, 0, 16, 0 };
	struct tcmd *t = run(d, cdb, 10, LU_DIR_READ, 16, NULL);
	uint64_t v = 0;

	assert_int_equal(t->lu.status, 0);
	assert_int_equal(t->buf[4] << 8 | t->buf[5], 0x0001);
	for (int i = 0; i < 8; i++)
		v = v << 8 | t->buf[8 + i];
	tcmd_free(t);
	return v;
}

static bool listed(const char *array)
{
	char names[32][LUNLAB_ARRAY_NAME_MAX];
	int n = ctl->array_list(names, 32);

	for (int i = 0; i < n && i < 32; i++)
		if (!strcmp(names[i], array))
			return true;
	return false;
}

static const struct lunlab_volume_info *find_vol(const struct lunlab_volume_info *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static void test_contract_header(void **state)
{
	(void)state;
	assert_int_equal(ctl->version, LUNLAB_ARRAY_CTL_VERSION);
	assert_int_equal(ctl->size, sizeof(struct lunlab_array_ctl));
	assert_non_null(ctl->array_list);
	assert_non_null(ctl->array_figures);
	assert_non_null(ctl->array_set_capacity);
	assert_non_null(ctl->volume_list);
	assert_non_null(ctl->snapshot);
	assert_non_null(ctl->volume_delete);
	assert_true(lunlab_array_ctl_has(ctl, volume_info));
}

static void test_named_volume_figures_snapshot(void **state)
{
	char *why = NULL, err[256];
	uint8_t data[4096], got[4096];
	(void)state;

	struct lu_backend *v1 = mkdev("lunlab/model=x2;time_scale=0;array=ctl-a;volume=v1;array_capacity=64M;"
				      "soft_threshold=50;serial=ctl-v1", "ctl0", 16ull << 20, NULL);
	assert_non_null(v1);
	assert_true(listed("ctl-a"));
	assert_int_equal(ctl->array_list(NULL, 0), ctl->array_list(NULL, 0)); /* count only */
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 512);
	assert_int_equal(write_at(v1, 0, data, sizeof(data)), 0);
	assert_int_equal(write_at(v1, 64, data, sizeof(data)), 0); /* second dedup block, same content */

	struct lunlab_array_figures f;
	assert_int_equal(ctl->array_figures("ctl-a", true, &f), 0);
	assert_int_equal(f.dedup_block, 16384);
	assert_int_equal(f.mapped_blocks, 2);
	assert_int_equal(f.unique_blocks, 1);
	assert_int_equal(f.logical_bytes, 2 * 16384);
	assert_int_equal(f.unique_bytes, 16384);
	assert_int_equal(f.single_ref_blocks, 0);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(f.capacity_bytes, 64ull << 20);
	assert_int_equal(f.soft_threshold_bytes, 32ull << 20);
	assert_int_equal(f.used_bytes, f.physical_bytes);
	assert_true(f.physical_bytes > 0 && f.physical_bytes < 16384);
	assert_int_equal(f.provisioned_bytes, 16ull << 20);
	assert_int_equal(f.volumes, 1);
	assert_string_equal(f.profile, "x2");
	assert_int_equal(ctl->array_figures("nope", false, &f), -ENOENT);
	assert_int_equal(ctl->array_figures("ctl-a", false, NULL), -EINVAL);

	/* one device per volume; the array's LUNs agree on the capacity */
	assert_null(mkdev("lunlab/model=x2;array=ctl-a;volume=v1;serial=ctl-v1b", "ctl1", 16ull << 20, &why));
	assert_non_null(strstr(why, "Device or resource busy"));
	free(why);
	assert_null(mkdev("lunlab/model=x2;array=ctl-a;array_capacity=128M;serial=ctl-x", "ctl1", 1 << 20, &why));
	free(why);
	struct lu_backend *agree = mkdev("lunlab/model=x2;array=ctl-a;array_capacity=64M;serial=ctl-y", "ctl1",
					 1 << 20, NULL);
	assert_non_null(agree);
	agree->ops->destroy(agree);

	/* a read-only snapshot: counted like a copy of every mapped block */
	uint64_t before = model_commands(v1);
	const char *src[] = { "v1" }, *dst[] = { "v1-snap" };
	assert_int_equal(ctl->snapshot("ctl-a", src, dst, 1, true, err, sizeof(err)), 0);
	assert_int_equal(model_commands(v1), before + 2); /* the LOG SENSE before, and the snapshot */
	struct lunlab_volume_info vi[8];
	int n = ctl->volume_list("ctl-a", vi, 8);
	assert_int_equal(n, 2);
	const struct lunlab_volume_info *s = find_vol(vi, n, "v1-snap"), *o = find_vol(vi, n, "v1");
	assert_non_null(s);
	assert_non_null(o);
	assert_string_equal(s->snapshot_of, "v1");
	assert_true(s->readonly);
	assert_false(s->attached);
	assert_int_equal(s->size_bytes, 16ull << 20);
	assert_int_equal(s->logical_bytes, 2 * 16384);
	assert_int_equal(s->single_ref_bytes, 0);
	assert_int_equal(s->lba_size, 512);
	assert_true(o->attached);
	assert_false(o->readonly);
	assert_string_equal(o->snapshot_of, "");
	assert_int_equal(ctl->volume_list("ctl-a", NULL, 0), 2);
	assert_int_equal(ctl->volume_list("nope", vi, 8), -ENOENT);
	/* one volume's entry alone: byte for byte volume_list's */
	struct lunlab_volume_info one;
	memset(&one, 0xa5, sizeof(one));
	assert_int_equal(ctl->volume_info("ctl-a", "v1-snap", &one), 0);
	assert_memory_equal(&one, s, sizeof(one));
	assert_int_equal(ctl->volume_info("ctl-a", "v1", &one), 0);
	assert_memory_equal(&one, o, sizeof(one));
	assert_int_equal(ctl->volume_info("ctl-a", "v2", &one), -ENOENT);
	assert_int_equal(ctl->volume_info("nope", "v1", &one), -ENOENT);

	/* the source moves on; the snapshot's own device reads the moment and
	 * refuses writes (no readonly=1 needed: the volume says so) */
	uint8_t other[4096];
	memset(other, 0x5e, sizeof(other));
	assert_int_equal(write_at(v1, 0, other, sizeof(other)), 0);
	struct lu_backend *sd = mkdev("lunlab/model=x2;time_scale=0;array=ctl-a;volume=v1-snap;serial=ctl-s", "ctl2",
				      16ull << 20, NULL);
	assert_non_null(sd);
	read_at(sd, 0, got, sizeof(got));
	assert_memory_equal(got, data, sizeof(data));
	assert_int_equal(write_at(sd, 8, other, 512), 0x02);
	read_at(v1, 0, got, sizeof(got));
	assert_memory_equal(got, other, sizeof(other));

	/* errors, each with its message */
	const char *missing[] = { "nope" }, *dup[] = { "v1" };
	assert_int_equal(ctl->snapshot("ctl-a", missing, dst, 1, false, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "volume 'nope': no such volume in array 'ctl-a'"));
	assert_int_equal(ctl->snapshot("ctl-a", src, dup, 1, false, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "volume 'v1' already exists in array 'ctl-a'"));
	assert_int_equal(ctl->snapshot("nope", src, dst, 1, false, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "array 'nope': no such array");
	assert_int_equal(ctl->snapshot("ctl-a", src, dst, 0, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at least one source volume"));
	assert_int_equal(ctl->volume_delete("ctl-a", "v1-snap", err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "volume 'v1-snap' of array 'ctl-a' is attached to a device"));
	assert_int_equal(ctl->volume_delete("ctl-a", "zzz", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "volume 'zzz': no such volume in array 'ctl-a'"));
	assert_int_equal(ctl->volume_delete("nope", "v1", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "array 'nope': no such array");
	/* a short error buffer still gets a terminated prefix */
	char tiny[8];
	assert_int_equal(ctl->volume_delete("nope", "v1", tiny, sizeof(tiny)), -ENOENT);
	assert_string_equal(tiny, "array '");
	assert_int_equal(ctl->volume_delete("nope", "v1", NULL, 0), -ENOENT);

	/* capacity at run time */
	assert_int_equal(ctl->array_figures("ctl-a", true, &f), 0);
	assert_int_equal(ctl->array_set_capacity("ctl-a", f.used_bytes - 1, 0, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "is below the"));
	assert_int_equal(ctl->array_set_capacity("ctl-a", 1 << 20, 2 << 20, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "soft threshold 2097152 is above the capacity 1048576"));
	assert_int_equal(ctl->array_set_capacity("ctl-a", 0, 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(ctl->array_set_capacity("nope", 1 << 20, 0, err, sizeof(err)), -ENOENT);
	assert_int_equal(ctl->array_set_capacity("ctl-a", 100 << 20, 90 << 20, err, sizeof(err)), 0);
	assert_int_equal(ctl->array_figures("ctl-a", false, &f), 0);
	assert_int_equal(f.capacity_bytes, 100ull << 20);
	assert_int_equal(f.soft_threshold_bytes, 90ull << 20);

	/* devices close: named volumes stay, and keep their data */
	sd->ops->destroy(sd);
	v1->ops->destroy(v1);
	assert_true(listed("ctl-a"));
	n = ctl->volume_list("ctl-a", vi, 8);
	assert_int_equal(n, 2);
	assert_false(find_vol(vi, n, "v1")->attached);
	v1 = mkdev("lunlab/model=x2;time_scale=0;array=ctl-a;volume=v1;serial=ctl-v1", "ctl0", 16ull << 20, NULL);
	assert_non_null(v1);
	read_at(v1, 64, got, sizeof(got));
	assert_memory_equal(got, data, sizeof(data));
	v1->ops->destroy(v1);
	/* deleting both frees the array */
	assert_int_equal(ctl->volume_delete("ctl-a", "v1-snap", err, sizeof(err)), 0);
	assert_true(listed("ctl-a"));
	assert_int_equal(ctl->volume_delete("ctl-a", "v1", err, sizeof(err)), 0);
	assert_false(listed("ctl-a"));
}

/* An anonymous LU's volume dies with it, as before named volumes. */
static void test_anonymous_volumes_unchanged(void **state)
{
	(void)state;
	struct lu_backend *d = mkdev("lunlab/model=x2;time_scale=0;array=ctl-b;serial=ctl-b0", "ctl3", 1 << 20, NULL);
	assert_non_null(d);
	struct lunlab_volume_info vi[2];
	assert_int_equal(ctl->volume_list("ctl-b", vi, 2), 1);
	assert_string_equal(vi[0].name, "");
	assert_true(vi[0].attached);
	d->ops->destroy(d);
	assert_false(listed("ctl-b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contract_header),
		cmocka_unit_test(test_named_volume_figures_snapshot),
		cmocka_unit_test(test_anonymous_volumes_unchanged),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
