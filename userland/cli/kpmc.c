// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc: run or attach to a program and print its per-thread counts, read
 * from the kpmc kernel module through /proc/kpmc.
 *
 *   kpmc -c CONFIG [-T SECS] [-o FILE] [-A] -- PROG ARGS...
 *   kpmc -c CONFIG [-T SECS] [-o FILE] [-A] -p TID
 *   kpmc -I
 *   kpmc report [--folded] TRACE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/aggregate.h"
#include "common/kpmc_proc.h"
#include "common/eventspec.h"
#include "common/pfm_events.h"
#include "options.h"
#include "common/record_format.h"
#include "mem/memreport.h"
#include "metrics/metricbind.h"
#include "commands.h"
#include "common/ringmap.h"
#include "stacks/stackrec.h"

#define READ_BATCH 64

/* The session's ring, mapped (unless --no-mmap, or a module without it: read()). */
static struct kpmc_ringmap ring;

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kpmc -c CONFIG [-T SECS] [-k RECORDS] [-o FILE] [-A] -- PROG [ARGS...]\n"
		"       kpmc -c CONFIG [-T SECS] [-k RECORDS] [-o FILE] [-A] -p TID\n"
		"       kpmc -S [-C CPUS] [-X] -c CONFIG [-T SECS] [-o FILE] [-A] -- PROG [ARGS...]\n"
		"       kpmc mem [-e PERIOD] [-n TOP] [-c CONFIG] [-o FILE] [--csv|--json] [-w FILE]\n"
		"                [--heatmap NAME:ROWSxCOLS:FILE] -- PROG [ARGS...]\n"
		"       kpmc -L [TEXT] | -I\n"
		"       kpmc plot [-m NAME=EXPR]... [-o OUT.svg] [-d DATA] TRACE\n"
		"       kpmc report [--folded] [--symfs DIR] [--kallsyms FILE] [-n ROWS] [-o FILE] TRACE\n"
		"       kpmc fold [OPTIONS] TRACE   (kpmc fold -h: folded rates of a libkpmc fold trace)\n"
		"       kpmc top [OPTIONS] -- PROG  (kpmc top -h: the live view, kpmc-top)\n"
		"       kpmc flame [OPTIONS] [FOLDED]  (kpmc flame -h: a flame graph, kpmc-flame)\n"
		"       kpmc WORD ...  runs the program kpmc-WORD (next to kpmc, or on PATH)\n"
		"  -c CONFIG  event names: instr,cycles:u,llc_misses:ebs=100000 (PMCTrack's\n"
		"             mnemonics, or any libpfm4 event of this PMU: INST_RETIRED:k),\n"
		"             or PMCTrack's raw syntax: pmc0,pmc1=0x8,usr1=1,os1=0\n"
		"             event-based sampling: ebsN=PERIOD[,rnd=RANGE,seed=S]\n"
		"             several -c: event sets multiplexed round-robin (mux=MS or\n"
		"             muxsamples=N per set; -A then prints scaled counts)\n"
		"  -T SECS    time-based sampling period in seconds (e.g. 0.1)\n"
		"  -k RECORDS kernel ring size for this run (power of two; default 4096)\n"
		"  --no-loss  a monitored thread that fills the ring waits (at its return to\n"
		"             user mode) until kpmc has read it: no record lost\n"
		"  --no-mmap  take records with read() instead of from the mapped ring\n"
		"  --wakeup MS|watermark  how soon records reach kpmc: within MS ms (0: each\n"
		"             record), or only when the ring is a quarter full (watermark,\n"
		"             perf record's way: no timer wake-ups). Default: watermark\n"
		"             with -A or -o FILE (nothing shown while PROG runs), else 20 ms\n"
		"  -o FILE    write the trace to FILE\n"
		"  -A         print only per-thread totals at the end\n"
		"  -m NAME=EXPR  a metric over each thread's totals, printed at the end\n"
		"             (repeatable): event names as -c takes them, pmcN, time\n"
		"             (seconds), numbers, + - * / ( ), min max abs; x/0 is nan.\n"
		"             Without -c its events are counted: -m 'ipc=INST_RETIRED/CPU_CYCLES'\n"
		"  -g GROUP   a metric group file: GROUP.txt of this PMU's directory in\n"
		"             $KPMC_SHARE/groups (default /usr/share/kpmc), PMU/GROUP, or PATH.txt\n"
		"  -p TID     attach to a running thread (and the threads it creates)\n"
		"  -S         system-wide: count everything on the CPUs while PROG runs\n"
		"             (CAP_PERFMON or CAP_SYS_ADMIN); one record per CPU and period\n"
		"  -C CPUS    with -S: the CPUs (default all)\n"
		"  -X         with -S: exclude the idle task's time\n"
		"  -V NAMES   show only these virtual counters of the active monitoring module\n"
		"             (e.g. -V ipc_milli,instr_per_ms; kpmc -I lists modules)\n"
		"  -r         take -c as raw (pmcN=...) only\n"
		"  -L [TEXT]  list this PMU's events (libpfm4), those matching TEXT\n"
		"  --csv      records as CSV (with -A: totals as CSV)\n"
		"  --json     records as JSON lines, then a summary object (totals, scaled\n"
		"             counts and coverage per event set, lost records)\n"
		"  -w FILE    also save the raw records to FILE\n"
		"  -R FILE    print records saved with -w (any output form), no kernel needed\n"
		"  -I         print /proc/kpmc/info and the monitoring modules\n"
		"kpmc mem: memory sampling (mem=1): every sample's data access, reported by\n"
		"  instruction (function+offset, source line) and by data object (the\n"
		"  program's data symbols, heap, stack, mappings) and by CPU (core, package,\n"
		"  NUMA node, last-level cache, through hwloc); --csv: every sample with\n"
		"  Mitos's columns; --json: the views as one JSON object. Latency and\n"
		"  %%L1..%%RAM columns where the source measures them (PEBS, IBS)\n"
		"  -e PERIOD  a sample every PERIOD (+/- PERIOD/4, staying above 10000)\n"
		"             events of the source's: user cycles (arm64, IBS), loads slower\n"
		"             than 30 cycles (PEBS) (default 20000)\n"
		"  -n TOP     rows per view (default 20)\n"
		"  -c CONFIG  sample on this raw configuration instead (mem=1 is added)\n"
		"  --heatmap NAME:ROWSxCOLS:FILE  samples per element of data symbol NAME\n"
		"             as a ROWS x COLS array: a gnuplot matrix in FILE\n"
		"             (scripts/heatmap.sh renders it)\n"
		"kpmc report: the call stacks of a text trace recorded with fmt=callstack\n"
		"  (kpmc -o TRACE -c ...,ebsN=P,fmt=callstack -- PROG) by function: samples\n"
		"  in it (self) and in it or its callees (total)\n"
		"  --folded   folded stacks for flame graphs (kpmc-flame draws them as SVG)\n"
		"  --symfs DIR  look for the binaries under DIR first (by build-id, path, name)\n"
		"  --kallsyms FILE  kernel symbols from FILE besides the trace's ksym lines\n");
}

