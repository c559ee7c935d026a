/* fuzz_state_db.c — libFuzzer target for an array's metadata as a state
 * directory keeps it (DIR/arrays/NAME/meta.db, handlers/array/store_db.c)
 * and everything lunlab does with it on the way in: SQLite's parsing of the
 * file, the stamp, every row's checksum and values, the loading of blocks,
 * volumes and maps into a fresh array, and the consistency checks (blocks of
 * map entries, reference counts, the summary) — array_state_check, which is
 * what --check-state runs, after which a start would serve.
 *
 * Input: the bytes of meta.db.  blocks.dat is a sparse 64 MiB file of zeros,
 * so slots exist and their checksums are what fail.  The answer must be 0
 * with a one-line summary, or -1 with a one-line reason; never a crash, a
 * hang or a leak. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handlers/array/array_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void once(void)
{
	char p[128];
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/lunlab-fuzz-state.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(p, sizeof(p), "%s/blocks.dat", dir);
	fd = open(p, O_CREAT | O_RDWR, 0600);
	if (fd < 0 || ftruncate(fd, 64 << 20) < 0)
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char p[128], out[512], err[2048];
	int fd;

	if (!dir[0])
		once();
	snprintf(p, sizeof(p), "%s/meta.db-wal", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/meta.db-shm", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/meta.db", dir);
	fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	out[0] = err[0] = '\0';
	int rc = array_state_check(dir, out, sizeof(out), err, sizeof(err));
	const char *msg = rc == 0 ? out : err;
	if ((rc != 0 && rc != -1) || !msg[0] || strchr(msg, '\n'))
		abort(); /* an answer, on one line */
	return 0;
}
