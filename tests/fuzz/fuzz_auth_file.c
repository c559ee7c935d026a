/* fuzz_auth_file.c — libFuzzer target: any bytes as the access-control file
 * (--auth-file: chap/mutual/allow lines, target/iscsi/auth_file.c and the
 * checks of auth_config.c).
 *
 * Byte 0 is a mode byte, the rest is the file:
 *   bit 0 clear: auth_file_parse() on the bytes (the parser alone)
 *   bit 0 set:   auth_file_load() on a memfd holding the bytes, reached
 *                through /proc/self/fd/N, so the open/fstat/owner/mode/size
 *                checks and the read loop run too; bit 1 picks the mode:
 *                0600 (must be read) or 0640 (must be refused before a
 *                single line is parsed)
 * Checks beyond "no crash/UB/leak":
 *   - an error is one NUL-terminated line (no newline) that names the file;
 *   - a success leaves a configuration the rest of the target may rely on:
 *     user names 1..255 printable bytes, secrets 12..255 bytes, no two users
 *     with one name, a mutual secret unlike every user's, every allowed
 *     name passing auth_check_iqn(), and the lookups finding what is there;
 *   - the parser never keeps more entries than the limits allow. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/iscsi/auth_config.h"
#include "target/iscsi/auth_file.h"

#define NAME "fuzz-auth"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what)
{
	fprintf(stderr, "fuzz-auth-file: %s\n", what);
	abort();
}

static void check_user(const struct auth_user *u)
{
	size_t nl = strnlen(u->name, sizeof(u->name));

	if (nl == 0 || nl > CHAP_NAME_MAX)
		die("accepted a user name outside 1..255 bytes");
	for (size_t i = 0; i < nl; i++)
		if ((unsigned char)u->name[i] <= ' ' || (unsigned char)u->name[i] >= 0x7f)
			die("accepted a user name with a space or control character");
	if (u->secret_len < CHAP_SECRET_MIN || u->secret_len > CHAP_SECRET_MAX)
		die("accepted a secret outside 12..255 bytes");
}

static void check_config(const struct auth_config *cfg)
{
	if (cfg->nusers < 0 || cfg->nusers > AUTH_MAX_USERS || cfg->nallow < 0 ||
	    cfg->nallow > AUTH_MAX_ALLOW)
		die("entry count outside the limits");
	for (int i = 0; i < cfg->nusers; i++) {
		const struct auth_user *u = &cfg->users[i];
		check_user(u);
		if (auth_config_find_user(cfg, u->name) != u)
			die("a user name defined twice, or not found by auth_config_find_user");
		if (cfg->has_mutual && cfg->mutual.secret_len == u->secret_len &&
		    memcmp(cfg->mutual.secret, u->secret, u->secret_len) == 0)
			die("the mutual secret equals a user's secret");
	}
	if (cfg->has_mutual) {
		check_user(&cfg->mutual);
		if (cfg->nusers == 0)
			die("accepted 'mutual' without any 'chap' user");
	}
	if (auth_config_requires_chap(cfg) != (cfg->nusers > 0))
		die("auth_config_requires_chap disagrees with the user count");
	for (int i = 0; i < cfg->nallow; i++) {
		if (auth_check_iqn(cfg->allow[i]))
			die("accepted an allow entry auth_check_iqn refuses");
		if (!auth_config_allows(cfg, cfg->allow[i]))
			die("an allowed initiator is refused");
	}
}

static void check_error(const char *err, const char *name)
{
	size_t n = strnlen(err, 1024);

	if (n == 0 || n == 1024)
		die("failure without a (NUL-terminated) message");
	if (memchr(err, '\n', n))
		die("error message spans lines");
	if (strncmp(err, name, strlen(name)) != 0)
		die("error message does not start with the file name");
}

/* the file through auth_file_load: a memfd with the given mode */
static int load_via_memfd(const uint8_t *text, size_t len, mode_t mode, struct auth_config *cfg,
			  char *err, size_t errlen, char *path, size_t pathlen)
{
	int fd = memfd_create(NAME, MFD_CLOEXEC);
	size_t off = 0;
	int rc;

	if (fd < 0)
		die("memfd_create failed");
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w <= 0)
			die("write to the memfd failed");
		off += (size_t)w;
	}
	if (fchmod(fd, mode) < 0)
		die("fchmod on the memfd failed");
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	rc = auth_file_load(path, cfg, err, errlen);
	close(fd);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct auth_config cfg;
	char err[1024], path[64];
	int rc;

	if (size < 1 || size > 64 * 1024)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	memset(err, 0, sizeof(err));
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	if (data[0] & 1) {
		mode_t mode = (data[0] & 2) ? 0640 : 0600;
		rc = load_via_memfd((const uint8_t *)text, len, mode, &cfg, err, sizeof(err), path,
				    sizeof(path));
		if (mode == 0640) {
			if (rc == 0 || cfg.nusers || cfg.nallow || cfg.has_mutual)
				die("a group-readable file was parsed");
			if (!strstr(err, "mode 0640"))
				die("refusal of a group-readable file does not name its mode");
		}
		if (rc == 0)
			check_config(&cfg);
		else
			check_error(err, path);
	} else {
		/* an exact-size heap copy: a read past the end is an ASan report */
		char *copy = malloc(len ? len : 1);
		if (!copy)
			die("out of memory");
		memcpy(copy, text, len);
		rc = auth_file_parse(copy, len, NAME, &cfg, err, sizeof(err));
		free(copy);
		if (rc == 0)
			check_config(&cfg);
		else if (rc == -1)
			check_error(err, NAME);
		else
			die("auth_file_parse returned neither 0 nor -1");
	}
	auth_config_free(&cfg);
	return 0;
}
