/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test workloads' loop: n iterations of exactly two user instructions
 * (decrement, branch), no memory access, no atomics. n must be > 0. And the
 * cheapest system call, issued directly (no libc wrapper, no vDSO): a known
 * kernel path for kernel-mode counts and stacks.
 */
#ifndef KPMC_TEST_SPIN_H
#define KPMC_TEST_SPIN_H

#include <sys/syscall.h>

static inline void spin(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
#error "spin.h: add the two-instruction loop for this architecture"
#endif
}

static inline void getppid_syscall(void)
{
#if defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_getppid;
	register long x0 __asm__("x0");

	__asm__ volatile("svc #0" : "=r"(x0) : "r"(x8) : "memory");
#elif defined(__x86_64__)
	long rax = SYS_getppid;

	__asm__ volatile("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
#else
#error "spin.h: add the system call instruction for this architecture"
#endif
}

#endif
