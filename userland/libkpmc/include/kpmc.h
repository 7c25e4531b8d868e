/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libkpmc: self-monitoring with kpmc. Count events in code regions of one or
 * many threads, by name:
 *
 *	kpmc_start("instr,cycles");		once, before creating threads
 *	kpmc_region_begin("solve");  ...  kpmc_region_end("solve");
 *	kpmc_region_report(stdout);		totals per region, all threads
 *	kpmc_stop();
 *
 * Threads created after kpmc_start() are monitored too. Counts are the
 * thread's own, user mode unless the configuration says otherwise; a region's
 * count includes the few instructions of the two reads around it, the same
 * every time. Thread-safe.
 */
#ifndef LIBKPMC_H
#define LIBKPMC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KPMC_LIB_COUNTERS	16
/* Event sets a configuration can multiplex (';'-separated). */
#define KPMC_LIB_SETS		4

/**
 * struct kpmc_set_counts - what one event set counted, and for how much of the
 *	thread's on-CPU time
 * @counter_mask: bit N set: @counts[N] holds pmcN in this set
 * @run_ns: the on-CPU time (ns) this set counted
 * @counts: the set's counts, by pmc number
 */
struct kpmc_set_counts {
	uint32_t counter_mask;
	uint64_t run_ns;
	uint64_t counts[KPMC_LIB_COUNTERS];
};

/**
 * struct kpmc_counts - a thread's counts, as kpmc_read() gives them
 * @counter_mask: bit N set: @counts[N] holds pmcN (in some set)
 * @run_ns: the thread's monitored on-CPU time (ns)
 * @counts: pmcN's count over every set that has it, by pmc number
 * @set: the set counting now
 * @nr_sets: entries of @sets in use: 1 without multiplexing
 * @sets: per set, its counts and the on-CPU time it counted (entries past
 *	@nr_sets are not written)
 */
struct kpmc_counts {
	uint32_t counter_mask;
	uint64_t run_ns;
	uint64_t counts[KPMC_LIB_COUNTERS];
	uint32_t set;
	uint32_t nr_sets;
	struct kpmc_set_counts sets[KPMC_LIB_SETS];
};

/**
 * kpmc_start() - monitor the calling thread and the threads it creates
 * @config: event sets separated by ';' (several sets are multiplexed), each
 *	either raw ("pmc0,pmc1=0x8,ebs0=1000000", /proc/kpmc/config syntax) or
 *	by name ("instr,cycles:u,L1D_CACHE_REFILL:ebs=100000": PMCTrack's
 *	mnemonics or libpfm4 names with :u :k :uk :ebs=N, plus the set's own raw
 *	tokens tbs=, mux=, muxsamples=, rnd=, seed=), as kpmc -c takes them; a
 *	set is raw when it starts with pmcN
 *
 * Opens the session (/proc/kpmc/monitor; the samples and region invocations
 * the previous session kept are forgotten), writes the configuration
 * resolved by kpmc_resolve_config(), starts libkpmc's reader thread if the
 * configuration samples (ebs or tbs: see the samples below), and enables
 * counting. Each step is undone when a later one fails. Call it once,
 * before creating the threads to monitor. With KPMC_FOLD_FUNCTIONS set in
 * the environment, the first call also resolves the functions it names (see
 * __cyg_profile_func_enter()).
 *
 * Return: 0, or -errno, most with the reason in kpmc_last_error(): -EBUSY if
 * a session is already started; -EINVAL for an unknown name (with close
 * matches in kpmc_last_error()) or another error of kpmc_resolve_config();
 * KPMC_FOLD_FUNCTIONS's error (-EINVAL for bad syntax, -ENOENT for a name
 * with no function, ...); the open's error for /proc/kpmc/monitor (-ENOENT:
 * no kpmc module loaded); the write's error when the kernel refuses the
 * configuration (typically -EINVAL, the kernel's reason in kpmc_last_error());
 * or the reader thread's creation error.
 */
int kpmc_start(const char *config);
/**
 * kpmc_resolve_config() - the raw configuration kpmc_start() would write
 * @config: the configuration, as kpmc_start() takes it
 * @raw: where the raw form goes, NUL-terminated
 * @len: bytes at @raw
 *
 * Names go through libpfm4 and the PMU's description in /proc/kpmc/info
 * (a loaded module); raw sets are copied as they are (the kernel checks
 * them). Nothing is written to the kernel.
 *
 * Return: the raw form's length (without its NUL), or -EINVAL with the
 * reason in kpmc_last_error(): @config or @raw %NULL, an unknown name (with
 * close matches), bad syntax, or a raw form longer than @len allows.
 */
