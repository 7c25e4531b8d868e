/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * PAPI_overflow through kpmc's event-based sampling: the kernel writes an
 * EBS record into the counting thread's session every threshold events of
 * the overflowing counter, but sends no signal (/proc files have no
 * fasync). A thread of the component's, the poller, waits on the sessions
 * of the threads that count with overflow armed and, when records come,
 * signals that thread (tgkill, kpmc_papi_overflow_signal()); its handler,
 * PAPI's dispatch through the component's dispatch_timer, takes the
 * session's records and calls PAPI's overflow dispatch once per EBS record,
 * then says it is done, and the poller waits on that session again.
 */
#ifndef PAPI_KPMC_OVERFLOW_H
#define PAPI_KPMC_OVERFLOW_H

#include <sys/types.h>

/* The signal the poller sends (a real-time one: they queue, none is lost). */
int kpmc_papi_overflow_signal(void);

/*
 * Watch session fd (its ring wakes its reader at every record: wakeup=0)
 * for owner, whose thread is tid; *pending is set while tid has been
 * signalled and has not called kpmc_papi_overflow_done(). The poller starts
 * at the first call, with every signal blocked. 0, or -errno (no thread, no
 * room: 64 threads at once).
 */
int kpmc_papi_overflow_arm(const void *owner, int fd, pid_t tid, int *pending);

/* Stop watching owner's session (before it closes). */
void kpmc_papi_overflow_disarm(const void *owner);

/*
 * From the signalled thread's handler once it has taken its session's
 * records: async-signal-safe (an atomic store and a write to an eventfd).
 */
void kpmc_papi_overflow_done(int *pending);

#endif
