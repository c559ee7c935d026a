/* copy_limits.h — what lunlab's copy manager advertises and enforces.
 *
 * One set of numbers feeds RECEIVE COPY RESULTS / OPERATING PARAMETERS,
 * VPD page 0x8F and the parameter-list parser, so the three can never
 * disagree.  Why these values (docs/xcopy.md has the long form):
 *  - 32 CSCD descriptors, 128 segment descriptors: enough for a host that
 *    reads our limits (ESXi with --xcopy-use-array-values, sg_xcopy) to
 *    batch many ranges per command, like real arrays do (LIO allows 2/1).
 *  - 8192 bytes of descriptor list: holds the maximum of both lists
 *    (32*32 + 128*28 = 4608) with room to spare, so "too many descriptors"
 *    is reported as such and not masked by "list too long"
 *    (libiscsi ExtendedCopy.DescrLimits sends max+1 of each).
 *  - 16 MiB per segment: ESXi's largest /DataMover/MaxHWTransferSize; the
 *    copy is a metadata copy, so the bound is about command latency under
 *    the cost model, not memory.
 *  - 16 concurrent copies per LU: more than any host keeps in flight per LU
 *    (ESXi: one per clone stream), small enough to bound the held table. */
#ifndef LUNLAB_COPY_LIMITS_H
#define LUNLAB_COPY_LIMITS_H

#define XCOPY_HDR_LEN            16u
#define XCOPY_TGT_DESC_LEN       32u   /* 0xE4 identification descriptor */
#define XCOPY_SEG_DESC_LEN       28u   /* 0x02 block -> block */
#define XCOPY_SEG_B2B_DESC_LEN   0x18u /* DESCRIPTOR LENGTH field of 0x02 */
#define XCOPY_CSCD_INDEX_MAX     0x07FFu /* above: CSCD IDs we do not support */

#define XCOPY_MAX_TGT_DESC       32u
#define XCOPY_MAX_SEG_DESC       128u
#define XCOPY_MAX_DESC_LIST_LEN  8192u
#define XCOPY_MAX_SEG_BYTES      (16u * 1024u * 1024u)
#define XCOPY_MAX_INLINE_LEN     0u
#define XCOPY_TOTAL_CONCURRENT   16u
#define XCOPY_MAX_IDENTIFIED     16u   /* of which with a list identifier */
#define XCOPY_HELD_PER_DEV       32u   /* completed 00b statuses kept per LU */

#define XCOPY_DESC_TYPE_B2B      0x02u
#define XCOPY_DESC_TYPE_IDENT    0xE4u

#endif
