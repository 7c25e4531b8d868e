/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kpmc command's parts: its options (args.c), -c made the session's
 * configuration (config.c), kpmc mem (mem.c), the record chain and -R
 * (trace.c), a monitored run (run.c). main() in kpmc.c only dispatches.
 */
#ifndef KPMC_CLI_H
#define KPMC_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "common/kpmc_proc.h"
#include "mem/memreport.h"
#include "metrics/metricbind.h"
#include "sinks/sinks.h"

#define KPMC_MEM_MAX_HEATMAPS 4

/* kpmc mem's own options. */
struct kpmc_mem_opts {
	enum kpmc_memrep_form form;
	unsigned long period, top;
	struct {
		char name[64], file[256];
		unsigned int rows, cols;
	} heat[KPMC_MEM_MAX_HEATMAPS];
	unsigned int nheat;
	char cfg[KPMC_MAX_SETS][1100];	/* the event sets with mem=1 */
};

struct kpmc_run_opts {
	int mem;			/* kpmc mem: memory sampling and its report */
	const char *configs[KPMC_MAX_SETS];
	int nconfigs;
	long tbs_ms;
	const char *outfile, *rawfile, *replay;
	int aggregate;			/* -A */
	unsigned int anchor;		/* --anchor=pmcN: N + 1; 0: time scaling */
	enum kpmc_out_format format;
	pid_t attach;			/* -p */
	unsigned long ring_records;	/* -k */
	int system_wide, exclude_idle, raw_only, noloss, no_mmap;
	const char *wakeup, *virt_wanted, *cpus;
	/* -G: the cgroup (under /sys/fs/cgroup) counted alone, system-wide; NULL: none */
	const char *cgroup;
	struct kpmc_mbind *metrics;	/* -m, -g; active or not */
	const char *groups[KPMC_MBIND_MAX_GROUPS];
	unsigned int ngroups;
	char metric_events[1024];	/* what the metrics name, counted without -c */
	struct kpmc_mem_opts memo;
	char **prog;			/* -- PROG ARGS..., NULL-terminated; NULL with -p */
};

/* args.c: the options, checked; -1 to go on, or the exit status. */
int kpmc_args_parse(int argc, char **argv, struct kpmc_run_opts *o);
void kpmc_usage(FILE *f);

/* config.c: what the command asks of the module, -c as it takes it. */
int kpmc_module_loaded(void);
int kpmc_print_info(void);
char *kpmc_names_to_raw_config(const char *list);
int kpmc_configs_to_raw(struct kpmc_run_opts *o);
long kpmc_virtual_counters(char names[KPMC_MAX_VIRT][32], const char *wanted);
int kpmc_proc_write_told(const char *file, const char *s, const char *what);

/* mem.c: kpmc mem's options, its event sets (mem=1), its report. */
void kpmc_mem_opts_init(struct kpmc_mem_opts *m);
int kpmc_mem_option(struct kpmc_run_opts *o, int opt, const char *arg);
/* The event sets with mem=1 (the source's event without -c): -1 to go on, or the exit status. */
int kpmc_mem_configs(struct kpmc_run_opts *o);
/* The report and heatmaps into report; the number of heatmaps that failed. */
unsigned int kpmc_mem_report(const struct kpmc_mem_opts *m, struct kpmc_memrep *rep, FILE *report);

/* trace.c: what becomes of the records. */
struct kpmc_trace {
	struct kpmc_chain chain;
	struct kpmc_output o;
	struct kpmc_rows_sink rows;
	struct kpmc_totals_sink totals;
	struct kpmc_rawcopy_sink rawcopy;
	struct kpmc_stacks_sink stacks;
	struct kpmc_memory_sink memory;
	struct kpmc_metrics_sink metrics;
};
/*
 * The chain for o's options: out and raw opened by the caller, memrep for
 * kpmc mem; live_stacks: recording fmt=callstack now (symbols, mappings).
 * quick_totals: no sampling format, so no part follows a sample: with
 * nothing but totals to keep, samples go straight to them.
 * 0, or -1 out of memory.
 */
int kpmc_trace_setup(struct kpmc_trace *t, const struct kpmc_run_opts *o, FILE *out, FILE *raw,
		     struct kpmc_memrep *memrep, int live_stacks, int quick_totals);
struct kpmc_stackrec *kpmc_trace_stacks(struct kpmc_trace *t);
int kpmc_trace_replay(struct kpmc_run_opts *o);

/* run.c */
int kpmc_run(struct kpmc_run_opts *o);

#endif