static int module_loaded(void)
{
	if (kpmc_proc_present())
		return 1;
	fprintf(stderr, "kpmc: the kpmc kernel module is not loaded (no %s); load it with insmod kpmc.ko\n",
		KPMC_PROC_DIR);
	return 0;
}

/*
 * The session's wake-up policy: --wakeup's, or, when nothing is shown while
 * the program runs (totals, a trace file), the watermark's alone, as perf
 * record is woken: a wake-up, a switch to kpmc and back, costs more than
 * a dozen samples. A module without the setting keeps its default then.
 */
static int set_wakeup(int mon, const char *wakeup, int quiet_run)
{
	char req[32], reason[256];

	if (!wakeup && !quiet_run)
		return 0;
	snprintf(req, sizeof(req), "wakeup=%s", wakeup ? wakeup : "watermark");
	if (!kpmc_proc_request(mon, req, reason, sizeof(reason)) || !wakeup)
		return 0;
	fprintf(stderr, "kpmc: --wakeup %s: %s\n", wakeup, reason);
	return 1;
}

/* One write() of s to a /proc/kpmc file; on failure print what and why. */
static int proc_write(const char *file, const char *s, const char *what)
{
	char reason[256];

	if (!kpmc_proc_write(file, s, reason, sizeof(reason)))
		return 0;
	fprintf(stderr, "kpmc: %s: %s\n", what, reason);
	return -1;
}

static int cat_file(const char *path)
{
	char buf[4096];
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kpmc: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

/*
 * -c with event names ("instr,cycles:u", libpfm4 strings): encode each for
 * this PMU, put them on counters, and return the raw configuration.
 */
static char *names_to_raw(const char *list)
{
	char err[512], *out = malloc(1024);

	if (!out || kpmc_names_to_raw(KPMC_PROC_INFO, list, out, 1024, err, sizeof(err)) < 0) {
		fprintf(stderr, "kpmc: -c '%s': %s\n", list, out ? err : "out of memory");
		free(out);
		return NULL;
	}
	return out;
}

/* -I: the PMU and hooks, then the monitoring modules and their availability. */
static int print_info(void)
{
	if (!module_loaded())
		return 1;
	if (cat_file(KPMC_PROC_INFO))
		return 1;
	printf("[monitoring modules: activate N with echo 'activate N' > " KPMC_PROC_DIR "/mm_manager]\n");
	return cat_file(KPMC_PROC_DIR "/mm_manager");
}

/*
 * The active module's virtual counter names ("virtual_counters: virt0=a
 * virt1=b" in info) into names[]; then, if wanted (-V a,b), the mask of the
 * wanted ones, or -1 naming the first unknown one.
 */
static long virtual_counters(char names[KPMC_MAX_VIRT][32], const char *wanted)
{
	char *tok, *save = NULL, list[256];
	struct kpmc_info info;
	unsigned int i;
	long mask = 0;

	kpmc_info_read(&info);
	memcpy(names, info.virt_name, sizeof(info.virt_name));
	if (!wanted)
		return 0;
	snprintf(list, sizeof(list), "%s", wanted);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < KPMC_MAX_VIRT && strcmp(names[i], tok); i++)
			;
		if (i == KPMC_MAX_VIRT) {
			fprintf(stderr, "kpmc: -V: the active monitoring module has no virtual counter '%s'; it has:",
				tok);
			for (i = 0; i < KPMC_MAX_VIRT; i++)
				if (names[i][0])
					fprintf(stderr, " %s", names[i]);
			fprintf(stderr, "%s\n", names[0][0] ? "" : " none (see kpmc -I)");
			return -1;
		}
		mask |= 1L << i;
	}
	return mask;
}

enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON };

struct trace {
	FILE *out;
	FILE *raw;			/* -w: the records as read, for -R */
	enum out_format format;
	int aggregate;
	int totals_only;	/* -A, and no raw copy, stacks, memory samples or metrics */
	struct kpmc_columns cols;
	int header_done;
	struct kpmc_totals totals;
	unsigned long long lost;	/* records the kernel dropped (ring full) */
	uint32_t uncounted;		/* counters some record says did not count throughout */
	unsigned long long uncounted_records;
	uint32_t virt_wanted;		/* virtual counters to show (-V), all by default */
	struct kpmc_memrep *memrep;	/* kpmc mem: the memory samples, for its report */
	struct kpmc_stackrec *stacks;	/* sampling formats' parts: stack lines (stackrec.c) */
	const struct kpmc_mbind *metrics;	/* -m, -g: their totals and values at the end */
	struct kpmc_totals mtotals;
	int bad;
};

