// SPDX-License-Identifier: GPL-2.0
/*
 * fastpath: libkpmc's fast read path (mmap'd page + user-space counter reads)
 * against its read() path, counting pmc0 (cycles) and pmc1 (INST_RETIRED),
 * user mode. Exactness is shown differentially: between a fast read and a
 * read() the program runs the same instructions whatever the work put before
 * them, so read() - fast - work is one constant when both are exact.
 *
 *   fastpath pairs    fast, spin(n), read() and read(), spin(n), fast for
 *                     several n: prints the constants per n (smallest of 5)
 *   fastpath threads  two threads, each its own page (tid) and exact deltas
 *   fastpath exit     a thread maps its page and exits; its page stays readable
 *   fastpath preempt  many fast reads while another thread competes for the
 *                     CPU: monotonic, and still equal to read() at the end
 *   fastpath preempt perf   the same while a child process holds perf events
 *                     (CPU-wide and its own) that cannot get a counter: perf
 *                     re-enables the PMU at every rotation and switch, which
 *                     rewrites PMUSERENR_EL0; the reads must go on (no SIGILL)
 *   fastpath one      kpmc_read_counter (the lean read of one counter) on the
 *                     fast path and on read(): lean, spin(n), lean and lean,
 *                     spin(n), kpmc_read minus 2n constant for every n; its errors
 *   fastpath probe    which path auto mode takes; whether forced fast works
 *   fastpath badmap   mmaps the kernel must refuse (two pages, writable)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <uapi/linux/kpmc.h>
#include "kpmc.h"
#include "spin.h"

#define REPS 5

static void die(const char *what, int err)
{
	fprintf(stderr, "fastpath: %s: %d\n", what, err);
	exit(1);
}

static void rd(int mode, struct kpmc_counts *c)
{
	int err;

	kpmc_set_read_path(mode);
	err = kpmc_read(c);
	if (err)
		die(mode == KPMC_PATH_FAST ? "fast read" : "read()", err);
	if (kpmc_last_read_path() != mode)
		die("the read took the other path", kpmc_last_read_path());
}

/* Read by first, spin(n), read by second: the difference - 2n for pmc, smallest of REPS. */
static long long gap(int first, int second, unsigned long n, unsigned int pmc)
{
	struct kpmc_counts a, b;
	long long best = 0, d;
	int i;

	for (i = 0; i < REPS; i++) {
		rd(first, &a);
		spin(n);
		rd(second, &b);
		d = (long long)(b.counts[pmc] - a.counts[pmc]) - 2 * (long long)n;
		if (!i || d < best)
			best = d;
	}
	return best;
}

static int pairs(void)
{
	static const unsigned long ns[] = { 1, 1000, 100000, 3000000 };
	long long fr0 = 0, rf0 = 0;
	int same = 1;
	unsigned int i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		long long fr = gap(KPMC_PATH_FAST, KPMC_PATH_READ, ns[i], 1);
		long long rf = gap(KPMC_PATH_READ, KPMC_PATH_FAST, ns[i], 1);

		printf("pairs n=%lu fast-to-read=%lld read-to-fast=%lld\n", ns[i], fr, rf);
		if (!i) {
			fr0 = fr;
			rf0 = rf;
		}
		same &= fr == fr0 && rf == rf0;
	}
	printf("pairs constant=%s\n", same ? "yes" : "no");
	return 0;
}

/* ---- two threads ---- */

static const struct kpmc_self_page *map_own_page(int *fd)
{
	void *p;

	*fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		die("open /proc/kpmc/self", -errno);
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		die("mmap", -errno);
	return p;
}

struct worker {
	unsigned long n;
	long long delta;	/* fast, spin(n), fast: difference - 2n */
	int page_tid_ok;
	const struct kpmc_self_page *page;
};

