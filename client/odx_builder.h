/* odx_builder.h - ODX (token-based copy, SBC-3 / SPC-4) the way Windows' copy engine sends it:
 * the CDBs of POPULATE TOKEN (83h/10h), WRITE USING TOKEN (83h/11h), RECEIVE ROD TOKEN
 * INFORMATION (84h/07h) and COPY OPERATION ABORT (83h/1Ch), the two parameter lists, and a
 * bounds-checked decoder of the RRTI answer (status, transfer count, the 512-byte token).
 * Also describes the lists in words for --explain. */
#ifndef LUNLAB_CLIENT_ODX_BUILDER_H
#define LUNLAB_CLIENT_ODX_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ODX_TOKEN_LEN 512
#define ODX_RANGE_LEN 16
#define ODX_PT_HDR_LEN 16           /* POPULATE TOKEN list: ranges start at byte 16 */
#define ODX_WUT_HDR_LEN 536         /* WRITE USING TOKEN list: ranges start at byte 536 */
#define ODX_ROD_TYPE_PIT_DEFAULT 0x00800000u   /* point in time copy - default */
#define ODX_ROD_TYPE_ZERO 0xffff0001u          /* block device zero ROD token */
#define ODX_RRTI_ALLOC (32 + 252 + 4 + 2 + ODX_TOKEN_LEN)  /* header, longest sense, token */

/* COPY OPERATION STATUS of the RRTI answer (SPC-4 6.18.4) */
enum odx_copy_status {
	ODX_ST_GOOD = 0x01,          /* completed without errors */
	ODX_ST_ERROR = 0x02,         /* completed with errors (sense data says why) */
	ODX_ST_RESIDUAL = 0x03,      /* completed with residual data: a partial write */
	ODX_ST_FOREGROUND = 0x10,    /* in progress, foreground */
	ODX_ST_BACKGROUND = 0x11,    /* in progress, background (IMMED) */
	ODX_ST_ABORTED = 0x60,       /* terminated by COPY OPERATION ABORT */
};

struct odx_range {
	uint64_t lba;
	uint32_t blocks;
};

struct odx_pt_args {
	bool immed;
	uint32_t inactivity_timeout_s;   /* 0: the array's default (what Windows asks for) */
	uint32_t rod_type;               /* 0: none given (RTV 0); else RTV 1 with this type */
};

struct odx_wut_args {
	bool immed, del_tkn;
	uint64_t offset_blocks;          /* OFFSET INTO ROD */
	const uint8_t *token;            /* ODX_TOKEN_LEN bytes */
};

/* The parameter lists into buf[cap]: the list length, or -1 (n == 0, a range of 0 blocks,
 * too many ranges for the 16-bit descriptor length, or cap too small). */
int odx_pt_build(const struct odx_pt_args *a, const struct odx_range *r, unsigned n, uint8_t *buf, size_t cap);
int odx_wut_build(const struct odx_wut_args *a, const struct odx_range *r, unsigned n, uint8_t *buf, size_t cap);

/* 16-byte CDBs (SBC-3 5.x: LIST IDENTIFIER at 6-9, PARAMETER LIST LENGTH at 10-13;
 * SPC-4 6.18: RRTI and COPY OPERATION ABORT have the list id at 2-5). */
void odx_pt_cdb(uint8_t cdb[16], uint32_t list_id, uint32_t list_len);
void odx_wut_cdb(uint8_t cdb[16], uint32_t list_id, uint32_t list_len);
void odx_rrti_cdb(uint8_t cdb[16], uint32_t list_id, uint32_t alloc_len);
void odx_abort_cdb(uint8_t cdb[16], uint32_t list_id);

struct odx_rrti {
	uint8_t service_action;          /* of the command it reports on (10h PT, 11h WUT) */
	uint8_t status;                  /* enum odx_copy_status */
	uint16_t operation_counter;
	uint32_t status_update_delay_ms;
	uint8_t transfer_count_units;    /* F1h: logical blocks */
	uint64_t transfer_count;
	uint8_t sense_len;
	uint8_t sense_key, asc, ascq;    /* from the sense data, when there is some */
	bool have_token;
	uint8_t token[ODX_TOKEN_LEN];
};

/* Decode an RRTI answer of len bytes.  0, or -1 with the field that ran out named in err. */
int odx_rrti_parse(const uint8_t *buf, size_t len, struct odx_rrti *out, char *err, size_t errlen);

/* A copy status in words ("completed without errors"...). */
const char *odx_status_name(uint8_t status);

/* --explain: a parameter list in words, one line per field group.  0, or -1 (list too short
 * for what it says it holds; a line says which). */
int odx_pt_describe(const uint8_t *buf, size_t len, char *out, size_t outlen);
int odx_wut_describe(const uint8_t *buf, size_t len, char *out, size_t outlen);

#endif