int kpmc_resolve_config(const char *config, char *raw, size_t len);
/**
 * kpmc_cgroup_start() - count a cgroup on every CPU, as perf stat -G does
 * @config: one event set, as kpmc_start() takes it (no ';': one set)
 * @cgroup_fd: an open directory of the cgroup v2 hierarchy (the cgroup to
 *	count, those below it included); libkpmc never takes a path: what the
 *	caller could open is what it may count
 *
 * Every CPU's counters run while a task of the cgroup runs there (kpmc -G,
 * /proc/kpmc/enable "cgroup=FD"); kpmc_cgroup_stop() gives the totals. The
 * privileges are CPU-wide counting's (CAP_PERFMON, or perf_event_paranoid
 * <= 0), and the session holds the machine's counters: per-thread counting
 * (kpmc_start(), the CLI's) is refused meanwhile, and it is refused while
 * they count. The session is the calling thread's: stop it from that thread.
 *
 * Return: 0, or -errno with the reason in kpmc_last_error(): -EBUSY if a
 * session (either kind) is started here or the counters are taken; -EINVAL
 * for an unknown name or a refused configuration; -EBADF for a descriptor
 * that is not a cgroup's directory; -EPERM, -EACCES without the privilege;
 * -ENOENT without the module.
 */
int kpmc_cgroup_start(const char *config, int cgroup_fd);
/**
 * kpmc_cgroup_stop() - stop counting the cgroup; its totals
 * @c: the totals over every CPU (@run_ns: the CPU time the cgroup's tasks
 *	ran), one set; may be %NULL
 *
 * Return: 0; -ENOSPC when records were lost (the totals miss them); -EINVAL
 * without a cgroup session; -EIO when counting could not be stopped or its
 * records read (the reason in kpmc_last_error()).
 */
int kpmc_cgroup_stop(struct kpmc_counts *c);
/**
 * kpmc_last_error() - why the calling thread's last failed call failed
 *
 * Description: written, per thread, when a step of kpmc_start(),
 * kpmc_resolve_config() or kpmc_stop() fails (kpmc_stop() goes on past a
 * request the kernel refuses, and says so here too); a later success does
 * not clear it.
 *
 * Return: the calling thread's message, "" if no such step of its has
 * failed. The buffer is the thread's own, rewritten by its next failure.
 */
const char *kpmc_last_error(void);
/**
 * kpmc_stop() - end the session kpmc_start() started
 *
 * Description: counting stops in the calling thread and in the threads it
 * created that still live (asleep, say), their last records are taken
 * before the session closes, and with KPMC_FOLD_TRACE set at kpmc_start()
 * the fold trace is written to the file it names (kpmc_fold_trace_write()).
 * Region totals, samples and invocations stay for the queries (the last two
 * until the next kpmc_start()).
 *
 * Return: 0; -EINVAL if no session is started; or KPMC_FOLD_TRACE's error
 * (-errno of opening or writing the file, named in kpmc_last_error()); the
 * session is closed either way.
 */
int kpmc_stop(void);
/**
 * kpmc_read() - the calling thread's counts since kpmc_start() (or since its
 *	creation)
 * @c: where the counts go
 *
 * By the path kpmc_set_read_path() sets: the fast path (the thread's mapped
 * page of /proc/kpmc/self and its live counters, no system call) or read()
 * of /proc/kpmc/self; both give the same counts. kpmc_last_read_path() and
 * kpmc_read_stats() tell which was taken.
 *
 * Return: 0, or -errno: -EOPNOTSUPP in %KPMC_PATH_FAST mode where the fast
 * path is not available, -ENODATA when the thread is not being monitored,
 * -ENOENT without /proc/kpmc (no kpmc module loaded), or read()'s error.
 */
int kpmc_read(struct kpmc_counts *c);
/**
 * struct kpmc_count_estimate - one set's count of a counter over the calling
 *	thread's whole time, when sets take turns, with its error bar
 * @value: the estimate
 * @half90: the half-width of its 90% confidence interval: nine times in ten
 *	the count lies within @value +/- @half90 (calibrated on programs whose
 *	truth is known: bench/README.md). 0 for a set that counted all the
 *	time; negative when not known (the set has had fewer than two turns)
 * @estimator: how @value was made: "counted" (the set ran all the time),
 *	"scaled" (its count x the whole time / its time), "interp" (its count
 *	plus the time between its turns at the rates of the turns on either
 *	side: chosen when the rates drift, turn to turn), "none" (it never ran)
 */
