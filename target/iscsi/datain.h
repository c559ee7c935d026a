/* datain.h — residuals (RFC 7143 11.4.5) and Data-In segmentation. */
#ifndef LUNLAB_ISCSI_DATAIN_H
#define LUNLAB_ISCSI_DATAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conn;
struct icmd;

struct residual {
	uint8_t flags;  /* ISCSI_FLAG_OVERFLOW / ISCSI_FLAG_UNDERFLOW / 0 */
	uint32_t count;
};

/* tl: bytes the CDB asks for (XFER_LEN_UNKNOWN if unknown); rw: tl is a
 * READ/WRITE block count, exact; produced: bytes the LU returned (reads). */
void residual_compute(uint64_t tl, bool rw, bool is_write, uint32_t edtl, size_t produced,
		      struct residual *r);

/* Data-In PDUs needed for len bytes at max_xmit_dsl bytes each. */
uint32_t datain_pdu_count(size_t len, uint32_t max_xmit_dsl);

/* Queues len bytes of ic->buf as Data-In PDUs of at most MaxRecvDataSegmentLength
 * (the F bit closes every MaxBurstLength sequence).  with_status: the last
 * PDU carries S, status and the residual (and consumes a StatSN). */
void datain_queue(struct conn *c, struct icmd *ic, uint32_t len, bool with_status,
		  uint8_t status, const struct residual *r);

/* The same for bytes [off, end) of a transfer of total bytes, some of which
 * went out already (DataSN continues from ic->exp_datasn); status (if
 * with_status) rides on the PDU that ends the transfer. */
void datain_queue_range(struct conn *c, struct icmd *ic, uint32_t off, uint32_t end, uint32_t total,
			bool with_status, uint8_t status, const struct residual *r);
/* Where the whole Data-In PDUs from off that lie within the first ready
 * bytes end (off itself when not even one fits). */
uint32_t datain_full_pdus_end(const struct conn *c, uint32_t off, uint32_t ready, uint32_t total);

/* SCSI Response PDU; sense_len 0 for none. */
void scsi_rsp_queue(struct conn *c, struct icmd *ic, uint8_t status, const uint8_t *sense,
		    uint32_t sense_len, const struct residual *r);

#endif
