/* state_dir.c — state directory layout and its lock (state_dir.h). */
#include "state/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p: every missing component, mode 0700 (the state holds the LUs' data) */
static int mkdirs(const char *path, char *err, size_t errlen)
{
	char buf[STATE_PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf)) {
		snprintf(err, errlen, "state directory path is empty or too long");
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];

		buf[i] = '\0';
		if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
			return -1;
		}
		buf[i] = c;
	}
	return 0;
}

int state_dir_lock(const char *dir, bool create, int *lock_fd, char *err, size_t errlen)
{
	char path[STATE_PATH_MAX];
	struct stat st;
	int fd;

	*lock_fd = -1;
	if (create && mkdirs(dir, err, errlen) < 0)
		return -1;
	if (stat(dir, &st) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		snprintf(err, errlen, "%s: not writable: %s", dir, strerror(errno));
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/lock", dir) >= (int)sizeof(path)) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char pid[32] = "";
		ssize_t r = pread(fd, pid, sizeof(pid) - 1, 0);

		if (r > 0) {
			pid[r] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
		}
		if (errno == EWOULDBLOCK)
			snprintf(err, errlen, "%s is in use by another process%s%s%s", dir, pid[0] ? " (pid " : "", pid,
				 pid[0] ? ")" : "");
		else
			snprintf(err, errlen, "%s: lock: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* the holder's pid, for the message another process gets */
	char me[32];
	int len = snprintf(me, sizeof(me), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, me, (size_t)len, 0) != len) {
		/* only a courtesy for the next process's message: not fatal */
	}
	*lock_fd = fd;
	return 0;
}

void state_dir_unlock(int lock_fd)
{
	if (lock_fd >= 0)
		close(lock_fd); /* closing the descriptor releases the flock */
}

static int safe_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int state_array_dir(const char *dir, const char *name, char *out, size_t outlen)
{
	size_t o;
	int n = snprintf(out, outlen, "%s/arrays/", dir);

	if (n < 0 || (size_t)n >= outlen)
		return -1;
	o = (size_t)n;
	for (size_t i = 0; name[i]; i++) {
		unsigned char c = (unsigned char)name[i];
		bool plain = safe_byte(c) && !(i == 0 && c == '-');

		if (o + (plain ? 1 : 3) >= outlen)
			return -1;
		if (plain) {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, 4, "%%%02X", c);
			o += 3;
		}
	}
	if (o == (size_t)n) /* an empty name */
		return -1;
	out[o] = '\0';
	return 0;
}

bool state_dir_has_state(const char *dir)
{
	char path[STATE_PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/target.db", dir) < (int)sizeof(path) && stat(path, &st) == 0)
		return true;
	return snprintf(path, sizeof(path), "%s/arrays", dir) < (int)sizeof(path) && stat(path, &st) == 0;
}
