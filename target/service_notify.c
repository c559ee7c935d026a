/* service_notify.c — sd_notify(3) from libsystemd when the build found it
 * (meson option systemd); a no-op otherwise.  sd_notify itself does nothing
 * when $NOTIFY_SOCKET is unset, so a target started by hand is unaffected. */
#include "target/service_notify.h"

#ifdef LUNLAB_HAVE_SYSTEMD
#include <stdio.h>
#include <systemd/sd-daemon.h>

void service_notify_ready(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void service_notify_reloading(void)
{
	sd_notify(0, "RELOADING=1");
}

void service_notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}
#else
void service_notify_ready(const char *status)
{
	(void)status;
}

void service_notify_reloading(void)
{
}

void service_notify_stopping(void)
{
}
#endif
