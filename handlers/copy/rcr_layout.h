/* rcr_layout.h — byte images of RECEIVE COPY RESULTS answers, shared by
 * rcr.c and the unit tests (which check them byte for byte). */
#ifndef LUNLAB_RCR_LAYOUT_H
#define LUNLAB_RCR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "handlers/copy/copy_registry.h"
#include "handlers/lunlab_dev.h"

#define RCR_COPY_STATUS_LEN 12u   /* SA 0: AVAILABLE DATA = 8 */
#define RCR_OP_PARAMS_LEN 46u     /* SA 3: 44 + 2 descriptor type codes; AVAILABLE DATA = 42 */
#define RCR_FAILED_HDR_LEN 60u    /* SA 4: sense data starts at byte 60 */

size_t rcr_copy_status_bytes(const struct copy_status *st, uint8_t out[RCR_COPY_STATUS_LEN]);
size_t rcr_op_params_bytes(const struct lunlab_dev *dev, uint8_t out[RCR_OP_PARAMS_LEN]);

/* log2 of a power-of-two block size (512 -> 9, 4096 -> 12) */
static inline uint8_t rcr_log2(uint32_t v)
{
	uint8_t n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

#endif
