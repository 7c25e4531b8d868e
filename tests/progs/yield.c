// SPDX-License-Identifier: GPL-2.0
/*
 * yield ROUNDS: two threads hand a byte back and forth over two pipes ROUNDS
 * times, so on one CPU each is switched in once per round (plus its start).
 * A workload with a known number of context switches per thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;

static void *side(void *arg)
{
	int first = arg != NULL;
	char b = 'x';
	long i;

	for (i = 0; i < rounds; i++) {
		if (first && write(ab[1], &b, 1) != 1)
			exit(1);
		if (read(first ? ba[0] : ab[0], &b, 1) != 1)
			exit(1);
		if (!first && write(ba[1], &b, 1) != 1)
			exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc != 2 || (rounds = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: yield ROUNDS\n");
		return 2;
	}
	if (pipe(ab) || pipe(ba))
		return 1;
	if (pthread_create(&b, NULL, side, NULL) || pthread_create(&a, NULL, side, &ab))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
