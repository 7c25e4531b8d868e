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

/* What one event set counted, and for how much of the thread's on-CPU time. */
struct kpmc_set_counts {
	uint32_t counter_mask;		/* bit N: counts[N] holds pmcN in this set */
	uint64_t run_ns;		/* on-CPU time this set counted */
	uint64_t counts[KPMC_LIB_COUNTERS];
};

struct kpmc_counts {
	uint32_t counter_mask;		/* bit N: counts[N] holds pmcN (in some set) */
	uint64_t run_ns;		/* on-CPU time monitored */
	uint64_t counts[KPMC_LIB_COUNTERS];	/* pmcN over every set that has it */
	uint32_t set;			/* the set counting now */
	uint32_t nr_sets;		/* sets[] in use: 1 without multiplexing */
	struct kpmc_set_counts sets[KPMC_LIB_SETS];
};

/*
 * Monitor the calling thread and those it creates. config: event sets
 * separated by ';' (several sets are multiplexed), each either raw
 * ("pmc0,pmc1=0x8,ebs0=1000000", /proc/kpmc/config syntax) or by name
 * ("instr,cycles:u,L1D_CACHE_REFILL:ebs=100000": PMCTrack's mnemonics or
 * libpfm4 names with :u :k :uk :ebs=N, plus the set's own raw tokens tbs=,
 * mux=, muxsamples=, rnd=, seed=), as kpmc -c takes them. A set is raw when
 * it starts with pmcN. 0 or -errno: -EINVAL for an unknown name (with close
 * matches in kpmc_last_error()) or a configuration the kernel refuses.
 */
int kpmc_start(const char *config);
/* The raw configuration kpmc_start(config) would write: its length, or -errno. */
int kpmc_resolve_config(const char *config, char *raw, size_t len);
/* Why the calling thread's last failed kpmc_start/kpmc_resolve_config failed ("" if none). */
const char *kpmc_last_error(void);
int kpmc_stop(void);
/* The calling thread's counts since kpmc_start (or its creation). 0 or -errno. */
int kpmc_read(struct kpmc_counts *c);
/*
 * One counter of the calling thread, pmcN, into *value: the lean read (no
 * run time, no other counter), as cheap as perf's own user-space read where
 * the fast path is available; the same paths and modes as kpmc_read() (in
 * KPMC_PATH_FAST mode, success means it took the fast path; its fast reads
 * are not counted in kpmc_read_stats, to stay lean).
 * 0, -ENOENT if pmcN is not counted, -EINVAL, -EOPNOTSUPP, or -errno.
 */
#if !(defined(__aarch64__) && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(KPMC_NO_INLINE))
int kpmc_read_counter(unsigned int pmc, uint64_t *value);
#endif	/* else inlined: see the end of this header */
/*
 * How kpmc_read() gets the counts. AUTO (default): the fast path where the
 * kernel lets this thread read its counters from user space (an mmap'd page of
 * /proc/kpmc/self plus the live counters, no system call), read() of
 * /proc/kpmc/self otherwise. READ: always read(). FAST: only the fast path
 * (kpmc_read() fails with -EOPNOTSUPP where it is not available). The
 * environment variable KPMC_READ_PATH=auto|read|fast sets the initial mode.
 * Both paths return the same counts. 0 or -EINVAL.
 */
enum { KPMC_PATH_AUTO = 0, KPMC_PATH_READ = 1, KPMC_PATH_FAST = 2 };
int kpmc_set_read_path(int mode);
/* The path the calling thread's last successful kpmc_read() took: KPMC_PATH_READ or _FAST. */
int kpmc_last_read_path(void);
/* The calling thread's successful reads so far, by path. */
void kpmc_read_stats(uint64_t *fast, uint64_t *slow);
/* Named regions, nestable with different names; 0 or -errno. */
int kpmc_region_begin(const char *name);
int kpmc_region_end(const char *name);
/* A region's total over all threads so far, for counter pmc; -1 if unknown. */
int64_t kpmc_region_total(const char *name, unsigned int pmc);
/*
 * "region NAME calls=N pmcK=total ..." per region, over all threads; with
 * several sets one "region NAME calls=N run_ns=T sets=S" line and per set
 * "region NAME set=I run_ns=T coverage=P% pmcK=count pmcK_scaled=estimate ...".
 */