struct kpmc_count_estimate {
	uint64_t value;
	double half90;
	const char *estimator;
};

/**
 * kpmc_read_estimate() - the estimate of one set's count of a counter over
 *	the calling thread's monitored time so far, and how far it may be off
 * @set: the event set (0 without multiplexing)
 * @pmc: the counter, pmcN
 * @e: where it goes
 *
 * The same estimators and bars as kpmc -A's (the "est" and "+-90%" rows),
 * from the thread's records of each turn, which a multiplexing session's
 * reader keeps as they come. Without multiplexing: the count, "counted".
 *
 * Return: 0, -EINVAL for a set or counter the configuration does not have,
 * -ENODATA before kpmc_start() or after records of the thread were lost
 * (kpmc_sample_stats() counts them), -ENOMEM, or the read's -errno.
 */
int kpmc_read_estimate(unsigned int set, unsigned int pmc, struct kpmc_count_estimate *e);

/**
 * kpmc_read_counter() - one counter of the calling thread: the lean read
 * @pmc: the counter, pmcN
 * @value: where its count goes
 *
 * No run time, no other counter: as cheap as perf's own user-space read
 * where the fast path is available (on arm64 with optimization, inlined
 * into the caller: see the end of this header). The same paths and modes as
 * kpmc_read(): in %KPMC_PATH_FAST mode, success means it took the fast
 * path. Its fast reads are not counted in kpmc_read_stats() nor recorded
 * by kpmc_last_read_path(), to stay lean; its read() fallbacks are.
 *
 * Return: 0 with *@value set, or -errno: -ENOENT if pmcN is not counted,
 * -EINVAL if @pmc is 16 or more, -EOPNOTSUPP in %KPMC_PATH_FAST mode where
 * the fast path is not available, or another error of kpmc_read().
 */
#if !(defined(__aarch64__) && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(KPMC_NO_INLINE))
int kpmc_read_counter(unsigned int pmc, uint64_t *value);
#endif	/* else inlined: see the end of this header */
/* The modes of kpmc_set_read_path(). */
enum { KPMC_PATH_AUTO = 0, KPMC_PATH_READ = 1, KPMC_PATH_FAST = 2 };
/**
 * kpmc_set_read_path() - how kpmc_read() gets the counts, in every thread
 * @mode: %KPMC_PATH_AUTO (the default): the fast path where the kernel lets
 *	the thread read its counters from user space (an mmap'd page of
 *	/proc/kpmc/self plus the live counters, no system call), read() of
 *	/proc/kpmc/self otherwise; %KPMC_PATH_READ: always read();
 *	%KPMC_PATH_FAST: only the fast path (kpmc_read() fails with -EOPNOTSUPP
 *	where it is not available)
 *
 * Both paths return the same counts. The environment variable
 * KPMC_READ_PATH=auto|read|fast sets the initial mode. The mode is the
 * process's: it reaches every thread's kpmc_read(), region reads and
 * kpmc_read_counter() (the inlined one too); a read already under way
 * finishes on the old path.
 *
 * Return: 0, or -EINVAL for an unknown @mode.
 */
int kpmc_set_read_path(int mode);
/**
 * kpmc_last_read_path() - the path of the calling thread's last successful
 *	read
 *
 * Description: the reads of kpmc_read() and of the region calls, and
 * kpmc_read_counter()'s read() fallbacks (not its fast reads).
 *
 * Return: %KPMC_PATH_READ or %KPMC_PATH_FAST; 0 (%KPMC_PATH_AUTO) before
 * the thread's first successful read.
 */
int kpmc_last_read_path(void);
/**
 * kpmc_read_stats() - the calling thread's successful reads so far, by path
 * @fast: where the number of fast-path reads goes
 * @slow: where the number of read()s goes
 *
 * The reads that kpmc_last_read_path() records: kpmc_read(), the region
 * calls', and kpmc_read_counter()'s read() fallbacks, not its fast reads.
 */
void kpmc_read_stats(uint64_t *fast, uint64_t *slow);
/**
 * kpmc_region_begin() - open region @name in the calling thread
 * @name: the region's name, at most 47 bytes
 *
 * Regions nest when their names differ. The counts read here are the
 * region's start; the read's own few instructions, the same every time,
 * count in the region. With a sampling configuration or the fold trace
 * kept, the reads around regions go through read() (the kernel's exact
 * on-CPU times).
 *
 * Return: 0, or -errno: -EALREADY if @name is open in this thread already,
 * -ENOSPC if the thread has 64 region names already or @name is too long
 * (or its table could not be allocated), or kpmc_read()'s error (the region
 * is then not open).
 */
