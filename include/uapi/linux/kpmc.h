/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kpmc user/kernel ABI: the record that /proc/kpmc/monitor delivers.
 *
 * A read() of /proc/kpmc/monitor returns a whole number of records; each
 * record is fixed-size so that a reader can index a buffer of them directly.
 * Counts are deltas since the thread's previous record: summing every record
 * of a thread gives the thread's total.
 */
#ifndef _UAPI_LINUX_KPMC_H
#define _UAPI_LINUX_KPMC_H

#include <linux/types.h>

#define KPMC_RECORD_VERSION	3

/* Counter slots a configuration can name: pmc0 .. pmc15. */
#define KPMC_MAX_COUNTERS	16
/* Event sets a thread can rotate through: set (expid) 0 .. 3. */
#define KPMC_MAX_SETS		4
/* Virtual counters a monitoring module can add to a record: virt0 .. virt7. */
#define KPMC_MAX_VIRT		8

enum kpmc_record_kind {
	KPMC_REC_TBS = 1,	/* time-based sample: the thread's sampling period elapsed */
	KPMC_REC_EXIT = 2,	/* the thread exited: what it counted since its last sample */
	KPMC_REC_DETACH = 3,	/* monitoring stopped while the thread lives on */
	KPMC_REC_EBS = 4,	/* event-based sample: the sampling counter overflowed */
	KPMC_REC_LOST = 5,	/* the ring was full: lost records were dropped since the last LOST */
	KPMC_REC_MUX = 6,	/* event sets rotate: what the set that gives way counted */
	KPMC_REC_CPU = 7,	/* system-wide: what one CPU counted (pid, tid 0; see cpu) */
	/*
	 * System-wide: the CPU goes offline; what it counted since its last
	 * record. Its records resume (nsample from 1) when it is back online.
	 */
	KPMC_REC_CPU_OFFLINE = 8,
	/*
	 * Memory sampling (mem=1): follows the EBS record of the same thread
	 * and nsample, and says what data access that sample hit (its
	 * counts[] are struct kpmc_mem_access: see mem).
	 */
	KPMC_REC_MEM = 9,
	/*
	 * Sampling formats (fmt=NAME): what the set's format adds to a sample,
	 * after its TBS or EBS record (same tid and nsample), in one or more
	 * records (part: struct kpmc_format_part). STACK: the built-in
	 * fmt=callstack (the parts' data is struct kpmc_callstack); FORMAT: any
	 * other format, named by its UUID (/proc/kpmc/formats lists them).
	 */
	KPMC_REC_STACK = 10,
	KPMC_REC_FORMAT = 11,
};

/*
 * A format's payload spans the parts of one sample, which the ring takes
 * whole or not at all: concatenating data[0 .. bytes) of part 0 .. parts-1
 * gives the format's bytes for that sample.
 */
#define KPMC_FORMAT_PART_BYTES	168
struct kpmc_format_part {
	__u8 uuid[16];		/* the format that wrote it */
	__u16 part;		/* 0 .. parts - 1 */
	__u16 parts;		/* records this sample's payload spans */
	__u32 bytes;		/* bytes of data[] used in this part */
	__u8 data[KPMC_FORMAT_PART_BYTES];
};

/* fmt=callstack: the payload (struct kpmc_callstack) of a sample's STACK parts. */
#define KPMC_STACK_MAX_DEPTH		127	/* frames of each of kernel and user */
#define KPMC_STACK_F_KERNEL_TRUNC	(1u << 0)	/* the kernel stack was deeper than depth */
#define KPMC_STACK_F_USER_TRUNC		(1u << 1)	/* the user stack was deeper than depth */
/* A user frame could not be read without faulting (paged out, no frame pointer): the walk stopped. */
#define KPMC_STACK_F_USER_FAULT		(1u << 2)
/* The kernel unwinder did not reach the interrupted code: only its pc is given. */
#define KPMC_STACK_F_KERNEL_PARTIAL	(1u << 3)
struct kpmc_callstack {
	__u16 nr_kernel;	/* kernel frames, innermost first */
	__u16 nr_user;		/* user frames, innermost first, after the kernel ones */
	__u16 flags;		/* KPMC_STACK_F_* */
	__u16 reserved;
	/*
	 * nr_kernel + nr_user addresses. The first of each part is where that
	 * mode was interrupted (the kernel pc, the user pc at its entry into
	 * the kernel); the others are return addresses (a symbolizer looks
	 * up address - 1, inside the call).
	 */
	__u64 ip[];
};

