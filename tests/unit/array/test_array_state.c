/* test_array_state.c — handlers/array/array_state.c: an array kept in a
 * state directory comes back after a close and after a crash (SIGKILL of a
 * child process) with the same volumes, data, reference counts and figures;
 * what was synchronised survives, what was not is either wholly there or
 * wholly absent per command; a freed block's slot is not reused before the
 * free is durable; another profile or parameters are refused; damaged
 * metadata, a cut slot file and a flipped payload byte are found (the last
 * never served: -EIO); --check-state's walk agrees; snapshots and deletions
 * killed at random moments are all there or not at all; slots naming
 * shared chunks as runs rows, a shrink through them, and a state written
 * with them as chunks rows (before the runs table) opening as it was. */
#include "array_test_db.h"
#include "array_test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "handlers/array/array_state.h"
#include "handlers/array/store_db.h"
#include "handlers/array/volume_names.h"
#include "handlers/array/array_internal.h"

#define B 16384u
#define VOL (64u << 20)

static const struct array_params x2 = { .dedup_block = B, .zlib_level = 1, .zlib_window_bits = 14, .alloc_unit = 512 };

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/lunlab-array-state.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct array *open_array(const char *name, const char *profile)
{
	char *err = NULL;
	struct array *a = array_get_state(name, &x2, dir, profile, &err);

	if (!a)
		fail_msg("array_get_state: %s", err ? err : "?");
	assert_true(array_persistent(a));
	return a;
}

static struct volume *open_vol(struct array *a, const char *key, uint64_t size)
{
	char *err = NULL;
	struct volume *v = array_volume_open(a, key, size, 512, &err);

	if (!v)
		fail_msg("array_volume_open: %s", err ? err : "?");
	return v;
}

/* block i of a volume's test data: distinct per (seed, i) */
static void pattern(uint8_t *buf, uint32_t seed, uint32_t i)
{
	uint64_t s = (uint64_t)seed << 32 | i;

	fill_random(buf, B, &s);
}

static void test_survives_close(void **state)
{
	struct array *a = open_array("a1", "x2");
	struct volume *v = open_vol(a, "lu:one", VOL), *w = open_vol(a, "lu:two", VOL);
	uint8_t *buf = malloc(B), *back = malloc(B);
	struct array_stats s1, s2;
	uint64_t moved;

	(void)state;
	for (uint32_t i = 0; i < 64; i++) {
		pattern(buf, 1, i);
		assert_int_equal(wr(v, (uint64_t)i * B, buf, B), 0);
	}
	pattern(buf, 1, 5);
	assert_int_equal(wr(v, 100 * B, buf, B), 0); /* a duplicate: 2 references */
	assert_int_equal(volume_copy(w, 0, v, 0, 32 * B, &moved), 0); /* metadata copy */
	assert_int_equal(moved, 32);
	assert_int_equal(volume_unmap(v, 60 * B, 4 * B), 0);
	assert_int_equal(array_volume_set_flags(v, STORE_VOL_WCE_OFF, STORE_VOL_WCE_OFF), 0);
	array_flush_accounting(a);
	array_get_stats(a, &s1);
	array_volume_close(v);
	array_volume_close(w);
	array_put(a);

	a = open_array("a1", "x2");
	v = open_vol(a, "lu:one", VOL);
	w = open_vol(a, "lu:two", VOL);
	assert_int_equal(array_volume_flags(v), STORE_VOL_WCE_OFF);
	assert_int_equal(array_volume_flags(w), 0);
	for (uint32_t i = 0; i < 64; i++) {
		pattern(buf, 1, i);
		if (i >= 60)
			memset(buf, 0, B);
		assert_int_equal(rd(v, (uint64_t)i * B, back, B), 0);
		assert_memory_equal(back, buf, B);
		if (i < 32) {
			pattern(buf, 1, i);
			assert_int_equal(rd(w, (uint64_t)i * B, back, B), 0);
			assert_memory_equal(back, buf, B);
		}
	}
	pattern(buf, 1, 5);
	assert_int_equal(rd(v, 100 * B, back, B), 0);
	assert_memory_equal(back, buf, B);
	array_flush_accounting(a);
	array_get_stats(a, &s2);
	assert_int_equal(s2.unique_blocks, s1.unique_blocks);
	assert_int_equal(s2.unique_blocks, 60);
	assert_int_equal(s2.mapped_blocks, s1.mapped_blocks);
	assert_int_equal(s2.mapped_blocks, 60 + 1 + 32);
	assert_int_equal(s2.physical_bytes, s1.physical_bytes);
	assert_int_equal(s2.compressed_bytes, s1.compressed_bytes);
	assert_int_equal(s2.single_ref_blocks, s1.single_ref_blocks);
	array_volume_close(v);
	array_volume_close(w);
	array_put(a);

	char out[512], err[512], adir[512];
	snprintf(adir, sizeof(adir), "%s/arrays/a1", dir);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	if (!strstr(out, "2 volume(s) (0 named, 2 a LU's own), 93 map entries, 60 block(s)"))
		fail_msg("%s", out);
	free(buf);
	free(back);
}

static void test_refusals(void **state)
{
	struct array *a = open_array("a2", "x2");
	struct volume *v = open_vol(a, "lu:r", VOL);
	char *err = NULL;
	struct array_params other = x2;

	(void)state;
	/* the same key twice at once, another block size, a smaller size */
	assert_null(array_volume_open(a, "lu:r", VOL, 512, &err));
	assert_non_null(strstr(err, "already in use"));
	free(err);
	array_volume_close(v);
	assert_null(array_volume_open(a, "lu:r", VOL, 4096, &err));
	assert_non_null(strstr(err, "has 512-byte blocks, this LU asks for 4096"));
	free(err);
	assert_null(array_volume_open(a, "lu:r", VOL / 2, 512, &err));
	assert_non_null(strstr(err, "shrinking would drop data"));
	free(err);
	v = open_vol(a, "lu:r", 2ull * VOL); /* growing is fine */
	assert_int_equal(volume_size(v), 2ull * VOL);
	array_volume_close(v);
	/* a LU of the open array naming no state directory */
	assert_null(array_get("a2", &x2, &err));
	assert_non_null(strstr(err, "is kept in state directory"));
	free(err);
	array_put(a);
	/* another profile, other parameters */
	assert_null(array_get_state("a2", &x2, dir, "x1", &err));
	assert_non_null(strstr(err, "written for profile x2, this one has profile x1"));
	free(err);
	other.dedup_block = 8192;
	assert_null(array_get_state("a2", &other, dir, "x2", &err));
	assert_non_null(strstr(err, "written for dedup_block 16384, this one has dedup_block 8192"));
	free(err);
	/* and the state is as it was */
	a = open_array("a2", "x2");
	v = open_vol(a, "lu:r", 2ull * VOL);
	array_volume_close(v);
	array_put(a);
}

