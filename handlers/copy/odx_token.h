/* odx_token.h — the ROD tokens lunlab issues: their 512 bytes, their MAC,
 * and the array's registry of live tokens (docs/xcopy.md "The token").
 *
 * Layout (SPC-4 ROD token format, then lunlab's body; big-endian):
 *     0..3   ROD TYPE 00800000h (point in time copy - default)
 *     6..7   ROD TOKEN LENGTH 01F8h
 *     8..15  COPY MANAGER ROD TOKEN IDENTIFIER: the token id
 *    16..47  CREATOR LOGICAL UNIT DESCRIPTOR: the source LU's NAA designator
 *    48..63  NUMBER OF BYTES REPRESENTED
 *    96..111 the array's start nonce (its identity for this run)
 *   112..119 creation time, ms of the registry's clock
 *   120..123 block size of the source LU
 *   124..125 number of ranges, 128.. 12 bytes per range (LBA, blocks)
 *   then random padding up to 480, 480..511 HMAC-SHA-256 over bytes 0..479
 * The MAC key and the nonce are drawn from gnutls_rnd the first time the
 * array serves ODX in this process; they are never stored, so after a
 * restart every token is invalid (SPC-4 lets a copy manager invalidate a
 * token at any time; hosts then copy by READ and WRITE).
 *
 * A live token holds a point-in-time hold on its ranges (volume.h
 * volume_hold_create), released when the token dies: inactivity timeout
 * (restarted at each use) through the reaper thread, DEL_TKN, COPY OPERATION
 * ABORT, its source LU closing.  A dead token is remembered (a bounded ring
 * per array) so it is refused with the reason it died.
 *
 * Thread safe: one mutex guards the registry; a WRITE USING TOKEN works on a
 * counted reference, outside it. */
#ifndef LUNLAB_ODX_TOKEN_H
#define LUNLAB_ODX_TOKEN_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/copy/odx_limits.h"
#include "handlers/copy/odx_parse.h"
#include "handlers/lunlab_dev.h"

enum odx_tok_status {
	ODX_TOK_OK = 0,
	ODX_TOK_UNSUPPORTED,   /* 05/23/01: not a ROD type lunlab takes */
	ODX_TOK_CORRUPT,       /* 05/23/05: MAC fails (forged, damaged, another array's) */
	ODX_TOK_UNKNOWN,       /* 05/23/04: this array never issued it in this run */
	ODX_TOK_EXPIRED,       /* 05/23/07 */
	ODX_TOK_CANCELLED,     /* 05/23/08: COPY OPERATION ABORT */
	ODX_TOK_DELETED,       /* 05/23/09: DEL_TKN */
	ODX_TOK_NO_RESOURCES,  /* 05/55/0C: live-token cap, or no memory */
	ODX_TOK_RANGE,         /* 05/21/00: the hold found a range past the LU */
};

/* The additional sense of a refusal. */
uint16_t odx_tok_asc(enum odx_tok_status s);

struct odx_live;   /* a live token, counted */

/* POPULATE TOKEN: hold ranges of src and issue a token that lives for
 * timeout_s of inactivity; out gets its 512 bytes. */
enum odx_tok_status odx_token_create(struct lunlab_dev *src, const struct odx_ranges *ranges, uint32_t timeout_s,
				     uint8_t out[ODX_TOKEN_LEN]);
/* WRITE USING TOKEN: the live token tok names, used by an LU (any) of
 * dev's array; restarts its inactivity timer.  *out is a reference the
 * caller drops with odx_token_put. */
enum odx_tok_status odx_token_get(const struct lunlab_dev *dev, const uint8_t tok[ODX_TOKEN_LEN], struct odx_live **out);
void odx_token_put(struct odx_live *t);
/* What a live token stands for. */
struct vol_hold *odx_live_hold(const struct odx_live *t);
uint64_t odx_live_bytes(const struct odx_live *t);
/* End the life of tok (DEL_TKN: ODX_TOK_DELETED; abort: ODX_TOK_CANCELLED):
 * later uses are refused with why; the hold goes with the last reference. */
void odx_token_kill(const struct lunlab_dev *dev, const uint8_t tok[ODX_TOKEN_LEN], enum odx_tok_status why);

/* Release every expired token now (the reaper thread calls this each
 * second); returns how many died. */
unsigned odx_tokens_reap(void);
/* The source LU closes: its tokens die (later uses: unknown). */
void odx_tokens_forget_dev(const struct lunlab_dev *dev);
/* Live tokens of dev's array (tests, VPD). */
unsigned odx_tokens_live(const struct lunlab_dev *dev);

/* Tests: the registry's clock (ms, monotonic), NULL restores the real one;
 * and a new key and nonce for dev's array with its tokens dropped, as a
 * restart does. */
void odx_clock_set(uint64_t (*now_ms)(void));
void odx_array_rekey(const struct lunlab_dev *dev);

#endif