static void trace_record(struct trace *t, const struct kpmc_record *rec)
{
	char line[1024], why[256];

	/*
	 * -A with nothing else to do per record: a sample (the bulk at short
	 * periods) goes to the totals at once, as it would below (where the
	 * stack parts' bookkeeping of it is for a format's parts to come).
	 */
	if (t->totals_only && (rec->kind == KPMC_REC_EBS || rec->kind == KPMC_REC_TBS) &&
	    !rec->uncounted_mask && kpmc_record_valid(rec)) {
		if (!t->header_done)
			t->cols.virt_mask = rec->virt_mask & t->virt_wanted;
		if (kpmc_totals_add(&t->totals, rec))
			fprintf(stderr, "kpmc: out of memory aggregating\n");
		return;
	}
	if (kpmc_record_check(rec, why, sizeof(why))) {
		if (!t->bad++)
			fprintf(stderr, "kpmc: %s\n", why);
		return;
	}
	if (rec->kind == KPMC_REC_LOST)
		t->lost += rec->lost;
	if (rec->uncounted_mask) {
		t->uncounted |= rec->uncounted_mask;
		t->uncounted_records++;
	}
	if (rec->kind == KPMC_REC_DETACH && rec->detail == KPMC_DETACH_PRIVILEGED_EXEC)
		fprintf(stderr,
			"kpmc: thread %u exec'd a program that raised its privileges (setuid, setgid or file capabilities): its monitoring stopped there, as perf's does (a CAP_PERFMON monitor keeps it)\n",
			rec->tid);
	if (t->raw && fwrite(rec, sizeof(*rec), 1, t->raw) != 1 && !t->bad++)
		fprintf(stderr, "kpmc: writing the raw records failed\n");
	/* A sampling format's parts: no row, a stack line after its sample (text trace). */
	if (t->stacks) {
		int part = kpmc_stackrec_record(t->stacks, rec);

		if (part < 0 && !t->bad++)
			fprintf(stderr, "kpmc: out of memory keeping call stacks\n");
		if (part)
			return;
	}
	/*
	 * Memory samples: a line of their own in the text trace; -w keeps
	 * them; the totals, CSV and JSON columns are counts and skip them.
	 */
	if (rec->kind == KPMC_REC_MEM) {
		if (t->memrep && kpmc_memrep_add(t->memrep, rec) && !t->bad++)
			fprintf(stderr, "kpmc: mem: out of memory keeping the samples\n");
		if (!t->aggregate && t->format == OUT_TABLE) {
			kpmc_format_mem(rec, line, sizeof(line));
			fprintf(t->out, "%s\n", line);
		}
		return;
	}
	if (!t->header_done)
		t->cols.virt_mask = rec->virt_mask & t->virt_wanted;
	if (t->metrics && rec->kind != KPMC_REC_LOST && kpmc_totals_add(&t->mtotals, rec))
		fprintf(stderr, "kpmc: out of memory aggregating\n");
	/* JSON ends with a summary: every record counts towards it. */
	if (t->format == OUT_JSON && !t->aggregate && rec->kind != KPMC_REC_LOST &&
	    kpmc_totals_add(&t->totals, rec))
		fprintf(stderr, "kpmc: out of memory aggregating\n");
	if (t->aggregate) {
		struct kpmc_record per_cpu;

		if (rec->kind == KPMC_REC_LOST)
			return;
		/* System-wide totals are per CPU: file each CPU under its number. */
		if (KPMC_REC_IS_CPU(rec->kind)) {
			per_cpu = *rec;
			per_cpu.pid = 0;
			per_cpu.tid = rec->cpu;
			rec = &per_cpu;
		}
		if (kpmc_totals_add(&t->totals, rec))
			fprintf(stderr, "kpmc: out of memory aggregating\n");
		return;
	}
	if (t->format == OUT_JSON) {
		kpmc_format_json_record(&t->cols, rec, line, sizeof(line));
		fprintf(t->out, "%s\n", line);
		return;
	}
	if (!t->header_done) {
		if (t->format == OUT_CSV)
			kpmc_format_csv_header(&t->cols, line, sizeof(line));
		else
			kpmc_format_header(&t->cols, line, sizeof(line));
		fprintf(t->out, "%s\n", line);
		t->header_done = 1;
	}
	if (t->format == OUT_CSV)
		kpmc_format_csv_row(&t->cols, rec, line, sizeof(line));
	else
		kpmc_format_row(&t->cols, rec, line, sizeof(line));
	fprintf(t->out, "%s\n", line);
}

static void trace_mapped(const struct kpmc_record *rec, void *t)
{
	trace_record(t, rec);
}

