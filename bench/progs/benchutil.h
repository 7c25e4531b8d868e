/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the guest benchmark programs: guest clock, per-thread perf
 * counters opened the way a perf user would, and the one output format
 * the bench driver parses ("KPMC-BENCH name key=value ...").
 */
#ifndef KPMC_BENCHUTIL_H
#define KPMC_BENCHUTIL_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_PERF 8

/* Under -icount shift=0 one guest nanosecond is one instruction. */
static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Spin 10 ms of guest time before measuring: the kernel work deferred while
 * the CPU idled (RCU callbacks, timers, kworkers) runs at the first ticks
 * after idle, and would otherwise land in whichever run starts first.
 */
static inline void bench_warmup(void)
{
	uint64_t end = bench_now_ns() + 10000000ull;

	while (bench_now_ns() < end)
		;
}

static inline void bench_perf_attr(struct perf_event_attr *attr, uint64_t raw_event,
				   int inherit)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_RAW;
	attr->config = raw_event;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->inherit = inherit;
}

/*
 * Open n user-mode counters of raw_event on the calling thread, each its own
 * event (as n separate PAPI/perf counters would be). Exits on failure: a
 * benchmark that silently measured fewer counters would lie.
 */
static inline void bench_perf_open(int *fds, int n, uint64_t raw_event, int inherit)
{
	struct perf_event_attr attr;
	int i;

	if (n > BENCH_MAX_PERF) {
		fprintf(stderr, "bench: at most %d perf counters\n", BENCH_MAX_PERF);
		exit(2);
	}
	for (i = 0; i < n; i++) {
		bench_perf_attr(&attr, raw_event, inherit);
		fds[i] = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fds[i] < 0) {
			perror("bench: perf_event_open");
			exit(1);
		}
	}
}

static inline uint64_t bench_perf_read(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v)) {
		perror("bench: read perf counter");
		exit(1);
	}
	return v;
}

static inline long bench_arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "bench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/*
 * Take what a perf mmap ring holds (data pages after the metadata page):
 * samples and lost records counted, the space given back, as perf record's
 * reader would.
 */
static inline void bench_perf_drain(struct perf_event_mmap_page *meta, size_t page,
				    size_t ring_pages, uint64_t *samples, uint64_t *lost)
{
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	const char *data = (const char *)meta + page;
	uint64_t size = (uint64_t)ring_pages * page;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % size;

		/* Headers are 8-byte aligned in a power-of-two ring: never split. */
		memcpy(&h, data + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			(*samples)++;
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t l[2];

			memcpy(l, data + (off + sizeof(h)) % size, sizeof(l));
			*lost += l[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

#endif
