/* fuzz_scsi_dispatch.c — libFuzzer targets: SCSI commands through
 * scsi_dispatch() (handlers/scsi/opcodes.c: table lookup, reserved-bit and
 * SWP checks, then the command's module) on a real LU: a struct scsi_lu
 * whose struct lunlab_dev holds a volume of a real array (handlers/array),
 * built once like tests/unit/scsi/fixture.h does and kept across inputs.
 *
 * One source, four executables (FUZZ_MODE, set by tests/fuzz/meson.build):
 *   FUZZ_ANY_CDB     input = CDB (32 bytes, an exact-size heap copy) then the
 *                    data buffer (data-out for writes, data-in room for reads)
 *   FUZZ_UNMAP       input = UNMAP parameter list; CDB 42h built around it
 *   FUZZ_MODE_SELECT byte 0 picks MODE SELECT(6)/(10) and PF/SP; the rest is
 *                    the parameter list
 *   FUZZ_XCOPY       input = EXTENDED COPY(LID1) parameter list, CDB 83h/00h
 *                    (through dispatch and the copy manager, not only the
 *                    parser: helper G's fuzz_xcopy_parse covers that alone)
 * The parameter-list length in the CDB is the input's length, as an
 * initiator that tells the truth would send; FUZZ_ANY_CDB covers the lies.
 * Checks beyond "no crash/UB/leak": the answer is GOOD or CHECK CONDITION with
 * well-formed fixed sense, and a data-in answer never writes past its buffer
 * (the buffer is an exact-size heap copy, so ASan would see it).
 * FUZZ_VERBOSE=1 in the environment prints each input's answer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/volume.h"
#include "handlers/scsi/naa.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"
#include "models/profile.h"

#define FUZZ_ANY_CDB 0
#define FUZZ_UNMAP 1
#define FUZZ_MODE_SELECT 2
#define FUZZ_XCOPY 3
#ifndef FUZZ_MODE
#define FUZZ_MODE FUZZ_ANY_CDB
#endif

#define LU_BS 512u
#define LU_LBAS 2048u        /* 1 MiB: big enough for real I/O, small enough to stay fast */
#define CDB_MAX 32u          /* the largest CDB the iSCSI transport delivers */
#define DATA_MAX (256u * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct scsi_lu *the_lu(void)
{
	static struct scsi_lu *lu;

	if (lu)
		return lu;
	struct array_params ap = { .dedup_block = 16384, .zlib_level = 1, .zlib_window_bits = 15, .alloc_unit = 512 };
	char *err = NULL;
	lu = calloc(1, sizeof(*lu));
	if (!lu)
		abort();
	struct lunlab_dev *d = &lu->dev;
	d->array = array_get("fuzz", &ap, &err);
	if (!d->array) {
		fprintf(stderr, "array_get: %s\n", err ? err : "?");
		abort();
	}
	/* a capacity far above the volume (the array never fills, so block
	 * contents stay free to change) and a soft threshold inside it: the
	 * thin-provisioning pages and unit attentions are reachable */
	if (array_set_capacity(d->array, 64ull << 20, ((uint64_t)LU_LBAS * LU_BS) / 2, &err) != 0)
		abort();
	d->vol = volume_create(d->array, (uint64_t)LU_LBAS * LU_BS, LU_BS);
	if (!d->vol)
		abort();
	snprintf(d->model_name, sizeof(d->model_name), "x2");
	/* x2's profile offers ODX: POPULATE TOKEN, WRITE USING TOKEN, RRTI and
	 * COPY OPERATION ABORT are reachable (tokens are capped per array) */
	d->profile = profile_get("x2", &err);
	if (!d->profile)
		abort();
	snprintf(d->array_name, sizeof(d->array_name), "fuzz");
	snprintf(d->serial, sizeof(d->serial), "fuzz-serial-1");
	naa_from_serial(d->serial, d->naa);
	d->block_size = LU_BS;
	d->num_lbas = LU_LBAS;
	d->max_xfer_len = 512;
	d->write_cache = true;
	scsi_lu_init(lu);
	/* in the registry, so EXTENDED COPY finds it as a copy target by NAA */
	lunlab_dev_register(d);
	return lu;
}

