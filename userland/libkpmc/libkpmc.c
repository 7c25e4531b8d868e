// SPDX-License-Identifier: LGPL-2.1
#include "kpmc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "fastread.h"

#define MAX_REGIONS	64

struct region {
	char name[48];
	uint64_t calls;
	uint64_t total[KPMC_LIB_COUNTERS];
	uint64_t open[KPMC_LIB_COUNTERS];	/* counts at begin (per thread) */
	int active;
};

static int session_fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct region totals[MAX_REGIONS];	/* over all threads, under lock */
static __thread struct region mine[MAX_REGIONS];
static __thread int self_fd = -1;

/* The fast path: the thread's page (NULL: not mapped yet; MAP_FAILED: no page). */
static int path_mode = KPMC_PATH_AUTO;
static pthread_once_t path_env_once = PTHREAD_ONCE_INIT;
static __thread const struct kpmc_self_page *page;
static __thread int last_path;
static __thread uint64_t reads_fast, reads_slow;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child is another thread: the page it inherited is its parent's. */
static void forget_thread_state(void)
{
	if (page && page != MAP_FAILED)
		munmap((void *)page, sysconf(_SC_PAGESIZE));
	page = NULL;
	if (self_fd >= 0)
		close(self_fd);
	self_fd = -1;
}

static void install_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_thread_state);
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
	pthread_once(&path_env_once, path_from_env);
	__atomic_store_n(&path_mode, mode, __ATOMIC_RELAXED);
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
static uint64_t read_counter(uint32_t index, void *arg)
{
	uint64_t v;

	(void)arg;
	if (index == KPMC_PAGE_ARM64_CYCLE_INDEX) {
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
	} else {
		__asm__ volatile("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
				 : "=r"(v) : "r"((uint64_t)index));
	}
	return v;
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
		self_fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC);
		if (self_fd < 0)
			return -errno;
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
	page = p;
	if (p == MAP_FAILED || page->version != KPMC_PAGE_VERSION)
		return NULL;
	return page;
}

static int put(const char *file, const char *s)
{
	char path[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = -errno;
	close(fd);
	return err;
}

int kpmc_start(const char *config)
{
	int err;

	if (session_fd >= 0)
		return -EBUSY;
	/* The session: records (exits) go there; nobody needs to read them. */
	session_fd = open("/proc/kpmc/monitor", O_RDONLY | O_CLOEXEC);
	if (session_fd < 0)
		return -errno;
	err = put("config", config);
	if (!err)
		err = put("enable", "1");
	if (err) {
		close(session_fd);
		session_fd = -1;
	}
	return err;
}

int kpmc_stop(void)
{
	if (session_fd < 0)
		return -EINVAL;
	put("enable", "0");
	close(session_fd);
	session_fd = -1;
	return 0;
}

int kpmc_read(struct kpmc_counts *c)
{
	struct kpmc_self_counts sc;
	const struct kpmc_self_page *p;
	int mode, err;
	ssize_t n;

	pthread_once(&path_env_once, path_from_env);
	mode = __atomic_load_n(&path_mode, __ATOMIC_RELAXED);
	if (mode != KPMC_PATH_READ) {
		p = my_page();
		if (p && !kpmc_page_read(p, read_counter, monotonic_ns, NULL, &sc)) {
			last_path = KPMC_PATH_FAST;
			reads_fast++;
			goto out;
		}
		if (mode == KPMC_PATH_FAST)
			return -EOPNOTSUPP;
	}
	err = open_self();
	if (err)
		return err;
	n = pread(self_fd, &sc, sizeof(sc), 0);
	if (n != (ssize_t)sizeof(sc))
		return n < 0 ? -errno : -EIO;
	last_path = KPMC_PATH_READ;
	reads_slow++;
out:
	c->counter_mask = sc.counter_mask;
	c->run_ns = sc.run_ns;
	memcpy(c->counts, sc.counts, sizeof(c->counts));
	return 0;
}

static struct region *find(struct region *table, const char *name, int create)
{
	int i;

	for (i = 0; i < MAX_REGIONS && table[i].name[0]; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	if (!create || i == MAX_REGIONS || strlen(name) >= sizeof(table[i].name))
		return NULL;
	strcpy(table[i].name, name);
	return &table[i];
}

int kpmc_region_begin(const char *name)
{
	struct region *r = find(mine, name, 1);
	struct kpmc_counts c;
	int err;

	if (!r)
		return -ENOSPC;
	if (r->active)
		return -EALREADY;
	err = kpmc_read(&c);
	if (err)
		return err;
	memcpy(r->open, c.counts, sizeof(r->open));
	r->active = 1;
	return 0;
}

int kpmc_region_end(const char *name)
{
	struct region *r, *g;
	struct kpmc_counts c;
	unsigned int i;
	/* Read first: the lookup must not count in the region (its cost varies). */
	int err = kpmc_read(&c);

	r = find(mine, name, 0);
	if (!r || !r->active)
		return -EINVAL;
	if (err)
		return err;
	r->active = 0;
	pthread_mutex_lock(&lock);
	g = find(totals, name, 1);
	if (g) {
		g->calls++;
		for (i = 0; i < KPMC_LIB_COUNTERS; i++)
			g->total[i] += c.counts[i] - r->open[i];
	}
	pthread_mutex_unlock(&lock);
	return g ? 0 : -ENOSPC;
}

int64_t kpmc_region_total(const char *name, unsigned int pmc)
{
	struct region *g;
	int64_t v = -1;

	if (pmc >= KPMC_LIB_COUNTERS)
		return -1;
	pthread_mutex_lock(&lock);
	g = find(totals, name, 0);
	if (g)
		v = (int64_t)g->total[pmc];
	pthread_mutex_unlock(&lock);
	return v;
}

void kpmc_region_report(FILE *f)
{
	int i;
	unsigned int c;

	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_REGIONS && totals[i].name[0]; i++) {
		fprintf(f, "region %s calls=%llu", totals[i].name, (unsigned long long)totals[i].calls);
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (totals[i].total[c])
				fprintf(f, " pmc%u=%llu", c, (unsigned long long)totals[i].total[c]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&lock);
}
