// SPDX-License-Identifier: LGPL-2.1
/*
 * The calling thread's counters: kpmc_read, kpmc_read_counter and the
 * region reads, through the thread's mapped page of /proc/kpmc/self (the
 * fast path, fastread.h) or its read(); the path's mode (kpmc_set_read_path,
 * KPMC_READ_PATH) reaching every thread's inlined kpmc_read_counter; the
 * thread's state (page, file, tid) forgotten in a forked child.
 */
/* kpmc_read_counter's one out-of-line definition is here, not kpmc.h's inline. */
#define KPMC_NO_INLINE
#include "kpmc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "libkpmc_internal.h"
#include "common/kpmc_proc.h"
#include "fastread.h"

static __thread int self_fd = -1;	/* the thread's /proc/kpmc/self, at its first read() */
static __thread uint32_t my_tid;

/* The fast path: the thread's page (NULL: not mapped yet; MAP_FAILED: no page). */
static int path_mode = KPMC_PATH_AUTO;
static pthread_once_t path_env_once = PTHREAD_ONCE_INIT;
/*
 * Initial-exec: the lean read's TLS accesses are one load off the thread
 * pointer, not a call to __tls_get_addr (a shared library's default).
 */
#define KPMC_TLS __thread __attribute__((tls_model("initial-exec")))
static KPMC_TLS const struct kpmc_self_page *page;
/*
 * What kpmc.h's inlined kpmc_read_counter reads, its only test before the
 * page's own: the thread's page while the fast path may be taken, else
 * no_page, whose entries all say "use read()" (so no NULL test either). The
 * mode is in it too: KPMC_PATH_READ points every thread's at no_page, through
 * fast_threads (a global flag would be a load and a branch more per read).
 * Exported (libkpmc.map), not API.
 */
static const struct kpmc_self_page no_page;	/* seq even, every user_index 0 */
__thread const void *kpmc__page_v1 __attribute__((tls_model("initial-exec"))) = &no_page;

/* Threads with a mapped page, for kpmc_set_read_path to reach their kpmc__page_v1. */
struct fast_thread {
	const void **slot;		/* the thread's kpmc__page_v1 */
	const void *page;
	struct fast_thread *prev, *next;
};
static struct fast_thread *fast_threads;
static pthread_mutex_t fast_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t fast_key;
static KPMC_TLS struct fast_thread *fast_me;
static KPMC_TLS int last_path;
static KPMC_TLS uint64_t reads_fast, reads_slow;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/*
 * A forked child is another thread: its parent's page is not its own, and
 * kpmc does not map it into the child (VM_DONTCOPY). No munmap here: the
 * address is free in the child, and an earlier fork handler may already
 * have mapped something else there.
 */
static void forget_thread_state(void)
{
	page = NULL;
	kpmc__page_v1 = &no_page;
	/* The other threads are gone; their entries are leaked, not touched. */
	fast_threads = NULL;
	fast_me = NULL;
	pthread_setspecific(fast_key, NULL);
	pthread_mutex_unlock(&fast_lock);
	if (self_fd >= 0)
		close(self_fd);
	self_fd = -1;
	my_tid = 0;
}

