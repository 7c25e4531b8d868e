// SPDX-License-Identifier: GPL-2.0
/*
 * cgmove CGDIR CHUNKS: a task moved into the cgroup v2 directory CGDIR and
 * out again while it runs, for per-cgroup counts (kpmc -G, perf's cgroup
 * events) on a machine of at least two CPUs. A child spins on CPU 1 in
 * chunks of CHUNK_ITERS iterations (spin.h: 2 user instructions each), a
 * shared progress count after each; this process, on CPU 0, moves it into
 * CGDIR once it spins, lets it spin CHUNKS chunks there, moves it back and
 * lets it spin three times as long outside before it stops it. The child
 * never waits meanwhile: a counter that follows its cgroup only at its
 * switches sees neither move.
 *
 * It prints "cgmove chunk=INSTR in_min=A in_max=B span=S switches=W": the
 * child spun at least A chunks inside CGDIR and at most B (the progress
 * read after the move in and before the move out, and before the move in
 * and after the move out); S chunks from the return of the move in to the
 * return of the move out (each write's slow part, a grace period, comes
 * before its move); W context switches of the child from before the move
 * in to its stop.
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
#include <unistd.h>
#include "spin.h"
#include "cgdir.h"

#define CHUNK_ITERS 10000UL

struct shared {
	volatile unsigned long progress;
	volatile int stop;
};

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
	struct shared *sh;
	char home[512];
	pid_t pid;
	int st;

	if (argc != 3 || (chunks = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: cgmove CGDIR CHUNKS\n");
		return 2;
	}
	own_dir(home, sizeof(home));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("cgmove: mmap");
		return 1;
	}
	pin(0);
	pid = fork();
	if (pid == 0) {
		pin(1);
		while (!sh->stop) {
			spin(CHUNK_ITERS);
			sh->progress++;
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
	printf("cgmove chunk=%lu in_min=%lu in_max=%lu span=%lu switches=%lu\n", 2 * CHUNK_ITERS,
	       before_out - after_in, after_out - before_in + 1, after_out - after_in, sw_out - sw_in);
	return 0;
}
