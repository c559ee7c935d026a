/* proc_figures.h — the target process's own resource figures: resident
 * memory and CPU time.  /metrics serves them (lunlab_process_*), and the
 * XMS API shows them as the management server's ram-usage and cpu (the
 * "XMS" of lunlab is this process): one reader for both. */
#ifndef LUNLAB_PROC_FIGURES_H
#define LUNLAB_PROC_FIGURES_H

#include <stdint.h>

/* resident set size (bytes; 0 when /proc cannot tell), hugetlb pages
 * included (statm leaves them out) */
uint64_t proc_rss_bytes(void);
/* user + system CPU seconds since the start */
double proc_cpu_seconds(void);
/* the machine's physical memory (bytes; 0 unknown) */
uint64_t proc_ram_total_bytes(void);

#endif
