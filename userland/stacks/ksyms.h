/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel code symbols by address: from /proc/kallsyms lines (while kpmc
 * records) or from a trace's ksym lines (when kpmc report reads it).
 * Pure: the caller reads the lines.
 */
#ifndef KPMC_KSYMS_H
#define KPMC_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct kpmc_ksym {
	uint64_t start, end;		/* [start, end) */
	char *name;
	char *module;			/* "" for the kernel itself */
	int written;			/* the recorder's: its ksym line is in the trace */
};

struct kpmc_ksyms;

struct kpmc_ksyms *kpmc_ksyms_new(void);
void kpmc_ksyms_free(struct kpmc_ksyms *k);
/* A symbol [start, end); end 0: up to the next symbol (see kpmc_ksyms_sort). -1 if out of memory. */
int kpmc_ksyms_add(struct kpmc_ksyms *k, uint64_t start, uint64_t end, const char *name,
		   const char *module);
/*
 * One /proc/kallsyms line ("ffff800008010000 T name [module]"): its code
 * symbols (types t, T, w, W) are kept. 0 (kept or not code), -1 if
 * malformed (why names the token) or out of memory.
 */
int kpmc_ksyms_add_kallsyms_line(struct kpmc_ksyms *k, const char *line, char *why, size_t len);
/* Symbols with a nonzero address: 0 means kallsyms hid them (kptr_restrict). */
size_t kpmc_ksyms_count(const struct kpmc_ksyms *k);
/*
 * After the last add: sorted by address; a symbol without an end ends at
 * the next one's start (the last one a page on).
 */
void kpmc_ksyms_sort(struct kpmc_ksyms *k);
/* The symbol addr lies in, or NULL. */
struct kpmc_ksym *kpmc_ksyms_find(struct kpmc_ksyms *k, uint64_t addr);

#endif
