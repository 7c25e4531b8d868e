/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An NMI between any two instructions of a function, for the unit tests of
 * data an NMI handler writes while other code reads it (the pending memory
 * samples): fn runs single-stepped (x86-64's trap flag, a SIGTRAP after
 * each instruction), and at its step-th instruction nmi() runs in the
 * signal handler, as an NMI would: between two instructions, to its end,
 * before fn goes on. Elsewhere than x86-64 nothing can be stepped:
 * nmi_step_available() says so.
 */
#ifndef KPMC_NMI_STEP_H
#define KPMC_NMI_STEP_H

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <ucontext.h>

#if defined(__x86_64__) && defined(__linux__)
#define NMI_STEP_TF	0x100UL

static volatile unsigned long nmi_step_count, nmi_step_at;
static void (*volatile nmi_step_fn)(void);
static volatile bool nmi_step_fired;

static void nmi_step_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	if (++nmi_step_count != nmi_step_at)
		return;
	nmi_step_fired = true;
	nmi_step_fn();
	/* Done: the rest of fn runs at full speed. */
	uc->uc_mcontext.gregs[REG_EFL] &= ~NMI_STEP_TF;
}

static inline bool nmi_step_available(void)
{
	return true;
}

/* fn(arg) with nmi() at its step-th instruction (from 1): did fn get that far? */
static inline bool nmi_at_step(void (*fn)(void *), void *arg, unsigned long step,
			       void (*nmi)(void))
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = nmi_step_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &old);
	nmi_step_count = 0;
	nmi_step_at = step;
	nmi_step_fn = nmi;
	nmi_step_fired = false;
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(NMI_STEP_TF) : "memory", "cc");
	fn(arg);
	__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~NMI_STEP_TF) : "memory", "cc");
	sigaction(SIGTRAP, &old, NULL);
	return nmi_step_fired;
}
#else
static inline bool nmi_step_available(void)
{
	return false;
}

static inline bool nmi_at_step(void (*fn)(void *), void *arg, unsigned long step,
			       void (*nmi)(void))
{
	(void)fn;
	(void)arg;
	(void)step;
	(void)nmi;
	return false;
}
#endif

#endif
