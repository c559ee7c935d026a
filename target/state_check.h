/* state_check.h — lunlab-target --check-state DIR: verify a state directory
 * offline (docs/persistence.md "Checking a state directory"). */
#ifndef LUNLAB_TARGET_STATE_CHECK_H
#define LUNLAB_TARGET_STATE_CHECK_H

/* Check dir: the target's records (target_state.h), then every array in
 * dir/arrays through the lunlab handler found in handler_path (its
 * array-control interface's state_check).  Prints one "ok: ..." line per
 * part and a last line "state DIR: consistent".  Returns the exit status:
 * 0 consistent, 1 the first inconsistency (printed on stderr), 2 not a state
 * directory or no handler to check its arrays with. */
int state_check_run(const char *dir, const char *handler_path);

#endif