static void *thread_work(void *arg)
{
	struct worker *w = arg;
	struct kpmc_counts a, b;
	int fd;
	const struct kpmc_self_page *p = map_own_page(&fd);

	w->page = p;
	w->page_tid_ok = p->tid == (__u32)syscall(SYS_gettid) && p->version == KPMC_PAGE_VERSION &&
			 (p->flags & KPMC_PAGE_COUNTING);
	/*
	 * The two threads share the CPU: a switch that lands inside a fast
	 * read makes it retry (the page's sequence count changed), which only
	 * ever adds instructions. The smallest of three measurements is the
	 * retry-free one.
	 */
	for (int k = 0; k < 3; k++) {
		long long d;

		rd(KPMC_PATH_FAST, &a);
		spin(w->n);
		rd(KPMC_PATH_FAST, &b);
		d = (long long)(b.counts[1] - a.counts[1]) - 2 * (long long)w->n;
		if (k == 0 || d < w->delta)
			w->delta = d;
	}
	munmap((void *)p, sysconf(_SC_PAGESIZE));
	close(fd);
	return NULL;
}

static int threads(void)
{
	struct worker w[2] = { { .n = 1000000 }, { .n = 3000000 } };
	pthread_t t[2];
	int i;

	kpmc_set_read_path(KPMC_PATH_FAST);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_work, &w[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("threads own_page=%d,%d deltas=%lld,%lld same=%s\n", w[0].page_tid_ok,
	       w[1].page_tid_ok, w[0].delta, w[1].delta, w[0].delta == w[1].delta ? "yes" : "no");
	return 0;
}

/* ---- a thread exits while its page is mapped ---- */

static void *map_and_exit(void *arg)
{
	int fd;
	struct kpmc_counts c;

	*(const struct kpmc_self_page **)arg = map_own_page(&fd);
	rd(KPMC_PATH_FAST, &c);
	close(fd);
	return NULL;
}

static int exit_test(void)
{
	const struct kpmc_self_page *p = NULL;
	pthread_t t;
	unsigned int flags, seq;

	pthread_create(&t, NULL, map_and_exit, &p);
	pthread_join(t, NULL);
	/* The exited thread's state is freed after an RCU grace period. */
	usleep(200000);
	seq = p->seq;
	flags = p->flags;
	printf("exit flags=%u seq_even=%d nr=%u\n", flags, !(seq & 1), p->nr);
	munmap((void *)p, sysconf(_SC_PAGESIZE));
	return 0;
}

/* ---- preemption ---- */

static volatile int stop_competing;

static void *compete(void *arg)
{
	(void)arg;
	while (!stop_competing)
		spin(100000);
	return NULL;
}

/* read() right after a fast read: the smallest difference of REPS, for pmc. */
static long long fast_read_gap(unsigned int pmc)
{
	return gap(KPMC_PATH_FAST, KPMC_PATH_READ, 1, pmc);
}

static void *preempt_reader(void *arg)
{
	struct kpmc_counts prev, c;
	long long gap0[2], gap1[2];
	unsigned long i, backwards = 0, fast = 0, slow = 0;
	struct rusage ru;
	uint64_t f, s;
	unsigned int k;
	pthread_t comp;

	(void)arg;
	gap0[0] = fast_read_gap(0);
	gap0[1] = fast_read_gap(1);
	pthread_create(&comp, NULL, compete, NULL);
	kpmc_set_read_path(KPMC_PATH_AUTO);
	kpmc_read_stats(&f, &s);
	if (kpmc_read(&prev))
		die("read", 0);
	for (i = 0; i < 200000; i++) {
		if (kpmc_read(&c))
			die("read", 0);
		if (kpmc_last_read_path() == KPMC_PATH_FAST)
			fast++;
		else
			slow++;
		for (k = 0; k < 2; k++)
			backwards += c.counts[k] < prev.counts[k];
		prev = c;
		spin(200);
	}
	getrusage(RUSAGE_THREAD, &ru);
	gap1[0] = fast_read_gap(0);
	gap1[1] = fast_read_gap(1);
	stop_competing = 1;
	pthread_join(comp, NULL);
	printf("preempt reads fast=%lu read=%lu backwards=%lu preempted=%ld gap_before=%lld,%lld gap_after=%lld,%lld same=%s\n",
	       fast, slow, backwards, ru.ru_nivcsw, gap0[0], gap0[1], gap1[0], gap1[1],
	       gap0[0] == gap1[0] && gap0[1] == gap1[1] ? "yes" : "no");
	return NULL;
}

static int perf_open(pid_t pid, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0);
}