int kpmc_region_begin(const char *name);
/**
 * kpmc_region_end() - close region @name in the calling thread
 * @name: a region the calling thread opened with kpmc_region_begin()
 *
 * Adds the counts and on-CPU time since the begin to the region's totals
 * over all threads, one more call; with a sampling configuration or the
 * fold trace kept, the invocation is also kept for kpmc_region_samples()
 * and kpmc_fold_trace_write().
 *
 * Return: 0, or -errno: -EINVAL if @name is not open in this thread,
 * kpmc_read()'s error (the region stays open), or -ENOSPC if 64 region
 * names over all threads already have totals (the region is closed, its
 * invocation not counted).
 */
int kpmc_region_end(const char *name);
/**
 * kpmc_region_total() - a region's total over all threads so far, for one
 *	counter
 * @name: the region
 * @pmc: the counter, pmcN
 *
 * Return: pmcN's count over the region's ended invocations (and every set
 * that counted it), or -1 if @pmc is 16 or more or no invocation of @name
 * has ended.
 */
int64_t kpmc_region_total(const char *name, unsigned int pmc);
/**
 * kpmc_region_report() - every region's totals, over all threads, as text
 * @f: where the lines go
 *
 * "region NAME calls=N pmcK=total ..." per region (the counters with a
 * total other than 0); for a region with several sets, one "region NAME
 * calls=N run_ns=T sets=S" line and per set "region NAME set=I run_ns=T
 * coverage=P% pmcK=count pmcK_scaled=estimate ...".
 */
void kpmc_region_report(FILE *f);

/**
 * struct kpmc_region_stats - a region over all threads
 * @calls: its ended invocations
 * @run_ns: the on-CPU time (ns) inside the region
 * @nr_sets: entries of @sets in use
 * @sets: per set, its counts in the region, and in run_ns the set's share of
 *	the region's on-CPU time
 */
struct kpmc_region_stats {
	uint64_t calls;
	uint64_t run_ns;
	uint32_t nr_sets;
	struct kpmc_set_counts sets[KPMC_LIB_SETS];
};
/**
 * kpmc_region_get() - a region's calls, on-CPU time, and per set counts and
 *	time
 * @name: the region
 * @st: where they go
 *
 * Return: 0, or -ENOENT for a region with no ended invocation (@st is then
 * left as it was).
 */
int kpmc_region_get(const char *name, struct kpmc_region_stats *st);
/**
 * kpmc_region_scaled() - one set's count of a counter in a region, scaled to
 *	the region's whole time
 * @name: the region
 * @set: the event set
 * @pmc: the counter, pmcN
 *
 * count x the region's run_ns / the set's run_ns there, rounded to nearest:
 * the estimate under multiplexing; without it, the count.
 *
 * Return: the scaled count, or -1 if the region, set or counter is unknown,
 * or the set never counted pmcN in the region.
 */
int64_t kpmc_region_scaled(const char *name, unsigned int set, unsigned int pmc);
/**
 * kpmc_region_metric() - a metric over a region's totals
 * @region: the region
 * @expr: the metric, in kpmc -m's syntax without "NAME=": "pmc1/pmc0",
 *	"pmc1/time/1e6"; pmcN is the region's count (scaled as
 *	kpmc_region_scaled() when sets took turns), time its on-CPU seconds,
 *	calls its ended invocations
 * @err: where the reason for a NaN goes (@len bytes), else ""; may be %NULL
 * @len: bytes at @err
 *
 * Return: the metric's value; x/0 is NaN (with @err ""), and so is a
 * counter that none of a multiplexed region's sets counted. NaN with the
 * reason in @err for a bad expression (the bad token and its column), a
 * name other than pmcN, time and calls, or a region with no ended
 * invocation.
 */
double kpmc_region_metric(const char *region, const char *expr, char *err, size_t len);

/*
 * Samples (event- or time-based records: ebs/tbs in the configuration).
 * With a sampling configuration (or several sets) kpmc_start() starts a
 * thread (not monitored, signals blocked) that keeps reading the session, so
 * the kernel's ring does not fill; records it could not take are counted, never
 * lost silently. Which region a sample belongs to: a thread's monitored
 * on-CPU time (run_ns), as the kernel accounts it, is carried by every record
 * (since the thread's previous one) and returned by the read()s at a region's
 * begin and end; the sum of the thread's records up to a sample is its total
 * at the sample. A sample of thread T is in an invocation of region R by T
 * when begin < that total <= end. Both are the kernel's own exact figures,
 * neither a clock compared across threads or CPUs. After lost records a
 * thread's totals are unknown (its later samples are unattributable).
 */