void kpmc_region_report(FILE *f);

/* A region over all threads: calls, on-CPU time, and per set counts and time. */
struct kpmc_region_stats {
	uint64_t calls;
	uint64_t run_ns;		/* on-CPU time inside the region */
	uint32_t nr_sets;
	struct kpmc_set_counts sets[KPMC_LIB_SETS];	/* run_ns: the set's share of it */
};
/* 0, or -ENOENT for a region that never ended. */
int kpmc_region_get(const char *name, struct kpmc_region_stats *st);
/*
 * Set set's count of pmc in region name, scaled to the region's whole time:
 * count x run_ns / set's run_ns (multiplexing; without it, the count); -1 if
 * unknown or the set never counted in the region.
 */
int64_t kpmc_region_scaled(const char *name, unsigned int set, unsigned int pmc);
/*
 * A metric over a region's totals, in kpmc -m's syntax without "NAME=":
 * "pmc1/pmc0", "pmc1/time/1e6". pmcN is the region's count (scaled as
 * kpmc_region_scaled when sets took turns), time its on-CPU seconds, calls
 * its ended invocations; x/0 is NaN. NaN with the reason (the bad token and
 * its column, an unknown name or region) in err (len bytes; may be NULL),
 * else err is "".
 */
double kpmc_region_metric(const char *region, const char *expr, char *err, size_t len);

/*
 * Samples (event- or time-based records: ebs/tbs in the configuration).
 * With a sampling configuration kpmc_start() starts a thread (not
 * monitored, signals blocked) that keeps reading the session, so the
 * kernel's ring does not fill; records it could not take are counted, never
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

struct kpmc_sample {
	uint32_t tid;
	uint32_t cpu;
	uint32_t kind;			/* KPMC_SAMPLE_EBS or KPMC_SAMPLE_TBS */
	uint32_t set;			/* event set counting */
	uint64_t nsample;		/* the thread's record number */
	uint64_t period;		/* EBS: the period this sample ends */
	uint64_t run_ns;		/* the thread's on-CPU time at the sample; 0: unknown */
	uint64_t call;			/* the region invocation (numbered by their ends); ~0 if none */
	uint32_t counter_mask;
	uint64_t counts[KPMC_LIB_COUNTERS];	/* since the thread's previous record */
};
typedef void (*kpmc_sample_fn)(const struct kpmc_sample *s, void *arg);
/*
 * Calls fn for each sample so far that falls in an ended invocation of
 * region name (call: which one), in the order the session delivered them
 * (each thread's in its own order); name NULL: every sample of the session.
 * The number of samples, or -errno. fn may call libkpmc. Samples and
 * invocations are kept from kpmc_start() to the next kpmc_start().
 */
long kpmc_region_samples(const char *name, kpmc_sample_fn fn, void *arg);

/*
 * The fold trace, kpmc fold's input: every ended invocation of every region
 * ("instance REGION TID CALL SET DURATION_NS C...": the set that counted all
 * of it, -1 if sets rotated inside it, its on-CPU time and counts) and every
 * sample inside one ("sample REGION TID CALL SET OFFSET_NS C...": on-CPU time
 * and counts from the invocation's begin), after "kpmc-fold 1" and the
 * counters ("counter SET PMC NAME", NAME as configured); CALL numbers a
 * region's invocations by their ends, from 0. Kept with a sampling
 * configuration, or when the environment variable KPMC_FOLD_TRACE is set at
 * kpmc_start() (then kpmc_stop() writes the trace to the file it names); in
 * both cases the reads around regions go through read() (the kernel's exact
 * on-CPU times, as in the samples). The number of instance and sample
 * lines, or -errno.
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
void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));

struct kpmc_sample_stats {
	uint64_t records;		/* records read from the session */
	uint64_t samples;		/* of them ebs/tbs samples */
	uint64_t lost;			/* records the kernel's ring dropped */
	uint64_t unattributable;	/* samples whose thread's time is unknown (lost records) */
};
/* Reads what the session has now, then the counts since kpmc_start(). 0 or -errno. */
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