/* What a sampled instruction did to memory (struct kpmc_mem_access.op). */
enum kpmc_mem_op {
	KPMC_MEM_OP_NONE = 0,		/* no memory access found */
	KPMC_MEM_OP_LOAD = 1,
	KPMC_MEM_OP_STORE = 2,
	KPMC_MEM_OP_LOAD_STORE = 3,	/* atomic read-modify-write, swap, compare-and-swap */
};

/* struct kpmc_mem_access.flags */
#define KPMC_MEM_F_ADDR		(1u << 0)	/* addr holds the data address accessed */
/*
 * The access is the instruction that retired last before the interrupt (no
 * walk back): under QEMU's -icount the instruction that overflowed the
 * counter; on real cores within their skid (see README).
 */
#define KPMC_MEM_F_EXACT	(1u << 1)
#define KPMC_MEM_F_DECODED	(1u << 2)	/* source: the instruction decoded, address from its registers */
#define KPMC_MEM_F_LATENCY	(1u << 3)	/* latency is valid */
#define KPMC_MEM_F_SOURCE	(1u << 4)	/* source is valid */
#define KPMC_MEM_F_KERNEL	(1u << 5)	/* the sample interrupted kernel code: ip only */
/* The access overwrote a register its address came from: addr is lost. */
#define KPMC_MEM_F_CLOBBERED	(1u << 6)
#define KPMC_MEM_F_PAIR		(1u << 7)	/* two registers (LDP/STP...): size covers both */
#define KPMC_MEM_F_SIMD		(1u << 8)	/* SIMD&FP registers */
#define KPMC_MEM_F_ATOMIC	(1u << 9)	/* exclusive, acquire/release or atomic */
/* Source: a hardware memory sampler tagged the access itself (PEBS, IBS, SPE). */
#define KPMC_MEM_F_HARDWARE	(1u << 10)

/*
 * struct kpmc_mem_access.source (KPMC_MEM_F_SOURCE): where the data came
 * from, as the hardware reports it (Intel PEBS load latency, AMD IBS Op).
 * Bits 7:0 the level (enum kpmc_mem_level), 11:8 the snoop result (enum
 * kpmc_mem_snoop), then flags.
 */
enum kpmc_mem_level {
	KPMC_MEM_LVL_NA = 0,		/* the source did not say */
	KPMC_MEM_LVL_L1 = 1,
	KPMC_MEM_LVL_LFB = 2,		/* a fill buffer: a miss to the same line in flight */
	KPMC_MEM_LVL_L2 = 3,
	KPMC_MEM_LVL_L3 = 4,		/* the last-level cache of this core's cluster/socket */
	KPMC_MEM_LVL_PEER_CACHE = 5,	/* another cluster's (CCX's) cache on the same node */
	KPMC_MEM_LVL_REMOTE_CACHE = 6,	/* a cache on another node (socket) */
	KPMC_MEM_LVL_RAM = 7,		/* this node's DRAM */
	KPMC_MEM_LVL_REMOTE_RAM = 8,	/* another node's DRAM */
	KPMC_MEM_LVL_EXT_MEM = 9,	/* memory behind an expander (CXL) */
	KPMC_MEM_LVL_IO = 10,		/* MMIO, configuration space */
	KPMC_MEM_LVL_UNCACHED = 11,
	KPMC_MEM_LVL_L3_MISS = 12,	/* beyond the last-level cache, where not known */
};
enum kpmc_mem_snoop {
	KPMC_MEM_SNOOP_NA = 0,
	KPMC_MEM_SNOOP_NONE = 1,	/* no snoop was needed */
	KPMC_MEM_SNOOP_HIT = 2,		/* another core held the line clean */
	KPMC_MEM_SNOOP_HITM = 3,	/* another core held the line modified */
	KPMC_MEM_SNOOP_MISS = 4,	/* snooped, no other core held it */
};
#define KPMC_MEM_SRC_LEVEL(s)		((s) & 0xffu)
#define KPMC_MEM_SRC_SNOOP(s)		(((s) >> 8) & 0xfu)
#define KPMC_MEM_SRC(level, snoop)	((__u32)(level) | (__u32)(snoop) << 8)
#define KPMC_MEM_SRC_TLB1_MISS		(1u << 12)	/* first-level data TLB missed */
#define KPMC_MEM_SRC_TLB2_MISS		(1u << 13)	/* second-level (STLB) missed: a page walk */
#define KPMC_MEM_SRC_LOCKED		(1u << 14)	/* a locked (atomic) access */

