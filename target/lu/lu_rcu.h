/* lu_rcu.h — grace periods for the LU table (quiescent-state-based RCU).
 *
 * The I/O threads look LUs up on every command without a lock: they load
 * the table's current snapshot (lu_table.c) with one atomic read.  A writer
 * (the management API creating, mapping or deleting a volume) publishes a
 * new snapshot and may free the old one, and a deleted LU's backend, only
 * after every I/O thread has passed a quiescent point: between two
 * iterations of its event loop, or while it sleeps in epoll_wait.  No
 * reader keeps a snapshot pointer across such a point.
 *
 * Reader threads register once; the cost per loop iteration is one atomic
 * load and store (quiescent) plus two stores around the blocking wait. */
#ifndef LUNLAB_LU_RCU_H
#define LUNLAB_LU_RCU_H

/* the calling thread reads the LU table (an I/O thread); online from now */
void lu_rcu_register(void);
/* the calling thread stops reading (before it exits) */
void lu_rcu_unregister(void);
/* the calling thread holds no snapshot pointer now (top of its loop) */
void lu_rcu_quiescent(void);
/* around a blocking wait: an offline thread holds up no grace period */
void lu_rcu_offline(void);
void lu_rcu_online(void);
/* writer: returns once every registered thread has been quiescent or
 * offline since the call began.  Never call it from a registered thread. */
void lu_rcu_synchronize(void);

#endif
