/* pdu.h — iSCSI PDU layout (RFC 7143 section 11): opcodes, the 48-byte Basic
 * Header Segment, big-endian field accessors.  Every field offset used by the
 * target lives here so the rest of the code reads like the RFC. */
#ifndef LUNLAB_ISCSI_PDU_H
#define LUNLAB_ISCSI_PDU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lunlab/be.h"

#define ISCSI_BHS_LEN 48
#define ISCSI_DIGEST_LEN 4
#define ISCSI_RSVD_TAG 0xffffffffu

/* initiator opcodes */
#define ISCSI_OP_NOP_OUT 0x00
#define ISCSI_OP_SCSI_CMD 0x01
#define ISCSI_OP_TMF_REQ 0x02
#define ISCSI_OP_LOGIN_REQ 0x03
#define ISCSI_OP_TEXT_REQ 0x04
#define ISCSI_OP_DATA_OUT 0x05
#define ISCSI_OP_LOGOUT_REQ 0x06
#define ISCSI_OP_SNACK_REQ 0x10
/* target opcodes */
#define ISCSI_OP_NOP_IN 0x20
#define ISCSI_OP_SCSI_RSP 0x21
#define ISCSI_OP_TMF_RSP 0x22
#define ISCSI_OP_LOGIN_RSP 0x23
#define ISCSI_OP_TEXT_RSP 0x24
#define ISCSI_OP_DATA_IN 0x25
#define ISCSI_OP_LOGOUT_RSP 0x26
#define ISCSI_OP_R2T 0x31
#define ISCSI_OP_ASYNC_MSG 0x32
#define ISCSI_OP_REJECT 0x3f

#define ISCSI_FLAG_IMMEDIATE 0x40 /* byte 0 */
#define ISCSI_FLAG_FINAL 0x80     /* byte 1 */

/* SCSI Command byte 1 */
#define ISCSI_CMD_READ 0x40
#define ISCSI_CMD_WRITE 0x20
#define ISCSI_CMD_ATTR_MASK 0x07 /* task attribute (RFC 7143 11.3.1; enum scsi_task_attr) */
/* Data-In / SCSI Response byte 1 */
#define ISCSI_DATAIN_ACK 0x40
#define ISCSI_FLAG_OVERFLOW 0x04
#define ISCSI_FLAG_UNDERFLOW 0x02
#define ISCSI_DATAIN_STATUS 0x01
/* Login byte 1 */
#define ISCSI_LOGIN_TRANSIT 0x80
#define ISCSI_LOGIN_CONTINUE 0x40
#define ISCSI_TEXT_CONTINUE 0x40

/* Reject reasons (RFC 7143 11.17.1) */
#define ISCSI_REJECT_DATA_DIGEST 0x02
#define ISCSI_REJECT_SNACK 0x03
#define ISCSI_REJECT_PROTOCOL_ERROR 0x04
#define ISCSI_REJECT_CMD_NOT_SUPPORTED 0x05
#define ISCSI_REJECT_IMM_CMD_REJECT 0x06
#define ISCSI_REJECT_TASK_IN_PROGRESS 0x07
#define ISCSI_REJECT_INVALID_DATA_ACK 0x08
#define ISCSI_REJECT_INVALID_PDU_FIELD 0x09
#define ISCSI_REJECT_LONG_OP 0x0a
#define ISCSI_REJECT_WAITING_FOR_LOGOUT 0x0c

static inline uint8_t bhs_opcode(const uint8_t *h) { return h[0] & 0x3f; }
static inline bool bhs_immediate(const uint8_t *h) { return (h[0] & ISCSI_FLAG_IMMEDIATE) != 0; }
static inline uint32_t bhs_ahs_len(const uint8_t *h) { return (uint32_t)h[4] * 4; }
static inline uint32_t bhs_data_len(const uint8_t *h) { return get_be24(h + 5); }
static inline uint32_t bhs_itt(const uint8_t *h) { return get_be32(h + 16); }
static inline uint32_t pdu_pad4(uint32_t n) { return (4 - (n & 3)) & 3; }

/* Serial number arithmetic (RFC 1982, 32 bits): a < b */
static inline bool sn_lt(uint32_t a, uint32_t b) { return a != b && (int32_t)(a - b) < 0; }
static inline bool sn_le(uint32_t a, uint32_t b) { return a == b || sn_lt(a, b); }

/* Byte 0 of a BHS the target sends, with fields common to all responses. */
void pdu_init_rsp(uint8_t *bhs, uint8_t opcode, uint8_t flags1);

/* Checks an initiator BHS for things that make it unparseable or illegal in
 * any state (reserved opcode, target-only opcode, bad data length for the
 * opcode).  Returns 0 or a reject reason, with *why naming the field. */
int pdu_validate_header(const uint8_t *bhs, uint32_t max_recv_dsl, const char **why);

/* Name for logs. */
const char *pdu_opcode_name(uint8_t opcode);

/* LUN field <-> LUN number.  Single-level only: peripheral (00b) for
 * LUN < 256, flat space (01b) up to 16383, as LIO encodes. */
uint64_t pdu_lun_decode(const uint8_t field[8], bool *ok);
void pdu_lun_encode(uint8_t field[8], uint64_t lun);

#endif
