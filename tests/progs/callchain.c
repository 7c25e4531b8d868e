// SPDX-License-Identifier: GPL-2.0
/*
 * callchain: main -> a -> b -> c, each a function of its own, for call
 * stacks with known frames. Built with frame pointers (the Makefile:
 * -fno-omit-frame-pointer, -mno-omit-leaf-frame-pointer on arm64, no
 * sibling calls), so a frame-pointer walk from anywhere in c gives c, b, a,
 * main, then libc's start-up.
 *
 *   callchain spin N   c runs N iterations of exactly two instructions
 *   callchain sys N    c makes N getppid system calls, by its own svc/syscall
 *                      instruction (libc's wrapper has no frame record:
 *                      a walk from it would skip c)
 *
 * First it prints where the functions are:
 *   callchain main=0x... a=0x... b=0x... c=0x...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "spin.h"

#define FRAMED __attribute__((noinline, noipa))

FRAMED void c(unsigned long n, int sys)
{
	/*
	 * Asking for the frame's address makes c build its frame record: GCC
	 * on x86-64 gives a leaf function that uses no stack none, even with
	 * -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer, and a walk
	 * from c would then miss b.
	 */
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	if (!sys) {
		spin(n);
		return;
	}
	while (n--)
		getppid_syscall();
}

/* The empty asm after each call keeps it a call (not a jump): the caller's frame stays. */
FRAMED void b(unsigned long n, int sys)
{
	c(n, sys);
	__asm__ volatile("" ::: "memory");
}

FRAMED void a(unsigned long n, int sys)
{
	b(n, sys);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned long n;
	char *end;

	if (argc != 3 || (strcmp(argv[1], "spin") && strcmp(argv[1], "sys"))) {
		fprintf(stderr, "usage: callchain spin|sys N\n");
		return 2;
	}
	n = strtoul(argv[2], &end, 0);
	if (!argv[2][0] || *end || !n) {
		fprintf(stderr, "callchain: bad count '%s'\n", argv[2]);
		return 2;
	}
	printf("callchain main=%p a=%p b=%p c=%p\n", (void *)main, (void *)a, (void *)b, (void *)c);
	fflush(stdout);
	a(n, !strcmp(argv[1], "sys"));
	__asm__ volatile("" ::: "memory");
	return 0;
}
