/* iovec.c — libtcmu's iovec helpers.  Semantics follow tcmu-runner 1.5.4:
 * the memcpy helpers and tcmu_iovec_seek CONSUME the iovec (advance
 * iov_base, shrink iov_len), so a handler can copy a command's data in
 * pieces; they truncate instead of overrunning. */
#include <string.h>

#include "target/tcmu/host_priv.h"

size_t tcmu_iovec_length(struct iovec *iovec, size_t iov_cnt)
{
	size_t len = 0;

	for (size_t i = 0; i < iov_cnt; i++)
		len += iovec[i].iov_len;
	return len;
}

size_t tcmu_memcpy_into_iovec(struct iovec *iovec, size_t iov_cnt, void *src, size_t len)
{
	const char *s = src;
	size_t done = 0;

	for (size_t i = 0; i < iov_cnt && done < len; i++) {
		size_t n = iovec[i].iov_len < len - done ? iovec[i].iov_len : len - done;

		if (!n)
			continue;
		memcpy(iovec[i].iov_base, s + done, n);
		iovec[i].iov_base = (char *)iovec[i].iov_base + n;
		iovec[i].iov_len -= n;
		done += n;
	}
	return done;
}

size_t tcmu_memcpy_from_iovec(void *dest, size_t len, struct iovec *iovec, size_t iov_cnt)
{
	char *d = dest;
	size_t done = 0;

	for (size_t i = 0; i < iov_cnt && done < len; i++) {
		size_t n = iovec[i].iov_len < len - done ? iovec[i].iov_len : len - done;

		if (!n)
			continue;
		memcpy(d + done, iovec[i].iov_base, n);
		iovec[i].iov_base = (char *)iovec[i].iov_base + n;
		iovec[i].iov_len -= n;
		done += n;
	}
	return done;
}

/* Offset of the first byte where mem and the iovec differ, -1 if the first
 * size bytes are equal.  The iovec is not consumed; empty entries (e.g.
 * already consumed ones) are skipped.  As upstream, the caller guarantees
 * the iovec holds at least size bytes (there is no count to check). */
off_t tcmu_iovec_compare(void *mem, struct iovec *iovec, size_t size)
{
	const unsigned char *m = mem;
	size_t off = 0;

	for (size_t i = 0; off < size; i++) {
		size_t n = iovec[i].iov_len < size - off ? iovec[i].iov_len : size - off;
		const unsigned char *v = iovec[i].iov_base;

		if (n && memcmp(m + off, v, n) != 0) {
			size_t k = 0;

			while (m[off + k] == v[k])
				k++;
			return (off_t)(off + k);
		}
		off += n;
	}
	return -1;
}

/* Consume count bytes; returns how many entries were emptied (and skipped:
 * tcmu_cmd_seek subtracts it from iov_cnt).  Count must not exceed the
 * iovec's total size, as upstream requires. */
size_t tcmu_iovec_seek(struct iovec *iovec, size_t count)
{
	size_t emptied = 0;

	while (count) {
		if (count >= iovec->iov_len) {
			count -= iovec->iov_len;
			iovec->iov_len = 0;
			iovec++;
			emptied++;
		} else {
			iovec->iov_base = (char *)iovec->iov_base + count;
			iovec->iov_len -= count;
			count = 0;
		}
	}
	return emptied;
}

void tcmu_cmd_seek(struct tcmulib_cmd *cmd, size_t count)
{
	size_t emptied = tcmu_iovec_seek(cmd->iovec, count);

	/* upstream leaves cmd->iovec pointing at the emptied entries; only the
	 * count shrinks */
	cmd->iov_cnt -= emptied;
}

void tcmu_iovec_zero(struct iovec *iovec, size_t iov_cnt)
{
	for (size_t i = 0; i < iov_cnt; i++)
		memset(iovec[i].iov_base, 0, iovec[i].iov_len);
}

bool tcmu_iovec_zeroed(struct iovec *iovec, size_t iov_cnt)
{
	for (size_t i = 0; i < iov_cnt; i++) {
		const unsigned char *p = iovec[i].iov_base;

		for (size_t k = 0; k < iovec[i].iov_len; k++)
			if (p[k])
				return false;
	}
	return true;
}
