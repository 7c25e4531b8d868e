// SPDX-License-Identifier: GPL-2.0
/*
 * twophase: a region of known two-phase structure for kpmc fold
 * (tests/guest/t_arm64_folding.sh, the criteria in
 * tests/host/check_fold.sh).
 *
 *   twophase coarse|fine [TRACE]
 *
 * Region "work", 505 calls, one thread: the first 40% of each call's on-CPU
 * time a user-mode spin (spin.h: two instructions an iteration), the rest
 * getppid system calls (by its own svc/syscall instruction). Under QEMU's
 * -icount guest time is instruction count, so the split is sized in
 * instructions: a first session (no sampling) measures what one getppid
 * costs (user + kernel instructions) and what an empty region costs, and the
 * loops are sized so that a call is L = 200,000 instructions with its spin
 * ending at 0.40 L (half the region's own overhead counted on each side).
 * Each call is scaled by a factor in [0.9, 1.1] (a fixed xorshift sequence:
 * both modes run the same calls), the spread real regions have and kpmc
 * fold's median +- k MAD needs; calls 50, 151, 252, 353 and 454 (call % 101
 * == 50: 500 ordinary calls and 5) are made 3 times longer on purpose, both
 * phases, so that only their length is odd.
 *
 * The second session counts user-mode and kernel-mode instructions
 * separately and samples on cycles in both modes (the cycle counter: its
 * overflow interrupts are exact under -icount, an event counter's come late):
 * coarse, a period drawn from [L/2, 3L/2] (rnd=L/2: about one sample per
 * call, never in step with the calls); fine, every 10,000 to 15,000 cycles
 * (kpmc's shortest period and a random part: with a fixed period the first
 * sample of a call falls in only part of a period, the interrupts' own time
 * not being counted, and the folded samples bunch up). The fold
 * trace goes to TRACE (kpmc_fold_trace_write) and, by libkpmc itself, to
 * $KPMC_FOLD_TRACE at kpmc_stop(). Prints "twophase KEY=VALUE ..." lines:
 * the calibration, the sizes, the session's sample statistics.
 *
 * Built with -DTWOPHASE_FUNCTION_REGIONS and -finstrument-functions
 * (twophase_fn, tests/guest/t_arm64_folding_functions.sh), it marks no region:
 * the calls of work() are region "work" through KPMC_FOLD_FUNCTIONS=work,
 * libkpmc's function hooks, with the same sizes and sampling.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "kpmc.h"
#include "spin.h"

#define CALLS		505
#define SLOW_EVERY	101
#define SLOW_AT		50
#define SLOW_FACTOR	3
#define REGION_LEN	200000ull	/* L: an ordinary call's instructions (-icount: ns) */
#define SPIN_SHARE	0.40
/* [10,000, 15,000]: kpmc's shortest period is 10,000; a fixed one would alias (below). */
#define FINE_PERIOD	12500
#define FINE_RND	2500
#define CAL_CALLS	20000		/* getppid calls of one calibration round */
#define CAL_ROUNDS	3		/* the cheapest round: one with no timer tick in it */

#if defined(__aarch64__)
/* PMUv3 by libpfm4 names: INST_RETIRED on two event counters, CPU_CYCLES on the cycle counter. */
#define EV_USER		"INST_RETIRED:u"
#define EV_KERNEL	"INST_RETIRED:k"
#define EV_CYCLES	"CPU_CYCLES:uk"
#else
#define EV_USER		"instr:u"
#define EV_KERNEL	"instr:k"
#define EV_CYCLES	"cycles:uk"
#endif

static void syscalls(unsigned long n)
{
	while (n--)
		getppid_syscall();
}

/*
 * One call of the region: its own function, so that its entry and exit can
 * be the region's (twophase_fn), never inlined or cloned into another.
 */