struct kpmc_mem_sample {
	uint64_t ip;			/* the memory instruction (or the interrupted PC) */
	uint64_t addr;			/* with KPMC_MEM_HAS_ADDR */
	uint32_t size;			/* bytes accessed */
	uint32_t op;			/* KPMC_MEM_LOAD...; 0: no access found */
	uint32_t flags;
	uint32_t latency, source;	/* where the PMU measures them (flags say) */
	uint32_t cpu, tid;
	uint64_t time_ns;		/* the thread's monitored on-CPU time at it; 0: unknown */
	char object[KPMC_MEM_NAME_MAX];	/* the registered object addr is in; "" if none */
	size_t object_bytes;
	unsigned int ndims;
	uint64_t index[KPMC_MEM_MAX_DIMS];	/* the element: index[0] outermost (row-major) */
};
typedef void (*kpmc_mem_fn)(const struct kpmc_mem_sample *s, void *arg);

/*
 * An object of ndims (1 to 3) dimensions dims[] (dims[0] outermost, C
 * row-major order) of elem_size-byte elements at addr. 0, -EINVAL, -EEXIST
 * (the name is taken), -ENOSPC (256 objects). Any thread, any time.
 */
int kpmc_add_symbol(const char *name, const void *addr, size_t elem_size,
		    const size_t *dims, unsigned int ndims);
int kpmc_remove_symbol(const char *name);
/* fn is called for each memory sample as it arrives (libkpmc's reader thread); NULL: none. */
int kpmc_mem_set_handler(kpmc_mem_fn fn, void *arg);
/* Calls fn for each memory sample kept since kpmc_start(); their number, or -errno. */
long kpmc_mem_samples(kpmc_mem_fn fn, void *arg);
/*
 * The samples as Mitos's samples.csv: source,line,instruction,bytes,ip,
 * variable,buffer_size,dims,xidx,yidx,zidx,pid,tid,time,addr,cpu,latency,
 * level,hit_type,op_type,snoop_mode,tlb_access ("??" where not known;
 * xidx = index[0]). The number of rows, or -errno.
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
struct kpmc__page_pmc {
	uint64_t base;
	uint64_t raw;
	uint64_t width_mask;
	uint32_t user_index;	/* the counter's index + 1; 0: use read() */
	uint32_t reserved;
};
#define KPMC__CYCLE_INDEX	31	/* arm64: index of PMCCNTR_EL0 */
#define KPMC__PAGE_RETRY	1	/* kpmc__page_one: the page moved, try again */

extern __thread const void *kpmc__page_v1 __attribute__((tls_model("initial-exec")));
int kpmc__read_counter_slow(unsigned int pmc, uint64_t *value);

/*
 * One try at pmcN (< KPMC_LIB_COUNTERS) from the page at p, by the page's
 * sequence lock: 0 and *value; KPMC__PAGE_RETRY when the page was being
 * rewritten or moved meanwhile; -11 (-EAGAIN; errno.h left out of a public
 * header) when its entry says "use read()". rd reads the live counter by
 * index; always inlined so that a constant rd becomes its instructions.
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
 * PMUv3 at EL0: granted by kpmc only while the page's entry has an index.
 * The one reader of a counter from user space: the inlined path below and
 * the library's out-of-line one both use it.
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
