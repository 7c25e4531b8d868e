// SPDX-License-Identifier: GPL-2.0
/*
 * Workload with an exactly known user-mode instruction count: each loop
 * iteration is two instructions (decrement, branch), so runs with N and 2N
 * iterations differ by exactly 2N instructions.
 *
 *   loop N            one thread runs N iterations
 *   loop -t N1 N2     two threads run N1 and N2 iterations concurrently
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void spin(unsigned long n)
{
	if (!n)
		return;
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
#error "loop.c: add the two-instruction loop for this architecture"
#endif
}

static void *thread_main(void *arg)
{
	spin((unsigned long)arg);
	return NULL;
}

static unsigned long parse(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "loop: bad count '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc == 2) {
		spin(parse(argv[1]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "-t")) {
		pthread_t a, b;

		if (pthread_create(&a, NULL, thread_main, (void *)parse(argv[2])) ||
		    pthread_create(&b, NULL, thread_main, (void *)parse(argv[3]))) {
			perror("loop: pthread_create");
			return 1;
		}
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		return 0;
	}
	fprintf(stderr, "usage: loop N | loop -t N1 N2\n");
	return 2;
}