/* KPMC_REC_MEM's payload. */
struct kpmc_mem_access {
	__u64 ip;		/* the memory instruction (or, without one, the interrupted PC) */
	__u64 addr;		/* data address of its first byte (KPMC_MEM_F_ADDR) */
	__u32 size;		/* bytes accessed */
	__u16 op;		/* enum kpmc_mem_op */
	__u16 flags;		/* KPMC_MEM_F_* */
	__u32 latency;		/* cycles (KPMC_MEM_F_LATENCY) */
	__u32 source;		/* where the data came from (KPMC_MEM_F_SOURCE) */
	__u32 skid;		/* instructions between the access and the interrupted PC */
	__u32 reserved;
};

/* Why a DETACH record's thread stopped being monitored (its detail). */
enum kpmc_detach_reason {
	KPMC_DETACH_REQUESTED = 0,	/* its monitor (or the thread itself, or the kernel) asked */
	KPMC_DETACH_READER_GONE = 1,	/* the session's reader closed its file */
	/*
	 * It exec'd a program that raised its privileges (setuid, setgid, file
	 * capabilities) and its monitor was not CAP_PERFMON: as perf does.
	 */
	KPMC_DETACH_PRIVILEGED_EXEC = 2,
};

/* A system-wide record: one CPU's counts. */
#define KPMC_REC_IS_CPU(kind)	((kind) == KPMC_REC_CPU || (kind) == KPMC_REC_CPU_OFFLINE)

struct kpmc_record {
	__u16 version;		/* KPMC_RECORD_VERSION */
	__u16 size;		/* sizeof(struct kpmc_record) */
	__u8 kind;		/* enum kpmc_record_kind */
	__u8 set;		/* event set (PMCTrack's expid) the counts belong to */
	__u16 cpu;		/* CPU the thread was on when the record was taken */
	/* In the pid namespace of the session's opener (0: not in it), as perf's. */
	__u32 pid;		/* thread group id */
	__u32 tid;		/* thread id */
	__u32 counter_mask;	/* bit N set: counts[N] holds pmcN */
	__u32 virt_mask;	/* bit N set: virt[N] holds virtN */
	/*
	 * Bit N set: pmcN did not count for part of this record (hybrid CPUs:
	 * the thread ran on a core type without that counter or event), so
	 * counts[N] covers only the rest of run_ns.
	 */
	__u32 uncounted_mask;
	/*
	 * DETACH: enum kpmc_detach_reason. CPU, CPU_OFFLINE: which of the
	 * session's system-wide starts counted it (1, 2, ...: the order of
	 * its accepted enable writes; a session may count several cgroups,
	 * and stop one with "stop=ID"). Else 0.
	 */
	__u32 detail;
	__u64 nsample;		/* 1, 2, ... per thread */
	__u64 run_ns;		/* on-CPU time covered by this record */
	__u64 period;		/* EBS: the sampling period (events) this record ends */
	__u64 lost;		/* LOST: records dropped; else 0 */
	union {
		struct {
			__u64 counts[KPMC_MAX_COUNTERS];
			__u64 virt[KPMC_MAX_VIRT];
		};
		struct kpmc_mem_access mem;	/* KPMC_REC_MEM only */
		struct kpmc_format_part part;	/* KPMC_REC_STACK, KPMC_REC_FORMAT only */
	};
};

/*
 * What a read() of /proc/kpmc/self returns: the calling thread's counts since
 * its monitoring began, folded at the read (exact up to the read itself).
 */
struct kpmc_self_counts {
	__u32 counter_mask;	/* bit N set: counts[N] holds pmcN */
	__u32 set;		/* the event set counting now */
	__u64 run_ns;		/* on-CPU time monitored */
	__u64 counts[KPMC_MAX_COUNTERS];
};

