/* buf.c — moving bytes between flat buffers and a command's iovec.  The
 * host's iovec may be shorter than what the CDB describes (the initiator's
 * expected transfer length wins); every copy stops at the shorter side. */
#include <string.h>

#include "handlers/scsi/scsi.h"

size_t scsi_datain(struct scsi_cmd *cmd, const void *src, size_t len)
{
	const uint8_t *s = src;
	size_t done = 0;

	for (size_t i = 0; i < cmd->iov_cnt && done < len; i++) {
		size_t n = cmd->iov[i].iov_len;
		if (n > len - done)
			n = len - done;
		memcpy(cmd->iov[i].iov_base, s + done, n);
		done += n;
	}
	return done;
}

size_t scsi_dataout_at(struct scsi_cmd *cmd, size_t off, void *dst, size_t len)
{
	uint8_t *d = dst;
	size_t done = 0;

	for (size_t i = 0; i < cmd->iov_cnt && done < len; i++) {
		size_t n = cmd->iov[i].iov_len;
		if (off >= n) {
			off -= n;
			continue;
		}
		const uint8_t *base = (const uint8_t *)cmd->iov[i].iov_base + off;
		n -= off;
		off = 0;
		if (n > len - done)
			n = len - done;
		memcpy(d + done, base, n);
		done += n;
	}
	return done;
}

size_t scsi_dataout(struct scsi_cmd *cmd, void *dst, size_t len)
{
	return scsi_dataout_at(cmd, 0, dst, len);
}
