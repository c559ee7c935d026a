/* proc_figures.c — see proc_figures.h. */
#include "target/lu/proc_figures.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Bytes of hugetlb pages mapped by the process (/proc/self/status
 * "HugetlbPages:", in kB; 0 when absent).  The array's payload segments may
 * come from the hugetlb pool (handlers/array/payload_mem.c), and statm's
 * resident count leaves those pages out. */
static uint64_t hugetlb_bytes(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugetlbPages: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024u;
}

uint64_t proc_rss_bytes(void)
{
	unsigned long long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "re");
	long page = sysconf(_SC_PAGESIZE);

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (uint64_t)res * (uint64_t)(page > 0 ? page : 4096) + hugetlb_bytes();
}

double proc_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

uint64_t proc_ram_total_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}