static void __attribute__((noinline, noclone)) work(uint64_t spin_iters, uint64_t sys_calls)
{
	spin(spin_iters);
	syscalls(sys_calls);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "twophase: %s: %d %s\n", what, err, kpmc_last_error());
	exit(1);
}

/* The pmcN of the i-th counter of a raw configuration (the order of the names). */
static unsigned int nth_pmc(const char *raw, int i)
{
	const char *p = raw;

	for (; (p = strstr(p, "pmc")); p += 3)
		if ((p == raw || p[-1] == ',') && p[3] >= '0' && p[3] <= '9' && !i--)
			return (unsigned int)strtoul(p + 3, NULL, 10);
	fprintf(stderr, "twophase: no counter %d in '%s'\n", i, raw);
	exit(1);
}

struct cost {
	uint64_t user, kernel;		/* instructions */
};

static struct cost counted(unsigned int pu, unsigned int pk)
{
	struct kpmc_counts c;
	int err = kpmc_read(&c);

	if (err)
		die("kpmc_read", err);
	return (struct cost){ c.counts[pu], c.counts[pk] };
}

/*
 * One getppid's user and kernel instructions, and an empty region's: the
 * cheapest of CAL_ROUNDS rounds (a timer tick makes a round dearer, never
 * cheaper).
 */
static void calibrate(struct cost *sys, uint64_t *region)
{
	char raw[512];
	unsigned int pu, pk;
	struct kpmc_region_stats st;
	uint64_t best = UINT64_MAX, r0 = 0;
	int i, err;

	err = kpmc_resolve_config(EV_USER "," EV_KERNEL, raw, sizeof(raw));
	if (err < 0)
		die("kpmc_resolve_config", err);
	pu = nth_pmc(raw, 0);
	pk = nth_pmc(raw, 1);
	err = kpmc_start(EV_USER "," EV_KERNEL);
	if (err)
		die("kpmc_start (calibration)", err);
	/* The measured runs' region reads go through read() (they sample): these too. */
	kpmc_set_read_path(KPMC_PATH_READ);
	for (i = 0; i < CAL_ROUNDS; i++) {
		struct cost a = counted(pu, pk), b;

		syscalls(CAL_CALLS);
		b = counted(pu, pk);
		if (b.user - a.user + b.kernel - a.kernel < best) {
			best = b.user - a.user + b.kernel - a.kernel;
			sys->user = (b.user - a.user + CAL_CALLS / 2) / CAL_CALLS;
			sys->kernel = (b.kernel - a.kernel + CAL_CALLS / 2) / CAL_CALLS;
		}
	}
	*region = UINT64_MAX;
	for (i = 0; i < CAL_ROUNDS; i++) {
		if (kpmc_region_begin("calibration") || kpmc_region_end("calibration") ||
		    kpmc_region_get("calibration", &st))
			die("calibration region", -EINVAL);
		if (st.run_ns - r0 < *region)
			*region = st.run_ns - r0;
		r0 = st.run_ns;
	}
	err = kpmc_stop();
	if (err)
		die("kpmc_stop (calibration)", err);
	kpmc_set_read_path(KPMC_PATH_AUTO);
}

