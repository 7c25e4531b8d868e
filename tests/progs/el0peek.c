// SPDX-License-Identifier: GPL-2.0
/*
 * el0peek (arm64, run as root on a one-CPU machine): can a thread that may
 * read its counters at EL0 see the counts of the thread that ran before it?
 *
 * Two unprivileged processes, "owner" (uid 1000) and "peeker" (uid 1001),
 * each monitors itself, maps its /proc/kpmc/self page (so kpmc grants it EL0
 * reads while it runs: one set, no sampling) and is pinned to CPU 0. They
 * ping-pong ROUNDS times over two pipes, so the CPU goes from one straight
 * to the other. The owner counts pmc0..pmc3 (cycles and three event
 * counters) and spins between pongs; the peeker counts only the last
 * counter, pmc(N-1), and at each wake-up reads every counter at EL0
 * (PMCCNTR_EL0, PMSELR_EL0 + PMXEVCNTR_EL0) and notes each nonzero value in
 * one its configuration does not use:
 *
 *   el0peek owner rounds=R pmc1=I
 *   el0peek peeker rounds=R granted=G leaks=L traps=T max=V counters=N
 *
 * I: the owner's user-mode instructions (read()); G: the rounds whose page
 * said EL0 may read; L: the rounds in which some counter outside the
 * peeker's configuration was nonzero; T: reads that trapped (SIGILL); V: the
 * largest such value seen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>
#include <uapi/linux/kpmc.h>
#include "procinfo.h"
#include "spin.h"

#if defined(__aarch64__)

#define OWNER_UID	1000
#define PEEKER_UID	1001
#define SPIN		50000UL

static sigjmp_buf trap_jmp;

static void die(const char *who, const char *what)
{
	fprintf(stderr, "el0peek %s: %s: %s\n", who, what, strerror(errno));
	exit(1);
}

static void put(const char *who, const char *file, const char *s)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(who, path);
	close(fd);
}

/* "counters: N" of /proc/kpmc/info. */
static unsigned int nr_counters(void)
{
	long n = kpmc_info_field("counters");

	if (n < 0)
		die("root", "/proc/kpmc/info");
	return (unsigned int)n;
}

static void become(const char *who, uid_t uid)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		die(who, "sched_setaffinity");
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		die(who, "setuid");
}

/* Monitor this thread with config, and map its page. */
static const volatile struct kpmc_self_page *monitor(const char *who, const char *config)
{
	void *p;
	int fd;

	/* The session: kept open (and inherited by nothing) until exit. */
	if (open("/proc/kpmc/monitor", O_RDONLY | O_NONBLOCK | O_CLOEXEC) < 0)
		die(who, "/proc/kpmc/monitor");
	put(who, "config", config);
	put(who, "enable", "1");
	fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(who, "/proc/kpmc/self");
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die(who, "mmap /proc/kpmc/self");
	close(fd);
	return p;
}

static void xfer(const char *who, int fd, int out)
{
	char b = 0;

	if ((out ? write(fd, &b, 1) : read(fd, &b, 1)) != 1)
		die(who, out ? "write" : "read");
}

static int owner(int rounds, int in, int out)
{
	struct kpmc_self_counts c;
	int fd, i;

	become("owner", OWNER_UID);
	monitor("owner", "pmc0,pmc1=0x8,pmc2=0x8,pmc3=0x11");
	for (i = 0; i < rounds; i++) {
		spin(SPIN);
		xfer("owner", out, 1);
		xfer("owner", in, 0);
	}
	fd = open("/proc/kpmc/self", O_RDONLY);
	if (fd < 0 || read(fd, &c, sizeof(c)) != sizeof(c))
		die("owner", "read /proc/kpmc/self");
	printf("el0peek owner rounds=%d pmc1=%llu\n", rounds, (unsigned long long)c.counts[1]);
	return 0;
}

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(trap_jmp, 1);
}

static inline __u64 read_evcntr(unsigned int n)
{
	__u64 v;

	__asm__ volatile("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
			 : "=r"(v) : "r"((__u64)n) : "memory");
	return v;
}

static inline __u64 read_ccntr(void)
{
	__u64 v;

	__asm__ volatile("isb\n\tmrs %0, pmccntr_el0" : "=r"(v) : : "memory");
	return v;
}

static int peeker(int rounds, int in, int out, unsigned int nr)
{
	struct sigaction sa = { .sa_handler = on_sigill };
	const volatile struct kpmc_self_page *page;
	/* The peeker's own counter: event counter nr - 2, pmc(nr - 1). */
	unsigned int own = nr - 2, n;
	volatile int granted = 0, leaks = 0, traps = 0;
	volatile __u64 max = 0;
	char config[32];
	int i;

	become("peeker", PEEKER_UID);
	snprintf(config, sizeof(config), "pmc%u=0x8", nr - 1);
	page = monitor("peeker", config);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGILL, &sa, NULL))
		die("peeker", "sigaction");
	for (i = 0; i < rounds; i++) {
		__u64 v[KPMC_MAX_COUNTERS];
		volatile int leak = 0;

		xfer("peeker", in, 0);
		/*
		 * Straight after the switch from the owner. The grant, once
		 * the page says so, holds while this thread runs: kpmc puts it
		 * back at every switch-in.
		 */
		if (page->flags & KPMC_PAGE_USER_READ) {
			granted++;
			if (!sigsetjmp(trap_jmp, 1)) {
				v[0] = read_ccntr();
				for (n = 0; n + 1 < nr; n++)
					v[n + 1] = n == own ? 0 : read_evcntr(n);
				for (n = 0; n < nr; n++) {
					if (v[n])
						leak = 1;
					if (v[n] > max)
						max = v[n];
				}
				leaks += leak;
			} else {
				traps++;
			}
		}
		xfer("peeker", out, 1);
	}
	printf("el0peek peeker rounds=%d granted=%d leaks=%d traps=%d max=%llu counters=%u\n",
	       rounds, granted, leaks, traps, (unsigned long long)max, nr);
	return 0;
}

int main(int argc, char **argv)
{
	int to_peeker[2], to_owner[2], rounds, st, bad = 0;
	unsigned int nr;
	pid_t po, pp;

	rounds = argc == 2 ? atoi(argv[1]) : 0;
	if (rounds <= 0) {
		fprintf(stderr, "usage: el0peek ROUNDS (as root)\n");
		return 2;
	}
	nr = nr_counters();
	if (nr < 6) {
		fprintf(stderr, "el0peek: %u counters; 6 needed\n", nr);
		return 1;
	}
	if (pipe(to_peeker) || pipe(to_owner))
		die("root", "pipe");
	fflush(stdout);
	pp = fork();
	if (pp < 0)
		die("root", "fork");
	if (!pp) {
		close(to_peeker[1]);
		close(to_owner[0]);
		st = peeker(rounds, to_peeker[0], to_owner[1], nr);
		fflush(stdout);
		_exit(st);
	}
	po = fork();
	if (po < 0)
		die("root", "fork");
	if (!po) {
		close(to_peeker[0]);
		close(to_owner[1]);
		st = owner(rounds, to_owner[0], to_peeker[1]);
		fflush(stdout);
		_exit(st);
	}
	close(to_peeker[0]);
	close(to_peeker[1]);
	close(to_owner[0]);
	close(to_owner[1]);
	if (waitpid(po, &st, 0) != po || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	if (waitpid(pp, &st, 0) != pp || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	return bad;
}

#else

int main(void)
{
	fprintf(stderr, "el0peek: arm64 only\n");
	return 2;
}

#endif
