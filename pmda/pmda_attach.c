// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's attached threads and retries (see pmda_attach.h). */
#include "pmda_attach.h"
#include "common/growarray.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MIN_MS	1000u
#define DEFAULT_MAX_MS	60000u

enum kpmc_pmda_attach_result kpmc_pmda_attach_classify(int err, const char *reason)
{
	switch (err) {
	case 0:
		return KPMC_ATTACH_OK;
	case -ESRCH:
		return KPMC_ATTACH_GONE;
	case -EBUSY:
		/* kernel/control.c: "pid=N: already monitored, or configuring itself" */
		return reason && strstr(reason, "already monitored") ? KPMC_ATTACH_ALREADY :
		       KPMC_ATTACH_TRANSIENT;
	case -ENOMEM:
	case -EAGAIN:
	case -EINTR:
	case -EACCES:	/* perf_event_paranoid: for every thread alike, and it may be lowered */
		return KPMC_ATTACH_TRANSIENT;
	default:	/* -EPERM (ptrace rights), -EINVAL (a kernel thread), ... */
		return KPMC_ATTACH_REFUSED;
	}
}

static int cmp_tid(const void *x, const void *y)
{
	const struct kpmc_pmda_attached *a = x, *b = y;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

void kpmc_pmda_attach_begin(struct kpmc_pmda_attach *a)
{
	a->nnext = 0;
}

static void keep(struct kpmc_pmda_attach *a, pid_t pid, pid_t tid, unsigned long long start)
{
	if (grow_array((void **)&a->next, &a->cap_next, a->nnext + 1, sizeof(*a->next), 256))
		return;	/* forgotten: tried again next scan ("already monitored" then) */
	a->next[a->nnext++] = (struct kpmc_pmda_attached){ .tid = tid, .pid = pid, .start = start };
}

enum kpmc_pmda_attach_event
kpmc_pmda_attach_thread(struct kpmc_pmda_attach *a, pid_t pid, pid_t tid, unsigned long long start,
			long long now_ms, int (*attach)(pid_t tid, char *why, size_t len, void *arg),
			void *arg, char *why, size_t len)
{
	struct kpmc_pmda_attached key = { .tid = tid }, *d;
	unsigned int min_ms = a->min_ms ? a->min_ms : DEFAULT_MIN_MS;
	unsigned int max_ms = a->max_ms ? a->max_ms : DEFAULT_MAX_MS;
	int err, was_blocked = a->backoff_ms != 0;

	if (len)
		why[0] = '\0';
	d = a->done ? bsearch(&key, a->done, a->ndone, sizeof(key), cmp_tid) : NULL;
	if (d && d->pid == pid && d->start == start) {
		keep(a, pid, tid, start);
		return KPMC_ATTACH_EV_NONE;
	}
	if (was_blocked && now_ms < a->retry_at_ms)
		return KPMC_ATTACH_EV_NONE;
	a->attempts++;
	err = attach(tid, why, len, arg);
	switch (kpmc_pmda_attach_classify(err, why)) {
	case KPMC_ATTACH_TRANSIENT:
		a->backoff_ms = !was_blocked ? min_ms :
				a->backoff_ms >= max_ms / 2 ? max_ms : a->backoff_ms * 2;
		a->retry_at_ms = now_ms + a->backoff_ms;
		return was_blocked ? KPMC_ATTACH_EV_STILL_BLOCKED : KPMC_ATTACH_EV_BLOCKED;
	case KPMC_ATTACH_OK:
		keep(a, pid, tid, start);
		a->backoff_ms = 0;
		return was_blocked ? KPMC_ATTACH_EV_RESUMED : KPMC_ATTACH_EV_ATTACHED;
	case KPMC_ATTACH_ALREADY:
		/* The kernel looks at the thread only once the counters are free. */
		keep(a, pid, tid, start);
		a->backoff_ms = 0;
		return was_blocked ? KPMC_ATTACH_EV_RESUMED : KPMC_ATTACH_EV_ALREADY;
	case KPMC_ATTACH_GONE:
		return KPMC_ATTACH_EV_GONE;
	case KPMC_ATTACH_REFUSED:
	default:
		keep(a, pid, tid, start);
		return KPMC_ATTACH_EV_REFUSED;
	}
}

void kpmc_pmda_attach_end(struct kpmc_pmda_attach *a)
{
	struct kpmc_pmda_attached *v = a->done;
	size_t cap = a->cap_done;

	if (a->nnext)
		qsort(a->next, a->nnext, sizeof(*a->next), cmp_tid);
	a->done = a->next;
	a->ndone = a->nnext;
	a->cap_done = a->cap_next;
	/* The old list is the next scan's buffer. */
	a->next = v;
	a->cap_next = cap;
	a->nnext = 0;
}

void kpmc_pmda_attach_free(struct kpmc_pmda_attach *a)
{
	unsigned int min_ms = a->min_ms, max_ms = a->max_ms;

	free(a->done);
	free(a->next);
	memset(a, 0, sizeof(*a));
	a->min_ms = min_ms;
	a->max_ms = max_ms;
}
