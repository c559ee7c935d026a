/* scsi_query.h - small synchronous SCSI queries the scenarios share (INQUIRY, VPD, LOG SENSE,
 * LOG SELECT, REPORT SUPPORTED OPCODES), each built on conn_cmd(). */
#ifndef LUNLAB_CLIENT_SCSI_QUERY_H
#define LUNLAB_CLIENT_SCSI_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/conn.h"
#include "client/logpage.h"

/* An INQUIRY ASCII field (vendor, product, revision) as a C string: n bytes, non-printable
 * ones as '?', trailing spaces dropped.  dst holds n + 1 bytes. */
void q_ascii_field(char *dst, const uint8_t *src, size_t n);
/* INQUIRY (evpd when page >= 0).  Returns bytes received or -1 (CHECK CONDITION / transport). */
int q_inquiry(struct bench_conn *c, int page, uint8_t *buf, size_t len);
/* MODE SENSE(10) of page/subpage, current values, no block descriptors.  Returns bytes
 * received or -1. */
int q_mode_sense10(struct bench_conn *c, uint8_t page, uint8_t subpage, uint8_t *buf, size_t len);
/* LOG SENSE page, cumulative values.  Returns bytes received or -1. */
int q_log_sense(struct bench_conn *c, uint8_t page, uint8_t *buf, size_t len);
/* LOG SENSE + parse.  Returns 0 or -1 (err says why: not supported, malformed...). */
int q_log_page(struct bench_conn *c, uint8_t page, struct log_page *pg, char *err, size_t errlen);
/* Does the LU list `page` in LOG SENSE page 0x00? */
bool q_log_supported(struct bench_conn *c, uint8_t page);
/* LOG SELECT PCR=1 for `page` (resets its counters).  Returns 0 or -1. */
int q_log_reset(struct bench_conn *c, uint8_t page);
/* LOG SELECT of page 0x31 parameter 0x000A: the number of closed-loop host streams a virtual
 * clock models (docs/vendor-log-pages.md).  Returns 0, or -1 when the LU refused it (real
 * clock, pinned by its configuration, not lunlab). */
int q_set_host_streams(struct bench_conn *c, unsigned streams);
/* REPORT SUPPORTED OPCODES, one command (opcode + service action). 1 supported, 0 not, -1 unknown. */
int q_opcode_supported(struct bench_conn *c, uint8_t opcode, int sa);
/* Array figures if the LU reports them (page 0x30/0x31). */
int q_capacity(struct bench_conn *c, struct array_capacity *cap, char *err, size_t errlen);
int q_telemetry(struct bench_conn *c, struct model_telemetry *t, char *err, size_t errlen);

#endif