static __attribute__((unused)) void put16(uint8_t *p, size_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static __attribute__((unused)) void put32(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scsi_lu *lu = the_lu();
	uint8_t *cdb = calloc(1, CDB_MAX);
	uint8_t sense[96];
	const uint8_t *payload = data;
	size_t plen = size;

	if (!cdb)
		return 0;
	/* mode-page state back to power-on, so a finding reproduces from its one
	 * input (block contents stay: they only change data, not code paths) */
	lu->dev.write_cache = true;
	scsi_lu_fini(lu);
	scsi_lu_init(lu);
#if FUZZ_MODE == FUZZ_ANY_CDB
	memcpy(cdb, data, size < CDB_MAX ? size : CDB_MAX);
	payload = size > CDB_MAX ? data + CDB_MAX : NULL;
	plen = size > CDB_MAX ? size - CDB_MAX : 0;
#elif FUZZ_MODE == FUZZ_UNMAP
	if (plen > 0xffff)
		plen = 0xffff;
	cdb[0] = 0x42;
	put16(cdb + 7, plen);
#elif FUZZ_MODE == FUZZ_MODE_SELECT
	if (size < 1) {
		free(cdb);
		return 0;
	}
	payload = data + 1;
	plen = size - 1;
	if (data[0] & 1) {
		if (plen > 0xff)
			plen = 0xff;
		cdb[0] = 0x15;
		cdb[4] = (uint8_t)plen;
	} else {
		if (plen > 0xffff)
			plen = 0xffff;
		cdb[0] = 0x55;
		put16(cdb + 7, plen);
	}
	cdb[1] = (uint8_t)(data[0] & 0x11); /* PF (bit 4), SP (bit 0) */
#elif FUZZ_MODE == FUZZ_XCOPY
	if (plen > DATA_MAX)
		plen = DATA_MAX;
	cdb[0] = 0x83;
	cdb[1] = 0x00;
	put32(cdb + 10, plen);
#endif
	if (plen > DATA_MAX)
		plen = DATA_MAX;

	/* exact-size buffer: any access past plen is an ASan report */
	uint8_t *buf = plen ? malloc(plen) : NULL;
	if (plen && !buf) {
		free(cdb);
		return 0;
	}
	if (plen)
		memcpy(buf, payload, plen);

	struct iovec iov = { .iov_base = buf, .iov_len = plen };
	struct scsi_cmd cmd;
	enum cost_kind kind;
	memset(&cmd, 0, sizeof(cmd));
	memset(sense, 0, sizeof(sense));
	cmd.dev = &lu->dev;
	cmd.cdb = cdb;
	cmd.iov = &iov;
	cmd.iov_cnt = buf ? 1 : 0;
	cmd.iov_len = plen;
	cmd.sense = sense;
	int st = scsi_dispatch(&cmd, &kind);
	/* FUZZ_VERBOSE=1: the answer of each input, to check by hand what a seed
	 * reaches (GOOD, or which sense) */
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	if (verbose)
		fprintf(stderr, "cdb %02x %02x: %s %x/%02x/%02x, %zu bytes moved\n", cdb[0], cdb[1],
			st == TCMU_STS_OK ? "GOOD" : "CHECK CONDITION", sense[2] & 0x0f, sense[12],
			sense[13], (size_t)cmd.bytes_moved);
	if (st != TCMU_STS_OK) {
		if (st != TCMU_STS_PASSTHROUGH_ERR)
			abort(); /* the handler answers GOOD or CHECK CONDITION, nothing else */
		if ((sense[0] & 0x7f) != 0x70 || sense[7] != 10 || (sense[2] & 0x0f) == 0)
			abort(); /* fixed sense, additional length 10, a real key */
	}
	struct cost_req cr;
	scsi_cost_req(&cmd, kind, &cr);
	free(buf);
	free(cdb);
	return 0;
}