/* Read what is there (or wait, if blocking); 0 on EOF/EAGAIN, -1 on error. */
static int drain(int fd, struct trace *t)
{
	struct kpmc_record recs[READ_BATCH];
	ssize_t n, i;

	if (ring.ctrl) {
		/* Zero-copy: each record formatted where the kernel wrote it. */
		n = kpmc_ringmap_drain(&ring, fd, trace_mapped, t);
		if (n < 0 && errno == EPROTO)
			fprintf(stderr, "kpmc: the mapped ring's control page makes no sense\n");
		if (t->raw)
			fflush(t->raw);
		return n < 0 ? -1 : 0;
	}
	for (;;) {
		n = read(fd, recs, sizeof(recs));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (n == 0)
			return 0;
		for (i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
			trace_record(t, &recs[i]);
		/* A reader of -w (kpmc-top) sees records as they come. */
		if (t->raw)
			fflush(t->raw);
	}
}

static int child_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Is the attached thread still there? */
static int thread_alive(pid_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", tid);
	return stat(path, &st) == 0;
}

/* After the last record: totals (-A), the JSON summary, the loss report. */
static void trace_finish(struct trace *t, int system_wide)
{
	if (t->stacks) {
		kpmc_stackrec_finish(t->stacks);
		kpmc_stackrec_free(t->stacks);
		t->stacks = NULL;
	}
	if (t->format == OUT_JSON) {
		size_t need = kpmc_totals_format_json(&t->totals, t->cols.nsets, t->lost, NULL, 0) + 1;
		char *buf = malloc(need);

		if (buf) {
			kpmc_totals_format_json(&t->totals, t->cols.nsets, t->lost, buf, need);
			fprintf(t->out, "%s\n", buf);
			free(buf);
		}
		kpmc_totals_free(&t->totals);
		t->aggregate = 0;
	}
	if (t->aggregate && t->format == OUT_CSV) {
		fprintf(t->out, "pid,tid,expid,records,run_ns,running_ns,uncounted");
		for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++)
			if (t->cols.counter_mask & (1u << c))
				fprintf(t->out, ",pmc%u", c);
		fputc('\n', t->out);
		for (size_t i = 0; i < t->totals.nr; i++) {
			const struct kpmc_thread_total *th = &t->totals.threads[i];

			char uncounted[8 * KPMC_MAX_COUNTERS];

			kpmc_format_uncounted(th->uncounted, "+", uncounted, sizeof(uncounted));
			for (int s = 0; s < (t->cols.nsets > 1 ? t->cols.nsets : 1); s++) {
				fprintf(t->out, "%u,%u,%d,%llu,%llu,%llu,%s", th->pid, th->tid, s,
					(unsigned long long)th->set_records[s],
					(unsigned long long)th->run_ns,
					(unsigned long long)th->set_run_ns[s], uncounted);
				/* Scaled by enabled/running, like -A's table with several sets. */
				for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++)
					if (t->cols.counter_mask & (1u << c))
						fprintf(t->out, ",%llu", (unsigned long long)
							(t->cols.nsets > 1 ?
							 kpmc_scale_count(th->set_counts[s][c], th->run_ns,
									  th->set_run_ns[s]) :
							 th->counts[c]));
				fputc('\n', t->out);
			}
		}
		kpmc_totals_free(&t->totals);
		t->aggregate = 0;
	}
	if (t->aggregate && system_wide) {
		uint64_t sum[KPMC_MAX_COUNTERS] = { 0 }, ns = 0, recs = 0;

		fprintf(t->out, "%7s %7s %12s", "cpu", "records", "counted_ms");
		for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++)
			if (t->cols.counter_mask & (1u << c))
				fprintf(t->out, " %13s%u", "pmc", c);
		fputc('\n', t->out);
		for (size_t i = 0; i <= t->totals.nr; i++) {
			const struct kpmc_thread_total *th = &t->totals.threads[i];

			if (i == t->totals.nr)
				fprintf(t->out, "%7s %7llu %12.3f", "all", (unsigned long long)recs,
					(double)ns / 1e6);
			else
				fprintf(t->out, "%7u %7llu %12.3f", th->tid,
					(unsigned long long)th->records, (double)th->run_ns / 1e6);
			for (unsigned int c = 0; c < KPMC_MAX_COUNTERS; c++) {
				if (!(t->cols.counter_mask & (1u << c)))
					continue;
				if (i < t->totals.nr)
					sum[c] += th->counts[c];
				fprintf(t->out, " %14llu", (unsigned long long)
					(i == t->totals.nr ? sum[c] : th->counts[c]));
			}
			if (i < t->totals.nr) {
				ns += th->run_ns;
				recs += th->records;
			}
			fputc('\n', t->out);
		}
		kpmc_totals_free(&t->totals);
	} else if (t->aggregate && t->cols.nsets > 1) {
		size_t need = kpmc_totals_format_sets(&t->totals, t->cols.nsets, t->cols.set_mask,
						      NULL, 0) + 1;
		char *buf = malloc(need);

		if (buf) {
			kpmc_totals_format_sets(&t->totals, t->cols.nsets, t->cols.set_mask, buf, need);
			fputs("[Scaled counts: count x enabled / running, per event set]\n", t->out);
			fputs(buf, t->out);
			free(buf);
		}
		kpmc_totals_free(&t->totals);
	} else if (t->aggregate) {
		size_t need = kpmc_totals_format(&t->totals, t->cols.counter_mask, NULL, 0) + 1;
		char *buf = malloc(need);

		if (buf) {
			kpmc_totals_format(&t->totals, t->cols.counter_mask, buf, need);
			fputs(buf, t->out);
			free(buf);
		}
		kpmc_totals_free(&t->totals);
	}
	if (t->metrics) {
		kpmc_mbind_print(t->metrics, &t->mtotals, t->cols.nsets, t->out);
		kpmc_totals_free(&t->mtotals);
	}
	if (t->out != stdout)
		fclose(t->out);
	if (t->lost)
		fprintf(stderr, "kpmc: %llu records lost: the kernel's ring was full (enlarge it with -k)\n",
			t->lost);
	if (t->uncounted) {
		char names[8 * KPMC_MAX_COUNTERS];

		kpmc_format_uncounted(t->uncounted, " ", names, sizeof(names));
		fprintf(stderr,
			"kpmc: %s did not count for part of %llu record%s (marked *): the thread ran on a core type without that counter or event; those counts cover only the rest of its run time\n",
			names, t->uncounted_records, t->uncounted_records == 1 ? "" : "s");
	}
}

