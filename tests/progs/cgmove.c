// SPDX-License-Identifier: GPL-2.0
/*
 * cgmove CGDIR CHUNKS [TRACE]: a task moved into the cgroup v2 directory
 * CGDIR and out again while it runs, for per-cgroup counts (kpmc -G, perf's
 * cgroup events) on a machine of at least two CPUs. A child spins on CPU 1
 * in chunks of CHUNK_ITERS iterations (spin.h: 2 user instructions each),
 * after each a read of the CPU's free-running counter and a shared progress
 * count; this process, on CPU 0, moves it into CGDIR once it spins, lets it
 * spin CHUNKS chunks there, moves it back and lets it spin three times as
 * long outside before it stops it. The child never waits meanwhile: a
 * counter that follows its cgroup only at its switches sees neither move.
 *
 * It prints "cgmove chunk=INSTR [inside_min=N inside_max=M] in_min=A
 * in_max=B span=S switches=W": the child spun at least A chunks inside CGDIR
 * and at most B (the progress read after the move in and before the move
 * out, and before the move in and after the move out); S chunks from the
 * return of the move in to the return of the move out; W context switches
 * of the child from before the move in to its stop.
 *
 * N and M, with TRACE (the trace file of a tracefs instance, trace_clock
 * "mono", a kprobe event on css_set_move_task and the cgroup_attach_task
 * event on): the chunks that ended from the report of the move in to the
 * change of the move out, and from the change of the move in to the report
 * of the move out, by the times the kernel stamped. A counter that looks
 * again at the report counts from between the two of the move in to
 * between the two of the move out. The mover's reads of the progress are
 * no such bound: they lag the moves by however long the mover takes to get
 * back to user space (in a TCG guest its vCPU is at times given a sliver
 * of the time: 4,581 chunks at worst in 40 runs of the arm64 guest).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "spin.h"
#include "cgdir.h"

#define CHUNK_ITERS 10000UL
#define MAX_STAMPS (1UL << 17)

struct shared {
	volatile unsigned long progress;
	volatile int stop;
	unsigned long long stamp[MAX_STAMPS];	/* counter() at each chunk's end */
};

/* The CPU's free-running counter, readable from user space, global to all CPUs. */
static inline unsigned long long counter(void)
{
#if defined(__aarch64__)
	unsigned long long c;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(c) : : "memory");
	return c;
#elif defined(__x86_64__)
	unsigned int lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((unsigned long long)hi << 32) | lo;
#else
#error "cgmove: add this architecture's user-readable counter"
#endif
}

/* A point of the line from counter() to CLOCK_MONOTONIC nanoseconds. */
struct clock_pair {
	unsigned long long count, ns;
};

static void clock_pair_now(struct clock_pair *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	p->count = counter();
	p->ns = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* A line's time: "  TASK-PID  [CPU] FLAGS  SECONDS.MICROS: EVENT ..." (mono clock, ns). */
static int trace_time(const char *line, unsigned long long *ns)
{
	const char *colon = strstr(line, ": "), *p;
	unsigned long long sec, usec;

	if (!colon)
		return -1;
	for (p = colon; p > line && p[-1] != ' '; p--)
		;
	if (sscanf(p, "%llu.%6llu:", &sec, &usec) != 2)
		return -1;
	*ns = sec * 1000000000ULL + usec * 1000ULL;
	return 0;
}

/*
 * The two moves of pid as the trace has them, each twice: when the task
 * changed cgroups (the kprobe on css_set_move_task, of migrations only:
 * moved[]) and when cgroup_attach_task reported it, the move done
 * (reported[]). Kernel code runs between the two (the controllers' attach
 * callbacks, perf's among them, and the migration's clean-up).
 */
static int trace_moves(const char *trace, pid_t pid, unsigned long long moved[2],
		       unsigned long long reported[2])
{
	char line[1024], want[32];
	int nmoved = 0, nreported = 0;
	unsigned long long t;
	FILE *f = fopen(trace, "r");

	if (!f) {
		fprintf(stderr, "cgmove: %s: %s\n", trace, strerror(errno));
		return -1;
	}
	snprintf(want, sizeof(want), " pid=%d ", (int)pid);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "(css_set_move_task+") && nmoved < 2 && !trace_time(line, &t))
			moved[nmoved++] = t;
		else if (strstr(line, ": cgroup_attach_task: ") && strstr(line, want) &&
			 nreported < 2 && !trace_time(line, &t))
			reported[nreported++] = t;
	}
	fclose(f);
	if (nmoved == 2 && nreported == 2)
		return 0;
	fprintf(stderr, "cgmove: %s: %d of the 2 css_set_move_task and %d of the 2 cgroup_attach_task events of pid %d\n",
		trace, nmoved, nreported, (int)pid);
	return -1;
}