/*
 * A read() of /proc/kpmc/self with room for struct kpmc_self_sets returns
 * one (older modules return only struct kpmc_self_counts: see the size
 * read() returns): the counts again, and per event set what that set has
 * counted and for how long, so that a multiplexing thread can scale each
 * set's counts by total time / set time. all.counts[N] is pmcN's count over
 * every set that has pmcN (the sum of its records' counts[N]).
 */
struct kpmc_self_set {
	__u32 counter_mask;	/* bit N set: counts[N] holds pmcN in this set */
	__u32 reserved;
	__u64 run_ns;		/* on-CPU time this set counted */
	__u64 counts[KPMC_MAX_COUNTERS];
};

struct kpmc_self_sets {
	struct kpmc_self_counts all;
	__u32 nr_sets;		/* sets[0 .. nr_sets-1] are in use */
	__u32 reserved;
	struct kpmc_self_set sets[KPMC_MAX_SETS];
};

/*
 * A read() with room for struct kpmc_self_all returns one (older modules
 * return less: see the size): the counts as above, and the active
 * monitoring module's virtual counters of the thread since its monitoring
 * began, as the sum of its records' and what the module gives between
 * records. Only modules whose values add up over records (schedstats'
 * times and switches) give them between records: virt_mask bit N set means
 * virt[N] holds virtual counter N (named in /proc/kpmc/info's
 * virtual_counters: line); 0 for the others, and for a thread whose
 * monitor may not see the module's values.
 */
struct kpmc_self_all {
	struct kpmc_self_sets sets;
	__u32 virt_mask;
	__u32 reserved;
	__u64 virt[KPMC_MAX_VIRT];
};

/*
 * The fast read path: mmap(PROT_READ, MAP_SHARED, one page, offset 0) of
 * /proc/kpmc/self gives the calling thread's page. The kernel rewrites it
 * whenever the thread's counts or its counters' starting points change (switch
 * in/out, fold, (re)programming, stop), with seq odd during the rewrite. A
 * reader (the thread itself, while it runs) takes seq (even), the fields and,
 * with KPMC_PAGE_USER_READ, the live counters, then retries if seq moved. Then
 * pmcN = base + ((live - raw) & width_mask): the value a read() would give.
 * Without KPMC_PAGE_USER_READ the reader uses read() of /proc/kpmc/self.
 *
 * by_pmc[N] holds the same for pmcN alone, for a reader of one counter (the
 * lean read, libkpmc's kpmc_read_counter): user_index is the counter's index
 * + 1 while it is readable from user space, 0 otherwise (not counted, not
 * readable now: use read()), the way perf's mmap page gives its index.
 */
#define KPMC_PAGE_VERSION	1
#define KPMC_PAGE_COUNTING	(1u << 0)	/* monitored and counting */
#define KPMC_PAGE_USER_READ	(1u << 1)	/* live counters readable from user space now */

/* Where user space reads a counter: arm64 PMCCNTR_EL0 for this, else PMSELR_EL0 = index. */
#define KPMC_PAGE_ARM64_CYCLE_INDEX	31

struct kpmc_page_counter {
	__u64 base;		/* count up to the moment the counter held raw */
	__u64 raw;		/* the counter's value at that moment */
	__u64 width_mask;	/* the counter's width */
	__u32 pmc;		/* pmcN this entry is for */
	__u32 index;		/* arm64: PMSELR_EL0 value or the cycle index; x86: rdpmc ECX */
};

struct kpmc_page_pmc {
	__u64 base;
	__u64 raw;
	__u64 width_mask;
	__u32 user_index;	/* index + 1 (see kpmc_page_counter.index); 0: use read() */
	__u32 reserved;
};

struct kpmc_self_page {
	__u32 seq;		/* odd: being rewritten */
	__u32 version;		/* KPMC_PAGE_VERSION */
	__u32 flags;		/* KPMC_PAGE_* */
	__u32 tid;		/* the thread this page is for (its gettid()) */
	__u32 counter_mask;	/* as in struct kpmc_self_counts */
	__u32 set;
	__u32 nr;		/* entries of ctr[] in use */
	__u32 reserved;
	__u64 run_ns;		/* on-CPU time up to since_ns */
	__u64 since_ns;		/* CLOCK_MONOTONIC of the last rewrite while on a CPU */
	struct kpmc_page_counter ctr[KPMC_MAX_COUNTERS];
	struct kpmc_page_pmc by_pmc[KPMC_MAX_COUNTERS];
};

