/* auth_reload.h — SIGHUP (`systemctl reload lunlab-target`): re-read the
 * auth file while the target runs.  What changes: the CHAP users, the mutual
 * identity, the allow-list (the file's 'allow' lines plus --allow-initiator)
 * and the API's users, for the next login or API request; a session already
 * logged in stays.  What does not: everything else (portals, LUNs, IQN, state
 * directory, the API's address and certificate); a config file (--config) is
 * not re-read, and a changed one is named in the log as needing a restart.
 * A file that does not load is refused as a whole: the config in force stays. */
#ifndef LUNLAB_AUTH_RELOAD_H
#define LUNLAB_AUTH_RELOAD_H

#include <stdbool.h>
#include <stddef.h>

struct cli;

/* At start, after the config file was read: remembers its identity (device,
 * inode, size, mtime) to tell a later SIGHUP that it changed. */
void auth_reload_init(const struct cli *cli);

/* One reload.  api_running: the API serves requests, so its users change too
 * (and a file without an 'api' line is refused: the API would lock everyone
 * out).  0 applied, -1 refused; msg gets the one log line either way. */
int auth_reload(const struct cli *cli, bool api_running, char *msg, size_t msglen);

/* After the portals and the API stopped: frees every config a reload made
 * (replaced ones are kept until then: a login or request may still hold one). */
void auth_reload_free(void);

#endif
