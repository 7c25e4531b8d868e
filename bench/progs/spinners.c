// SPDX-License-Identifier: GPL-2.0
/*
 * spinners T N MODE [PERIOD]: T threads, thread i bound to CPU i (mod the
 * CPUs online), each a CPU-bound loop of N iterations (3 instructions each),
 * all started together; one tool's samples of every CPU at once:
 *   none            no perf (run it under kpmc -A -c pmc0,ebs0=P: one kpmc
 *                   session fed by every thread's CPU)
 *   perf-count      each thread counts user-mode CPU_CYCLES on itself, no
 *                   samples: what perf-ebs is compared with
 *   perf-ebs PERIOD each thread samples itself every PERIOD user-mode
 *                   CPU_CYCLES (raw 0x11: the cycle counter), one perf ring
 *                   per thread; one consumer thread drains them all when
 *                   woken at a quarter of a ring, as perf record does with
 *                   one event per thread
 * Under -icount the guest clock advances by the instructions of every vCPU
 * (the emulator runs them in turn), so the elapsed time is the work of all
 * threads, and what a tool adds to it per sample is its cost summed over the
 * CPUs, waiting for a shared lock included.
 *
 * Prints: KPMC-BENCH cpus threads=T n=N mode=M arg=A ns=E samples=S lost=L
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "benchutil.h"

#define RING_PAGES 16
#define MAX_THREADS 64

struct spinner {
	pthread_t th;
	int cpu;
	int fd;
	struct perf_event_mmap_page *meta;
};

static struct spinner sp[MAX_THREADS];
static int nthreads, ended[2] = { -1, -1 };
static long iters, period;
static const char *mode;
static size_t page;
static uint64_t nsamples, nlost;
static pthread_barrier_t opened, go, done;

static void *consumer(void *arg)
{
	struct pollfd p[MAX_THREADS + 1];
	int i, done = 0;

	(void)arg;
	for (i = 0; i < nthreads; i++)
		p[i] = (struct pollfd){ .fd = sp[i].fd, .events = POLLIN };
	p[nthreads] = (struct pollfd){ .fd = ended[0], .events = POLLIN };
	while (!done) {
		if (poll(p, nthreads + 1, -1) < 0)
			break;
		done = p[nthreads].revents != 0;
		for (i = 0; i < nthreads; i++)
			bench_perf_drain(sp[i].meta, page, RING_PAGES, &nsamples, &nlost);
	}
	return NULL;
}

static void open_own(struct spinner *s)
{
	struct perf_event_attr a;

	bench_perf_attr(&a, 0x11, 0);
	if (!strcmp(mode, "perf-ebs")) {
		a.sample_period = (uint64_t)period;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(RING_PAGES * page / 4);
	}
	a.disabled = 1;
	s->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (s->fd < 0) {
		perror("spinners: perf_event_open");
		exit(1);
	}
	if (!strcmp(mode, "perf-ebs")) {
		s->meta = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
			       s->fd, 0);
		if (s->meta == MAP_FAILED) {
			perror("spinners: mmap perf ring");
			exit(1);
		}
	}
}

static void *spin(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;
	long i;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("spinners: sched_setaffinity");
		exit(1);
	}
	if (strcmp(mode, "none"))
		open_own(s);
	pthread_barrier_wait(&opened);
	pthread_barrier_wait(&go);
	if (s->fd >= 0)
		ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = iters; i > 0; i--)
		__asm__ volatile("" : "+r"(i));
	if (s->fd >= 0)
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	pthread_barrier_wait(&done);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: spinners THREADS N none|perf-count|perf-ebs PERIOD\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t cons;
	uint64_t t0, t1;
	int i;

	if (argc < 4)
		usage();
	nthreads = (int)bench_arg(argv[1], "threads");
	iters = bench_arg(argv[2], "N");
	mode = argv[3];
	if (nthreads < 1 || nthreads > MAX_THREADS || cpus < 1)
		usage();
	if (!strcmp(mode, "perf-ebs")) {
		if (argc != 5)
			usage();
		period = bench_arg(argv[4], "period");
		if (!period)
			usage();
	} else if ((strcmp(mode, "none") && strcmp(mode, "perf-count")) || argc != 4) {
		usage();
	}
	page = (size_t)sysconf(_SC_PAGESIZE);
	pthread_barrier_init(&opened, NULL, (unsigned int)nthreads + 1);
	pthread_barrier_init(&go, NULL, (unsigned int)nthreads + 1);
	pthread_barrier_init(&done, NULL, (unsigned int)nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		sp[i].cpu = (int)(i % cpus);
		sp[i].fd = -1;
		if (pthread_create(&sp[i].th, NULL, spin, &sp[i])) {
			fprintf(stderr, "spinners: pthread_create failed\n");
			return 1;
		}
	}
	pthread_barrier_wait(&opened);
	if (!strcmp(mode, "perf-ebs") &&
	    (pipe(ended) || pthread_create(&cons, NULL, consumer, NULL))) {
		fprintf(stderr, "spinners: consumer thread failed\n");
		return 1;
	}
	bench_warmup();
	t0 = bench_now_ns();
	pthread_barrier_wait(&go);
	/*
	 * The end is when the last loop is done, before the threads exit: a
	 * thread's exit may wait for the kernel (perf's, an RCU grace period),
	 * and with every CPU idle the guest clock jumps to the next timer.
	 */
	pthread_barrier_wait(&done);
	t1 = bench_now_ns();
	for (i = 0; i < nthreads; i++)
		pthread_join(sp[i].th, NULL);
	if (ended[1] >= 0) {
		if (write(ended[1], "e", 1) != 1)
			return 1;
		pthread_join(cons, NULL);
	}
	printf("KPMC-BENCH cpus threads=%d n=%ld mode=%s arg=%ld ns=%llu samples=%llu lost=%llu\n",
	       nthreads, iters, mode, period, (unsigned long long)(t1 - t0),
	       (unsigned long long)nsamples, (unsigned long long)nlost);
	return 0;
}