/* A process with perf events that wait for a counter kpmc holds, until SIGTERM. */
static pid_t perf_child(int report)
{
	pid_t pid = fork();
	uint64_t v[3] = { 0 };
	int cpu_fd, own_fd;

	if (pid)
		return pid;
	/* A reader that traps must not leave perf's events behind for the next test. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	cpu_fd = perf_open(-1, 0);
	own_fd = perf_open(0, -1);
	if (write(report, &cpu_fd, sizeof(cpu_fd)) < 0)
		_exit(1);
	for (;;) {
		sched_yield();
		if (own_fd >= 0 && read(own_fd, v, sizeof(v)) == sizeof(v) &&
		    write(report, v, sizeof(v)) < 0)
			_exit(1);
		usleep(1000);
	}
}

static int preempt(int with_perf)
{
	uint64_t v[3] = { 0 };
	int fds[2], cpu_fd = -1;
	pid_t child = 0;
	pthread_t t;

	if (with_perf) {
		if (pipe(fds))
			die("pipe", -errno);
		child = perf_child(fds[1]);
		if (read(fds[0], &cpu_fd, sizeof(cpu_fd)) != sizeof(cpu_fd))
			die("perf child", 0);
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
	}
	pthread_create(&t, NULL, preempt_reader, NULL);
	pthread_join(t, NULL);
	if (with_perf) {
		while (read(fds[0], v, sizeof(v)) == sizeof(v))
			;
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
		printf("perf cpu_event=%s own_event enabled_ns=%llu running_ns=%llu\n",
		       cpu_fd >= 0 ? "open" : "failed", (unsigned long long)v[1],
		       (unsigned long long)v[2]);
	}
	return 0;
}

static int probe(void)
{
	struct kpmc_counts c;
	uint64_t f, s;
	int i, err;

	kpmc_set_read_path(KPMC_PATH_AUTO);
	for (i = 0; i < 10; i++)
		if (kpmc_read(&c))
			die("read", 0);
	kpmc_read_stats(&f, &s);
	kpmc_set_read_path(KPMC_PATH_FAST);
	err = kpmc_read(&c);
	printf("probe auto_fast=%llu auto_read=%llu forced_fast=%d\n", (unsigned long long)f,
	       (unsigned long long)s, err);
	return 0;
}

static int try_map(size_t len, int prot, int flags)
{
	int fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC), err = 0;
	void *p;

	if (fd < 0)
		return -errno;
	p = mmap(NULL, len, prot, flags, fd, 0);
	if (p == MAP_FAILED)
		err = -errno;
	else
		munmap(p, len);
	close(fd);
	return err;
}

static int badmap(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	printf("badmap two_pages=%d writable=%d\n", try_map(2 * pg, PROT_READ, MAP_SHARED),
	       try_map(pg, PROT_READ | PROT_WRITE, MAP_PRIVATE));
	return 0;
}

/* kpmc_read_counter(1) in mode, spin(n), then a lean read (kpmc_read if whole): - 2n, smallest of REPS. */
static long long one_gap(int mode, unsigned long n, int whole)
{
	struct kpmc_counts c;
	long long best = 0, d;
	uint64_t a, b;
	int i, err;

	kpmc_set_read_path(mode);
	for (i = 0; i < REPS; i++) {
		err = kpmc_read_counter(1, &a);
		if (err)
			die("kpmc_read_counter", err);
		spin(n);
		if (whole) {
			err = kpmc_read(&c);
			b = c.counts[1];
		} else {
			err = kpmc_read_counter(1, &b);
		}
		if (err)
			die(whole ? "kpmc_read" : "kpmc_read_counter", err);
		d = (long long)(b - a) - 2 * (long long)n;
		if (!i || d < best)
			best = d;
	}
	return best;
}

/*
 * The mode reaches threads whose pages are mapped (the inlined read tests
 * only the thread's page pointer, which kpmc_set_read_path repoints): a
 * thread reads fast, another thread sets KPMC_PATH_READ, its next read is a
 * read(); back to AUTO, fast again. 1 if so.
 */
static pthread_barrier_t mode_bar;

static void *mode_thread(void *arg)
{
	uint64_t v, f0, s0, f1, s1, f2, s2;
	int *ok = arg;

	*ok = !kpmc_read_counter(1, &v);		/* maps this thread's page */
	kpmc_read_stats(&f0, &s0);
	pthread_barrier_wait(&mode_bar);		/* main: KPMC_PATH_READ */
	pthread_barrier_wait(&mode_bar);
	*ok &= !kpmc_read_counter(1, &v);
	kpmc_read_stats(&f1, &s1);
	pthread_barrier_wait(&mode_bar);		/* main: KPMC_PATH_AUTO */
	pthread_barrier_wait(&mode_bar);
	*ok &= !kpmc_read_counter(1, &v);
	kpmc_read_stats(&f2, &s2);
	*ok &= s1 == s0 + 1 && s2 == s1;
	return NULL;
}

static int mode_reaches_threads(void)
{
	pthread_t t;
	int ok = 0;

	kpmc_set_read_path(KPMC_PATH_AUTO);
	pthread_barrier_init(&mode_bar, NULL, 2);
	pthread_create(&t, NULL, mode_thread, &ok);
	pthread_barrier_wait(&mode_bar);
	kpmc_set_read_path(KPMC_PATH_READ);
	pthread_barrier_wait(&mode_bar);
	pthread_barrier_wait(&mode_bar);
	kpmc_set_read_path(KPMC_PATH_AUTO);
	pthread_barrier_wait(&mode_bar);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&mode_bar);
	return ok;
}

