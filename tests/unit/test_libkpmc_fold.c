// SPDX-License-Identifier: GPL-2.0
/*
 * libkpmc's fold trace (userland/libkpmc/foldtrace_write.c): the counters'
 * names from a configuration and its raw form, which set counted a whole
 * invocation, the per-set totals a thread's records add up to, and the
 * trace's exact lines for invocations and samples, counts cumulative from
 * each invocation's begin.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libkpmc/attrib.h"
#include "libkpmc/foldtrace_write.h"

static void names_by_event(void **state)
{
	struct kpmc_lib_fold_counters fc;
	char err[256] = "";

	(void)state;
	/* Named events in the order of their pmcN tokens, whatever the counters. */
	assert_int_equal(kpmc_lib_fold_counter_names(
				 "INST_RETIRED:u,INST_RETIRED:k,CPU_CYCLES:uk:ebs=40000,rnd=20000",
				 "pmc1=0x8,usr1=1,os1=0,pmc2=0x8,usr2=0,os2=1,pmc0,usr0=1,os0=1,"
				 "ebs0=40000,rnd=20000",
				 &fc, err, sizeof(err)),
			 0);
	assert_int_equal(fc.nr_sets, 1);
	assert_int_equal(fc.mask[0], 0x7);
	assert_string_equal(fc.name[0][0], "CPU_CYCLES:uk");
	assert_string_equal(fc.name[0][1], "INST_RETIRED:u");
	assert_string_equal(fc.name[0][2], "INST_RETIRED:k");
	/* No mode given: the name alone. A raw set: pmcN. Two sets. */
	assert_int_equal(kpmc_lib_fold_counter_names("instr,cycles;pmc0,pmc3=0x11,ebs0=10000",
						 "pmc1=0x8,pmc0;pmc0,pmc3=0x11,ebs0=10000", &fc,
						 err, sizeof(err)),
			 0);
	assert_int_equal(fc.nr_sets, 2);
	assert_int_equal(fc.mask[0], 0x3);
	assert_int_equal(fc.mask[1], 0x9);
	assert_string_equal(fc.name[0][1], "instr");
	assert_string_equal(fc.name[0][0], "cycles");
	assert_string_equal(fc.name[1][0], "pmc0");
	assert_string_equal(fc.name[1][3], "pmc3");
}

