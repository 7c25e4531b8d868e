/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which threads pmdakpmc has attached, and when to try again those it
 * could not. kpmc answers an attach with -EBUSY both when the thread is
 * monitored already (by this session, through a monitored parent, or by
 * another) and when the counters are taken (perf holds them, system-wide
 * monitoring is on): the first is final, the second passes. The kernel's
 * last_error text tells them apart.
 *
 * A thread is known by (tid, pid, start time of its process): a tid reused
 * by another process is a new thread. Threads attached, monitored already,
 * gone or refused for good are not tried again while a scan still sees
 * them. A transient refusal holds back every attach (they would all fail
 * the same way) until a retry time that doubles, from min_ms up to max_ms,
 * while the refusals go on. Pure: the attach itself is the caller's.
 */
#ifndef KPMC_PMDA_ATTACH_H
#define KPMC_PMDA_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

enum kpmc_pmda_attach_result {
	KPMC_ATTACH_OK,		/* attached */
	KPMC_ATTACH_ALREADY,	/* monitored already: its records come (or another session's do) */
	KPMC_ATTACH_GONE,	/* exited meanwhile */
	KPMC_ATTACH_TRANSIENT,	/* counters taken, no memory, paranoid too high: later */
	KPMC_ATTACH_REFUSED,	/* this thread may not be monitored: not again */
};

/* What an attach's -errno (0: success) and the kernel's reason mean. */
enum kpmc_pmda_attach_result kpmc_pmda_attach_classify(int err, const char *reason);

/* What kpmc_pmda_attach_thread did, for the caller to log (once). */
enum kpmc_pmda_attach_event {
	KPMC_ATTACH_EV_NONE,		/* known already, or held back: nothing tried */
	KPMC_ATTACH_EV_ATTACHED,
	KPMC_ATTACH_EV_ALREADY,
	KPMC_ATTACH_EV_GONE,
	KPMC_ATTACH_EV_REFUSED,		/* this thread, for good: log it */
	KPMC_ATTACH_EV_BLOCKED,		/* attaches held back from now: log it */
	KPMC_ATTACH_EV_STILL_BLOCKED,	/* a retry refused again: already logged */
	KPMC_ATTACH_EV_RESUMED,		/* attached after being held back: log it */
};

struct kpmc_pmda_attached {
	pid_t tid, pid;
	unsigned long long start;	/* of the process */
};

struct kpmc_pmda_attach {
	struct kpmc_pmda_attached *done, *next;	/* done: sorted by tid */
	size_t ndone, cap_done, nnext, cap_next;
	unsigned int min_ms, max_ms;	/* retry delays (0, 0: 1000 and 60000) */
	unsigned int backoff_ms;	/* 0: attaching; else held back */
	long long retry_at_ms;		/* while held back: not before */
	unsigned long attempts;		/* attaches tried, in all */
};

/* Before each scan. */
void kpmc_pmda_attach_begin(struct kpmc_pmda_attach *a);

/*
 * A thread the scan found, at now_ms (monotonic). attach(tid, why, len,
 * arg): 0 or -errno with the kernel's reason in why. why (len bytes) gets
 * the reason of a refusal.
 */
enum kpmc_pmda_attach_event
kpmc_pmda_attach_thread(struct kpmc_pmda_attach *a, pid_t pid, pid_t tid, unsigned long long start,
			long long now_ms, int (*attach)(pid_t tid, char *why, size_t len, void *arg),
			void *arg, char *why, size_t len);

/* After each scan: threads no longer seen are forgotten. */
void kpmc_pmda_attach_end(struct kpmc_pmda_attach *a);

/* Free and zero (min_ms and max_ms kept). */
void kpmc_pmda_attach_free(struct kpmc_pmda_attach *a);

#endif
