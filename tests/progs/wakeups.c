// SPDX-License-Identifier: GPL-2.0
/*
 * wakeups ITERATIONS [POLICY]: how often a session's reader is woken. The
 * main thread opens /proc/kpmc/monitor (writes "wakeup=POLICY" to it if
 * given), monitors itself with a 1 ms time-based sample (cycle counter),
 * spins ITERATIONS two-instruction iterations, stops (a detach record) and
 * tells the reader through a pipe, as a pidfd tells the kpmc CLI that its
 * program ended. A reader thread, created before monitoring started (so it
 * is not monitored), polls the session and the pipe and counts the polls
 * that found records before the end ("wakeups") and the records.
 *
 * Prints: wakeups records=R wakeups=W detach=D
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "spin.h"

static int mon, ended[2];
static volatile int reader_started;
static unsigned long records, wakeups, detach;

static void put(const char *file, const char *s)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* Every record in the ring now; whether there was one. */
static int drain(void)
{
	struct kpmc_record rec[64];
	int got = 0;
	ssize_t n;

	while ((n = read(mon, rec, sizeof(rec))) > 0) {
		for (size_t i = 0; i < (size_t)n / sizeof(rec[0]); i++) {
			records++;
			if (rec[i].kind == KPMC_REC_DETACH)
				detach++;
		}
		got = 1;
	}
	return got;
}

static void *reader(void *arg)
{
	(void)arg;
	reader_started = 1;
	for (;;) {
		struct pollfd p[2] = { { .fd = mon, .events = POLLIN },
				       { .fd = ended[0], .events = POLLIN } };

		if (poll(p, 2, 5000) <= 0) {
			fprintf(stderr, "wakeups: no wakeup in 5 s\n");
			exit(1);
		}
		if (p[1].revents) {
			/* The end: what is left, not a wakeup by the session. */
			drain();
			return NULL;
		}
		wakeups += drain();
	}
}

int main(int argc, char **argv)
{
	unsigned long n;
	pthread_t th;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: wakeups ITERATIONS [POLICY]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	mon = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK);
	if (mon < 0 || pipe(ended)) {
		perror("/proc/kpmc/monitor");
		return 1;
	}
	if (argc == 3) {
		char req[64];
		int len = snprintf(req, sizeof(req), "wakeup=%s", argv[2]);

		if (write(mon, req, (size_t)len) != len) {
			perror(req);
			return 1;
		}
	}
	if (pthread_create(&th, NULL, reader, NULL))
		return 1;
	/*
	 * The reader asleep in poll() before the first record: one that first
	 * ran when records were there would count a poll that never slept.
	 */
	while (!reader_started)
		usleep(1000);
	usleep(1000);
	put("config", "pmc0,tbs=1");
	put("enable", "1");
	spin(n);
	put("enable", "0");
	if (write(ended[1], "e", 1) != 1)
		return 1;
	pthread_join(th, NULL);
	printf("wakeups records=%lu wakeups=%lu detach=%lu\n", records, wakeups, detach);
	return 0;
}
