// SPDX-License-Identifier: GPL-2.0
/*
 * libkpmc_more: libkpmc's configuration by name, multiplexed sets and
 * samples attributed to regions (tests/guest/t_arm64_libkpmc_regions.sh).
 *
 *   libkpmc_more names CONFIG   region "r" around 1e6 iterations (2e6 user
 *                               instructions): "names raw=RAW pmc0=.. pmc1=.."
 *   libkpmc_more badname        an unknown name, a configuration the kernel refuses
 *   libkpmc_more ebs P          EBS every P user cycles (cycles:ebs=P): thread A
 *                               runs region "in" (10 P instructions) and then
 *                               "after" (4 P) while thread B spins 6 P outside
 *                               any region; per region the samples attributed,
 *                               the number expected from A's cycle counts at the
 *                               region's bounds, each sample's counts
 *   libkpmc_more mux CONFIG N   region "m" around N iterations; per set its
 *                               counts, time and scaled estimate; then the
 *                               thread's: per set its estimate and 90% bar
 *                               (kpmc_read_estimate) between two reads of the
 *                               sets' counts
 *   libkpmc_more outlive        a thread spins 1e6 iterations and sleeps through
 *                               kpmc_stop(): the records read by then (its last
 *                               one among them) "outlive stop=0 records=.. lost=.."
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "kpmc.h"
#include "spin.h"

static int names(const char *config)
{
	char raw[512];
	int err = kpmc_resolve_config(config, raw, sizeof(raw));

	if (err < 0 || (err = kpmc_start(config))) {
		printf("names error=%d %s\n", err, kpmc_last_error());
		return 1;
	}
	if (kpmc_region_begin("r") || (spin(1000000), kpmc_region_end("r")))
		return 1;
	printf("names raw=%s pmc0=%" PRId64 " pmc1=%" PRId64 "\n", raw, kpmc_region_total("r", 0),
	       kpmc_region_total("r", 1));
	return kpmc_stop() ? 1 : 0;
}

static int badname(void)
{
	int err = kpmc_start("instr,INST_RETIRD");

	printf("badname rc=%d msg=%s\n", err, kpmc_last_error());
	if (!err)
		return 1;
	/* The kernel's own refusal (a sampling period below its minimum), with its reason. */
	err = kpmc_start("pmc0,ebs0=5");
	printf("kernel rc=%d msg=%s\n", err, kpmc_last_error());
	return err ? 0 : 1;
}

/* ---- ebs ---- */

static uint64_t period;
static uint32_t tid_b;

static uint64_t cycles_now(void)
{
	struct kpmc_counts c;

	if (kpmc_read(&c)) {
		fprintf(stderr, "kpmc_read failed\n");
		exit(1);
	}
	return c.counts[0];
}

static void *thread_b(void *arg)
{
	(void)arg;
	tid_b = (uint32_t)syscall(SYS_gettid);
	spin(3 * period);	/* 6 P user instructions, outside any region */
	return NULL;
}

struct tally {
	uint32_t tid_a;
	uint64_t n, of_a, of_b, not_p;
};

static void count_sample(const struct kpmc_sample *s, void *arg)
{
	struct tally *t = arg;

	t->n++;
	t->of_a += s->tid == t->tid_a;
	t->of_b += s->tid == tid_b;
	t->not_p += s->kind != KPMC_SAMPLE_EBS || s->counts[0] != period || s->period != period;
}

static void region(const char *name, unsigned long iterations, uint64_t *before, uint64_t *after)
{
	*before = cycles_now();
	if (kpmc_region_begin(name) || (spin(iterations), kpmc_region_end(name))) {
		fprintf(stderr, "region %s failed\n", name);
		exit(1);
	}
	*after = cycles_now();
}

static void report(const char *name, uint32_t tid_a, uint64_t before, uint64_t after)
{
	struct tally t = { .tid_a = tid_a };
	long n = kpmc_region_samples(name, count_sample, &t);

	/*
	 * A's samples are at exact multiples of P of its user cycles: those
	 * between the two reads around the region are the region's (the
	 * library's own reads lie within a few hundred cycles of them).
	 */
	printf("ebs %s samples=%ld expected=%" PRIu64 " of_a=%" PRIu64 " of_b=%" PRIu64
	       " not_p=%" PRIu64 "\n", name, n, after / period - before / period, t.of_a, t.of_b,
	       t.not_p);
}

static int ebs(uint64_t p)
{
	char config[64];
	uint64_t b_in, a_in, b_after, a_after;
	struct kpmc_sample_stats st;
	struct tally all = { 0 };
	uint32_t tid_a = (uint32_t)syscall(SYS_gettid);
	pthread_t b;
	int err;

	period = p;
	snprintf(config, sizeof(config), "cycles:ebs=%" PRIu64, p);
	err = kpmc_start(config);
	if (err) {
		printf("ebs start=%d %s\n", err, kpmc_last_error());
		return 1;
	}
	spin(p / 4);
	pthread_create(&b, NULL, thread_b, NULL);
	region("in", 5 * p, &b_in, &a_in);		/* 10 P */
	spin(p / 2);
	region("after", 2 * p, &b_after, &a_after);	/* 4 P */
	pthread_join(b, NULL);
	report("in", tid_a, b_in, a_in);
	report("after", tid_a, b_after, a_after);
	all.tid_a = tid_a;
	kpmc_region_samples(NULL, count_sample, &all);
	kpmc_sample_stats(&st);
	printf("ebs all samples=%" PRIu64 " of_a=%" PRIu64 " of_b=%" PRIu64 " not_p=%" PRIu64
	       " a_expected=%" PRIu64 " b_expected=6\n", all.n, all.of_a, all.of_b, all.not_p,
	       cycles_now() / p);
	printf("ebs stats records=%" PRIu64 " samples=%" PRIu64 " lost=%" PRIu64
	       " unattributable=%" PRIu64 "\n", st.records, st.samples, st.lost, st.unattributable);
	return kpmc_stop() ? 1 : 0;
}

