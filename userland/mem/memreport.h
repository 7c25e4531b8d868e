/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpmc mem's reports (memreport.c): the memory samples of a run, by
 * instruction (address -> function+offset and source line through elfutils
 * libdw) and by data object (the executable's data symbols; heap, stack or
 * a mapping otherwise) and by CPU with its place in the machine (hwloc),
 * as text or JSON, or as Mitos's samples.csv.
 */
#ifndef KPMC_MEMREPORT_H
#define KPMC_MEMREPORT_H

#include <stdio.h>
#include <sys/types.h>
#include <uapi/linux/kpmc.h>

struct kpmc_memrep;

struct kpmc_memrep *kpmc_memrep_new(void);
void kpmc_memrep_free(struct kpmc_memrep *m);
/* A MEM record of the run; -1 if out of memory. */
int kpmc_memrep_add(struct kpmc_memrep *m, const struct kpmc_record *rec);
/*
 * While the program runs: its executable and memory map, from /proc/PID
 * (the last successful read is kept: a PIE's load address, heap, stack).
 * 1 if read, 0 if not (gone, or not exec'd yet: still kpmc's own image).
 */
int kpmc_memrep_snapshot(struct kpmc_memrep *m, pid_t pid);
/*
 * A heat map of data symbol name as a rows x cols array: samples per element
 * as a gnuplot matrix (rows lines of cols counts) in path. 0, or -1 with why.
 */
int kpmc_memrep_heatmap(struct kpmc_memrep *m, const char *name, unsigned int rows,
			unsigned int cols, const char *path, char *why, size_t len);
/*
 * The reports: top N instructions and objects, and the samples per CPU with
 * the CPU's place in the machine (hwloc); as text, as one JSON object, or
 * every sample as Mitos's CSV.
 */
enum kpmc_memrep_form { KPMC_MEMREP_TEXT, KPMC_MEMREP_CSV, KPMC_MEMREP_JSON };
void kpmc_memrep_print(struct kpmc_memrep *m, FILE *out, unsigned int top, enum kpmc_memrep_form form);

#endif