/*
 * The mapped ring: a reader takes the session's records where the kernel
 * writes them, with no copy and no system call per batch (perf's mmap ring
 * buffer, for kpmc's fixed-size records).
 *
 * Mappings of /proc/kpmc/monitor (MAP_SHARED; the page size is the
 * kernel's, sysconf(_SC_PAGESIZE)):
 *   offset 0, length one page: struct kpmc_ring_control. A reader that
 *     advances data_tail maps it PROT_READ | PROT_WRITE, which needs the
 *     file open O_RDWR; PROT_READ alone observes.
 *   offset data_offset (one page), length data_size: the records,
 *     capacity of them, record i at i * record_size. PROT_READ only: a
 *     mapping with PROT_WRITE is refused (EPERM) and mprotect cannot add it.
 * Any other offset or length: EINVAL (dmesg says what was wrong). Once the
 * ring is mapped its size is fixed: "ring=N" is refused (EBUSY). The
 * mappings are not inherited by fork().
 *
 * data_head and data_tail are free-running record counts (never reduced
 * modulo capacity); the record at count p is in slot p & (capacity - 1).
 * The reader:
 *   head = load-acquire(data_head)
 *   for p in [tail, head): use slot p & (capacity - 1)
 *   store-release(data_tail, head)
 * The kernel publishes data_head with a store-release after the records
 * are written, and overwrites a slot only after it has taken data_tail past
 * it with a load-acquire. data_tail is the reader's to write and the
 * kernel trusts it no further than its own: a value behind the kernel's
 * last tail is ignored, one past data_head counts as data_head.
 *
 * read() goes on working on a mapped session, from the same tail: a
 * read() consumes from data_tail and stores the new tail there, so a
 * reader may take some records through the mapping and some by read(), one
 * way at a time. poll() and its wakeups are those of read(); a reader that
 * emptied the ring waits in poll(). When the module is unloaded, flags gets
 * KPMC_RING_F_UNLOADING (poll() says EPOLLERR | EPOLLHUP until /proc/kpmc
 * goes, then nothing more): what is in the ring is the last.
 *
 * Loss is told in the ring as with read(): a KPMC_REC_LOST record before the
 * next record that fits, or once the reader emptied the ring and calls
 * poll() or read(). lost counts every record dropped over the session (the
 * sum of what LOST records told and will tell).
 *
 * No-loss mode ("ring=N,noloss" or "noloss" written to the monitor file
 * before the first record; the CLI's --no-loss): a monitored thread whose
 * sample leaves more than noloss_high records in the ring waits, when it
 * next returns to user mode, until the reader has brought the ring down to
 * noloss_low (interruptibly: a signal ends the wait; SIGKILL kills it). The
 * reader's close (or death) and the module's unload release every waiting
 * thread at once. Records produced while a thread cannot wait (in the
 * kernel, or beyond the ring's headroom) may still be dropped, and counted.
 * A mapped reader frees waiting threads by advancing data_tail: they see it
 * at its next poll() or read(), and within 10 ms without either.
 */
#define KPMC_RING_CONTROL_VERSION	1
#define KPMC_RING_F_NOLOSS		(1u << 0)	/* no-loss mode is on */
/* The module is being unloaded: no record comes after those in the ring. */
#define KPMC_RING_F_UNLOADING		(1u << 1)

struct kpmc_ring_control {
	__u32 version;		/* KPMC_RING_CONTROL_VERSION */
	__u32 record_size;	/* sizeof(struct kpmc_record) */
	__u32 capacity;		/* records in the data area: a power of two */
	__u32 flags;		/* KPMC_RING_F_* */
	__u64 data_offset;	/* mmap offset of the data area: one page */
	__u64 data_size;	/* its length: capacity * record_size in whole pages */
	__u64 data_head;	/* records ever written: the kernel's (store-release) */
	__u64 data_tail;	/* records ever consumed: the reader's (store-release) */
	__u64 lost;		/* records dropped since the session began */
	__u32 noloss_high;	/* no-loss: a thread waits above this many records */
	__u32 noloss_low;	/* ... until the ring holds at most this many */
	__u64 noloss_waits;	/* no-loss: waits of this session's threads begun */
	__u64 noloss_releases;	/* ... and ended (by the reader, a signal, close, unload) */
	__u64 reserved[6];
};

#endif /* _UAPI_LINUX_KPMC_H */
