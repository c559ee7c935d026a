/* service_notify.h — telling systemd (Type=notify, lunlab-target.service)
 * where the target is: ready once every portal and the API listen, reloading,
 * stopping.  Built without libsystemd, or run outside systemd ($NOTIFY_SOCKET
 * unset), every call does nothing. */
#ifndef LUNLAB_SERVICE_NOTIFY_H
#define LUNLAB_SERVICE_NOTIFY_H

void service_notify_ready(const char *status);
void service_notify_reloading(void);
void service_notify_stopping(void);

#endif
