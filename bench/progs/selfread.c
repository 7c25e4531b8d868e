// SPDX-License-Identifier: GPL-2.0
/*
 * selfread N: what it costs a program to read its own counter, perf's ways:
 * read() of a per-thread perf fd, and the user-space read through the perf
 * mmap page (sequence lock + PMU register read; on arm64 only when
 * /proc/sys/kernel/perf_user_access is 1). The baseline libkpmc's reads are
 * measured against.
 *
 * selfread N kpmc: the same for libkpmc (one counter, INST_RETIRED): its
 * read() of /proc/kpmc/self and its fast path (kpmc's mmap page + EL0 read).
 *
 * Prints: KPMC-BENCH selfread n=N read_ns=X mmap_ns=Y|n/a
 *         KPMC-BENCH selfread n=N read_ns=X fast_ns=Y|n/a one_ns=Z|n/a (kpmc)
 * (one_ns: kpmc_read_counter, the lean read of one counter)
 */
#include <errno.h>
#include <sys/mman.h>

#include "benchutil.h"
#include "kpmc.h"

#if defined(__aarch64__)
static uint64_t read_pmu(uint32_t idx)
{
	uint64_t v;

	/* The mmap page's index is 1 + the hardware counter; 32 is the cycle counter. */
	if (idx == 32) {
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		return v;
	}
	__asm__ volatile("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
			 : "=r"(v) : "r"((uint64_t)idx));
	return v;
}
#else
static uint64_t read_pmu(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}
#endif

static uint64_t mmap_read(volatile struct perf_event_mmap_page *pc)
{
	uint32_t seq, idx;
	uint64_t count;
	int64_t pmc;

	do {
		seq = pc->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			unsigned int width = pc->pmc_width;

			pmc = (int64_t)read_pmu(idx - 1);
			pmc <<= 64 - width;
			pmc >>= 64 - width;
			count += (uint64_t)pmc;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	return count;
}

/* ns per kpmc_read() on path mode, or 0 if that path is not available. */
static uint64_t kpmc_read_ns(long n, int mode)
{
	struct kpmc_counts c;
	uint64_t t0, t1;
	long i;

	kpmc_set_read_path(mode);
	if (kpmc_read(&c) || kpmc_last_read_path() != mode)
		return 0;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		kpmc_read(&c);
	t1 = bench_now_ns();
	return (t1 - t0) / (uint64_t)n;
}

/* ns per kpmc_read_counter() of pmc1, or 0 if the fast path is not available. */
static uint64_t kpmc_read_one_ns(long n)
{
	uint64_t t0, t1, v, sink = 0;
	long i;

	kpmc_set_read_path(KPMC_PATH_FAST);
	if (kpmc_read_counter(1, &v))
		return 0;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		kpmc_read_counter(1, &v);
		sink += v;
	}
	t1 = bench_now_ns();
	__asm__ volatile("" : : "r"(sink));
	return (t1 - t0) / (uint64_t)n;
}

static int kpmc_selfread(long n)
{
	uint64_t r, f, o;
	int err = kpmc_start("pmc1=0x8");

	if (err) {
		fprintf(stderr, "selfread: kpmc_start: %s\n", strerror(-err));
		return 1;
	}
	bench_warmup();
	r = kpmc_read_ns(n, KPMC_PATH_READ);
	f = kpmc_read_ns(n, KPMC_PATH_FAST);
	o = kpmc_read_one_ns(n);
	kpmc_stop();
	if (!r) {
		fprintf(stderr, "selfread: libkpmc's read() path failed\n");
		return 1;
	}
	printf("KPMC-BENCH selfread n=%ld read_ns=%llu", n, (unsigned long long)r);
	if (f)
		printf(" fast_ns=%llu", (unsigned long long)f);
	else
		printf(" fast_ns=n/a");
	if (o)
		printf(" one_ns=%llu\n", (unsigned long long)o);
	else
		printf(" one_ns=n/a\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr a;
	uint64_t t0, t1, sink = 0;
	long n, i;
	int fd;

	if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "kpmc"))) {
		fprintf(stderr, "usage: selfread N [kpmc]\n");
		return 2;
	}
	n = bench_arg(argv[1], "N");
	if (!n) {
		fprintf(stderr, "selfread: N must be > 0\n");
		return 2;
	}
	if (argc == 3)
		return kpmc_selfread(n);
	bench_perf_attr(&a, 0x08, 0);
	a.config1 = 0x2; /* arm64: ask for user access (PMUv3 config1 bit 1, "rdpmc") */
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		bench_perf_attr(&a, 0x08, 0);
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	}
	if (fd < 0) {
		perror("selfread: perf_event_open");
		return 1;
	}
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		sink += bench_perf_read(fd);
	t1 = bench_now_ns();
	printf("KPMC-BENCH selfread n=%ld read_ns=%llu", n,
	       (unsigned long long)((t1 - t0) / (uint64_t)n));
	pc = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pc != MAP_FAILED && pc->cap_user_rdpmc && pc->index) {
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			sink += mmap_read(pc);
		t1 = bench_now_ns();
		printf(" mmap_ns=%llu", (unsigned long long)((t1 - t0) / (uint64_t)n));
	} else {
		printf(" mmap_ns=n/a");
	}
	printf(" sink=%llu\n", (unsigned long long)(sink & 1));
	return 0;
}