/* -R FILE: format records saved with -w, as if they came from the kernel. */
static int replay_records(struct trace *t, const char *file, const char *outfile)
{
	struct kpmc_record rec;
	FILE *in = fopen(file, "rb");
	int system_wide = 0;

	if (!in) {
		fprintf(stderr, "kpmc: -R %s: %s\n", file, strerror(errno));
		return 1;
	}
	t->out = outfile ? fopen(outfile, "w") : stdout;
	if (!t->out) {
		fprintf(stderr, "kpmc: %s: %s\n", outfile, strerror(errno));
		fclose(in);
		return 1;
	}
	t->virt_wanted = ~0u;
	t->stacks = kpmc_stackrec_new(t->format == OUT_TABLE && !t->aggregate ? t->out : NULL, 0);
	if (!t->stacks) {
		fprintf(stderr, "kpmc: out of memory\n");
		fclose(in);
		return 1;
	}
	while (fread(&rec, sizeof(rec), 1, in) == 1) {
		/* The columns: every counter and set the records name. */
		t->cols.counter_mask |= rec.counter_mask;
		if (rec.set + 1 > t->cols.nsets)
			t->cols.nsets = rec.set + 1;
		t->cols.set_mask[rec.set < KPMC_MAX_SETS ? rec.set : 0] |= rec.counter_mask;
		if (KPMC_REC_IS_CPU(rec.kind))
			t->cols.system_wide = system_wide = 1;
		if (rec.kind == KPMC_REC_EBS)
			t->cols.sampling = 1;
		trace_record(t, &rec);
	}
	fclose(in);
	trace_finish(t, system_wide);
	if (t->out != stdout)
		fclose(t->out);
	return t->bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *configs[KPMC_MAX_SETS], *outfile = NULL;
	int nconfigs = 0;
	char fullcfg[1024], normalized[1024], mappings[2048];
	struct trace t = { 0 };
	long tbs_ms = 0;
	unsigned long ring_records = 0;
	int system_wide = 0, exclude_idle = 0, raw_only = 0, noloss = 0, no_mmap = 0;
	const char *wakeup = NULL;
	const char *virt_wanted = NULL;
	char virt_names[KPMC_MAX_VIRT][32];
	long virt_mask;
	const char *cpus = "all";
	pid_t attach = 0, child = 0;
	int opt, mon, gate[2] = { -1, -1 }, status = 0, rc = 0, unloaded = 0, child_reaped = 0;
	int pidfd = -1;
	FILE *f, *report = NULL;

	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 1 },
		{ "json", no_argument, NULL, 2 },
		{ "help", no_argument, NULL, 'h' },
		{ "heatmap", required_argument, NULL, 3 },
		{ "no-loss", no_argument, NULL, 4 },
		{ "no-mmap", no_argument, NULL, 5 },
		{ "wakeup", required_argument, NULL, 6 },
		{ NULL, 0, NULL, 0 },
	};
	const char *rawfile = NULL, *replay = NULL;
	/* kpmc mem: memory sampling and its report. */
	int mem_mode = 0;
	enum kpmc_memrep_form mem_form = KPMC_MEMREP_TEXT;
	unsigned long mem_period = 20000, mem_top = 20;
	char mem_cfg[KPMC_MAX_SETS][1100];
	struct { char name[64], file[256]; unsigned int rows, cols; } heat[4];
	unsigned int nheat = 0;
	/* -m, -g: metrics over the totals; the events they name when no -c. */
	static struct kpmc_mbind metrics;
	const char *groups[KPMC_MBIND_MAX_GROUPS];
	unsigned int ngroups = 0;
	char metric_events[1024], why[512];

	/* kpmc mem is this run's memory mode; any other word a command of its own. */
	if (argc > 1 && !strcmp(argv[1], "mem")) {
		mem_mode = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	} else if (argc > 1 && argv[1][0] != '-') {
		return kpmc_command_run(argc - 1, argv + 1);
	}
	while ((opt = getopt_long(argc, argv, "+c:T:o:Ap:k:SC:XV:rL::w:R:Ihe:n:m:g:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
		case 'n': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!mem_mode || *end || !v || (opt == 'e' && v < 10000)) {
				fprintf(stderr, mem_mode ? "kpmc: mem: -%c '%s': want a number%s\n" :
					"kpmc: -%c goes with kpmc mem%.0s%s\n", opt, optarg,
					opt == 'e' ? " of at least 10000" : "");
				return 2;
			}
			if (opt == 'e')
				mem_period = v;
			else
				mem_top = v;
			break;
		}
		case 'm':
			if (kpmc_mbind_add_metric(&metrics, optarg, why, sizeof(why))) {
				fprintf(stderr, "kpmc: -m '%s': %s\n", optarg, why);
				return 2;
			}
			break;
		case 'g':
			if (ngroups == KPMC_MBIND_MAX_GROUPS) {
				fprintf(stderr, "kpmc: at most %d groups (-g)\n", KPMC_MBIND_MAX_GROUPS);
				return 2;
			}
			groups[ngroups++] = optarg;
			break;
		case 'c':
			if (nconfigs == KPMC_MAX_SETS) {
				fprintf(stderr, "kpmc: at most %d event sets (-c)\n", KPMC_MAX_SETS);
				return 2;
			}
			configs[nconfigs++] = optarg;
			break;
		case 'T':
			tbs_ms = kpmc_parse_period_ms(optarg);
			if (tbs_ms < 0) {
				fprintf(stderr, "kpmc: -T '%s': want a period in seconds, at least 0.001 and at most 86400\n",
					optarg);
				return 2;
			}
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'A':
			t.aggregate = 1;
			break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v <= 0) {
				fprintf(stderr, "kpmc: -p '%s': want a thread id\n", optarg);
				return 2;
			}
			attach = (pid_t)v;
			break;
		}
		case 'k': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || v < 2 || v > (1ul << 20) || (v & (v - 1))) {
				fprintf(stderr, "kpmc: -k '%s': want the ring size in records, a power of two from 2 to 1048576\n",
					optarg);
				return 2;
			}
			ring_records = v;
			break;
		}
		case 'S':
			system_wide = 1;
			break;
		case 'C':
			if (strlen(optarg) > 40 || strspn(optarg, "0123456789,-") != strlen(optarg)) {
				fprintf(stderr, "kpmc: -C '%s': want a CPU list such as 0-3,6\n", optarg);
				return 2;
			}
			cpus = optarg;
			break;
		case 'X':
			exclude_idle = 1;
			break;
		case 'V':
			virt_wanted = optarg;
			break;
		case 'r':
			raw_only = 1;
			break;
		case 3:
			/* NAME:ROWSxCOLS:FILE */
			if (!mem_mode || nheat == 4 ||
			    sscanf(optarg, "%63[^:]:%ux%u:%255s", heat[nheat].name, &heat[nheat].rows,
				   &heat[nheat].cols, heat[nheat].file) != 4) {
				fprintf(stderr, "kpmc: --heatmap '%s': want NAME:ROWSxCOLS:FILE, with kpmc mem, at most 4\n",
					optarg);
				return 2;
			}
			nheat++;
			break;
		case 1:
			if (mem_mode)
				mem_form = KPMC_MEMREP_CSV;
			else
				t.format = OUT_CSV;
			break;
		case 2:
			if (mem_mode)
				mem_form = KPMC_MEMREP_JSON;
			else
				t.format = OUT_JSON;
			break;
		case 4:
			noloss = 1;
			break;
		case 5:
			no_mmap = 1;
			break;
		case 6:
			if (kpmc_check_wakeup(optarg)) {
				fprintf(stderr, "kpmc: --wakeup '%s': want a delay in ms (0 to 60000) or watermark\n",
					optarg);
				return 2;
			}
			wakeup = optarg;
			break;
		case 'w':
			rawfile = optarg;
			break;
		case 'R':
			replay = optarg;
			break;
		case 'L':
			/* -L or -LFILTER, or -L FILTER as the last argument. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			return kpmc_pfm_list(stdout, optarg, KPMC_PROC_INFO,
					     "/sys/bus/event_source/devices") ? 1 : 0;
		case 'I':
			return print_info();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (unsigned int g = 0; g < ngroups; g++)
		if (kpmc_mbind_add_group(&metrics, groups[g], KPMC_PROC_INFO, why, sizeof(why))) {
			fprintf(stderr, "kpmc: -g %s: %s\n", groups[g], why);
			return 2;
		}
	if (kpmc_mbind_active(&metrics)) {
		if (t.format != OUT_TABLE || system_wide || mem_mode) {
			fprintf(stderr, "kpmc: -m and -g print a table of threads: not with --csv, --json, -S or kpmc mem\n");
			return 2;
		}
		if (!replay && !module_loaded())
			return 1;
		t.metrics = &metrics;
		/* No -c: count what the metrics name. */
		if (!nconfigs && !replay) {
			if (kpmc_mbind_event_list(&metrics, metric_events, sizeof(metric_events), why,
						  sizeof(why))) {
				fprintf(stderr, "kpmc: -m/-g: %s\n", why);
				return 2;
			}
			configs[nconfigs++] = metric_events;
		}
		if (kpmc_mbind_resolve(&metrics, configs, nconfigs,
				       replay && !kpmc_proc_present() ? NULL : KPMC_PROC_INFO, why, sizeof(why))) {
			fprintf(stderr, "kpmc: -m/-g: %s\n", why);
			return 2;
		}
	}
	if (replay)
		return replay_records(&t, replay, outfile);
	if ((cpus[0] != 'a' || exclude_idle) && !system_wide) {
		fprintf(stderr, "kpmc: -C and -X go with -S (system-wide)\n");
		return 2;
	}
	if (system_wide && attach) {
		fprintf(stderr, "kpmc: -S monitors CPUs, -p a thread: choose one\n");
		return 2;
	}
	if (mem_mode) {
		if (attach || system_wide || t.aggregate || t.format != OUT_TABLE) {
			fprintf(stderr, "kpmc: mem: runs a program (-- PROG); -p, -S, -A are not for it\n");
			return 2;
		}
		/*
		 * The source's event (options.c): on arm64 the cycle counter,
		 * exact in QEMU's -icount; PEBS load latency; IBS's cycles.
		 */
		if (!nconfigs) {
			/* Randomized by a quarter, the period staying above the kernel's minimum. */
			unsigned long rnd = mem_period / 4;
			struct kpmc_info info;
			char ev[64];
			unsigned int pmc = 0;

			kpmc_info_read(&info);
			if (kpmc_mem_default_event(info.text, ev, sizeof(ev)) || sscanf(ev, "pmc%u", &pmc) != 1) {
				fprintf(stderr, "kpmc: mem: this machine has no memory-sampling source (/proc/kpmc/info: memory_sampling)\n");
				return 1;
			}
			if (mem_period - rnd < 10000)
				rnd = mem_period - 10000;
			if (rnd)
				snprintf(mem_cfg[0], sizeof(mem_cfg[0]), "%s,ebs%u=%lu,rnd=%lu", ev, pmc,
					 mem_period, rnd);
			else
				snprintf(mem_cfg[0], sizeof(mem_cfg[0]), "%s,ebs%u=%lu", ev, pmc, mem_period);
			configs[nconfigs++] = mem_cfg[0];
		}
		for (int i = 0; i < nconfigs; i++) {
			const char *raw = kpmc_config_is_raw(configs[i]) || raw_only ? configs[i] :
					  names_to_raw(configs[i]);

			char with_mem[sizeof(mem_cfg[0])];

			if (!raw)
				return 2;
			if (snprintf(with_mem, sizeof(with_mem), "%s,mem=1", raw) >= (int)sizeof(with_mem)) {
				fprintf(stderr, "kpmc: mem: configuration too long\n");
				return 2;
			}
			strcpy(mem_cfg[i], with_mem);
			configs[i] = mem_cfg[i];
		}
		t.memrep = kpmc_memrep_new();
		if (!t.memrep) {
			fprintf(stderr, "kpmc: mem: out of memory\n");
			return 1;
		}
	}
	if (!nconfigs || (!attach && optind >= argc) || (attach && optind < argc)) {
		usage(stderr);
		return 2;
	}
	if (!module_loaded())
		return 1;
	/* Event names (instr, cycles:u, libpfm4 strings) become raw configurations. */
	for (int i = 0; i < nconfigs && !raw_only; i++) {
		if (kpmc_config_is_raw(configs[i]))
			continue;
		configs[i] = names_to_raw(configs[i]);
		if (!configs[i])
			return 2;
	}
	if (kpmc_build_config(configs, nconfigs, tbs_ms, fullcfg, sizeof(fullcfg)) < 0) {
		fprintf(stderr, "kpmc: configuration too long\n");
		return 2;
	}

	/*
	 * Opening the monitor file creates this thread's session; read-write
	 * for the ring's size and for the mapped ring's tail.
	 */
	mon = kpmc_proc_open("monitor", O_RDWR);
	if (mon < 0) {
		char reason[256];

		kpmc_proc_reason(-mon, reason, sizeof(reason));
		fprintf(stderr, "kpmc: cannot start a monitoring session: %s\n", reason);
		return 1;
	}
	if (ring_records || noloss) {
		char req[48], reason[256];

		if (ring_records)
			snprintf(req, sizeof(req), "ring=%lu%s", ring_records, noloss ? ",noloss" : "");
		else
			snprintf(req, sizeof(req), "noloss");
		if (kpmc_proc_request(mon, req, reason, sizeof(reason))) {
			if (ring_records)
				fprintf(stderr, "kpmc: -k %lu%s: %s\n", ring_records,
					noloss ? " --no-loss" : "", reason);
			else
				fprintf(stderr, "kpmc: --no-loss: %s\n", reason);
			return 1;
		}
	}
	if (set_wakeup(mon, wakeup, t.aggregate || outfile))
		return 1;
	/*
	 * The mapped ring, after its size is set (mapping fixes it). A module
	 * without one (EIO) is read() from, as is any ring this CLI cannot map.
	 */
	if (!no_mmap) {
		char why[256];
		int err = kpmc_ringmap_open(&ring, mon, why, sizeof(why));

		if (err && err != -EIO)
			fprintf(stderr, "kpmc: %s; reading records with read()\n", why);
	}
	if (proc_write("config", fullcfg, "configuration rejected"))
		return 1;
	f = fopen(KPMC_PROC_DIR "/config", "r");
	if (!f || !fgets(normalized, sizeof(normalized), f) ||
	    kpmc_format_mappings(normalized, mappings, sizeof(mappings), &t.cols) < 0) {
		fprintf(stderr, "kpmc: cannot read back the configuration\n");
		return 1;
	}
	fclose(f);

	if (rawfile) {
		t.raw = fopen(rawfile, "wb");
		if (!t.raw) {
			fprintf(stderr, "kpmc: -w %s: %s\n", rawfile, strerror(errno));
			return 1;
		}
	}
	t.cols.system_wide = system_wide;
	virt_mask = virtual_counters(virt_names, virt_wanted);
	if (virt_mask < 0)
		return 2;
	t.virt_wanted = virt_wanted ? (uint32_t)virt_mask : ~0u;
	for (unsigned int i = 0; i < KPMC_MAX_VIRT; i++)
		t.cols.virt_names[i] = virt_names[i][0] ? virt_names[i] : NULL;
	t.out = stdout;
	if (outfile) {
		t.out = fopen(outfile, "w");
		if (!t.out) {
			fprintf(stderr, "kpmc: %s: %s\n", outfile, strerror(errno));
			return 1;
		}
	}
	/* kpmc mem: the report goes where the trace would; the trace nowhere. */
	if (mem_mode) {
		report = t.out;
		t.out = fopen("/dev/null", "w");
		if (!t.out) {
			perror("kpmc: /dev/null");
			return 1;
		}
	}
	/*
	 * Sampling formats' parts become stack lines of the text trace; with
	 * fmt=callstack the kernel symbols and the programs' mappings that
	 * symbolize them later go in too (stackrec.c).
	 */
	int stacks_live = !system_wide && strstr(normalized, "fmt=callstack") != NULL;
	int stopped_at_exec = 0;

	t.stacks = kpmc_stackrec_new(t.format == OUT_TABLE && !t.aggregate ? t.out : NULL, stacks_live);
	if (!t.stacks) {
		fprintf(stderr, "kpmc: out of memory\n");
		return 1;
	}
	/* No sampling format: no parts follow a sample, none to wait for. */
	t.totals_only = t.aggregate && !t.raw && !t.metrics && !t.memrep &&
			!strstr(normalized, "fmt=");

	if (attach) {
		char req[64];

		snprintf(req, sizeof(req), "pid=%d", attach);
		if (proc_write("enable", req, "cannot attach"))
			return 1;
	} else {
		/* The child waits on the gate so counting can be armed before its exec. */
		if (pipe2(gate, O_CLOEXEC)) {
			perror("kpmc: pipe");
			return 1;
		}
		child = fork();
		if (child < 0) {
			perror("kpmc: fork");
			return 1;
		}
		if (child == 0) {
			char c;

			close(gate[1]);
			if (read(gate[0], &c, 1) != 1)
				_exit(126);	/* the parent gave up */
			/* kpmc mem, fmt=callstack: stop after the exec, for the parent to read the map. */
			if ((t.memrep || stacks_live) && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
				_exit(126);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "kpmc: cannot run %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
		close(gate[0]);
		{
			char req[64];

			if (system_wide)
				snprintf(req, sizeof(req), "%s=%s",
					 exclude_idle ? "cpus_noidle" : "cpus", cpus);
			else
				snprintf(req, sizeof(req), "pid=%d,exec", child);
			if (proc_write("enable", req, "cannot enable monitoring")) {
				kill(child, SIGKILL);
				waitpid(child, NULL, 0);
				return 1;
			}
		}
		if (write(gate[1], "g", 1) != 1) {
			perror("kpmc: releasing the program");
			kill(child, SIGKILL);
		}
		close(gate[1]);
		/*
		 * kpmc mem: the program's map (load address) before it runs a
		 * single instruction; a short program may be gone by the first
		 * drain. It stops at its exec (traced), and goes on untraced
		 * once the trace has its mappings too (fmt=callstack).
		 */
		if (t.memrep || stacks_live) {
			int st;

			if (waitpid(child, &st, 0) == child && WIFSTOPPED(st)) {
				if (t.memrep)
					kpmc_memrep_snapshot(t.memrep, child);
				stopped_at_exec = 1;
			} else {
				status = st;
				child_reaped = 1;
			}
		}
	}

	signal(SIGINT, on_sigint);
	fputs(mappings, t.out);
	fputs("[Event counts]\n", t.out);
	if (stopped_at_exec) {
		kpmc_stackrec_watch(t.stacks, child);
		kpmc_stackrec_read_maps(t.stacks);
		ptrace(PTRACE_DETACH, child, NULL, NULL);
	}
	fcntl(mon, F_SETFL, O_NONBLOCK);
	/*
	 * The program's end wakes the poll below (a pidfd, 5.3 on): waitpid()
	 * then, not at every wake-up for records. Without one, at every turn.
	 */
#ifdef SYS_pidfd_open
	if (!attach && !child_reaped)
		pidfd = (int)syscall(SYS_pidfd_open, child, 0);
#endif
	for (;;) {
		struct pollfd p[2] = { { .fd = mon, .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN } };
		int done, ended = pidfd < 0 || unloaded;

		if (!unloaded) {
			/*
			 * Records, the program's end, unload and signals wake it:
			 * a timeout only for what is looked at every turn.
			 */
			poll(p, pidfd < 0 ? 1 : 2, pidfd < 0 || t.memrep || stacks_live ? 100 : -1);
			ended |= p[1].revents != 0;
			if (drain(mon, &t) < 0) {
				fprintf(stderr, "kpmc: monitoring ended: the kpmc module was unloaded\n");
				unloaded = 1;
			}
		}
		/* kpmc mem: the program's map while it runs (load address, heap, stack). */
		if (t.memrep && child > 0)
			kpmc_memrep_snapshot(t.memrep, child);
		/* fmt=callstack: mappings made since the last drain (missed: those already gone). */
		kpmc_stackrec_read_maps(t.stacks);
		if (attach) {
			done = interrupted || !thread_alive(attach);
		} else {
			pid_t w = child_reaped ? child : !ended && !unloaded ? 0 :
				  waitpid(child, &status, unloaded ? 0 : WNOHANG);

			done = w == child;
			if (w < 0 && errno != EINTR) {
				perror("kpmc: waitpid");
				return 1;
			}
		}
		if (done)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	/* System-wide: the program is done; every CPU sends its last record. */
	if (system_wide && !unloaded)
		proc_write("enable", "0", "cannot stop system-wide monitoring");
	/*
	 * Per thread: what still counts (children the program left behind,
	 * an attached thread interrupted) sends its last counts in a DETACH
	 * record, into the ring that is still read; the write returns once
	 * all are there. Closing instead would drop them.
	 */
	if (!system_wide && !unloaded)
		proc_write("enable", "stop", "cannot stop monitoring");
	/* The exit records were queued before the parent could see the exit. */
	if (!unloaded && drain(mon, &t) < 0)
		fprintf(stderr, "kpmc: monitoring ended: the kpmc module was unloaded\n");
	kpmc_ringmap_close(&ring);
	close(mon);

	trace_finish(&t, system_wide);
	if (t.raw)
		fclose(t.raw);
	if (t.memrep) {
		char why[256];

		kpmc_memrep_print(t.memrep, report, (unsigned int)mem_top, mem_form);
		for (unsigned int h = 0; h < nheat; h++) {
			if (kpmc_memrep_heatmap(t.memrep, heat[h].name, heat[h].rows, heat[h].cols,
						heat[h].file, why, sizeof(why))) {
				fprintf(stderr, "kpmc: mem: --heatmap: %s\n", why);
				t.bad++;
			}
		}
		kpmc_memrep_free(t.memrep);
		if (report != stdout)
			fclose(report);
	}
	rc = attach ? 0 : child_status(status);
	return t.bad ? 1 : rc;
}