/* The chunks that ended after the time from and no later than the time to. */
static unsigned long chunks_between(const struct shared *sh, unsigned long n,
				    const struct clock_pair *p0, const struct clock_pair *p1,
				    unsigned long long from, unsigned long long to)
{
	long double per_ns = (long double)(p1->count - p0->count) / (long double)(p1->ns - p0->ns);
	long double lo = p0->count + ((long double)from - p0->ns) * per_ns;
	long double hi = p0->count + ((long double)to - p0->ns) * per_ns;
	unsigned long k, inside = 0;

	for (k = 0; k < n && k < MAX_STAMPS; k++)
		if (sh->stamp[k] > lo && sh->stamp[k] <= hi)
			inside++;
	return inside;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "cgmove: CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

/* The child's context switches so far (voluntary and not). */
static unsigned long switches(pid_t pid)
{
	char path[64], line[128];
	unsigned long n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static void wait_progress(struct shared *sh, unsigned long at_least)
{
	while (sh->progress < at_least)
		;
}

int main(int argc, char **argv)
{
	unsigned long chunks, before_in, after_in, before_out, after_out, sw_in, sw_out;
	unsigned long long moved[2], reported[2];
	struct clock_pair p0, p1;
	char inside[80] = "";
	struct shared *sh;
	char home[512];
	pid_t pid;
	int st;

	if ((argc != 3 && argc != 4) || (chunks = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: cgmove CGDIR CHUNKS [TRACE]\n");
		return 2;
	}
	own_dir(home, sizeof(home));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("cgmove: mmap");
		return 1;
	}
	pin(0);
	clock_pair_now(&p0);
	pid = fork();
	if (pid == 0) {
		pin(1);
		while (!sh->stop) {
			unsigned long n = sh->progress;

			spin(CHUNK_ITERS);
			if (n < MAX_STAMPS)
				sh->stamp[n] = counter();
			sh->progress = n + 1;
		}
		_exit(0);
	}
	wait_progress(sh, 1);
	sw_in = switches(pid);
	before_in = sh->progress;
	put_pid(argv[1], pid);
	after_in = sh->progress;
	wait_progress(sh, after_in + chunks);
	before_out = sh->progress;
	put_pid(home, pid);
	after_out = sh->progress;
	wait_progress(sh, after_out + 3 * chunks);
	sw_out = switches(pid);
	sh->stop = 1;
	waitpid(pid, &st, 0);
	clock_pair_now(&p1);
	if (argc == 4) {
		if (trace_moves(argv[3], pid, moved, reported))
			return 1;
		snprintf(inside, sizeof(inside), " inside_min=%lu inside_max=%lu",
			 chunks_between(sh, sh->progress, &p0, &p1, reported[0], moved[1]),
			 chunks_between(sh, sh->progress, &p0, &p1, moved[0], reported[1]));
	}
	printf("cgmove chunk=%lu%s in_min=%lu in_max=%lu span=%lu switches=%lu\n", 2 * CHUNK_ITERS,
	       inside, before_out - after_in, after_out - before_in + 1, after_out - after_in,
	       sw_out - sw_in);
	return 0;
}
