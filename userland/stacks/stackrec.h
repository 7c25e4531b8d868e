/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call stacks of a recording (fmt=callstack) in the text trace: each
 * sample's stack line after it (stackparts.c, stackline.c), and, while
 * recording live, what symbolizes them later: a ksym line for each kernel
 * symbol the stacks fall in (from /proc/kallsyms) and the monitored
 * processes' executable mappings (procmaps.c).
 */
#ifndef KPMC_STACKREC_H
#define KPMC_STACKREC_H

#include <stdio.h>
#include <sys/types.h>
#include <uapi/linux/kpmc.h>

struct kpmc_stackrec;

/*
 * out: the text trace, or NULL where the trace is not text (CSV, JSON,
 * totals): stacks are then only counted. live: recording now, on this
 * machine (not kpmc -R): kernel symbols and mappings go into the trace.
 */
struct kpmc_stackrec *kpmc_stackrec_new(FILE *out, int live);
void kpmc_stackrec_free(struct kpmc_stackrec *sr);
/*
 * Every record, in order. 1 if it was a sampling format's part (STACK,
 * FORMAT: no row of its own), 0 if not, -1 if out of memory.
 */
int kpmc_stackrec_record(struct kpmc_stackrec *sr, const struct kpmc_record *rec);
/* Live: pid's mappings go into the trace from now on (records' pids are added by themselves). */
void kpmc_stackrec_watch(struct kpmc_stackrec *sr, pid_t pid);
/* Live: the watched processes' new executable mappings into the trace. */
void kpmc_stackrec_read_maps(struct kpmc_stackrec *sr);
/* The end of the records: stacks still missing parts are told; a summary on stderr. */
void kpmc_stackrec_finish(struct kpmc_stackrec *sr);
/* Samples given up on (parts missing) and malformed stacks: the trace is not whole. */
unsigned long long kpmc_stackrec_problems(const struct kpmc_stackrec *sr);

#endif
