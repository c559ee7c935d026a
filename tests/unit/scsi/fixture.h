/* fixture.h — a real LU for the SCSI module tests: struct scsi_lu backed by
 * a volume of a real array (handlers/array), and helpers to run one CDB
 * through scsi_dispatch with a data buffer and read back sense bytes. */
#ifndef LUNLAB_TEST_SCSI_FIXTURE_H
#define LUNLAB_TEST_SCSI_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/array_state.h"
#include "handlers/array/volume.h"
#include "handlers/array/volume_names.h"
#include "handlers/scsi/naa.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

#define FIX_LBAS 8192u        /* 4 MiB at 512 bytes per block */
#define FIX_BS 512u

static inline struct scsi_lu *fix_lu_new(const char *array_name, uint32_t bs, uint64_t lbas)
{
	struct array_params ap = { .dedup_block = 16384, .zlib_level = 1, .zlib_window_bits = 15, .alloc_unit = 512 };
	char *err = NULL;
	struct scsi_lu *lu = calloc(1, sizeof(*lu));

	assert_non_null(lu);
	struct lunlab_dev *d = &lu->dev;
	d->array = array_get(array_name, &ap, &err);
	assert_non_null(d->array);
	d->vol = volume_create(d->array, lbas * bs, bs);
	assert_non_null(d->vol);
	snprintf(d->model_name, sizeof(d->model_name), "x2");
	snprintf(d->array_name, sizeof(d->array_name), "%s", array_name);
	snprintf(d->serial, sizeof(d->serial), "unit-serial-1");
	naa_from_serial(d->serial, d->naa);
	d->block_size = bs;
	d->num_lbas = lbas;
	d->max_xfer_len = 2048;
	d->write_cache = true;
	scsi_lu_init(lu);
	return lu;
}

/* The same LU with its array kept in state directory dir (docs/persistence.md),
 * its volume the LU's own ("lu:" + serial), as handler.c opens it. */
static inline struct scsi_lu *fix_lu_new_state(const char *array_name, uint32_t bs, uint64_t lbas, const char *dir)
{
	struct array_params ap = { .dedup_block = 16384, .zlib_level = 1, .zlib_window_bits = 15, .alloc_unit = 512 };
	char *err = NULL;
	struct scsi_lu *lu = calloc(1, sizeof(*lu));

	assert_non_null(lu);
	struct lunlab_dev *d = &lu->dev;
	d->array = array_get_state(array_name, &ap, dir, "x2", &err);
	if (!d->array)
		fail_msg("array_get_state: %s", err ? err : "?");
	d->vol = array_volume_open(d->array, "lu:unit-serial-1", lbas * bs, bs, &err);
	assert_non_null(d->vol);
	snprintf(d->model_name, sizeof(d->model_name), "x2");
	snprintf(d->array_name, sizeof(d->array_name), "%s", array_name);
	snprintf(d->serial, sizeof(d->serial), "unit-serial-1");
	naa_from_serial(d->serial, d->naa);
	d->block_size = bs;
	d->num_lbas = lbas;
	d->max_xfer_len = 2048;
	d->write_cache = true;
	scsi_lu_init(lu);
	return lu;
}

static inline void fix_lu_free(struct scsi_lu *lu)
{
	scsi_lu_fini(lu);
	array_volume_close(lu->dev.vol); /* in memory: destroyed; in a state directory: kept */
	array_put(lu->dev.array);
	free(lu);
}

struct fix_cmd {
	struct scsi_cmd c;
	uint8_t cdb[16];
	uint8_t sense[96];
	struct iovec iov;
	int status;
};

/* Run cdb (len bytes) with a data buffer buf/buflen (data-in or data-out). */
static inline int fix_run(struct fix_cmd *fc, struct scsi_lu *lu, const uint8_t *cdb, size_t cdblen, void *buf,
			  size_t buflen)
{
	enum cost_kind kind;

	memset(fc, 0, sizeof(*fc));
	memcpy(fc->cdb, cdb, cdblen);
	fc->iov.iov_base = buf;
	fc->iov.iov_len = buflen;
	fc->c.dev = &lu->dev;
	fc->c.cdb = fc->cdb;
	fc->c.iov = &fc->iov;
	fc->c.iov_cnt = buf ? 1 : 0;
	fc->c.iov_len = buf ? buflen : 0;
	fc->c.sense = fc->sense;
	fc->status = scsi_dispatch(&fc->c, &kind);
	return fc->status;
}

/* Assert CHECK CONDITION with key and ASC/ASCQ (a SCSI_ASC_* pair); the bytes are checked
 * where fixed-format sense puts them. */
static inline void fix_assert_sense(const struct fix_cmd *fc, uint8_t key, uint16_t asc_ascq)
{
	assert_int_equal(fc->status, TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(fc->sense[0] & 0x7f, SCSI_SENSE_FMT_FIXED_CURRENT);
	assert_int_equal(fc->sense[2] & 0x0f, key);
	assert_int_equal(fc->sense[12], scsi_asc(asc_ascq));
	assert_int_equal(fc->sense[13], scsi_ascq(asc_ascq));
}

/* Assert ILLEGAL REQUEST with asc_ascq and a field pointer (SKSV=1, C/D, byte, bit or -1). */
static inline void fix_assert_field(const struct fix_cmd *fc, uint16_t asc_ascq, bool cd, uint16_t byte, int bit)
{
	fix_assert_sense(fc, SCSI_SK_ILLEGAL_REQUEST, asc_ascq);
	uint8_t want = (uint8_t)(0x80 | (cd ? 0x40 : 0) | (bit >= 0 ? 0x08 | bit : 0));
	assert_int_equal(fc->sense[15], want);
	assert_int_equal((fc->sense[16] << 8) | fc->sense[17], byte);
}

#endif
