// SPDX-License-Identifier: GPL-2.0
/*
 * wakeups ITERATIONS: how often a session's reader is woken. The main thread
 * opens /proc/kpmc/monitor, monitors itself with a 1 ms time-based sample
 * (cycle counter), spins ITERATIONS two-instruction iterations and stops
 * (a detach record). A reader thread, created before monitoring started (so
 * it is not monitored), polls the session and counts the polls that found
 * records ("wakeups") and the records.
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

static int mon;
static volatile int stopped;
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

static void *reader(void *arg)
{
	struct kpmc_record rec[64];

	(void)arg;
	while (!detach) {
		struct pollfd p = { .fd = mon, .events = POLLIN };
		int got = 0;
		ssize_t n;

		if (poll(&p, 1, 5000) <= 0) {
			fprintf(stderr, "wakeups: no wakeup in 5 s\n");
			exit(1);
		}
		while ((n = read(mon, rec, sizeof(rec))) > 0) {
			for (size_t i = 0; i < (size_t)n / sizeof(rec[0]); i++) {
				records++;
				if (rec[i].kind == KPMC_REC_DETACH)
					detach++;
			}
			got = 1;
		}
		wakeups += got;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n;
	pthread_t th;

	if (argc != 2) {
		fprintf(stderr, "usage: wakeups ITERATIONS\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	mon = open("/proc/kpmc/monitor", O_RDONLY | O_NONBLOCK);
	if (mon < 0) {
		perror("/proc/kpmc/monitor");
		return 1;
	}
	if (pthread_create(&th, NULL, reader, NULL))
		return 1;
	put("config", "pmc0,tbs=1");
	put("enable", "1");
	spin(n);
	put("enable", "0");
	pthread_join(th, NULL);
	printf("wakeups records=%lu wakeups=%lu detach=%lu\n", records, wakeups, detach);
	return 0;
}
