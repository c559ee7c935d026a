/* array_bench.c — benchmark of the array store (not a test): write ingest
 * MB/s per profile-like parameter set and data mix, XCOPY metadata copy rate
 * in logical GB per wall second, and metadata bytes per mapped and per unique
 * block with 1 TiB of logical clones.  Prints figures; asserts nothing.
 *
 * usage: array-bench [ingest_MiB (default 96)] [clone_TiB (default 1)] [clone params: x2|x1]
 * (ingest_MiB 0 skips the ingest part)
 *        array-bench write-path MiB [x2|fa420]: one thread writes MiB of unique
 * data once (1 MiB writes; fa420: 4 KiB dedup blocks) and drains the
 * accounting, printing the write path's MB/s and CPU time apart from the
 * accounting's: a fixed workload also to run under callgrind, which splits
 * the write path's cost by function (fingerprint, payload copy and
 * allocation, locks, index) from the accounting's (zlib). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handlers/array/array_internal.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* OS-image-like 4 KiB pieces: text (compressible), random (media), sparse;
 * dup_pct percent of 16 KiB chunks repeat an earlier chunk. */
static void gen(unsigned char *buf, uint64_t size, int dup_pct, uint64_t seed)
{
	static const char *w[] = { "kernel32 ", "Windows ", "config ", "0000 ", "driver ", "MZ\x90", "dll " };
	for (uint64_t off = 0; off < size; off += 16384) {
		if (off >= 65536 && (int)(rng(&seed) % 100) < dup_pct) {
			memcpy(buf + off, buf + (rng(&seed) % (off / 16384)) * 16384, 16384);
			continue;
		}
		for (uint64_t p = off; p < off + 16384; p += 4096) {
			unsigned k = (unsigned)(rng(&seed) % 4);
			if (k < 2) {
				for (uint64_t i = p; i < p + 4096;) {
					const char *s = w[rng(&seed) % 7];
					for (size_t j = 0; s[j] && i < p + 4096; j++)
						buf[i++] = (unsigned char)s[j];
				}
			} else if (k == 2) {
				for (uint64_t i = p; i < p + 4096; i += 8) {
					uint64_t r = rng(&seed);
					memcpy(buf + i, &r, 8);
				}
			} else {
				memset(buf + p, 0, 4096);
				buf[p + rng(&seed) % 4096] = 1;
			}
		}
	}
}

struct wjob {
	struct volume *v;
	const unsigned char *data;
	uint64_t size, io;
	int tid, nthreads;
};

static void *writer(void *arg)
{
	struct wjob *j = arg;
	for (uint64_t off = (uint64_t)j->tid * j->io; off < j->size; off += (uint64_t)j->nthreads * j->io) {
		struct iovec iov = { (void *)(j->data + off), j->io };
		if (volume_write(j->v, off, j->io, &iov, 1))
			fprintf(stderr, "write failed at %llu\n", (unsigned long long)off);
	}
	return NULL;
}

