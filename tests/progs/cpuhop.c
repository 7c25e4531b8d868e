// SPDX-License-Identifier: GPL-2.0
/*
 * cpuhop [-c CPU] [-p] CHUNKS ITERS: one thread runs CHUNKS chunks of ITERS
 * iterations of the two-instruction loop (spin.h). Before each chunk it
 * moves itself onto CPU (default 1) with sched_setaffinity(); while that
 * CPU is offline (the call fails) it falls back to CPU 0. For the CPU
 * hotplug tests: a thread that keeps coming back to a CPU going offline
 * and online under it. At the end it prints
 *
 *   cpuhop chunks=C iters=N truth=T on_target=K fallbacks=F migrations=M
 *
 * T = 2 * C * N is the loop part's user-mode instruction count (the
 * program's total is T plus libc's start-up and exit, about 11,000, and
 * a few dozen per chunk for the system calls' user side); K chunks started
 * on CPU (sched_getcpu() after the move), F chunks elsewhere (CPU 0), M
 * chunks started on another CPU than the chunk before.
 *
 * -p: count the chunks with a perf event of its own (user-mode
 * instructions, inherit, enabled just around the chunks) and print
 *
 *   perf count=C enabled=E running=R
 *
 * the reference kpmc's count of another run under the same pattern is
 * compared with.
 *
 * cpuhop [-c CPU] -O HALF_MS [-D DELAY_MS] STOPFILE: the other side, the
 * cycler: as a SCHED_FIFO thread (a shell loop at normal priority starves
 * behind the spinning thread once CPU goes offline and both are on CPU 0:
 * its "sleep 0.01" ended with the spinner), wait DELAY_MS, then take CPU
 * offline, wait HALF_MS, bring it online, wait HALF_MS, until STOPFILE
 * exists (checked before each cycle); then bring CPU online (if it is not:
 * with STOPFILE there from the start, "online CPU after DELAY_MS") and print
 *
 *   cycler cycles=N failed=F
 *
 * N complete offline/online cycles, F writes to the online file refused.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

static unsigned long parse(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "cpuhop: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int move_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int perf_open(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("cpuhop: perf_event_open");
		exit(1);
	}
	return fd;
}

/* Write "0" or "1" to CPU's online file: 0 on success. */
static int set_online(int cpu, int on)
{
	char path[64];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f)
		return -1;
	bad = fputs(on ? "1" : "0", f) < 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static int cycler(int cpu, unsigned long half_ms, unsigned long delay_ms, const char *stopfile)
{
	struct sched_param sp = { .sched_priority = 50 };
	unsigned long cycles = 0, failed = 0;
	int tries;

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("cpuhop: sched_setscheduler");
		return 1;
	}
	sleep_ms(delay_ms);
	while (access(stopfile, F_OK)) {
		if (set_online(cpu, 0)) {
			failed++;
		} else {
			sleep_ms(half_ms);
			for (tries = 0; set_online(cpu, 1) && tries < 100; tries++) {
				failed++;
				sleep_ms(1);
			}
			cycles++;
		}
		sleep_ms(half_ms);
	}
	for (tries = 0; set_online(cpu, 1) && tries < 100; tries++)
		sleep_ms(1);
	printf("cycler cycles=%lu failed=%lu\n", cycles, failed);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long chunks, iters, i, on_target = 0, fallbacks = 0, migrations = 0;
	int target = 1, use_perf = 0, prev = -1, fd = -1, opt;
	long half_ms = -1;
	unsigned long delay_ms = 0;
	uint64_t v[3];

	while ((opt = getopt(argc, argv, "c:pO:D:")) != -1) {
		switch (opt) {
		case 'c':
			target = (int)parse(optarg);
			break;
		case 'p':
			use_perf = 1;
			break;
		case 'O':
			half_ms = (long)parse(optarg);
			break;
		case 'D':
			delay_ms = parse(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (half_ms >= 0) {
		if (argc - optind != 1)
			goto usage;
		return cycler(target, (unsigned long)half_ms, delay_ms, argv[optind]);
	}
	if (argc - optind != 2)
		goto usage;
	chunks = parse(argv[optind]);
	iters = parse(argv[optind + 1]);
	if (!chunks || !iters || target < 0 || target >= CPU_SETSIZE)
		goto usage;

	if (use_perf) {
		fd = perf_open();
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
			perror("cpuhop: PERF_EVENT_IOC_ENABLE");
			return 1;
		}
	}
	for (i = 0; i < chunks; i++) {
		int cpu;

		/* If even CPU 0 refuses, the chunk runs where the thread is. */
		if (move_to(target))
			(void)move_to(0);
		cpu = sched_getcpu();
		if (cpu == target)
			on_target++;
		else
			fallbacks++;
		if (prev >= 0 && cpu != prev)
			migrations++;
		prev = cpu;
		spin(iters);
	}
	if (use_perf) {
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)) {
			perror("cpuhop: PERF_EVENT_IOC_DISABLE");
			return 1;
		}
		if (read(fd, v, sizeof(v)) != sizeof(v)) {
			perror("cpuhop: read");
			return 1;
		}
	}
	printf("cpuhop chunks=%lu iters=%lu truth=%lu on_target=%lu fallbacks=%lu migrations=%lu\n",
	       chunks, iters, 2 * chunks * iters, on_target, fallbacks, migrations);
	if (use_perf)
		printf("perf count=%llu enabled=%llu running=%llu\n", (unsigned long long)v[0],
		       (unsigned long long)v[1], (unsigned long long)v[2]);
	return 0;

usage:
	fprintf(stderr, "usage: cpuhop [-c CPU] [-p] CHUNKS ITERS | cpuhop [-c CPU] -O HALF_MS [-D DELAY_MS] STOPFILE\n");
	return 2;
}