/* xorshift64: the calls' scale factors, the same in every run. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	struct kpmc_sample_stats ss;
	struct cost sys = { 0, 0 };
	uint64_t region, per_sys, spin_iters, sys_calls, rng = 0x9e3779b97f4a7c15ull;
	char config[256];
	int fine, i, err;

	if ((argc != 2 && argc != 3 && argc != 5) ||
	    (strcmp(argv[1], "coarse") && strcmp(argv[1], "fine"))) {
		fprintf(stderr, "usage: twophase coarse|fine [TRACE [SPIN_ITERS SYS_CALLS]]\n");
		return 2;
	}
	fine = !strcmp(argv[1], "fine");
#ifdef TWOPHASE_FUNCTION_REGIONS
	if (!getenv("KPMC_FOLD_FUNCTIONS")) {
		fprintf(stderr, "twophase: built for function regions: set KPMC_FOLD_FUNCTIONS=work\n");
		return 2;
	}
#endif
	calibrate(&sys, &region);
	per_sys = sys.user + sys.kernel;
	/* Half the region's own cost (its reads) falls before the spin, half after the calls. */
	spin_iters = (uint64_t)(SPIN_SHARE * REGION_LEN - region / 2.0) / 2;
	sys_calls = (uint64_t)(((1 - SPIN_SHARE) * REGION_LEN - region / 2.0) / per_sys + 0.5);
	/*
	 * Sizes given: those of an earlier run (the fine run takes the coarse
	 * run's: a calibration may differ by a getppid call between runs).
	 */
	if (argc == 5) {
		char *end1, *end2;

		spin_iters = strtoull(argv[3], &end1, 10);
		sys_calls = strtoull(argv[4], &end2, 10);
		if (*end1 || *end2 || !spin_iters || !sys_calls) {
			fprintf(stderr, "twophase: sizes '%s' '%s': want two positive integers\n",
				argv[3], argv[4]);
			return 2;
		}
	}
	printf("twophase calibration getppid_user=%" PRIu64 " getppid_kernel=%" PRIu64
	       " empty_region_ns=%" PRIu64 "\n", sys.user, sys.kernel, region);
	if (fine)
		snprintf(config, sizeof(config), "%s,%s,%s:ebs=%d,rnd=%d,seed=7", EV_USER,
			 EV_KERNEL, EV_CYCLES, FINE_PERIOD, FINE_RND);
	else
		snprintf(config, sizeof(config), "%s,%s,%s:ebs=%llu,rnd=%llu,seed=7", EV_USER,
			 EV_KERNEL, EV_CYCLES, REGION_LEN, REGION_LEN / 2);
	printf("twophase mode=%s calls=%d slow=%d:%d factor=%d len=%llu spin_iters=%" PRIu64
	       " sys_calls=%" PRIu64 " config=%s\n", argv[1], CALLS, SLOW_EVERY, SLOW_AT,
	       SLOW_FACTOR, REGION_LEN, spin_iters, sys_calls, config);
	fflush(stdout);
	err = kpmc_start(config);
	if (err)
		die("kpmc_start", err);
	for (i = 0; i < CALLS; i++) {
		/* [0.9, 1.1]: 2^-20 steps. */
		double scale = 0.9 + 0.2 * (double)(next_random(&rng) >> 44) / (double)(1 << 20);
		uint64_t s, k;

		if (i % SLOW_EVERY == SLOW_AT)
			scale = SLOW_FACTOR;
		s = (uint64_t)(scale * (double)spin_iters);
		k = (uint64_t)(scale * (double)sys_calls);
#ifdef TWOPHASE_FUNCTION_REGIONS
		work(s, k);
#else
		if (kpmc_region_begin("work"))
			die("kpmc_region_begin", -EINVAL);
		work(s, k);
		if (kpmc_region_end("work"))
			die("kpmc_region_end", -EINVAL);
#endif
	}
	err = kpmc_sample_stats(&ss);
	if (err)
		die("kpmc_sample_stats", err);
	err = kpmc_stop();
	if (err)
		die("kpmc_stop (or KPMC_FOLD_TRACE)", err);
	printf("twophase stats records=%" PRIu64 " samples=%" PRIu64 " lost=%" PRIu64
	       " unattributable=%" PRIu64 "\n", ss.records, ss.samples, ss.lost, ss.unattributable);
	if (argc >= 3) {
		FILE *f = fopen(argv[2], "w");
		long n;

		if (!f) {
			perror(argv[2]);
			return 1;
		}
		n = kpmc_fold_trace_write(f);
		if (fclose(f) || n < 0) {
			fprintf(stderr, "twophase: kpmc_fold_trace_write: %ld\n", n);
			return 1;
		}
		printf("twophase trace=%s lines=%ld\n", argv[2], n);
	}
	return 0;
}