#define KPMC_SAMPLE_EBS	4	/* the sampling counter overflowed (period events) */
#define KPMC_SAMPLE_TBS	1	/* the thread's tbs= on-CPU time elapsed */

/**
 * struct kpmc_sample - one sample of the session (an ebs or tbs record)
 * @tid: the sampled thread
 * @cpu: the CPU it ran on
 * @kind: %KPMC_SAMPLE_EBS or %KPMC_SAMPLE_TBS
 * @set: the event set counting
 * @nsample: the thread's record number
 * @period: EBS: the period this sample ends
 * @run_ns: the thread's monitored on-CPU time at the sample; 0: unknown
 * @call: the region invocation it falls in (numbered by their ends), from
 *	kpmc_region_samples() with a region; ~0 if none
 * @counter_mask: bit N set: @counts[N] holds pmcN
 * @counts: the counts since the thread's previous record, by pmc number
 */
struct kpmc_sample {
	uint32_t tid;
	uint32_t cpu;
	uint32_t kind;
	uint32_t set;
	uint64_t nsample;
	uint64_t period;
	uint64_t run_ns;
	uint64_t call;
	uint32_t counter_mask;
	uint64_t counts[KPMC_LIB_COUNTERS];
};
/**
 * typedef kpmc_sample_fn - what kpmc_region_samples() calls for each sample
 * @s: the sample, valid during the call only
 * @arg: the arg given to kpmc_region_samples()
 */
typedef void (*kpmc_sample_fn)(const struct kpmc_sample *s, void *arg);
/**
 * kpmc_region_samples() - the samples in a region's invocations
 * @name: the region; %NULL: every sample of the session
 * @fn: called for each sample
 * @arg: passed to @fn
 *
 * Takes what the session holds now, then calls @fn for each sample so far
 * that falls in an ended invocation of region @name (its call says which),
 * in the order the session delivered them (each thread's in its own order).
 * Invocations are kept with a sampling configuration only; samples whose
 * thread's time is unknown (after lost records) fall in none. @fn runs in
 * the calling thread, on a copy, with no lock of libkpmc's held: it may call
 * libkpmc. Samples and invocations are kept from kpmc_start() to the next
 * kpmc_start().
 *
 * Return: the number of samples passed to @fn, or -ENOMEM.
 */
long kpmc_region_samples(const char *name, kpmc_sample_fn fn, void *arg);

/**
 * kpmc_fold_trace_write() - the fold trace, kpmc fold's input
 * @f: where it goes
 *
 * Every ended invocation of every region ("instance REGION TID CALL SET
 * DURATION_NS C...": the set that counted all of it, -1 if sets rotated
 * inside it, its on-CPU time and counts) and every sample inside one
 * ("sample REGION TID CALL SET OFFSET_NS C...": on-CPU time and counts from
 * the invocation's begin), after "kpmc-fold 1" and the counters ("counter
 * SET PMC NAME", NAME as configured); CALL numbers a region's invocations by
 * their ends, from 0. A sample whose set or counts do not fit its
 * invocation is a "# sample ..." comment line instead. Kept with a sampling
 * configuration, or when the environment variable KPMC_FOLD_TRACE is set at
 * kpmc_start() (then kpmc_stop() writes the trace to the file it names); in
 * both cases the reads around regions go through read() (the kernel's exact
 * on-CPU times, as in the samples). Takes what the session holds first, and
 * writes to @f with no lock of libkpmc's held.
 *
 * Return: the number of instance and sample lines, or -errno: -EINVAL if
 * @f is %NULL, -ENOMEM, or -EIO if writing to @f failed.
 */
long kpmc_fold_trace_write(FILE *f);

/*
 * Regions from function entry and exit, as Extrae and Score-P instrument
 * functions: build the program (not libkpmc) with -finstrument-functions and
 * set KPMC_FOLD_FUNCTIONS=name1,name2 (C identifiers, commas, up to 32);
 * every listed function is then a region of its name, each call an
 * invocation, counted as kpmc_region_begin/end around its body would count
 * it (the reads at its entry and its exit). The names resolve at the first
 * kpmc_start() from the executable's ELF symbol table (static functions and
 * GCC's clones NAME.isra.N etc. too; not a shared library's functions);
 * a name with no function, or bad syntax, fails kpmc_start() with -ENOENT
 * or -EINVAL and kpmc_last_error() naming it. Only calls between kpmc_start
 * and kpmc_stop count. A recursion is one invocation: its outermost call.
 * A call left by longjmp or an exception never exits (its region stays
 * open in that thread). GCC calls these hooks; they are not for programs
 * to call.
 */
