// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the record chain (common/sink.c) and the rows and totals
 * sinks (sinks/): checks before any sink, taking and passing on, the
 * totals-only shortcut, the finish order, per-CPU totals, JSON's summary.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sinks/sinks.h"

static struct kpmc_record rec(unsigned int kind, uint32_t tid, uint64_t c0)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.version = KPMC_RECORD_VERSION;
	r.size = sizeof(r);
	r.kind = (uint8_t)kind;
	r.pid = 10;
	r.tid = tid;
	r.run_ns = 1000;
	r.counter_mask = 0x1;
	r.counts[0] = c0;
	return r;
}

/* A sink that counts what it sees, takes one kind, and notes its finish. */
struct probe {
	struct kpmc_sink sink;
	unsigned int takes;
	unsigned int seen[16];
	int *finish_log, id;
};

static enum kpmc_sink_verdict probe_record(struct kpmc_sink *s, const struct kpmc_record *r)
{
	struct probe *p = (struct probe *)s;

	p->seen[r->kind]++;
	return r->kind == p->takes ? KPMC_SINK_TAKEN : KPMC_SINK_PASS;
}

static void probe_finish(struct kpmc_sink *s)
{
	struct probe *p = (struct probe *)s;

	*p->finish_log = *p->finish_log * 10 + p->id;
}

static const struct kpmc_sink_ops probe_ops = { .record = probe_record, .finish = probe_finish };

static void test_take_pass_check_finish(void **state)
{
	struct kpmc_chain c;
	struct probe a = { .sink.ops = &probe_ops, .takes = KPMC_REC_STACK, .id = 1 };
	struct probe b = { .sink.ops = &probe_ops, .takes = 0, .id = 2 };
	struct kpmc_record r;
	int log = 0;

	(void)state;
	a.finish_log = b.finish_log = &log;
	kpmc_chain_init(&c);
	kpmc_chain_add(&c, &a.sink);
	kpmc_chain_add(&c, &b.sink);
	r = rec(KPMC_REC_EBS, 11, 5);
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_STACK, 11, 0);
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_LOST, 0, 0);
	r.lost = 7;
	kpmc_chain_record(&c, &r);
	/* A record of another version reaches no sink: one error. */
	r = rec(KPMC_REC_EBS, 11, 5);
	r.version++;
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_TBS, 11, 5);
	r.uncounted_mask = 0x1;
	kpmc_chain_record(&c, &r);

	assert_int_equal(a.seen[KPMC_REC_EBS], 1);
	assert_int_equal(b.seen[KPMC_REC_EBS], 1);
	assert_int_equal(a.seen[KPMC_REC_STACK], 1);
	assert_int_equal(b.seen[KPMC_REC_STACK], 0);	/* taken by a */
	assert_int_equal(b.seen[KPMC_REC_LOST], 1);
	assert_int_equal(b.seen[KPMC_REC_TBS], 1);
	assert_int_equal(c.lost, 7);
	assert_int_equal(c.errors, 1);
	assert_int_equal(c.uncounted, 0x1);
	assert_int_equal(c.uncounted_records, 1);
	kpmc_chain_finish(&c);
	assert_int_equal(log, 12);			/* a, then b */
}

/* Totals alone: a sample skips the chain; anything else, or an uncounted one, does not. */
static void test_samples_shortcut(void **state)
{
	struct kpmc_chain c;
	struct probe first = { .sink.ops = &probe_ops, .takes = 0, .id = 1 };
	struct probe totals = { .sink.ops = &probe_ops, .takes = 0, .id = 2 };
	struct kpmc_record r;
	int log = 0;

	(void)state;
	first.finish_log = totals.finish_log = &log;
	kpmc_chain_init(&c);
	kpmc_chain_add(&c, &first.sink);
	kpmc_chain_add(&c, &totals.sink);
	c.samples_to = &totals.sink;
	r = rec(KPMC_REC_EBS, 11, 5);
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_TBS, 11, 5);
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_EXIT, 11, 5);
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_TBS, 11, 5);
	r.uncounted_mask = 0x1;
	kpmc_chain_record(&c, &r);
	assert_int_equal(first.seen[KPMC_REC_EBS] + first.seen[KPMC_REC_TBS], 1);
	assert_int_equal(first.seen[KPMC_REC_EXIT], 1);
	assert_int_equal(totals.seen[KPMC_REC_EBS] + totals.seen[KPMC_REC_TBS], 3);
	assert_int_equal(c.uncounted_records, 1);
}

/* -A -S: each CPU's records under its number; a loss and a memory sample in no row. */
static void test_totals_per_cpu(void **state)
{
	struct kpmc_output o = { .format = KPMC_OUT_TABLE, .virt_wanted = ~0u };
	struct kpmc_totals_sink ts;
	struct kpmc_chain c;
	struct kpmc_record r;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	o.out = open_memstream(&text, &len);
	o.cols.counter_mask = 0x1;
	o.cols.system_wide = 1;
	kpmc_chain_init(&c);
	kpmc_totals_sink_init(&ts, &o);
	kpmc_chain_add(&c, &ts.sink);
	for (unsigned int cpu = 0; cpu < 2; cpu++)
		for (unsigned int i = 0; i < 3; i++) {
			r = rec(KPMC_REC_CPU, 0, 100 * (cpu + 1));
			r.pid = 0;
			r.cpu = cpu;
			kpmc_chain_record(&c, &r);
		}
	r = rec(KPMC_REC_LOST, 0, 0);
	r.lost = 2;
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_MEM, 0, 0);
	kpmc_chain_record(&c, &r);
	assert_int_equal(ts.totals.nr, 2);
	assert_int_equal(ts.totals.threads[0].tid, 0);
	assert_int_equal(ts.totals.threads[0].counts[0], 300);
	assert_int_equal(ts.totals.threads[1].tid, 1);
	assert_int_equal(ts.totals.threads[1].counts[0], 600);
	kpmc_chain_finish(&c);
	fclose(o.out);
	/* The header, a row per CPU, and "all": 300 + 600. */
	assert_non_null(strstr(text, "cpu records"));
	assert_non_null(strstr(text, "all"));
	assert_non_null(strstr(text, " 900\n"));
	free(text);
}

/* JSON: a line per record (a loss too), then the summary with the chain's loss. */
static void test_json_rows_summary(void **state)
{
	struct kpmc_output o = { .format = KPMC_OUT_JSON, .virt_wanted = ~0u };
	struct kpmc_rows_sink rs;
	struct kpmc_chain c;
	struct kpmc_record r;
	char *text = NULL, *last;
	size_t len = 0;
	unsigned int lines = 0;

	(void)state;
	o.out = open_memstream(&text, &len);
	o.cols.counter_mask = 0x1;
	o.cols.nsets = 1;
	kpmc_chain_init(&c);
	kpmc_rows_sink_init(&rs, &o);
	kpmc_chain_add(&c, &rs.sink);
	r = rec(KPMC_REC_TBS, 11, 5);
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_LOST, 0, 0);
	r.lost = 4;
	kpmc_chain_record(&c, &r);
	r = rec(KPMC_REC_EXIT, 11, 6);
	kpmc_chain_record(&c, &r);
	kpmc_chain_finish(&c);
	fclose(o.out);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 4);
	text[strlen(text) - 1] = '\0';
	last = strrchr(text, '\n') + 1;		/* the summary: the last line */
	assert_true(last[0] == '{' && strstr(last, "\"lost\":4"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_pass_check_finish),
		cmocka_unit_test(test_samples_shortcut),
		cmocka_unit_test(test_totals_per_cpu),
		cmocka_unit_test(test_json_rows_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
