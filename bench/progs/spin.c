// SPDX-License-Identifier: GPL-2.0
/*
 * spin N MODE [ARG]: a CPU-bound loop of N iterations (2 instructions each),
 * optionally sampled by perf the way `perf record` samples:
 *   none            no perf (run it under kpmc -T to measure kpmc's TBS)
 *   perf-count      the perf-tbs group counting, no samples and no consumer
 *                   thread: what the sampling modes are compared with
 *                   (kpmc's counting run has no reader wakeups either, so
 *                   each tool's per-sample figure carries its consumer's
 *                   wakeups; a perf-count consumer polling every 20 ms
 *                   took perf's out of its figure and left kpmc's in)
 *   perf-tbs MS     every MS ms of task clock, a sample that reads a group
 *                   holding INST_RETIRED (user mode): perf's analogue of TBS
 *   perf-ebs PERIOD a sample every PERIOD user-mode CPU_CYCLES (raw 0x11: on
 *                   the cycle counter, whose overflow IRQs QEMU delivers on
 *                   time under -icount; at shift=0 cycles = instructions)
 *   perf-events N   N counting events (user-mode INST_RETIRED), each its own:
 *                   more than the PMU's counters and perf rotates them every
 *                   perf_event_mux_interval_ms (the cost of a rotation)
 * A second thread plays perf record: it drains the mmap ring, counting
 * samples, when woken by perf's watermark (a quarter of the ring, as kpmc
 * wakes its reader), and at the end; like perf record it polls without a
 * timeout (as kpmc -A, which asks for wakeup=watermark, and learns of its
 * program's end from a pidfd).
 *
 * Prints: KPMC-BENCH spin n=N mode=M arg=A ns=T samples=S lost=L
 */
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "benchutil.h"

#define RING_PAGES 64
#define MAX_EVENTS 64

static int ended[2] = { -1, -1 };
static struct perf_event_mmap_page *meta;
static size_t page;
static int leader = -1;
static uint64_t nsamples, nlost;

static void *consumer(void *arg)
{
	struct pollfd p[2] = { { .fd = leader, .events = POLLIN },
			       { .fd = ended[0], .events = POLLIN } };

	(void)arg;
	while (!p[1].revents) {
		if (poll(p, 2, -1) < 0)
			break;
		bench_perf_drain(meta, page, RING_PAGES, &nsamples, &nlost);
	}
	return NULL;
}

static void open_sampler(const char *mode, long arg)
{
	struct perf_event_attr a;
	int member;

	if (!strcmp(mode, "perf-tbs") || !strcmp(mode, "perf-count")) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_period = (uint64_t)arg * 1000000ull;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
		a.read_format = PERF_FORMAT_GROUP;
	} else {
		bench_perf_attr(&a, 0x11, 0);
		a.sample_period = (uint64_t)arg;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ;
		a.read_format = PERF_FORMAT_GROUP;
	}
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (!strcmp(mode, "perf-count")) {
		a.sample_period = 0;
		a.sample_type = 0;
	}
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(RING_PAGES * page / 4);
	a.disabled = 1;
	leader = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (leader < 0) {
		perror("spin: perf_event_open (sampler)");
		exit(1);
	}
	if (strcmp(mode, "perf-ebs")) {
		bench_perf_attr(&a, 0x08, 0);
		member = (int)syscall(SYS_perf_event_open, &a, 0, -1, leader, 0);
		if (member < 0) {
			perror("spin: perf_event_open (group member)");
			exit(1);
		}
	}
	meta = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
		    leader, 0);
	if (meta == MAP_FAILED) {
		perror("spin: mmap perf ring");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *mode;
	pthread_t th;
	uint64_t t0, t1;
	long n, arg = 0, i;

	if (argc < 3) {
		fprintf(stderr, "usage: spin N none|perf-count|perf-tbs MS|perf-ebs PERIOD|perf-events N\n");
		return 2;
	}
	n = bench_arg(argv[1], "N");
	mode = argv[2];
	if (!strcmp(mode, "perf-count") && argc == 3) {
		open_sampler(mode, 0);
	} else if (!strcmp(mode, "perf-events") && argc == 4) {
		static int fds[MAX_EVENTS];

		arg = bench_arg(argv[3], "events");
		if (arg < 1 || arg > MAX_EVENTS) {
			fprintf(stderr, "spin: 1 to %d events\n", MAX_EVENTS);
			return 2;
		}
		for (i = 0; i < arg; i++) {
			struct perf_event_attr a;

			bench_perf_attr(&a, 0x08, 0);
			fds[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
			if (fds[i] < 0) {
				perror("spin: perf_event_open");
				return 1;
			}
		}
	} else if (strcmp(mode, "none")) {
		if ((strcmp(mode, "perf-tbs") && strcmp(mode, "perf-ebs")) || argc != 4) {
			fprintf(stderr, "usage: spin N none|perf-count|perf-tbs MS|perf-ebs PERIOD|perf-events N\n");
			return 2;
		}
		arg = bench_arg(argv[3], "period");
		if (!arg) {
			fprintf(stderr, "spin: the period must be > 0\n");
			return 2;
		}
		open_sampler(mode, arg);
		if (pipe(ended) || pthread_create(&th, NULL, consumer, NULL)) {
			fprintf(stderr, "spin: pthread_create failed\n");
			return 1;
		}
	}
	bench_warmup();
	t0 = bench_now_ns();
	if (leader >= 0)
		ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (i = n; i > 0; i--)
		__asm__ volatile("" : "+r"(i));
	if (leader >= 0)
		ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	t1 = bench_now_ns();
	if (leader >= 0 && strcmp(mode, "perf-count")) {
		if (write(ended[1], "e", 1) != 1)
			return 1;
		pthread_join(th, NULL);
	}
	printf("KPMC-BENCH spin n=%ld mode=%s arg=%ld ns=%llu samples=%llu lost=%llu\n",
	       n, mode, arg, (unsigned long long)(t1 - t0),
	       (unsigned long long)nsamples, (unsigned long long)nlost);
	return 0;
}