uint32_t kpmc_lib_tid(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

static void fast_fork_prepare(void)
{
	pthread_mutex_lock(&fast_lock);
}

static void fast_fork_parent(void)
{
	pthread_mutex_unlock(&fast_lock);
}

/* A thread leaves: its kpmc__page_v1 is about to go, so its entry goes first. */
static void fast_thread_exit(void *arg)
{
	struct fast_thread *f = arg;

	pthread_mutex_lock(&fast_lock);
	if (f->prev)
		f->prev->next = f->next;
	else
		fast_threads = f->next;
	if (f->next)
		f->next->prev = f->prev;
	pthread_mutex_unlock(&fast_lock);
	free(f);
}

static void install_atfork(void)
{
	pthread_key_create(&fast_key, fast_thread_exit);
	pthread_atfork(fast_fork_prepare, fast_fork_parent, forget_thread_state);
}

/* Under fast_lock: what the thread's inline may read in the current mode. */
static void fast_publish(struct fast_thread *f)
{
	__atomic_store_n(f->slot, __atomic_load_n(&path_mode, __ATOMIC_RELAXED) == KPMC_PATH_READ ?
			 &no_page : f->page,
			 __ATOMIC_RELAXED);
}

static void path_from_env(void)
{
	const char *e = getenv("KPMC_READ_PATH");

	if (!e)
		return;
	if (!strcmp(e, "read"))
		path_mode = KPMC_PATH_READ;
	else if (!strcmp(e, "fast"))
		path_mode = KPMC_PATH_FAST;
}

int kpmc_set_read_path(int mode)
{
	if (mode != KPMC_PATH_AUTO && mode != KPMC_PATH_READ && mode != KPMC_PATH_FAST)
		return -EINVAL;
	struct fast_thread *f;
	int old;

	pthread_once(&path_env_once, path_from_env);
	/*
	 * Most calls keep the pointers as they are (AUTO <-> FAST): one atomic
	 * store, no lock, the same few instructions every time (callers set the
	 * mode inside measured code). A CAS, so that it never undoes a change
	 * of the pointers made meanwhile.
	 */
	old = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	while ((old == KPMC_PATH_READ) == (mode == KPMC_PATH_READ))
		if (__atomic_compare_exchange_n(&path_mode, &old, mode, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 0;
	pthread_mutex_lock(&fast_lock);
	__atomic_store_n(&path_mode, mode, __ATOMIC_RELAXED);
	/* A read already past its thread's pointer finishes on the old path. */
	for (f = fast_threads; f; f = f->next)
		fast_publish(f);
	pthread_mutex_unlock(&fast_lock);
	return 0;
}

int kpmc_last_read_path(void)
{
	return last_path;
}

void kpmc_read_stats(uint64_t *fast, uint64_t *slow)
{
	*fast = reads_fast;
	*slow = reads_slow;
}

#if defined(__aarch64__)
/* Granted by kpmc only while this thread runs and its page says so (PMUSERENR_EL0.ER|CR). */
_Static_assert(KPMC__CYCLE_INDEX == KPMC_PAGE_ARM64_CYCLE_INDEX, "the header's cycle index is the ABI's");

static uint64_t read_counter(uint32_t index, void *arg)
{
	return kpmc__pmu_read(index, arg);
}
#else
/*
 * x86: user-space RDPMC depends on CR4.PCE, which is perf's to set (per mm,
 * for its own mmap'd events); kpmc never grants it and its pages never say
 * KPMC_PAGE_USER_READ there, so this is never called.
 */
static uint64_t read_counter(uint32_t index, void *arg)
{
	(void)index;
	(void)arg;
	return 0;
}
#endif

static uint64_t monotonic_ns(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_self(void)
{
	if (self_fd < 0) {
		int fd = kpmc_proc_open("self", O_RDONLY);

		if (fd < 0)
			return fd;
		self_fd = fd;
	}
	return 0;
}

/* The calling thread's page, mapped at its first read; NULL if there is none. */
static const struct kpmc_self_page *my_page(void)
{
	void *p;

	if (page)
		return page == MAP_FAILED ? NULL : page;
	pthread_once(&atfork_once, install_atfork);
	if (open_self())
		return NULL;
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, self_fd, 0);
	/* Another layout is no page: never read, by the calls nor the inline. */
	if (p != MAP_FAILED && ((const struct kpmc_self_page *)p)->version != KPMC_PAGE_VERSION) {
		munmap(p, sysconf(_SC_PAGESIZE));
		p = MAP_FAILED;
	}
	page = p;
	if (p == MAP_FAILED)
		return NULL;
	/* The inline must not skip KPMC_READ_PATH: the mode is set before it reads. */
	pthread_once(&path_env_once, path_from_env);
	fast_me = calloc(1, sizeof(*fast_me));
	if (fast_me) {	/* else the inline always calls: slower, still right */
		fast_me->slot = &kpmc__page_v1;
		fast_me->page = p;
		pthread_mutex_lock(&fast_lock);
		fast_me->next = fast_threads;
		if (fast_threads)
			fast_threads->prev = fast_me;
		fast_threads = fast_me;
		fast_publish(fast_me);
		pthread_mutex_unlock(&fast_lock);
		pthread_setspecific(fast_key, fast_me);
	}
	return page;
}

/*
 * Old modules return only struct kpmc_self_counts: one set. Also the fast
 * path's conversion, so it writes only what nr_sets = 1 puts in use: clearing
 * all of *c cost the fast read 110 of its 300 guest instructions.
 */
static void from_self_counts(const struct kpmc_self_counts *sc, struct kpmc_counts *c)
{
	c->counter_mask = sc->counter_mask;
	c->run_ns = sc->run_ns;
	memcpy(c->counts, sc->counts, sizeof(c->counts));
	c->set = sc->set;
	c->nr_sets = 1;
	c->sets[0].counter_mask = sc->counter_mask;
	c->sets[0].run_ns = sc->run_ns;
	memcpy(c->sets[0].counts, sc->counts, sizeof(c->counts));
}

/*
 * The read() path. virt (NULL: not wanted) takes the active module's
 * virtual counters as struct kpmc_self_all gives them, *virt_mask which
 * are there (0 from a module that gives none between records, or an
 * older kpmc).
 */
static int read_self(struct kpmc_counts *c, uint64_t *virt, uint32_t *virt_mask)
{
	struct kpmc_self_all sa;
	struct kpmc_self_sets *ss = &sa.sets;
	unsigned int s;
	int err;
	ssize_t n;

	if (virt)
		*virt_mask = 0;
	err = open_self();
	if (err)
		return err;
	n = pread(self_fd, &sa, virt ? sizeof(sa) : sizeof(*ss), 0);
	if (n != (ssize_t)sizeof(sa) && n != (ssize_t)sizeof(*ss) && n != (ssize_t)sizeof(ss->all))
		return n < 0 ? -errno : -EIO;
	last_path = KPMC_PATH_READ;
	reads_slow++;
	from_self_counts(&ss->all, c);
	if (n == (ssize_t)sizeof(ss->all))
		return 0;
	c->nr_sets = ss->nr_sets < KPMC_LIB_SETS ? ss->nr_sets : KPMC_LIB_SETS;
	c->counter_mask = 0;
	for (s = 0; s < c->nr_sets; s++) {
		c->sets[s].counter_mask = ss->sets[s].counter_mask;
		c->sets[s].run_ns = ss->sets[s].run_ns;
		memcpy(c->sets[s].counts, ss->sets[s].counts, sizeof(c->sets[s].counts));
		c->counter_mask |= ss->sets[s].counter_mask;
	}
	if (virt && n == (ssize_t)sizeof(sa)) {
		memcpy(virt, sa.virt, sizeof(sa.virt));
		*virt_mask = sa.virt_mask;
	}
	return 0;
}

static int read_counts(struct kpmc_counts *c, int mode)
{
	struct kpmc_self_counts sc;
	const struct kpmc_self_page *p;

	if (mode != KPMC_PATH_READ) {
		p = my_page();
		if (p && !kpmc_page_read(p, read_counter, monotonic_ns, NULL, &sc)) {
			last_path = KPMC_PATH_FAST;
			reads_fast++;
			from_self_counts(&sc, c);
			return 0;
		}
		if (mode == KPMC_PATH_FAST)
			return -EOPNOTSUPP;
	}
	return read_self(c, NULL, NULL);
}

int kpmc_read(struct kpmc_counts *c)
{
	pthread_once(&path_env_once, path_from_env);
	return read_counts(c, __atomic_load_n(&path_mode, __ATOMIC_RELAXED));
}

int kpmc_lib_read(struct kpmc_counts *c, int prefer_read)
{
	int mode;

	pthread_once(&path_env_once, path_from_env);
	mode = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	return read_counts(c, prefer_read && mode == KPMC_PATH_AUTO ? KPMC_PATH_READ : mode);
}

int kpmc_lib_read_sets(struct kpmc_counts *c)
{
	return read_self(c, NULL, NULL);
}

int kpmc_lib_read_virt(struct kpmc_counts *c, uint64_t virt[KPMC_MAX_VIRT], uint32_t *virt_mask)
{
	return read_self(c, virt, virt_mask);
}

/*
 * kpmc_read_counter's first call, its read() path and its fallbacks, out of
 * line from the inlined fast path (kpmc.h).
 */
int kpmc__read_counter_slow(unsigned int pmc, uint64_t *value)
{
	const struct kpmc_self_page *p;
	struct kpmc_counts c;
	int mode, err;

	if (pmc >= KPMC_MAX_COUNTERS)
		return -EINVAL;
	pthread_once(&path_env_once, path_from_env);
	mode = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	if (mode != KPMC_PATH_READ) {
		p = my_page();
		if (p) {
			if (!kpmc_page_read_one(p, pmc, read_counter, NULL, value))
				return 0;
			/* Counting, but not pmcN: no path has it. */
			if ((__atomic_load_n(&p->flags, __ATOMIC_RELAXED) & KPMC_PAGE_COUNTING) &&
			    !(__atomic_load_n(&p->counter_mask, __ATOMIC_RELAXED) & (1u << pmc)))
				return -ENOENT;
		}
		if (mode == KPMC_PATH_FAST)
			return -EOPNOTSUPP;
	}
	/* The whole read(): kpmc_read_stats counts it, as for kpmc_read. */
	err = read_self(&c, NULL, NULL);
	if (err)
		return err;
	if (!(c.counter_mask & (1u << pmc)))
		return -ENOENT;
	*value = c.counts[pmc];
	return 0;
}

/*
 * The symbol, for callers that do not inline kpmc.h's body (-O0, other
 * architectures, its address taken): the same fast path, then the rest.
 */
int kpmc_read_counter(unsigned int pmc, uint64_t *value)
{
	const void *p = kpmc__page_v1;

	if (pmc < KPMC_MAX_COUNTERS &&
	    !kpmc__page_one(p, pmc, read_counter, NULL, value))
		return 0;
	return kpmc__read_counter_slow(pmc, value);
}