static void thread_counts(const char *when, const struct kpmc_counts *all)
{
	unsigned int s, c;

	for (s = 0; s < all->nr_sets; s++)
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (all->sets[s].counter_mask & (1u << c))
				printf("mux thread %s set=%u pmc%u count=%" PRIu64 "\n", when, s, c,
				       all->sets[s].counts[c]);
}

static int mux(const char *config, unsigned long n)
{
	static struct kpmc_count_estimate est[KPMC_LIB_SETS][KPMC_LIB_COUNTERS];
	static int est_err[KPMC_LIB_SETS][KPMC_LIB_COUNTERS];
	struct kpmc_region_stats st;
	struct kpmc_counts before, after;
	unsigned int s, c;
	uint64_t sum = 0;
	int err = kpmc_start(config), have_before, have_after = 0;

	if (err) {
		printf("mux start=%d %s\n", err, kpmc_last_error());
		return 1;
	}
	if (kpmc_region_begin("m") || (spin(n), kpmc_region_end("m")) || kpmc_region_get("m", &st))
		return 1;
	/*
	 * The thread's whole time: each set's estimate, between two reads of
	 * the sets' counts (one set: its count, "counted"). Taken before
	 * anything is printed: writing to a slow console is kernel time of
	 * this thread that the loop's steady rate does not describe.
	 */
	have_before = kpmc_read(&before) == 0;
	if (have_before) {
		for (s = 0; s < before.nr_sets; s++)
			for (c = 0; c < KPMC_LIB_COUNTERS; c++)
				if (before.sets[s].counter_mask & (1u << c))
					est_err[s][c] = kpmc_read_estimate(s, c, &est[s][c]);
		have_after = kpmc_read(&after) == 0;
	}
	kpmc_region_report(stdout);
	for (s = 0; s < st.nr_sets; s++) {
		sum += st.sets[s].run_ns;
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (st.sets[s].counter_mask & (1u << c))
				printf("mux set=%u pmc%u count=%" PRIu64 " scaled=%" PRId64 "\n", s, c,
				       st.sets[s].counts[c], kpmc_region_scaled("m", s, c));
	}
	printf("mux sets=%u run_ns=%" PRIu64 " sets_run_ns=%" PRIu64 "\n", st.nr_sets, st.run_ns, sum);
	if (have_before) {
		thread_counts("before", &before);
		for (s = 0; s < before.nr_sets; s++)
			for (c = 0; c < KPMC_LIB_COUNTERS; c++) {
				if (!(before.sets[s].counter_mask & (1u << c)))
					continue;
				if (est_err[s][c])
					printf("mux estimate set=%u pmc%u err=%d\n", s, c, est_err[s][c]);
				else
					printf("mux estimate set=%u pmc%u est=%" PRIu64 " half90=%.0f how=%s\n",
					       s, c, est[s][c].value, est[s][c].half90, est[s][c].estimator);
			}
	}
	if (have_after)
		thread_counts("after", &after);
	return kpmc_stop() ? 1 : 0;
}

/* ---- outlive ---- */

static int sleeper_spun;
static int sleeper_pipe[2];

static void *sleeper(void *arg)
{
	char c;

	spin(1000000);
	__atomic_store_n(&sleeper_spun, 1, __ATOMIC_RELEASE);
	if (read(sleeper_pipe[0], &c, 1) < 0)
		perror("libkpmc_more: sleeper");
	return arg;
}

static int outlive(void)
{
	struct kpmc_sample_stats st;
	struct timespec ms = { 0, 1000000 };
	pthread_t b;
	char c = 0;
	int err, i;

	if (pipe(sleeper_pipe))
		return 1;
	err = kpmc_start("pmc1=0x8");
	if (err) {
		printf("outlive start=%d %s\n", err, kpmc_last_error());
		return 1;
	}
	if (pthread_create(&b, NULL, sleeper, NULL))
		return 1;
	while (!__atomic_load_n(&sleeper_spun, __ATOMIC_ACQUIRE))
		nanosleep(&ms, NULL);
	/* Asleep in read() by then. */
	for (i = 0; i < 20; i++)
		nanosleep(&ms, NULL);
	err = kpmc_stop();
	kpmc_sample_stats(&st);
	printf("outlive stop=%d records=%" PRIu64 " lost=%" PRIu64 "\n", err, st.records, st.lost);
	if (write(sleeper_pipe[1], &c, 1) != 1)
		return 1;
	pthread_join(b, NULL);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "names"))
		return names(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "badname"))
		return badname();
	if (argc == 3 && !strcmp(argv[1], "ebs"))
		return ebs(strtoull(argv[2], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "mux"))
		return mux(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "outlive"))
		return outlive();
	fprintf(stderr, "usage: libkpmc_more names CONFIG | badname | ebs P | mux CONFIG N | outlive\n");
	return 2;
}