static double ingest(struct volume *v, const unsigned char *data, uint64_t size, int nthreads)
{
	pthread_t t[8];
	struct wjob j[8];
	double t0 = now();
	for (int i = 0; i < nthreads; i++) {
		j[i] = (struct wjob){ v, data, size, 1 << 20, i, nthreads };
		pthread_create(&t[i], NULL, writer, &j[i]);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return (double)size / (now() - t0) / 1e6;
}

struct pset {
	const char *name;
	struct array_params p;
};

static const struct pset psets[] = {
	{ "x2 (16K, level 1, win 14, unit 1K)", { 16384, 1, 14, 1024 } },
	{ "unlimited (same store params as x2)", { 16384, 1, 14, 1024 } },
	{ "x1 (8K, level 1, win 13, unit 2K)", { 8192, 1, 13, 2048 } },
	{ "x2 at level 6 (for comparison)", { 16384, 6, 14, 1024 } },
};

static void bench_ingest(uint64_t mib)
{
	uint64_t size = mib << 20;
	unsigned char *uniq = malloc(size), *half = malloc(size), *zero = calloc(1, size);
	gen(uniq, size, 0, 1);
	gen(half, size, 50, 2);
	printf("== write ingest: %llu MiB per run, 1 MiB writes, 2 threads, MB/s (1e6 B/s)\n", (unsigned long long)mib);
	printf("(unique: the writes return once blocks are stored; drain: the accounting backlog left\n"
	       " behind, worked off by the background workers and this thread together)\n");
	printf("%-38s %10s %10s %10s %10s %10s %8s\n", "params", "unique", "drain", "50% dup", "rewrite", "zeros",
	       "DRR");
	for (size_t k = 0; k < sizeof(psets) / sizeof(psets[0]); k++) {
		char *err = NULL, name[64];
		snprintf(name, sizeof(name), "bench-ingest-%zu", k);
		struct array *a = array_get(name, &psets[k].p, &err);
		struct volume *v = volume_create(a, size, 512), *w = volume_create(a, size, 512);
		double u = ingest(v, uniq, size, 2);
		/* the accounting backlog of the unique data, drained here */
		double d0 = now();
		array_flush_accounting(a);
		double acct = (double)size / (now() - d0) / 1e6;
		struct array_stats s;
		array_get_stats(a, &s);
		double drr = (double)s.logical_bytes / (double)s.physical_bytes;
		double h = ingest(w, half, size, 2);
		double r = ingest(v, uniq, size, 2); /* same data again: all dedup hits */
		double z = ingest(w, zero, size, 2);
		printf("%-38s %10.1f %10.1f %10.1f %10.1f %10.1f %8.3f\n", psets[k].name, u, acct, h, r, z, drr);
		volume_destroy(v);
		volume_destroy(w);
		array_put(a);
	}
	free(uniq);
	free(half);
	free(zero);
}

struct cjob {
	struct volume *dst, *src;
	uint64_t tmpl, chunk, reps, bytes;
};

static void *cloner(void *arg)
{
	struct cjob *j = arg;
	uint64_t moved;
	for (uint64_t rep = 0; rep < j->reps; rep++)
		for (uint64_t off = 0; off < j->tmpl; off += j->chunk) {
			volume_copy(j->dst, rep * j->tmpl + off, j->src, off, j->chunk, &moved);
			j->bytes += j->chunk;
		}
	return NULL;
}

/* Clone a template until clone_tib TiB are mapped; time the copies. */
static void bench_clones(uint64_t clone_tib, const struct pset *ps)
{
	const uint64_t tmpl = 64ull << 20, volsz = 64ull << 30;
	uint64_t nvols = (clone_tib << 40) / volsz;
	char *err = NULL;
	struct array *a = array_get("bench-clones", &ps->p, &err);
	struct volume *src = volume_create(a, tmpl, 512);
	struct volume **vols = calloc(nvols, sizeof(*vols));
	unsigned char *data = malloc(tmpl);
	gen(data, tmpl, 0, 9);
	struct iovec iov = { data, tmpl };
	volume_write(src, 0, tmpl, &iov, 1);
	free(data);

	printf("\n== XCOPY metadata copy (volume_copy), %s\n", ps->name);
	/* ESXi-style chunks: one command per chunk, template -> clone volume. */
	uint64_t chunks[] = { 256 << 10, 4 << 20, 16 << 20 };
	vols[0] = volume_create(a, volsz, 512);
	for (size_t c = 0; c < 3; c++) {
		double t0 = now();
		uint64_t bytes = 0, moved, m = 0;
		for (uint64_t rep = 0; rep < 64; rep++)
			for (uint64_t off = 0; off < tmpl; off += chunks[c]) {
				volume_copy(vols[0], rep * tmpl + off, src, off, chunks[c], &moved);
				bytes += chunks[c];
				m += moved;
			}
		double dt = now() - t0;
		printf("chunk %6llu KiB: %6.2f GB logical in %.3f s = %7.1f GB/s (%llu map entries, %.1f M entries/s)\n",
		       (unsigned long long)(chunks[c] >> 10), bytes / 1e9, dt, bytes / 1e9 / dt, (unsigned long long)m,
		       m / dt / 1e6);
	}
	/* Concurrent clones (many VMs at once): 2 threads, 4 MiB commands,
	 * each into its own volume. */
	{
		struct cjob j[2];
		pthread_t t[2];
		double c0 = now();
		for (int i = 0; i < 2; i++) {
			j[i] = (struct cjob){ volume_create(a, 64 * tmpl, 512), src, tmpl, 4 << 20, 64, 0 };
			pthread_create(&t[i], NULL, cloner, &j[i]);
		}
		uint64_t tot = 0;
		for (int i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			tot += j[i].bytes;
		}
		double cdt = now() - c0;
		printf("2 threads, chunk 4096 KiB, separate clones: %6.2f GB in %.3f s = %7.1f GB/s\n", tot / 1e9, cdt,
		       tot / 1e9 / cdt);
		for (int i = 0; i < 2; i++)
			volume_destroy(j[i].dst);
	}
	/* Build the 1 TiB of clones with large-range copies (doubling). */
	double t0 = now();
	uint64_t bytes = 0, moved;
	for (uint64_t have = 64 * tmpl; have < volsz; have *= 2) {
		volume_copy(vols[0], have, vols[0], 0, have, &moved);
		bytes += have;
	}
	for (uint64_t i = 1; i < nvols; i++) {
		vols[i] = volume_create(a, volsz, 512);
		volume_copy(vols[i], 0, vols[0], 0, volsz, &moved);
		bytes += volsz;
	}
	double dt = now() - t0;
	printf("large ranges (up to 64 GiB per call): %.1f GB logical in %.3f s = %.1f GB/s\n", bytes / 1e9, dt,
	       bytes / 1e9 / dt);

	struct array_stats s;
	array_flush_accounting(a);
	array_get_stats(a, &s);
	uint64_t store_meta = atomic_load(&a->bs->meta_bytes) + sizeof(*a), map_meta = s.metadata_bytes - store_meta;
	printf("\n== metadata with %.2f TiB of logical clones (%s)\n", s.logical_bytes / (double)(1ull << 40), ps->name);
	printf("mapped_blocks %llu unique_blocks %llu logical %llu physical %llu DRR %.1f\n",
	       (unsigned long long)s.mapped_blocks, (unsigned long long)s.unique_blocks,
	       (unsigned long long)s.logical_bytes, (unsigned long long)s.physical_bytes,
	       (double)s.logical_bytes / (double)s.physical_bytes);
	printf("maps (leaves + leaf tables + volume structs): %llu B = %.2f B per mapped block (goal <= 16)\n",
	       (unsigned long long)map_meta, (double)map_meta / (double)s.mapped_blocks);
	printf("store (records + index + array struct): %llu B = %.2f B per unique block (goal <= 64, + data)\n",
	       (unsigned long long)store_meta, (double)store_meta / (double)s.unique_blocks);
	printf("all metadata_bytes: %llu B = %.2f B per mapped block\n", (unsigned long long)s.metadata_bytes,
	       (double)s.metadata_bytes / (double)s.mapped_blocks);
	for (uint64_t i = 0; i < nvols; i++)
		volume_destroy(vols[i]);
	volume_destroy(src);
	array_get_stats(a, &s);
	printf("after destroying every volume: unique_blocks %llu mapped_blocks %llu\n",
	       (unsigned long long)s.unique_blocks, (unsigned long long)s.mapped_blocks);
	free(vols);
	array_put(a);
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_path(uint64_t mib, const char *params)
{
	uint64_t size = mib << 20;
	unsigned char *uniq = malloc(size);
	char *err = NULL;
	struct array_params fa420 = { 4096, 1, 12, 512 };
	const struct array_params *p = params && !strcmp(params, "fa420") ? &fa420 : &psets[0].p;
	gen(uniq, size, 0, 1);
	struct array *a = array_get("bench-write-path", p, &err);
	struct volume *v = volume_create(a, size, 512);
	double c0 = cpu_s();
	double u = ingest(v, uniq, size, 1);
	double c1 = cpu_s();
	array_flush_accounting(a);
	double c2 = cpu_s();
	printf("write path: %llu MiB unique data, %u-byte blocks, 1 thread: %.1f MB/s, %.2f ms of CPU per MiB "
	       "(with the accounting workers' share meanwhile); draining the accounting: %.2f ms of CPU per MiB\n",
	       (unsigned long long)mib, p->dedup_block, u, (c1 - c0) * 1e3 / (double)mib, (c2 - c1) * 1e3 / (double)mib);
	volume_destroy(v);
	array_put(a);
	free(uniq);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "write-path")) {
		write_path(strtoull(argv[2], NULL, 0), argc > 3 ? argv[3] : NULL);
		return 0;
	}
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 96;
	uint64_t tib = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (mib)
		bench_ingest(mib);
	bench_clones(tib, argc > 3 && !strcmp(argv[3], "x1") ? &psets[2] : &psets[0]);
	return 0;
}