/* In a child: write committed data, sync, then more without sync, and die
 * by SIGKILL mid-way.  Every synced block must read back; every unsynced one
 * must be the old or the new content, never anything else. */
static void test_crash(void **state)
{
	uint8_t *buf = malloc(B), *back = malloc(B), *old = malloc(B);
	int ws;

	(void)state;
	for (int round = 0; round < 6; round++) {
		pid_t p = fork();

		if (p == 0) {
			struct array *a = open_array("a3", "x2");
			struct volume *v = open_vol(a, "lu:c", VOL);

			for (uint32_t i = 0; i < 128; i++) {
				pattern(buf, (uint32_t)round * 2 + 10, i);
				if (wr(v, (uint64_t)i * B, buf, B))
					_exit(1);
			}
			if (array_sync(a))
				_exit(2);
			/* unsynced: rewrites, frees (the slots of the synced
			 * blocks must not be reused for these), an EXTENDED COPY */
			for (uint32_t i = 0; i < 128; i++) {
				pattern(buf, (uint32_t)round * 2 + 11, i);
				if (wr(v, (uint64_t)i * B, buf, B))
					_exit(3);
				if (i == 64u + (uint32_t)round * 8)
					kill(getpid(), SIGKILL);
			}
			_exit(4);
		}
		assert_int_equal(waitpid(p, &ws, 0), p);
		assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);

		struct array *a = open_array("a3", "x2");
		struct volume *v = open_vol(a, "lu:c", VOL);
		for (uint32_t i = 0; i < 128; i++) {
			assert_int_equal(rd(v, (uint64_t)i * B, back, B), 0);
			pattern(old, (uint32_t)round * 2 + 10, i);
			pattern(buf, (uint32_t)round * 2 + 11, i);
			if (memcmp(back, old, B) && memcmp(back, buf, B))
				fail_msg("round %d block %u: neither what was synced nor what was written after", round, i);
		}
		array_volume_close(v);
		array_put(a);
		char out[512], err[512], adir[512];
		snprintf(adir, sizeof(adir), "%s/arrays/a3", dir);
		if (array_state_check(adir, out, sizeof(out), err, sizeof(err)) != 0)
			fail_msg("check after crash %d: %s", round, err);
	}
	free(buf);
	free(back);
	free(old);
}

static void flip_byte(const char *path, off_t off)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= 0x20;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

/* the highest block id the state records */
static uint32_t some_block(const char *adir)
{
	char path[600];
	uint32_t id;

	snprintf(path, sizeof(path), "%s/meta.db", adir);
	id = (uint32_t)db_count(path, "SELECT max(id) FROM blocks");
	assert_true(id > 0);
	return id;
}

static void test_damage(void **state)
{
	struct array *a = open_array("a4", "x2");
	struct volume *v = open_vol(a, "lu:d", VOL);
	uint8_t *buf = malloc(B), *back = malloc(B);
	char path[600], adir[512], out[512], err[512], *e = NULL;

	(void)state;
	for (uint32_t i = 0; i < 8; i++) {
		pattern(buf, 7, i);
		assert_int_equal(wr(v, (uint64_t)i * B, buf, B), 0);
	}
	array_volume_close(v);
	array_put(a);
	snprintf(adir, sizeof(adir), "%s/arrays/a4", dir);
	snprintf(path, sizeof(path), "%s/blocks.dat", adir);

	/* one flipped payload byte: the state opens, that block's reads fail,
	 * the others read, and --check-state names the block */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	uint32_t victim = some_block(adir);
	flip_byte(path, (off_t)victim * B + 100);
	a = open_array("a4", "x2");
	v = open_vol(a, "lu:d", VOL);
	int bad = 0;
	for (uint32_t i = 0; i < 8; i++) {
		int r = rd(v, (uint64_t)i * B, back, B);
		if (r == -EIO) {
			bad++;
			continue;
		}
		assert_int_equal(r, 0);
		pattern(buf, 7, i);
		assert_memory_equal(back, buf, B);
	}
	assert_int_equal(bad, 1);
	array_volume_close(v);
	array_put(a);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), -1);
	char want[64];
	snprintf(want, sizeof(want), "block %u's data fails its checksum", victim);
	assert_non_null(strstr(err, want));
	flip_byte(path, (off_t)victim * B + 100);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);

	/* the slot file cut short: refused at open, named */
	assert_int_equal(truncate(path, (off_t)victim * B), 0);
	assert_null(array_get_state("a4", &x2, dir, "x2", &e));
	assert_non_null(strstr(e, "the file was cut"));
	free(e);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the file was cut"));
	assert_int_equal(truncate(path, st.st_size), 0); /* zeros: the checksums say no */
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "data fails its checksum"));

	/* a map entry changed behind its row's checksum */
	snprintf(path, sizeof(path), "%s/meta.db", adir);
	db_exec(path, "UPDATE chunks SET ids = zeroblob(1024) || X'' WHERE 0;"
		      "UPDATE chunks SET ids = substr(ids, 1, 4) || X'07000000' || substr(ids, 9)");
	assert_null(array_get_state("a4", &x2, dir, "x2", &e));
	assert_non_null(strstr(e, "fails its checksum (the file is damaged)"));
	free(e);
	free(buf);
	free(back);
}

/* named volumes, a read-only snapshot and a deletion survive a restart;
 * the restored array claims the same physical space */
