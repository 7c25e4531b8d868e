// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc: run or attach to a program and print its per-thread counts, read
 * from the kpmc kernel module through /proc/kpmc.
 *
 *   kpmc -c CONFIG [-T SECS] [-o FILE] [-A] -- PROG ARGS...
 *   kpmc -c CONFIG [-T SECS] [-o FILE] [-A] -p TID
 *   kpmc -I
 *   kpmc report [--folded] TRACE
 *
 * main() only dispatches: a command word to its command (commands.c), else
 * the options (args.c) to a replay (trace.c) or a run (run.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

void kpmc_usage(FILE *f)
{
	fprintf(f,
		"usage: kpmc -c CONFIG [-T SECS] [-k RECORDS] [-o FILE] [-A] -- PROG [ARGS...]\n"
		"       kpmc -c CONFIG [-T SECS] [-k RECORDS] [-o FILE] [-A] -p TID\n"
		"       kpmc -S [-C CPUS] [-X] -c CONFIG [-T SECS] [-o FILE] [-A] -- PROG [ARGS...]\n"
		"       kpmc -G CGROUP -c CONFIG [-T SECS] [-o FILE] [-A] -- PROG [ARGS...]\n"
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
		"             muxsamples=N per set; muxrnd=R: slices of MS +/- R ms in an\n"
		"             order drawn every cycle; -A then prints estimated counts,\n"
		"             each with its 90%% half-width and estimator)\n"
		"  --anchor pmcN  with -A and several sets: a counter every set counts (the\n"
		"             cycle counter pmc0, say) is the estimates' clock, not time\n"
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
		"  -G CGROUP  count a cgroup (below /sys/fs/cgroup, its descendants too) on\n"
		"             every CPU while PROG runs, as perf stat -G: records per CPU;\n"
		"             a CGROUP that does not exist is made for PROG, which runs\n"
		"             in it, and removed after (-S's privileges)\n"
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

int main(int argc, char **argv)
{
	static struct kpmc_run_opts o;
	int rc;

	/* kpmc mem is a run in memory mode; any other word a command of its own. */
	if (argc > 1 && !strcmp(argv[1], "mem")) {
		o.mem = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	} else if (argc > 1 && argv[1][0] != '-') {
		return kpmc_command_run(argc - 1, argv + 1);
	}
	rc = kpmc_args_parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	return o.replay ? kpmc_trace_replay(&o) : kpmc_run(&o);
}
