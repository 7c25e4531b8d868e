// SPDX-License-Identifier: GPL-2.0
/*
 * phases: the multiplexing accuracy benchmark's workload (bench/guest/bench.sh,
 * section mux). Rounds of a user-mode phase (spin.h's loop: two instructions
 * an iteration) then a kernel-mode phase (getppid system calls), sized in
 * work, not time, so that every run of one program retires the same user
 * instructions whatever monitors it:
 *
 *   phases calibrate
 *       prints "KPMC-BENCH mux_calibrate ns_per_call=N" (one getppid, guest ns)
 *   phases NAME ITERS CALLS ROUNDS [perf EVENTS]
 *       ROUNDS rounds of ITERS spin iterations and CALLS system calls.
 *       With "perf EVENTS": first opens EVENTS perf counters on itself, raw
 *       event 0x08 (instructions retired), alternately user mode only and
 *       kernel mode only, each its own event (more events than counters:
 *       perf multiplexes them, rotating at its mux interval); after the
 *       rounds prints one line per event:
 *       "KPMC-BENCH mux_perf prog=NAME event=I mode=u|k count=C enabled=E running=R"
 *       (perf's scaled estimate is C * E / R).
 *   phases NAME time USER_NS KERNEL_NS ROUNDS
 *       the same rounds sized in guest time (the clock read between
 *       iterations and calls): a period that stays exactly that of a
 *       rotation cycle on any kernel, where the work-sized rounds follow
 *       what a system call costs there (t_arm64_multiplexing.sh).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "benchutil.h"
#include "../../tests/progs/spin.h"

#define MAX_EVENTS 64

static int open_event(int kernel_mode)
{
	struct perf_event_attr attr;
	int fd;

	bench_perf_attr(&attr, 0x08, 0);
	attr.exclude_kernel = !kernel_mode;
	attr.exclude_user = kernel_mode;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("phases: perf_event_open");
		exit(1);
	}
	return fd;
}

static void work(unsigned long iters, unsigned long calls, unsigned long rounds)
{
	unsigned long r, k;

	for (r = 0; r < rounds; r++) {
		if (iters)
			spin(iters);
		for (k = 0; k < calls; k++)
			getppid_syscall();
	}
}

static void timed(uint64_t user_ns, uint64_t kernel_ns, unsigned long rounds)
{
	uint64_t end = bench_now_ns();
	unsigned long r;

	for (r = 0; r < rounds; r++) {
		end += user_ns;
		while (bench_now_ns() < end)
			spin(100);
		end += kernel_ns;
		while (bench_now_ns() < end)
			getppid_syscall();
	}
}

int main(int argc, char **argv)
{
	int fd[MAX_EVENTS], events = 0, i;
	unsigned long iters, calls, rounds;

	if (argc == 2 && !strcmp(argv[1], "calibrate")) {
		uint64_t t0;

		bench_warmup();
		t0 = bench_now_ns();
		work(0, 20000, 1);
		printf("KPMC-BENCH mux_calibrate ns_per_call=%llu\n",
		       (unsigned long long)((bench_now_ns() - t0) / 20000));
		return 0;
	}
	if (argc == 6 && !strcmp(argv[2], "time")) {
		timed(strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0), strtoul(argv[5], NULL, 0));
		return 0;
	}
	if (argc != 5 && !(argc == 7 && !strcmp(argv[5], "perf"))) {
		fprintf(stderr, "usage: phases calibrate | phases NAME ITERS CALLS ROUNDS [perf EVENTS] |\n"
			"       phases NAME time USER_NS KERNEL_NS ROUNDS\n");
		return 2;
	}
	iters = strtoul(argv[2], NULL, 0);
	calls = strtoul(argv[3], NULL, 0);
	rounds = strtoul(argv[4], NULL, 0);
	if (argc == 7) {
		events = atoi(argv[6]);
		if (events < 2 || events > MAX_EVENTS || events % 2) {
			fprintf(stderr, "phases: EVENTS must be even, 2..%d\n", MAX_EVENTS);
			return 2;
		}
		for (i = 0; i < events; i++)
			fd[i] = open_event(i % 2);
	}
	work(iters, calls, rounds);
	for (i = 0; i < events; i++) {
		uint64_t v[3];

		if (read(fd[i], v, sizeof(v)) != (ssize_t)sizeof(v)) {
			perror("phases: read");
			return 1;
		}
		printf("KPMC-BENCH mux_perf prog=%s event=%d mode=%c count=%llu enabled=%llu running=%llu\n",
		       argv[1], i, i % 2 ? 'k' : 'u', (unsigned long long)v[0],
		       (unsigned long long)v[1], (unsigned long long)v[2]);
	}
	return 0;
}