static void test_named_and_snapshots(void **state)
{
	struct array *a = open_array("a5", "x2");
	struct volume *v, *snap;
	uint8_t *buf = malloc(B), *back = malloc(B);
	uint64_t entries;
	char *err = NULL;
	struct array_space sp1, sp2;

	(void)state;
	assert_int_equal(volume_attach(a, "data", VOL, 512, &v, &err), 0);
	for (uint32_t i = 0; i < 16; i++) {
		pattern(buf, 21, i);
		assert_int_equal(wr(v, (uint64_t)i * B, buf, B), 0);
	}
	const char *src[] = { "data" }, *dst[] = { "data-snap" }, *dst2[] = { "gone" };
	assert_int_equal(array_snapshot(a, src, dst, 1, true, &entries, &err), 0);
	assert_int_equal(entries, 16);
	assert_int_equal(array_snapshot(a, src, dst2, 1, false, &entries, &err), 0);
	assert_int_equal(array_volume_delete(a, "gone", &err), 0);
	/* the source moves on; the snapshot keeps the moment */
	pattern(buf, 22, 0);
	assert_int_equal(wr(v, 0, buf, B), 0);
	volume_release(v);
	array_flush_accounting(a);
	array_get_space(a, &sp1);
	array_cmd_begin(a); /* inside a command's bracket: refused, not a hang */
	assert_int_equal(array_sync(a), -EDEADLK);
	array_cmd_end(a);
	assert_int_equal(array_sync(a), 0);
	array_drop_named_volumes(); /* a host's shutdown: the state keeps them */
	array_put(a);
	assert_int_equal(array_registry_count(), 0);

	a = open_array("a5", "x2");
	struct volume_info vi[4];
	uint64_t prov;
	int n = array_volumes_info(a, vi, 4, &prov);
	assert_int_equal(n, 2);
	assert_int_equal(prov, 2ull * VOL);
	bool saw_snap = false;
	for (int i = 0; i < n; i++)
		if (!strcmp(vi[i].name, "data-snap")) {
			saw_snap = true;
			assert_true(vi[i].readonly);
			assert_string_equal(vi[i].snapshot_of, "data");
		}
	assert_true(saw_snap);
	assert_int_equal(volume_attach(a, "data-snap", VOL, 512, &snap, &err), 0);
	assert_true(volume_is_readonly(snap));
	pattern(buf, 21, 0);
	assert_int_equal(rd(snap, 0, back, B), 0);
	assert_memory_equal(back, buf, B);
	assert_int_equal(volume_attach(a, "data", VOL, 512, &v, &err), 0);
	pattern(buf, 22, 0);
	assert_int_equal(rd(v, 0, back, B), 0);
	assert_memory_equal(back, buf, B);
	array_flush_accounting(a);
	array_get_space(a, &sp2);
	assert_int_equal(sp2.used_bytes, sp1.used_bytes);
	assert_int_equal(array_volume_delete(a, "nope", &err), -ENOENT);
	free(err);
	volume_release(v);
	volume_release(snap);
	array_drop_named_volumes();
	array_put(a);
	free(buf);
	free(back);
}

/* Snapshots and deletions across a crash: a child writes generation g to
 * every block of "src", snapshots it as s-g, deletes s-(g-2) for odd g,
 * syncs every third generation (telling the parent through a pipe) and is
 * killed by a thread of its own at a random moment, maybe inside a snapshot
 * or a commit.  After each restart: every snapshot that exists holds exactly
 * its generation (a snapshot is all or nothing), every one the last sync
 * covered is there, every deletion it covered has happened, the source holds
 * that generation or a later one, and the offline check agrees. */
#define SNAP_BLOCKS 16u
#define SNAP_MAX 600u

static void *killer(void *arg)
{
	struct timespec ts = { 0, (long)(uintptr_t)arg * 1000000L };

	nanosleep(&ts, NULL);
	kill(getpid(), SIGKILL);
	return NULL;
}

/* Every volume of an array, however many there are: a fast machine gets
 * through more generations before the kill than a slow one, and the
 * snapshots kept pile up over the rounds. */
static struct volume_info *all_volumes(struct array *a, int *n, uint64_t *prov)
{
	int want = array_volumes_info(a, NULL, 0, prov);
	struct volume_info *vi = calloc((size_t)want + 1, sizeof(*vi));

	*n = vi ? array_volumes_info(a, vi, want, prov) : -1;
	if (*n != want)
		*n = -1;
	return vi;
}

static void snap_child(int fd, unsigned round)
{
	struct array *a = open_array("a6", "x2");
	struct volume *v;
	uint8_t *buf = malloc(B);
	char *err = NULL, name[32];
	uint64_t entries;
	pthread_t th;

	if (volume_attach(a, "src", (uint64_t)SNAP_BLOCKS * B, 512, &v, &err))
		_exit(10);
	/* 5 .. 160 ms: early kills land in the first commits, late ones after many */
	if (pthread_create(&th, NULL, killer, (void *)(uintptr_t)(5 + (round * 37 + (unsigned)getpid()) % 156)))
		_exit(11);
	/* the generation to start from: one past the last one a snapshot has */
	unsigned g0 = 1;
	int n;
	struct volume_info *vi = all_volumes(a, &n, &entries);
	if (n < 0)
		_exit(17);
	for (int i = 0; i < n; i++) {
		unsigned k;
		if (sscanf(vi[i].name, "s-%u", &k) == 1 && k >= g0)
			g0 = k + 1;
	}
	free(vi);
	for (unsigned g = g0; g < g0 + SNAP_MAX / 2; g++) {
		for (uint32_t i = 0; i < SNAP_BLOCKS; i++) {
			pattern(buf, 1000 + g, i);
			if (wr(v, (uint64_t)i * B, buf, B))
				_exit(12);
		}
		snprintf(name, sizeof(name), "s-%u", g);
		const char *src[] = { "src" }, *dst[] = { name };
		if (array_snapshot(a, src, dst, 1, true, &entries, &err))
			_exit(13);
		if (g % 2 && g >= g0 + 2) {
			snprintf(name, sizeof(name), "s-%u", g - 2);
			if (array_volume_delete(a, name, &err))
				_exit(14);
		}
		if (g % 3 == 0) {
			if (array_sync(a))
				_exit(15);
			if (write(fd, &g, sizeof(g)) != (ssize_t)sizeof(g))
				_exit(16);
		}
	}
	_exit(0);
}

