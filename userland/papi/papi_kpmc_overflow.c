// SPDX-License-Identifier: LGPL-2.1
/* The kpmc component's overflow poller (see papi_kpmc_overflow.h). */
#include "papi_kpmc_overflow.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KPMC_PAPI_OVERFLOW_THREADS	64

struct watched {
	const void *owner;	/* NULL: a free slot */
	int fd;
	pid_t tid;
	int *pending;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct watched watched[KPMC_PAPI_OVERFLOW_THREADS];
static int wake_fd = -1;	/* the poller's: the set of sessions changed, or a handler is done */
static int started;

int kpmc_papi_overflow_signal(void)
{
	/* perf_event's component takes SIGRTMIN + 2. */
	return SIGRTMIN + 3;
}

static void wake_poller(void)
{
	uint64_t one = 1;
	ssize_t n = write(wake_fd, &one, sizeof(one));

	(void)n;	/* a full counter wakes the poller all the same */
}

static void *poller(void *unused)
{
	struct pollfd p[KPMC_PAPI_OVERFLOW_THREADS + 1];
	unsigned int slot[KPMC_PAPI_OVERFLOW_THREADS + 1];
	const void *owner[KPMC_PAPI_OVERFLOW_THREADS + 1];
	uint64_t v;
	unsigned int i, n;
	ssize_t r;

	(void)unused;
	for (;;) {
		pthread_mutex_lock(&lock);
		p[0].fd = wake_fd;
		p[0].events = POLLIN;
		n = 1;
		for (i = 0; i < KPMC_PAPI_OVERFLOW_THREADS; i++) {
			if (!watched[i].owner || __atomic_load_n(watched[i].pending, __ATOMIC_ACQUIRE))
				continue;
			p[n].fd = watched[i].fd;
			p[n].events = POLLIN;
			owner[n] = watched[i].owner;
			slot[n++] = i;
		}
		pthread_mutex_unlock(&lock);
		if (poll(p, n, -1) < 0)
			continue;
		if (p[0].revents & POLLIN)
			r = read(wake_fd, &v, sizeof(v));
		(void)r;
		pthread_mutex_lock(&lock);
		for (i = 1; i < n; i++) {
			struct watched *w = &watched[slot[i]];

			/* Still the same session's, and not signalled since. */
			if (!(p[i].revents & (POLLIN | POLLERR | POLLHUP)) || w->owner != owner[i] ||
			    w->fd != p[i].fd || __atomic_load_n(w->pending, __ATOMIC_ACQUIRE))
				continue;
			__atomic_store_n(w->pending, 1, __ATOMIC_RELEASE);
			syscall(SYS_tgkill, getpid(), w->tid, kpmc_papi_overflow_signal());
		}
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/*
 * A forked child has none of the parent's threads: no poller, and none of
 * the parent's counting threads to watch. Its first arm starts its own.
 */
static void forked_child(void)
{
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	started = 0;
	memset(watched, 0, sizeof(watched));
	pthread_mutex_init(&lock, NULL);
}

/* The poller, once: it takes no signal (PAPI's and the application's go to their threads). */
static int start_poller(void)
{
	static int atfork_done;
	sigset_t all, old;
	pthread_t t;
	int err;

	if (!atfork_done) {
		err = pthread_atfork(NULL, NULL, forked_child);
		if (err)
			return -err;
		atfork_done = 1;
	}
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, poller, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(wake_fd);
		wake_fd = -1;
		return -err;
	}
	pthread_detach(t);
	started = 1;
	return 0;
}

int kpmc_papi_overflow_arm(const void *owner, int fd, pid_t tid, int *pending)
{
	struct watched *free_slot = NULL;
	unsigned int i;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (!started)
		err = start_poller();
	for (i = 0; !err && i < KPMC_PAPI_OVERFLOW_THREADS; i++) {
		if (watched[i].owner == owner || (!watched[i].owner && !free_slot))
			free_slot = &watched[i];
		if (watched[i].owner == owner)
			break;
	}
	if (!err && !free_slot)
		err = -ENOSPC;
	if (!err) {
		__atomic_store_n(pending, 0, __ATOMIC_RELEASE);
		free_slot->fd = fd;
		free_slot->tid = tid;
		free_slot->pending = pending;
		free_slot->owner = owner;
		wake_poller();
	}
	pthread_mutex_unlock(&lock);
	return err;
}

void kpmc_papi_overflow_disarm(const void *owner)
{
	unsigned int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < KPMC_PAPI_OVERFLOW_THREADS; i++)
		if (watched[i].owner == owner)
			memset(&watched[i], 0, sizeof(watched[i]));
	if (started)
		wake_poller();
	pthread_mutex_unlock(&lock);
}

void kpmc_papi_overflow_done(int *pending)
{
	__atomic_store_n(pending, 0, __ATOMIC_RELEASE);
	if (wake_fd >= 0)
		wake_poller();
}
