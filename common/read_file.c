/* read_file.c — a whole small file into memory (include/lunlab/read_file.h). */
#include "lunlab/read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "1 MiB", "256 KiB" or "1000 bytes": the limit as the user would write it */
static void limit_text(size_t max, char *out, size_t cap)
{
	if (max && max % (1u << 20) == 0)
		snprintf(out, cap, "%zu MiB", max >> 20);
	else if (max && max % 1024 == 0)
		snprintf(out, cap, "%zu KiB", max >> 10);
	else
		snprintf(out, cap, "%zu bytes", max);
}

static char *refuse(int fd, char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	close(fd);
	return NULL;
}

char *ll_read_file(const char *path, const struct ll_read_rules *r, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	char why[160], lim[32];
	size_t want, got = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		return refuse(fd, err, errlen, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse(fd, err, errlen, path, "not a regular file");
	if (r->secret && st.st_uid != geteuid()) {
		snprintf(why, sizeof(why), "owned by uid %u, not by the user running lunlab-target (uid %u)",
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return refuse(fd, err, errlen, path, why);
	}
	if (r->secret && (st.st_mode & 077)) {
		snprintf(why, sizeof(why), "mode %04o lets group/others read %s; want 0600 or stricter (chmod 600 %s)",
			 (unsigned)(st.st_mode & 07777), r->holds ? r->holds : "it", path);
		return refuse(fd, err, errlen, path, why);
	}
	if (r->nonempty && st.st_size == 0)
		return refuse(fd, err, errlen, path, "empty");
	want = (size_t)st.st_size;
	if ((uint64_t)st.st_size > r->max) {
		if (!r->truncate) {
			limit_text(r->max, lim, sizeof(lim));
			snprintf(why, sizeof(why), "larger than %s", lim);
			return refuse(fd, err, errlen, path, why);
		}
		want = r->max;
	}
	buf = malloc(want + 1);
	if (!buf)
		return refuse(fd, err, errlen, path, "out of memory");
	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "%s: %s", path, n < 0 ? strerror(errno) : "changed while read");
			if (r->secret)
				explicit_bzero(buf, want + 1);
			free(buf);
			close(fd);
			return NULL;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}
