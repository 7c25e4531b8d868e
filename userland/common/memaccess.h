/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Memory accesses in words, and as rows of Mitos's samples.csv: shared by
 * the kpmc CLI (kpmc mem --csv, the mem lines of a trace) and libkpmc
 * (kpmc_mem_write_csv), so both write the same names and columns. Pure.
 */
#ifndef KPMC_MEMACCESS_H
#define KPMC_MEMACCESS_H

#include <stdint.h>
#include <stdio.h>
#include <uapi/linux/kpmc.h>

/* Mitos's index columns: xidx, yidx, zidx. */
#define KPMC_MEM_MAX_INDEX_COLUMNS	3

/* "load", "store", "load+store", "none". */
const char *kpmc_mem_op_name(unsigned int op);
/* The level and snoop of a KPMC_MEM_F_SOURCE source: "L1", "remote-RAM", ... (no spaces); "??" unknown. */
const char *kpmc_mem_level_name(uint32_t source);
const char *kpmc_mem_snoop_name(uint32_t source);
/* "L1-miss", "L2-miss" (a page walk); "??" when the source says no miss. */
const char *kpmc_mem_tlb_name(uint32_t source);

/* What one CSV row says beyond the access itself; NULL / 0 where unknown. */
struct kpmc_mem_row {
	const char *source_file;
	int line;			/* with source_file */
	const char *variable;		/* the data object the address is in */
	uint64_t buffer_size;		/* its bytes */
	unsigned int ndims;		/* its dimensions; 0: unknown */
	const uint64_t *index;		/* ndims indices, outermost first; NULL: none */
	int pid;
	unsigned int tid, cpu;
	uint64_t time_ns;		/* 0: unknown */
};

/* The header line, then one line per access: Mitos's columns, "??" where unknown. */
void kpmc_mem_csv_header(FILE *f);
void kpmc_mem_csv_row(FILE *f, const struct kpmc_mem_access *a, const struct kpmc_mem_row *row);

#endif