static void names_refused(void **state)
{
	struct kpmc_lib_fold_counters fc;
	char err[256] = "";

	(void)state;
	/* Two events but one counter: the raw form is not this configuration's. */
	assert_int_equal(kpmc_lib_fold_counter_names("instr,cycles", "pmc1=0x8", &fc, err,
						     sizeof(err)), -1);
	assert_non_null(strstr(err, "2 events"));
	assert_int_equal(kpmc_lib_fold_counter_names("pmc0;pmc1=0x8", "pmc0", &fc, err,
						     sizeof(err)), -1);
	assert_non_null(strstr(err, "different numbers of sets"));
	/* A counter number past the last: named. */
	assert_int_equal(kpmc_lib_fold_counter_names("pmc16", "pmc16", &fc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'pmc16'"));
}

static void whole_set(void **state)
{
	uint64_t b[3] = { 100, 50, 7 }, e[3] = { 100, 80, 7 };

	(void)state;
	assert_int_equal(kpmc_lib_fold_whole_set(b, e, 3, 30), 1);
	/* Set 1 ran only part of it: none counted all. */
	assert_int_equal(kpmc_lib_fold_whole_set(b, e, 3, 31), -1);
	/* Two sets ran. */
	e[2] = 9;
	assert_int_equal(kpmc_lib_fold_whole_set(b, e, 3, 30), -1);
	/* Sets unknown. */
	assert_int_equal(kpmc_lib_fold_whole_set(b, e, 0, 30), -1);
	/* No time at all: the first set that did not move. */
	assert_int_equal(kpmc_lib_fold_whole_set(b, b, 3, 0), 0);
}

static void feed(struct kpmc_lib_stream *s, uint64_t nsample, int kind, int set, uint64_t run_ns,
		 uint32_t mask, uint64_t c0, uint64_t c1)
{
	struct kpmc_record r;
	uint64_t key;

	memset(&r, 0, sizeof(r));
	r.tid = s->tid;
	r.nsample = nsample;
	r.kind = (uint8_t)kind;
	r.set = (uint8_t)set;
	r.run_ns = run_ns;
	r.counter_mask = mask;
	r.counts[0] = c0;
	r.counts[1] = c1;
	kpmc_lib_stream_feed(s, &r, 0, &key);
}

/* A thread's per-set totals: the sum of its records' counts of that set. */
static void stream_set_totals(void **state)
{
	struct kpmc_lib_stream *s = calloc(1, sizeof(*s));

	(void)state;
	s->tid = 3;
	feed(s, 1, KPMC_REC_EBS, 0, 10, 0x3, 100, 40);
	feed(s, 2, KPMC_REC_MUX, 0, 5, 0x3, 50, 20);
	feed(s, 3, KPMC_REC_EBS, 1, 10, 0x1, 70, 999);
	/* A stack record's union holds its bytes, not counts. */
	feed(s, 3, KPMC_REC_STACK, 1, 0, 0x1, 12345, 0);
	assert_int_equal(s->counts[0][0], 150);
	assert_int_equal(s->counts[0][1], 60);
	assert_int_equal(s->counts[1][0], 70);
	assert_int_equal(s->counts[1][1], 0);
	/* The tid reused by a new thread: its totals start over. */
	feed(s, 4, KPMC_REC_EXIT, 1, 1, 0x1, 1, 0);
	feed(s, 1, KPMC_REC_EBS, 0, 10, 0x1, 8, 0);
	assert_int_equal(s->counts[0][0], 8);
	assert_int_equal(s->counts[1][0], 0);
	free(s);
}

static char *write_trace(const struct kpmc_lib_fold_counters *fc,
			 const struct kpmc_lib_fold_region *r, size_t nr,
			 const struct kpmc_lib_fold_point *p, size_t np, long *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*lines = kpmc_lib_fold_write(f, fc, r, nr, p, np);
	fclose(f);
	return buf;
}

static void trace_lines(void **state)
{
	struct kpmc_lib_fold_counters *fc = calloc(1, sizeof(*fc));
	/* "work": tid 7 twice, tid 8 once (same on-CPU times: another thread), one rotated. */
	struct kpmc_lib_fold_inv inv[4];
	struct kpmc_lib_fold_inv other[1];
	struct kpmc_lib_fold_point pts[7];
	struct kpmc_lib_fold_region regs[2] = { { "work", inv, 4 }, { "idle", other, 0 } };
	const char *want =
		"kpmc-fold 1\n"
		"counter 0 0 CPU_CYCLES:uk\n"
		"counter 0 2 INST_RETIRED:k\n"
		"counter 1 1 pmc1\n"
		"instance work 7 0 0 1000 1000 300\n"
		"instance work 8 1 0 1000 900 100\n"
		"instance work 7 2 0 500 500 20\n"
		"instance work 7 3 -1 400\n"
		"sample work 7 0 0 400 400 120\n"
		"sample work 8 1 0 1000 900 100\n"
		"sample work 7 2 0 1 1 0\n"
		"# sample of tid 7 at 2300 ns in work call 2: set 0 or its counts do not fit the "
		"invocation's\n";
	char *got;
	long lines;

	(void)state;
	memset(inv, 0, sizeof(inv));
	memset(pts, 0, sizeof(pts));
	fc->nr_sets = 2;
	fc->mask[0] = 0x5;
	fc->mask[1] = 0x2;
	strcpy(fc->name[0][0], "CPU_CYCLES:uk");
	strcpy(fc->name[0][2], "INST_RETIRED:k");
	strcpy(fc->name[1][1], "pmc1");
	inv[0] = (struct kpmc_lib_fold_inv){ .tid = 7, .set = 0, .begin_ns = 1000, .end_ns = 2000,
					 .begin = { 5000, 77, 600 }, .total = { 1000, 0, 300 } };
	inv[1] = (struct kpmc_lib_fold_inv){ .tid = 8, .set = 0, .begin_ns = 1000, .end_ns = 2000,
					 .begin = { 0, 0, 0 }, .total = { 900, 0, 100 } };
	inv[2] = (struct kpmc_lib_fold_inv){ .tid = 7, .set = 0, .begin_ns = 2000, .end_ns = 2500,
					 .begin = { 7000, 0, 1000 }, .total = { 500, 0, 20 } };
	inv[3] = (struct kpmc_lib_fold_inv){ .tid = 7, .set = -1, .begin_ns = 3000,
					     .end_ns = 3400 };
	/* Session order: a sample of tid 7 in call 0, 400 ns and counts from its begin. */
	pts[0] = (struct kpmc_lib_fold_point){ .tid = 7, .set = 0, .run_ns = 1400,
					   .at = { 5400, 0, 720 } };
	/* Exactly at the end read: in it (begin, end]. */
	pts[1] = (struct kpmc_lib_fold_point){ .tid = 8, .set = 0, .run_ns = 2000,
					       .at = { 900, 0, 100 } };
	/* At the begin read of call 2 (= the end of call 0): call 0's; 1 ns later: call 2's. */
	pts[2] = (struct kpmc_lib_fold_point){ .tid = 7, .set = 0, .run_ns = 2001,
					   .at = { 7001, 0, 1000 } };
	/* Unknown time (after lost records), and between invocations: left out. */
	pts[3] = (struct kpmc_lib_fold_point){ .tid = 7, .set = 0, .run_ns = 0 };
	pts[4] = (struct kpmc_lib_fold_point){ .tid = 7, .set = 0, .run_ns = 2700 };
	/* Counts past the invocation's total: a comment, not a sample. */
	pts[5] = (struct kpmc_lib_fold_point){ .tid = 7, .set = 0, .run_ns = 2300,
					   .at = { 7600, 0, 1010 } };
	/* In the rotated invocation: left out (nothing to normalize it by). */
	pts[6] = (struct kpmc_lib_fold_point){ .tid = 7, .set = 1, .run_ns = 3100, .at = { 0, 5 } };
	got = write_trace(fc, regs, 2, pts, 7, &lines);
	assert_string_equal(got, want);
	assert_int_equal(lines, 7);
	free(got);
	free(fc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_by_event),
		cmocka_unit_test(names_refused),
		cmocka_unit_test(whole_set),
		cmocka_unit_test(stream_set_totals),
		cmocka_unit_test(trace_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