/**
 * __cyg_profile_func_enter() - GCC's hook at the entry of an instrumented
 *	function
 * @fn: the function entered
 * @site: where it was called from (unused)
 *
 * If @fn is listed in KPMC_FOLD_FUNCTIONS and the calling thread is not in
 * it already, opens its region (kpmc_region_begin()); an entry that fails
 * to open it (no session) makes that call no invocation.
 */
void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
/**
 * __cyg_profile_func_exit() - GCC's hook at the exit of an instrumented
 *	function
 * @fn: the function left
 * @site: where it was called from (unused)
 *
 * If @fn is listed in KPMC_FOLD_FUNCTIONS and this is the exit of the
 * thread's outermost call of it, closes the region its entry opened
 * (kpmc_region_end()). A call entered before the names were resolved is no
 * invocation.
 */
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));

/**
 * struct kpmc_sample_stats - what the session's records were
 * @records: the threads' records read from the session (memory samples and
 *	lost-record notices aside)
 * @samples: of them ebs/tbs samples
 * @lost: records the kernel's ring dropped
 * @unattributable: samples whose thread's time is unknown (lost records),
 *	or not kept for lack of memory
 */
struct kpmc_sample_stats {
	uint64_t records;
	uint64_t samples;
	uint64_t lost;
	uint64_t unattributable;
};
/**
 * kpmc_sample_stats() - the session's record counts since kpmc_start()
 * @st: where they go
 *
 * Takes what the session holds first.
 *
 * Return: 0.
 */
int kpmc_sample_stats(struct kpmc_sample_stats *st);

/*
 * Memory sampling, after Mitos. With mem=1 in a sampling configuration
 * (e.g. "pmc0,ebs0=20000,rnd=5000,mem=1"; the kernel refuses it where the
 * PMU has no source: /proc/kpmc/info says memory_sampling), each sample
 * carries the data access it hit. Name the program's data objects and every
 * sample whose address falls in one says which, and which element:
 *
 *	size_t dims[2] = { N, M };
 *	kpmc_add_symbol("a", a, sizeof(a[0][0]), dims, 2);
 *	kpmc_mem_set_handler(fn, arg);		(optional: each sample as it comes)
 *	... kpmc_stop(); kpmc_mem_write_csv(f);
 */
#define KPMC_MEM_MAX_DIMS	3
#define KPMC_MEM_NAME_MAX	48
/* kpmc_mem_sample.op */
#define KPMC_MEM_LOAD		1
#define KPMC_MEM_STORE		2
#define KPMC_MEM_LOAD_STORE	3	/* atomic read-modify-write */
/* kpmc_mem_sample.flags (the kernel's KPMC_MEM_F_*, include/uapi/linux/kpmc.h) */
#define KPMC_MEM_HAS_ADDR	(1u << 0)	/* addr is the data address accessed */
#define KPMC_MEM_EXACT		(1u << 1)	/* the instruction right before the interrupt */
#define KPMC_MEM_HAS_LATENCY	(1u << 3)	/* latency holds the load's cycles */
/*
 * source holds where the data came from: the kernel's encoding
 * (KPMC_MEM_SRC_LEVEL(), KPMC_MEM_SRC_SNOOP(), KPMC_MEM_SRC_TLB2_MISS... of
 * <linux/kpmc.h>). Hardware samplers only (PEBS, IBS).
 */
#define KPMC_MEM_HAS_SOURCE	(1u << 4)
#define KPMC_MEM_HARDWARE	(1u << 10)	/* a hardware sampler tagged the access itself */

/**
 * struct kpmc_mem_sample - one memory sample: the data access a sample hit
 * @ip: the memory instruction (or the interrupted PC)
 * @addr: the data address, with %KPMC_MEM_HAS_ADDR
 * @size: bytes accessed
 * @op: %KPMC_MEM_LOAD, %KPMC_MEM_STORE or %KPMC_MEM_LOAD_STORE; 0: no access
 *	found
 * @flags: %KPMC_MEM_HAS_ADDR, %KPMC_MEM_EXACT, ...: what the other fields hold
 * @latency: the load's cycles, with %KPMC_MEM_HAS_LATENCY (where the PMU
 *	measures it)
 * @source: where the data came from, with %KPMC_MEM_HAS_SOURCE
 * @cpu: the CPU of the access
 * @tid: the thread of the access
 * @time_ns: the thread's monitored on-CPU time at it; 0: unknown
 * @object: the registered object (kpmc_add_symbol()) @addr is in; "" if none
 * @object_bytes: that object's size in bytes
 * @ndims: that object's number of dimensions
 * @index: the element of the object: index[0] outermost (row-major)
 */
