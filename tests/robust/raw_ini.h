/* raw_ini.h — a minimal raw-socket iSCSI initiator for robustness tests: it
 * sends exactly the bytes a test wants (broken ones included) and reports
 * exactly what the target answered, or that it closed the connection. */
#ifndef LUNLAB_ROBUST_RAW_INI_H
#define LUNLAB_ROBUST_RAW_INI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/iscsi/pdu.h"

struct raw {
	int fd;
	bool hd, dd;            /* digests in effect */
	uint32_t cmdsn, exp_statsn, itt;
	uint32_t max_cmdsn;     /* last MaxCmdSN the target advertised */
	uint32_t target_mrdsl;  /* the target's MaxRecvDataSegmentLength */
	uint32_t max_burst, first_burst, max_r2t;
	bool initial_r2t, immediate_data;
};

struct login_opts {
	const char *digest;     /* "None" (default) or "CRC32C" for both */
	const char *initial_r2t, *immediate_data; /* "Yes"/"No", NULL: not sent */
	const char *max_r2t, *max_burst, *first_burst; /* NULL: not sent */
	uint8_t isid_low;       /* last ISID byte: distinct live sessions need distinct ones */
	bool keep_power_on;     /* leave the LUs' power-on unit attention pending (default:
	                         * raw_login takes it with TEST UNIT READY on LUN 0..RAW_LUNS-1) */
};

#define RAW_LUNS 3 /* the LUNs run-robust.sh gives the target */

extern int g_port;
extern const char *g_iqn;

/* connect to 127.0.0.1:g_port; -1 on failure */
int raw_connect(void);
/* full login to Normal session on g_iqn, then (unless o->keep_power_on)
 * the power-on unit attentions taken; 0 ok, else the login status
 * (class << 8 | detail), or -1 when the connection failed/closed */
int raw_login(struct raw *r, const struct login_opts *o);
void raw_close(struct raw *r);

/* Sends BHS (+ header digest), data, pad (+ data digest; corrupt: wrong
 * one).  Fills DataSegmentLength.  Returns 0, -1 on a send error. */
int raw_send(struct raw *r, uint8_t *bhs, const void *data, uint32_t dlen, bool corrupt_dd);
int raw_send_bytes(struct raw *r, const void *p, size_t n);

/* Receives one PDU within timeout_ms.  Returns its data length (data holds
 * up to cap bytes), RAW_CLOSED when the target closed the connection,
 * RAW_TIMEOUT, RAW_BAD (digest mismatch or oversized).  Tracks StatSN and
 * MaxCmdSN. */
#define RAW_CLOSED (-1)
#define RAW_TIMEOUT (-2)
#define RAW_BAD (-3)
int raw_recv(struct raw *r, uint8_t *bhs, uint8_t *data, uint32_t cap, int timeout_ms);

/* Waits up to timeout_ms for the target to close; PDUs arriving meanwhile
 * are skipped.  Returns the milliseconds it took, or -1 if still open. */
long raw_wait_closed(struct raw *r, int timeout_ms);

/* header builders */
void raw_scsi_cmd(struct raw *r, uint8_t *bhs, uint64_t lun, const uint8_t *cdb, uint32_t edtl,
		  bool rd, bool wr, bool final);
void raw_nop_ping(struct raw *r, uint8_t *bhs);
/* NOP-Out ping and its NOP-In: true when the session answers correctly */
bool raw_ping_ok(struct raw *r, int timeout_ms);

/* CDB helpers */
void cdb_rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks);

long now_ms(void);

#endif