static void test_snapshot_crash(void **state)
{
	uint8_t *buf = malloc(B), *back = malloc(B);
	char *err = NULL;
	unsigned g0 = 1;

	(void)state;
	for (unsigned round = 0; round < 5; round++) {
		int pfd[2], ws;
		unsigned synced = 0, g;

		assert_int_equal(pipe(pfd), 0);
		pid_t p = fork();
		if (p == 0) {
			close(pfd[0]);
			snap_child(pfd[1], round);
		}
		close(pfd[1]);
		while (read(pfd[0], &g, sizeof(g)) == (ssize_t)sizeof(g))
			synced = g;
		close(pfd[0]);
		assert_int_equal(waitpid(p, &ws, 0), p);
		assert_true((WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL) || (WIFEXITED(ws) && WEXITSTATUS(ws) == 0));

		struct array *a = open_array("a6", "x2");
		uint64_t prov;
		int n;
		struct volume_info *vi = all_volumes(a, &n, &prov);
		/* a kill before the first commit leaves no volume at all */
		assert_true(n >= 0);
		if (synced)
			assert_true(n >= 1);
		bool have[SNAP_MAX * 8] = { false };
		for (int i = 0; i < n; i++) {
			unsigned k;
			struct volume *s;

			if (sscanf(vi[i].name, "s-%u", &k) != 1)
				continue;
			assert_true(k < SNAP_MAX * 8);
			have[k] = true;
			assert_int_equal(volume_attach(a, vi[i].name, (uint64_t)SNAP_BLOCKS * B, 512, &s, &err), 0);
			for (uint32_t b = 0; b < SNAP_BLOCKS; b++) {
				assert_int_equal(rd(s, (uint64_t)b * B, back, B), 0);
				pattern(buf, 1000 + k, b);
				if (memcmp(back, buf, B))
					fail_msg("round %u: snapshot s-%u block %u is not generation %u", round, k, b, k);
			}
			volume_release(s);
		}
		/* what the last sync covered: snapshots made in this round up to
		 * it, deletions of the odd ones two generations before it */
		for (unsigned k = g0; synced && k <= synced; k++) {
			bool deleted = k % 2 && k >= g0 && k + 2 <= synced;
			bool maybe = k % 2 && k + 2 > synced; /* its deletion came after the sync */
			if (deleted && have[k])
				fail_msg("round %u: s-%u was deleted before the sync at %u but is back", round, k, synced);
			if (!deleted && !maybe && !have[k])
				fail_msg("round %u: s-%u was synced at %u but is missing", round, k, synced);
		}
		struct volume *v;
		assert_int_equal(volume_attach(a, "src", (uint64_t)SNAP_BLOCKS * B, 512, &v, &err), 0);
		for (uint32_t b = 0; synced && b < SNAP_BLOCKS; b++) {
			bool ok = false;
			assert_int_equal(rd(v, (uint64_t)b * B, back, B), 0);
			for (unsigned k = synced; k < synced + SNAP_MAX && !ok; k++) {
				pattern(buf, 1000 + k, b);
				ok = !memcmp(back, buf, B);
			}
			if (!ok)
				fail_msg("round %u: src block %u is older than the sync at %u", round, b, synced);
		}
		volume_release(v);
		/* the next round starts after the highest snapshot there is */
		for (unsigned k = 0; k < SNAP_MAX * 8; k++)
			if (have[k] && k >= g0)
				g0 = k + 1;
		free(vi);
		array_drop_named_volumes();
		array_put(a);
		char out[512], cerr[512], adir[512];
		snprintf(adir, sizeof(adir), "%s/arrays/a6", dir);
		if (array_state_check(adir, out, sizeof(out), cerr, sizeof(cerr)) != 0)
			fail_msg("check after round %u: %s", round, cerr);
	}
	free(err);
	free(buf);
	free(back);
}

/* A persistent array commits at command granularity: no block is stored
 * for a WRITE before it runs (volume_early.c), and a write still works. */
static void test_no_early_store(void **state)
{
	(void)state;
	struct array *a = open_array("a9", "x2");
	struct volume *v = open_vol(a, "lu:early", VOL);
	uint8_t *buf = malloc(2u << 20);

	assert_null(vio_early_new(v, 0, 2u << 20));
	for (uint32_t i = 0; i < (2u << 20) / B; i++)
		pattern(buf + (size_t)i * B, 9, i);
	struct iovec io = { buf, 2u << 20 };
	assert_int_equal(volume_write_early(v, 0, 2u << 20, &io, 1, NULL), 0);
	uint8_t *back = malloc(2u << 20);
	struct iovec bio = { back, 2u << 20 };
	assert_int_equal(volume_read(v, 0, 2u << 20, &bio, 1), 0);
	assert_memory_equal(back, buf, 2u << 20);
	array_volume_close(v);
	array_put(a);
	free(buf);
	free(back);
}

/* Shared map chunks (volume_map.c) are recorded once and named by every
 * slot holding them: after a close the clones share the same chunks again,
 * with the same holders, data, reference counts and figures, and
 * --check-state agrees.  Copies, a copy of a copy, a write and an UNMAP
 * through shared chunks, before and after a commit. */