struct kpmc_mem_sample {
	uint64_t ip;
	uint64_t addr;
	uint32_t size;
	uint32_t op;
	uint32_t flags;
	uint32_t latency, source;
	uint32_t cpu, tid;
	uint64_t time_ns;
	char object[KPMC_MEM_NAME_MAX];
	size_t object_bytes;
	unsigned int ndims;
	uint64_t index[KPMC_MEM_MAX_DIMS];
};
/**
 * typedef kpmc_mem_fn - what kpmc_mem_set_handler() and kpmc_mem_samples()
 *	have called for each memory sample
 * @s: the memory sample, valid during the call only
 * @arg: the arg given with the function
 */
typedef void (*kpmc_mem_fn)(const struct kpmc_mem_sample *s, void *arg);

/**
 * kpmc_add_symbol() - name a data object, for memory samples to say which
 *	element they hit
 * @name: the object's name, 1 to 47 bytes
 * @addr: its first byte
 * @elem_size: the bytes of one element
 * @dims: its dimensions, dims[0] outermost (C row-major order)
 * @ndims: the number of @dims, 1 to 3
 *
 * Any thread, any time: a memory sample is matched against the objects
 * named when libkpmc takes it from the session.
 *
 * Return: 0, or -errno: -EINVAL (a bad name, a %NULL @addr or @dims, a
 * @elem_size or dimension of 0, @ndims out of range, or a size that
 * overflows size_t), -EEXIST (the name is taken), -ENOSPC (256 objects
 * already).
 */
int kpmc_add_symbol(const char *name, const void *addr, size_t elem_size,
		    const size_t *dims, unsigned int ndims);
/**
 * kpmc_remove_symbol() - forget a data object kpmc_add_symbol() named
 * @name: the object's name
 *
 * Samples already attributed to it keep its name.
 *
 * Return: 0, or -ENOENT if no object has that name.
 */
int kpmc_remove_symbol(const char *name);
/**
 * kpmc_mem_set_handler() - have a function called for each memory sample as
 *	it arrives
 * @fn: the function; %NULL: none
 * @arg: passed to @fn
 *
 * @fn runs in libkpmc's reader thread, or in the thread whose call takes the
 * session's pending records (kpmc_sample_stats(), kpmc_region_samples(),
 * kpmc_mem_samples(), kpmc_mem_write_csv(), kpmc_fold_trace_write(),
 * kpmc_stop()), with libkpmc's record lock held: it must not call those.
 * A sample that could not be kept (no memory) still reaches @fn.
 *
 * Return: 0.
 */
int kpmc_mem_set_handler(kpmc_mem_fn fn, void *arg);
/**
 * kpmc_mem_samples() - the memory samples kept since kpmc_start()
 * @fn: called for each of them
 * @arg: passed to @fn
 *
 * Takes what the session holds first. @fn runs in the calling thread with
 * libkpmc's record lock held: it must not call the functions that take the
 * session's records (see kpmc_mem_set_handler()).
 *
 * Return: their number, or -EINVAL if @fn is %NULL.
 */
long kpmc_mem_samples(kpmc_mem_fn fn, void *arg);
/**
 * kpmc_mem_write_csv() - the memory samples kept since kpmc_start(), as
 *	Mitos's samples.csv
 * @f: where the rows go
 *
 * A header, then a row per sample: source,line,instruction,bytes,ip,
 * variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,
 * level,hit_type,op_type,snoop_mode,tlb_access ("??" where not known;
 * xidx = index[0]). Takes what the session holds first.
 *
 * Return: the number of rows, or -errno: -EINVAL if @f is %NULL, -EIO if
 * @f has an error.
 */
long kpmc_mem_write_csv(FILE *f);


