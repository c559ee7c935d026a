/* cost_req.c — what one finished command tells the cost model (models/cost.h,
 * docs/models.md "For callers").  Kept out of handler.c so the unit tests
 * check exactly what the handler charges.
 *   bytes        wire bytes: data-in or data-out the command transferred,
 *                parameter lists included (UNMAP, MODE SELECT);
 *   xcopy_bytes  logical bytes the command covers without moving them as
 *                data: EXTENDED COPY segments, the range of WRITE SAME and
 *                UNMAP (the model turns it into map entries to update), and
 *                the range VERIFY checks on the medium (its back-end read);
 *   xcopy_segments  segments an EXTENDED COPY processed. */
#include "handlers/scsi/scsi.h"

void scsi_cost_req(const struct scsi_cmd *cmd, enum cost_kind kind, struct cost_req *out)
{
	*out = (struct cost_req){
		.kind = kind,
		.bytes = cmd->bytes_moved,
		.xcopy_bytes = cmd->xcopy_bytes,
		.xcopy_segments = cmd->xcopy_segments,
	};
}