static void test_shared_chunks_survive_close(void **state)
{
	const uint64_t CH = 256; /* blocks per map chunk */
	struct array *a = open_array("a9", "x2");
	struct volume *t = open_vol(a, "lu:t", VOL), *c1 = open_vol(a, "lu:c1", VOL), *c2 = open_vol(a, "lu:c2", VOL),
		      *c3 = open_vol(a, "lu:c3", VOL);
	uint8_t *buf = malloc(B), *back = malloc(B), *n1 = malloc(B), *n2 = malloc(B);
	struct array_stats s1, s2;
	uint64_t moved;

	(void)state;
	pattern(n1, 99, 1);
	pattern(n2, 99, 2);
	for (uint32_t i = 0; i < 2 * CH; i++) {
		pattern(buf, 9, i);
		assert_int_equal(wr(t, (uint64_t)i * B, buf, B), 0);
	}
	assert_int_equal(volume_copy(c1, 0, t, 0, 2 * CH * B, &moved), 0);
	assert_int_equal(volume_copy(c2, CH * B, c1, 0, 2 * CH * B, &moved), 0);
	assert_int_equal(volume_copy(c3, 0, t, 0, 2 * CH * B, &moved), 0);
	assert_int_equal(array_sync(a), 0);
	assert_int_equal(wr(c1, 5 * B, n1, B), 0);
	assert_int_equal(volume_unmap(c3, 0, CH * B), 0);
	assert_int_equal(wr(c2, 300 * B, n2, B), 0);
	assert_int_equal(array_sync(a), 0);
	assert_int_equal(volume_copy(c3, 3 * CH * B, t, 0, 2 * CH * B, &moved), 0);
	assert_int_equal(map_chunk_at(t, 1)->shares, 5);
	array_flush_accounting(a);
	array_get_stats(a, &s1);
	array_volume_close(t);
	array_volume_close(c1);
	array_volume_close(c2);
	array_volume_close(c3);
	array_put(a);

	a = open_array("a9", "x2");
	t = open_vol(a, "lu:t", VOL);
	c1 = open_vol(a, "lu:c1", VOL);
	c2 = open_vol(a, "lu:c2", VOL);
	c3 = open_vol(a, "lu:c3", VOL);
	/* the same chunk, held by the same slots */
	assert_ptr_equal(map_chunk_at(c1, 1), map_chunk_at(t, 1));
	assert_ptr_equal(map_chunk_at(c2, 2), map_chunk_at(t, 1));
	assert_ptr_equal(map_chunk_at(c3, 1), map_chunk_at(t, 1));
	assert_ptr_equal(map_chunk_at(c3, 4), map_chunk_at(t, 1));
	assert_ptr_equal(map_chunk_at(c3, 3), map_chunk_at(t, 0));
	assert_int_equal(map_chunk_at(t, 1)->shares, 5);
	assert_int_equal(map_chunk_at(t, 0)->shares, 2);
	assert_int_equal(map_chunk_at(c1, 0)->shares, 1);
	assert_null(map_chunk_at(c3, 0));
	for (uint32_t i = 0; i < 2 * CH; i++) {
		pattern(buf, 9, i);
		assert_int_equal(rd(t, (uint64_t)i * B, back, B), 0);
		assert_memory_equal(back, buf, B);
		assert_int_equal(rd(c3, (3 * CH + i) * B, back, B), 0);
		assert_memory_equal(back, buf, B);
		assert_int_equal(rd(c1, (uint64_t)i * B, back, B), 0);
		assert_memory_equal(back, i == 5 ? n1 : buf, B);
		assert_int_equal(rd(c2, (CH + i) * B, back, B), 0);
		assert_memory_equal(back, CH + i == 300 ? n2 : buf, B);
		if (i < CH) {
			memset(buf, 0, B);
			assert_int_equal(rd(c3, (uint64_t)i * B, back, B), 0);
			assert_memory_equal(back, buf, B);
		}
	}
	array_flush_accounting(a);
	array_get_stats(a, &s2);
	assert_int_equal(s2.unique_blocks, 2 * CH + 2);
	assert_int_equal(s2.unique_blocks, s1.unique_blocks);
	assert_int_equal(s2.mapped_blocks, 2 * CH * 4 + 2 * CH - CH);
	assert_int_equal(s2.mapped_blocks, s1.mapped_blocks);
	assert_int_equal(s2.single_ref_blocks, 2); /* n1 and n2 */
	assert_int_equal(s2.single_ref_blocks, s1.single_ref_blocks);
	assert_int_equal(s2.physical_bytes, s1.physical_bytes);
	/* a write through a reloaded shared chunk copies it; the others keep it */
	assert_int_equal(wr(t, (CH + 1) * B, n1, B), 0);
	assert_int_equal(map_chunk_at(c1, 1)->shares, 4);
	array_volume_close(t);
	array_volume_close(c1);
	array_volume_close(c2);
	array_volume_close(c3);
	array_put(a);

	char out[512], err[512], adir[512];
	snprintf(adir, sizeof(adir), "%s/arrays/a9", dir);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	if (!strstr(out, "4 volume(s) (0 named, 4 a LU's own), 2304 map entries, 514 block(s)"))
		fail_msg("%s", out);
	free(buf);
	free(back);
	free(n1);
	free(n2);
}

/* Clones at an offset that differs within a chunk (100 blocks in, as seed
 * 000's literal clones are) share the chunks published by the first clone
 * (volume_map.c map_dedup_chunk); after a restart the same slots hold the
 * same chunk, a clone made after it shares the reloaded chunks too, and
 * --check-state is consistent. */
static void test_misaligned_shared_survive_close(void **state)
{
	const uint64_t CH = 256, T = 2 * CH, A = 100, Bc = A + 3 * CH, C = A + 6 * CH;
	struct array *a = open_array("a10", "x2");
	struct volume *t = open_vol(a, "lu:t", VOL), *d = open_vol(a, "lu:d", VOL);
	uint8_t *buf = malloc(B), *back = malloc(B);
	uint64_t moved;

	(void)state;
	for (uint32_t i = 0; i < T; i++) {
		pattern(buf, 10, i);
		assert_int_equal(wr(t, (uint64_t)i * B, buf, B), 0);
	}
	for (uint64_t at = 0; at < T; at += CH)
		assert_int_equal(volume_copy(d, (A + at) * B, t, at * B, CH * B, &moved), 0);
	assert_int_equal(array_sync(a), 0); /* A's chunks recorded with one holder */
	for (uint64_t at = 0; at < T; at += CH)
		assert_int_equal(volume_copy(d, (Bc + at) * B, t, at * B, CH * B, &moved), 0);
	assert_ptr_equal(map_chunk_at(d, 3), map_chunk_at(d, 0));
	assert_ptr_equal(map_chunk_at(d, 4), map_chunk_at(d, 1));
	array_volume_close(t);
	array_volume_close(d);
	array_put(a);

	a = open_array("a10", "x2");
	t = open_vol(a, "lu:t", VOL);
	d = open_vol(a, "lu:d", VOL);
	assert_ptr_equal(map_chunk_at(d, 3), map_chunk_at(d, 0));
	assert_ptr_equal(map_chunk_at(d, 4), map_chunk_at(d, 1));
	assert_int_equal(map_chunk_at(d, 1)->shares, 2);
	assert_ptr_not_equal(map_chunk_at(d, 5), map_chunk_at(d, 2)); /* the tails are each clone's */
	/* a clone after the restart finds the reloaded chunks */
	for (uint64_t at = 0; at < T; at += CH)
		assert_int_equal(volume_copy(d, (C + at) * B, t, at * B, CH * B, &moved), 0);
	assert_ptr_equal(map_chunk_at(d, 6), map_chunk_at(d, 0));
	assert_ptr_equal(map_chunk_at(d, 7), map_chunk_at(d, 1));
	assert_int_equal(map_chunk_at(d, 1)->shares, 3);
	for (uint32_t i = 0; i < T; i++) {
		pattern(buf, 10, i);
		assert_int_equal(rd(d, (A + i) * B, back, B), 0);
		assert_memory_equal(back, buf, B);
		assert_int_equal(rd(d, (Bc + i) * B, back, B), 0);
		assert_memory_equal(back, buf, B);
		assert_int_equal(rd(d, (C + i) * B, back, B), 0);
		assert_memory_equal(back, buf, B);
	}
	struct array_stats s;
	array_get_stats(a, &s);
	assert_int_equal(s.mapped_blocks, 4 * T);
	assert_int_equal(s.unique_blocks, T);
	assert_int_equal(s.single_ref_blocks, 0);
	array_volume_close(t);
	array_volume_close(d);
	array_put(a);

	char out[512], err[512], adir[512];
	snprintf(adir, sizeof(adir), "%s/arrays/a10", dir);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	if (!strstr(out, "2 volume(s) (0 named, 2 a LU's own), 2048 map entries, 512 block(s)"))
		fail_msg("%s", out);
	free(buf);
	free(back);
}