static int one(void)
{
	static const unsigned long ns[] = { 1, 1000, 100000, 3000000 };
	long long g0[3] = { 0 };
	uint64_t v;
	int same = 1;
	unsigned int i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		long long g[3] = { one_gap(KPMC_PATH_FAST, ns[i], 0), one_gap(KPMC_PATH_FAST, ns[i], 1),
				   one_gap(KPMC_PATH_READ, ns[i], 0) };

		printf("one n=%lu fast-to-fast=%lld fast-to-kpmc_read=%lld read-to-read=%lld\n", ns[i],
		       g[0], g[1], g[2]);
		if (!i)
			memcpy(g0, g, sizeof(g));
		same &= !memcmp(g, g0, sizeof(g));
	}
	kpmc_set_read_path(KPMC_PATH_AUTO);
	printf("one constant=%s cycles=%d enoent=%d einval=%d modes=%d\n", same ? "yes" : "no",
	       kpmc_read_counter(0, &v) == 0, kpmc_read_counter(5, &v) == -ENOENT,
	       kpmc_read_counter(KPMC_MAX_COUNTERS, &v) == -EINVAL, mode_reaches_threads());
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int err, r;

	err = kpmc_start("pmc0,pmc1=0x8");
	if (err)
		die("kpmc_start", err);
	if (!strcmp(mode, "pairs"))
		r = pairs();
	else if (!strcmp(mode, "threads"))
		r = threads();
	else if (!strcmp(mode, "exit"))
		r = exit_test();
	else if (!strcmp(mode, "preempt"))
		r = preempt(argc > 2 && !strcmp(argv[2], "perf"));
	else if (!strcmp(mode, "probe"))
		r = probe();
	else if (!strcmp(mode, "one"))
		r = one();
	else if (!strcmp(mode, "badmap"))
		r = badmap();
	else
		die("usage: fastpath pairs|threads|exit|preempt [perf]|probe|badmap|one", -EINVAL);
	if (kpmc_stop())
		die("kpmc_stop", 0);
	return r;
}
