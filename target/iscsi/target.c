/* target.c — target-wide state: configuration, session count, TSIH. */
#include "target/iscsi/target.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

struct target_cfg g_target = {
	.iqn = "iqn.2026-11.org.lunlab:target",
	.tpgt = 1,
	.max_sessions = 1024,
};
atomic_uint g_session_count;
static atomic_uint tsih_next;

uint16_t target_alloc_tsih(void)
{
	uint16_t v;

	do {
		v = (uint16_t)(atomic_fetch_add(&tsih_next, 1) + 1);
	} while (v == 0);
	return v;
}

__attribute__((format(printf, 1, 0)))
static void log_line(const char *fmt, va_list ap)
{
	char ts[32];
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	flockfile(stderr);
	fprintf(stderr, "lunlab-target %s.%03ld ", ts, now.tv_nsec / 1000000);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void target_log(const char *fmt, ...)
{
	va_list ap;

	if (g_target.quiet)
		return;
	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

void target_log_always(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

uint64_t target_next_nexus(void)
{
	static atomic_ullong next;
	return atomic_fetch_add(&next, 1) + 1;
}

uint16_t target_portal_tpgt(int i)
{
	if (i >= 0 && i < g_target.nportals && g_target.portals[i].tpgt)
		return g_target.portals[i].tpgt;
	return g_target.tpgt;
}