/*
 * kpmc_read_counter's fast path, inlined into the caller as perf's own
 * user-space read is (a call into the library, its checks and its TLS lookup
 * cost twice the read itself). Not API: what the inline needs of the library.
 *
 * kpmc__page_v1: the calling thread's page (struct kpmc_self_page,
 * <uapi/linux/kpmc.h>) while the fast path may be taken, otherwise a page
 * whose entries all say "use read()" (never NULL: no test for it in the hot
 * path): not mapped yet, no page, or another layout (a library that maps a
 * page of another layout points it there, so a program inlined against this
 * one falls back to the call), or KPMC_PATH_READ mode.
 * kpmc__read_counter_slow: the rest of kpmc_read_counter (first call, read(),
 * retries, errors). The layout of the page's by_pmc[] entry is repeated here
 * so that this header stands alone; fastread.h checks it against the uapi.
 */
#define KPMC__PAGE_BY_PMC	560	/* offsetof(struct kpmc_self_page, by_pmc) */
/* Internal, not API: the page's by_pmc[] entry (struct kpmc_page_pmc of the uapi). */
struct kpmc__page_pmc {
	uint64_t base;
	uint64_t raw;
	uint64_t width_mask;
	uint32_t user_index;	/* the counter's index + 1; 0: use read() */
	uint32_t reserved;
};
#define KPMC__CYCLE_INDEX	31	/* arm64: index of PMCCNTR_EL0 */
#define KPMC__PAGE_RETRY	1	/* kpmc__page_one: the page moved, try again */

/* Internal, not API (exported for the inline only): see above. */
extern __thread const void *kpmc__page_v1 __attribute__((tls_model("initial-exec")));
int kpmc__read_counter_slow(unsigned int pmc, uint64_t *value);

/*
 * Internal, not API. One try at pmcN (< KPMC_LIB_COUNTERS) from the page at
 * p, by the page's sequence lock: 0 and *value; KPMC__PAGE_RETRY when the
 * page was being rewritten or moved meanwhile; -11 (-EAGAIN; errno.h left
 * out of a public header) when its entry says "use read()". rd reads the
 * live counter by index; always inlined so that a constant rd becomes its
 * instructions.
 */
static inline __attribute__((always_inline)) int
kpmc__page_one(const void *p, unsigned int pmc, uint64_t (*rd)(uint32_t, void *), void *arg,
	       uint64_t *value)
{
	/*
	 * Volatile, not __atomic relaxed loads: the same single loads, but GCC
	 * folds the field offsets into them (it adds them first for atomics).
	 */
	const volatile struct kpmc__page_pmc *e = (const volatile struct kpmc__page_pmc *)
		((const char *)p + KPMC__PAGE_BY_PMC) + pmc;
	uint32_t seq, idx;
	uint64_t v, base, raw, mask;

	seq = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
	if (__builtin_expect(seq & 1, 0))
		return KPMC__PAGE_RETRY;
	idx = e->user_index;
	if (__builtin_expect(!idx, 0))
		return -11;
	/* The entry before the counter: its loads then share one base register. */
	base = e->base;
	raw = e->raw;
	mask = e->width_mask;
	v = base + ((rd(idx - 1, arg) - raw) & mask);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect(*(const volatile uint32_t *)p != seq, 0))
		return KPMC__PAGE_RETRY;
	*value = v;
	return 0;
}

#if defined(__aarch64__) && defined(__GNUC__)
/*
 * Internal, not API. PMUv3 at EL0: granted by kpmc only while the page's
 * entry has an index. The one reader of a counter from user space: the
 * inlined path below and the library's out-of-line one both use it.
 */
static inline __attribute__((always_inline)) uint64_t kpmc__pmu_read(uint32_t index, void *arg)
{
	uint64_t v;

	(void)arg;
	if (index == KPMC__CYCLE_INDEX) {
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
	} else {
		__asm__ volatile("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
				 : "=r"(v) : "r"((uint64_t)index));
	}
	return v;
}
#endif

#if defined(__aarch64__) && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(KPMC_NO_INLINE)
/*
 * Static: each program gets the body inlined (and a local copy if it takes
 * its address); the library's definition of kpmc_read_counter stays the
 * symbol for everyone else (-O0, other architectures, KPMC_NO_INLINE).
 */
static inline __attribute__((always_inline)) int
kpmc_read_counter(unsigned int pmc, uint64_t *value)
{
	const void *p = __atomic_load_n(&kpmc__page_v1, __ATOMIC_RELAXED);
	uint64_t v;

	if (__builtin_expect(pmc < KPMC_LIB_COUNTERS, 1) &&
	    !kpmc__page_one(p, pmc, kpmc__pmu_read, 0, &v)) {
		*value = v;
		return 0;
	}
	return kpmc__read_counter_slow(pmc, value);
}
#endif

#endif
