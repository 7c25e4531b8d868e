// SPDX-License-Identifier: GPL-2.0
/*
 * ampmix H L RUN_MS WARMUP_MS: the placement policy's workload on 2 CPUs.
 * H "high" threads spin in user mode (many user instructions per ms); L
 * "low" threads make syscalls back to back (few). Each thread starts on the
 * CPU the policy should NOT give it (high on CPU 0, low on CPU 1), then
 * frees its affinity and, with AMP_ADD=1 in the environment, opts itself in
 * to the policy (add=TID). Every so often each thread notes the CPU it runs
 * on; after the warm-up it prints, per thread:
 *   ampmix: high|low tid=T on_cpu1=K samples=S
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "spin.h"

static long run_ms, warmup_ms;
static int add_self;
static pthread_barrier_t started;

struct worker {
	int high;
	pid_t tid;
	unsigned long on_cpu1, samples;
	pthread_t thread;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		CPU_SET(0, &set);
		CPU_SET(1, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	sched_setaffinity(0, sizeof(set), &set);
}

static void opt_in(pid_t tid)
{
	FILE *f = fopen("/proc/kpmc_amp/control", "w");

	if (!f || fprintf(f, "add=%d\n", tid) < 0 || fclose(f))
		fprintf(stderr, "ampmix: add=%d refused\n", tid);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	long start, end, now;
	int i;

	w->tid = syscall(SYS_gettid);
	pin(w->high ? 0 : 1);
	spin(1000000);
	pin(-1);
	if (add_self)
		opt_in(w->tid);
	pthread_barrier_wait(&started);
	start = now_ms();
	end = start + run_ms;
	while ((now = now_ms()) < end) {
		if (w->high)
			spin(200000);
		else
			for (i = 0; i < 200; i++)
				syscall(SYS_getppid);
		if (now - start >= warmup_ms) {
			w->samples++;
			w->on_cpu1 += sched_getcpu() == 1;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker *w;
	int high, low, i;

	if (argc != 5) {
		fprintf(stderr, "usage: ampmix HIGH LOW RUN_MS WARMUP_MS\n");
		return 2;
	}
	high = atoi(argv[1]);
	low = atoi(argv[2]);
	run_ms = atol(argv[3]);
	warmup_ms = atol(argv[4]);
	add_self = getenv("AMP_ADD") && !strcmp(getenv("AMP_ADD"), "1");
	w = calloc(high + low, sizeof(*w));
	if (!w || high + low < 1)
		return 1;
	pthread_barrier_init(&started, NULL, high + low);
	for (i = 0; i < high + low; i++) {
		w[i].high = i < high;
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	}
	for (i = 0; i < high + low; i++)
		pthread_join(w[i].thread, NULL);
	for (i = 0; i < high + low; i++)
		printf("ampmix: %s tid=%d on_cpu1=%lu samples=%lu\n", w[i].high ? "high" : "low",
		       w[i].tid, w[i].on_cpu1, w[i].samples);
	return 0;
}