struct slot_ref { uint64_t vid, idx, cid; };
struct old_rows { struct slot_ref r[64]; int n; };

static int collect_runs(void *arg, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n)
{
	struct old_rows *o = arg;

	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < runs[i].count; k++) {
			assert_true(o->n < 64);
			o->r[o->n++] = (struct slot_ref){ vid, grp * STORE_GROUP + runs[i].off + k,
							  runs[i].cid + (uint64_t)((int64_t)runs[i].step * k) };
		}
	return 0;
}

/* Rewrite meta.db of array dir adir as lunlab wrote it before the runs
 * table: each slot naming a shared chunk a chunks row of its cid, no runs
 * rows, no map_rows stamp entry.  Returns the slots so written. */
static int to_old_layout(const char *adir)
{
	char path[600], err[512];
	struct old_rows o = { .n = 0 };
	struct store_db *db;
	sqlite3 *raw;

	snprintf(path, sizeof(path), "%s/meta.db", adir);
	db = store_db_open(path, false, NULL, 0, err, sizeof(err));
	if (!db)
		fail_msg("%s", err);
	assert_int_equal(store_db_each_runs(db, collect_runs, &o, err, sizeof(err)), 0);
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	for (int i = 0; i < o.n; i++)
		assert_int_equal(store_db_put_chunk_ref(db, o.r[i].vid, o.r[i].idx, o.r[i].cid, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
	store_db_close(db);
	assert_int_equal(state_db_open(path, false, &raw, err, sizeof(err)), 0);
	assert_int_equal(state_db_exec(raw, "DELETE FROM runs; DELETE FROM stamp WHERE key = 'map_rows'", err, sizeof(err)), 0);
	assert_int_equal(state_db_stamp_write(raw, "array", NULL, 0, err, sizeof(err)), 0);
	state_db_close(raw);
	return o.n;
}

/* A state with its shared slots as chunks rows (the layout before the runs
 * table, made here from one this build wrote): --check-state reads it as it
 * is; the first open moves them into runs rows and the clones come back
 * sharing the same chunks, with the same data and figures; --check-state
 * agrees after. */
static void test_old_layout_opens(void **state)
{
	const uint64_t CH = 256;
	struct array *a = open_array("a11", "x2");
	struct volume *t = open_vol(a, "lu:t", VOL), *c1 = open_vol(a, "lu:c1", VOL), *c2 = open_vol(a, "lu:c2", VOL);
	uint8_t *buf = malloc(B), *back = malloc(B), *n1 = malloc(B);
	struct array_stats s1, s2;
	char out[512], err[512], adir[512], mdb[600];
	uint64_t moved;

	(void)state;
	pattern(n1, 11, 999);
	for (uint32_t i = 0; i < 2 * CH; i++) {
		pattern(buf, 11, i);
		assert_int_equal(wr(t, (uint64_t)i * B, buf, B), 0);
	}
	assert_int_equal(volume_copy(c1, 0, t, 0, 2 * CH * B, &moved), 0);
	assert_int_equal(volume_copy(c2, 2 * CH * B, t, 0, 2 * CH * B, &moved), 0);
	assert_int_equal(wr(c1, 7 * B, n1, B), 0); /* c1's slot 0: its own chunk, inline */
	array_flush_accounting(a);
	array_get_stats(a, &s1);
	array_volume_close(t);
	array_volume_close(c1);
	array_volume_close(c2);
	array_put(a);

	snprintf(adir, sizeof(adir), "%s/arrays/a11", dir);
	snprintf(mdb, sizeof(mdb), "%s/meta.db", adir);
	/* t 0, 1; c1 1; c2 2, 3 */
	assert_int_equal(to_old_layout(adir), 5);
	assert_int_equal(db_count(mdb, "SELECT count(*) FROM chunks WHERE length(ids) = 8"), 5);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	if (!strstr(out, "3 volume(s) (0 named, 3 a LU's own), 1536 map entries, 513 block(s)"))
		fail_msg("%s", out);

	a = open_array("a11", "x2");
	t = open_vol(a, "lu:t", VOL);
	c1 = open_vol(a, "lu:c1", VOL);
	c2 = open_vol(a, "lu:c2", VOL);
	assert_ptr_equal(map_chunk_at(c1, 1), map_chunk_at(t, 1));
	assert_ptr_equal(map_chunk_at(c2, 2), map_chunk_at(t, 0));
	assert_ptr_equal(map_chunk_at(c2, 3), map_chunk_at(t, 1));
	assert_ptr_not_equal(map_chunk_at(c1, 0), map_chunk_at(t, 0));
	assert_int_equal(map_chunk_at(t, 1)->shares, 3);
	assert_int_equal(map_chunk_at(t, 0)->shares, 2);
	for (uint32_t i = 0; i < 2 * CH; i++) {
		pattern(buf, 11, i);
		assert_int_equal(rd(t, (uint64_t)i * B, back, B), 0);
		assert_memory_equal(back, buf, B);
		assert_int_equal(rd(c1, (uint64_t)i * B, back, B), 0);
		assert_memory_equal(back, i == 7 ? n1 : buf, B);
		assert_int_equal(rd(c2, (2 * CH + i) * B, back, B), 0);
		assert_memory_equal(back, buf, B);
	}
	array_flush_accounting(a);
	array_get_stats(a, &s2);
	assert_int_equal(s2.unique_blocks, s1.unique_blocks);
	assert_int_equal(s2.mapped_blocks, s1.mapped_blocks);
	assert_int_equal(s2.single_ref_blocks, s1.single_ref_blocks);
	assert_int_equal(s2.physical_bytes, s1.physical_bytes);
	array_volume_close(t);
	array_volume_close(c1);
	array_volume_close(c2);
	array_put(a);
	/* (the database is the array's alone while it is open) */
	assert_int_equal(db_count(mdb, "SELECT count(*) FROM chunks WHERE length(ids) = 8"), 0);
	assert_int_equal(db_count(mdb, "SELECT count(*) FROM runs"), 3);
	assert_int_equal(db_count(mdb, "SELECT count(*) FROM stamp WHERE key = 'map_rows' AND value = 'runs'"), 1);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	if (!strstr(out, "3 volume(s) (0 named, 3 a LU's own), 1536 map entries, 513 block(s)"))
		fail_msg("%s", out);
	free(buf);
	free(back);
	free(n1);
}

/* Clones in three groups of 256 slots of a 3 GiB volume, one runs row
 * each; a shrink to the middle of the second group's run drops the third
 * row and the second's slots past the new end, and the state reloads
 * consistent with the slots kept still sharing the template's chunk. */
static void test_shrink_through_runs(void **state)
{
	const uint64_t CH = 256, BIG = 3ull << 30;
	struct array *a = open_array("a12", "x2");
	struct volume *t = open_vol(a, "lu:t", VOL), *big = open_vol(a, "lu:big", BIG);
	uint8_t *buf = malloc(B), *back = malloc(B);
	char out[512], err[512], adir[512], mdb[600];
	uint64_t moved;

	(void)state;
	for (uint32_t i = 0; i < 2 * CH; i++) {
		pattern(buf, 12, i);
		assert_int_equal(wr(t, (uint64_t)i * B, buf, B), 0);
	}
	for (uint64_t slot = 0; slot < 768; slot += 300)
		assert_int_equal(volume_copy(big, slot * CH * B, t, 0, 2 * CH * B, &moved), 0);
	array_volume_close(t);
	array_volume_close(big);
	array_put(a);
	snprintf(adir, sizeof(adir), "%s/arrays/a12", dir);
	snprintf(mdb, sizeof(mdb), "%s/meta.db", adir);
	assert_int_equal(db_count(mdb, "SELECT count(*) FROM runs WHERE vid = 2"), 3);

	a = open_array("a12", "x2");
	t = open_vol(a, "lu:t", VOL);
	big = open_vol(a, "lu:big", BIG);
	assert_int_equal(volume_resize(big, 301 * CH * B), 0); /* slot 300 stays, 301 goes */
	assert_int_equal(array_sync(a), 0);
	array_volume_close(t);
	array_volume_close(big);
	array_put(a);
	assert_int_equal(db_count(mdb, "SELECT count(*) FROM runs WHERE vid = 2"), 2);

	a = open_array("a12", "x2");
	t = open_vol(a, "lu:t", VOL);
	big = open_vol(a, "lu:big", 301 * CH * B);
	assert_ptr_equal(map_chunk_at(big, 0), map_chunk_at(t, 0));
	assert_ptr_equal(map_chunk_at(big, 1), map_chunk_at(t, 1));
	assert_ptr_equal(map_chunk_at(big, 300), map_chunk_at(t, 0));
	assert_int_equal(map_chunk_at(t, 0)->shares, 3);
	assert_int_equal(map_chunk_at(t, 1)->shares, 2);
	for (uint32_t i = 0; i < CH; i++) {
		pattern(buf, 12, i);
		assert_int_equal(rd(big, (300 * CH + i) * B, back, B), 0);
		assert_memory_equal(back, buf, B);
	}
	array_volume_close(t);
	array_volume_close(big);
	array_put(a);
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	/* t 512, big 512 + 256 */
	if (!strstr(out, "2 volume(s) (0 named, 2 a LU's own), 1280 map entries, 512 block(s)"))
		fail_msg("%s", out);
	free(buf);
	free(back);
}

/* The size (KiB) and flags meta.db holds for the volume with key `key` (-1: no row) */
static void row_of(const char *mdb, const char *key, int *size_kib, int *flags)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT size / 1024 FROM volumes WHERE key = '%s'", key);
	*size_kib = db_count(mdb, sql);
	snprintf(sql, sizeof(sql), "SELECT flags FROM volumes WHERE key = '%s'", key);
	*flags = db_count(mdb, sql);
}

/* in a child: a failure exits with the line, never returns to cmocka */
#define CHILD_OK(cond)                                                                                        \
	do {                                                                                                   \
		if (!(cond))                                                                                   \
			_exit(__LINE__ % 200 + 1);                                                             \
	} while (0)

/* One change of test_record_marks, in a child on array a13: made, synced,
 * then SIGKILL (no last commit at a close), so what meta.db holds after it
 * is what array_sync committed. */
static void marks_step(int step)
{
	struct array *a = open_array("a13", "x2");
	struct volume *lu = open_vol(a, "lu:m", step >= 3 ? 2 * VOL : VOL), *nv = NULL;
	char *err = NULL;
	uint64_t entries;
	static uint8_t buf[B];

	memset(buf, 0x5a, sizeof(buf));
	switch (step) {
	case 0: /* new volumes: 50 LUs' own and a named one */
		for (int i = 0; i < 50; i++) {
			char key[32];

			snprintf(key, sizeof(key), "lu:filler%d", i);
			array_volume_close(open_vol(a, key, VOL));
		}
		CHILD_OK(volume_attach(a, "named", VOL, 512, &nv, &err) == 0);
		break;
	case 1: { /* a read-only snapshot: its flags and snapshot_of */
		const char *src[] = { "named" }, *dst[] = { "snap" };

		CHILD_OK(array_snapshot(a, src, dst, 1, true, &entries, &err) == 0);
		break;
	}
	case 2: /* a grow changes no block: only the mark makes the commit write it */
		CHILD_OK(volume_resize(lu, 2 * VOL) == 0);
		break;
	case 3: /* a shrink */
		CHILD_OK(volume_attach(a, "named", VOL, 512, &nv, &err) == 0);
		CHILD_OK(volume_resize(nv, VOL / 2) == 0);
		break;
	case 4: /* the saved mode pages' flags (set_flags syncs itself) */
		CHILD_OK(array_volume_set_flags(lu, STORE_VOL_WCE_OFF, STORE_VOL_WCE_OFF) == 0);
		break;
	case 5:
		CHILD_OK(array_volume_set_flags(lu, STORE_VOL_SWP | STORE_VOL_WCE_OFF, STORE_VOL_SWP) == 0);
		break;
	case 6: { /* an ODX hold's hidden volume, left by the crash */
		struct vol_hold *h = NULL;
		struct vol_range r = { 0, B };

		CHILD_OK(wr(lu, 0, buf, sizeof(buf)) == 0);
		CHILD_OK(volume_hold_create(lu, &r, 1, &h) == 0);
		break;
	}
	case 7: /* the open dropped the hold: the sync deletes its row */
		break;
	case 8: /* a delete */
		CHILD_OK(array_volume_delete(a, "named", &err) == 0);
		break;
	case 9: /* a change nobody marked: the check refuses the commit */
		pthread_mutex_lock(&a->vol_mu);
		lu->pflags ^= STORE_VOL_SWP;
		pthread_mutex_unlock(&a->vol_mu);
		CHILD_OK(wr(lu, B, buf, sizeof(buf)) == 0); /* something to commit */
		CHILD_OK(array_sync(a) != 0);
		pthread_mutex_lock(&a->vol_mu);
		lu->pflags ^= STORE_VOL_SWP;
		pthread_mutex_unlock(&a->vol_mu);
		break;
	}
	CHILD_OK(array_sync(a) == 0);
	kill(getpid(), SIGKILL);
	_exit(99);
}

/* A commit records only the volumes marked changed (array_state.c cut):
 * every path that changes what a volume's row holds marks it, and each
 * change alone is in meta.db once array_sync returned - a crash right
 * after it finds it there.  The test binary runs with
 * LUNLAB_ARRAY_STATE_CHECK=1 (main), so every cut here (and in the other
 * tests) also compares each unmarked volume's record with the committed
 * one; a change made behind the marks' back fails the commit (step 9). */
static void test_record_marks(void **state)
{
	char mdb[600], sql[128], out[512], err[512], adir[512];
	int kib, flags, ws;

	(void)state;
	snprintf(adir, sizeof(adir), "%s/arrays/a13", dir);
	snprintf(mdb, sizeof(mdb), "%s/meta.db", adir);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM volumes WHERE flags & %u", STORE_VOL_HOLD);
	for (int step = 0; step < 10; step++) {
		pid_t p = fork();

		if (p == 0)
			marks_step(step);
		assert_int_equal(waitpid(p, &ws, 0), p);
		if (!WIFSIGNALED(ws) || WTERMSIG(ws) != SIGKILL)
			fail_msg("step %d: the child exited %d (a failure near line %d mod 200)", step,
				 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, WIFEXITED(ws) ? WEXITSTATUS(ws) - 1 : -1);
		switch (step) {
		case 0:
			row_of(mdb, "vol:named", &kib, &flags);
			assert_int_equal(kib, VOL / 1024);
			assert_int_equal(flags, STORE_VOL_NAMED);
			assert_int_equal(db_count(mdb, "SELECT count(*) FROM volumes"), 52);
			break;
		case 1:
			row_of(mdb, "vol:snap", &kib, &flags);
			assert_int_equal(flags, STORE_VOL_NAMED | STORE_VOL_READONLY);
			assert_int_equal(db_count(mdb, "SELECT count(*) FROM volumes WHERE key = 'vol:snap' AND info = 'named'"), 1);
			break;
		case 2:
			row_of(mdb, "lu:m", &kib, &flags);
			assert_int_equal(kib, 2 * VOL / 1024);
			break;
		case 3:
			row_of(mdb, "vol:named", &kib, &flags);
			assert_int_equal(kib, VOL / 2 / 1024);
			break;
		case 4:
			row_of(mdb, "lu:m", &kib, &flags);
			assert_int_equal(flags, STORE_VOL_WCE_OFF);
			break;
		case 5:
		case 9:
			row_of(mdb, "lu:m", &kib, &flags);
			assert_int_equal(flags, STORE_VOL_SWP);
			break;
		case 6:
			assert_int_equal(db_count(mdb, sql), 1);
			break;
		case 7:
			assert_int_equal(db_count(mdb, sql), 0);
			break;
		case 8:
			assert_int_equal(db_count(mdb, "SELECT count(*) FROM volumes WHERE key = 'vol:named'"), 0);
			assert_int_equal(db_count(mdb, "SELECT count(*) FROM volumes"), 52);
			break;
		}
	}
	assert_int_equal(array_state_check(adir, out, sizeof(out), err, sizeof(err)), 0);
	if (!strstr(out, "52 volume(s) (1 named, 51 a LU's own)"))
		fail_msg("%s", out);
}

int main(void)

{
	/* every cut also checks that no volume's record changed unmarked
	 * (array_state.c check_marks) */
	setenv("LUNLAB_ARRAY_STATE_CHECK", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_marks),
		cmocka_unit_test(test_survives_close),
		cmocka_unit_test(test_shared_chunks_survive_close),
		cmocka_unit_test(test_misaligned_shared_survive_close),
		cmocka_unit_test(test_old_layout_opens),
		cmocka_unit_test(test_shrink_through_runs),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_named_and_snapshots),
		cmocka_unit_test(test_snapshot_crash),
		cmocka_unit_test(test_no_early_store),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
