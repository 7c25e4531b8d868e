// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the call stacks' pure parts: STACK parts put back together
 * (in order, out of order, missing, interleaved threads, malformed), the
 * trace's stack, map and ksym lines written and read back, kernel symbol
 * lookup, and the folded stacks with self and total counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stacks/ksyms.h"
#include "stacks/stackfold.h"
#include "stacks/stackline.h"
#include "stacks/stackparts.h"

/* ---- records ---- */

static struct kpmc_record sample(uint32_t tid, uint64_t n)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.version = KPMC_RECORD_VERSION;
	r.size = sizeof(r);
	r.kind = KPMC_REC_EBS;
	r.pid = 7;
	r.tid = tid;
	r.nsample = n;
	return r;
}

/* A callstack payload of nk kernel and nu user frames: kernel 0xk0.., user 0x40.. */
static size_t payload(unsigned char *buf, unsigned int nk, unsigned int nu)
{
	struct kpmc_callstack cs = { .nr_kernel = (uint16_t)nk, .nr_user = (uint16_t)nu };
	unsigned int i;

	memcpy(buf, &cs, sizeof(cs));
	for (i = 0; i < nk + nu; i++) {
		uint64_t ip = i < nk ? 0xffff800008000000ull + i : 0x400000ull + i;

		memcpy(buf + sizeof(cs) + 8 * i, &ip, 8);
	}
	return sizeof(cs) + 8 * (size_t)(nk + nu);
}

/* Part k of a payload cut as the kernel cuts it. */
static struct kpmc_record part(uint32_t tid, uint64_t n, const unsigned char *buf, size_t len,
			       unsigned int k)
{
	struct kpmc_record r = sample(tid, n);
	size_t off = (size_t)k * KPMC_FORMAT_PART_BYTES;

	r.kind = KPMC_REC_STACK;
	r.part.part = (uint16_t)k;
	r.part.parts = (uint16_t)((len + KPMC_FORMAT_PART_BYTES - 1) / KPMC_FORMAT_PART_BYTES);
	r.part.bytes = (uint32_t)(len - off < KPMC_FORMAT_PART_BYTES ? len - off : KPMC_FORMAT_PART_BYTES);
	memcpy(r.part.data, buf + off, r.part.bytes);
	return r;
}

/* What the reassembler told, in order. */
struct heard {
	unsigned int n;
	enum kpmc_stack_event_kind kind[16];
	uint32_t tid[16];
	uint64_t nsample[16];
	unsigned int nk[16], nu[16];
	uint64_t first_user[16], last_user[16];
	char why[16][160];
};

static void listen(const struct kpmc_stack_event *ev, void *arg)
{
	struct heard *h = arg;
	unsigned int i = h->n++;

	assert_true(i < 16);
	h->kind[i] = ev->kind;
	h->tid[i] = ev->tid;
	h->nsample[i] = ev->nsample;
	if (ev->kind == KPMC_STACK_COMPLETE) {
		h->nk[i] = ev->stack->nr_kernel;
		h->nu[i] = ev->stack->nr_user;
		h->first_user[i] = ev->stack->nr_user ? ev->stack->user[0] : 0;
		h->last_user[i] = ev->stack->nr_user ? ev->stack->user[ev->stack->nr_user - 1] : 0;
	} else {
		snprintf(h->why[i], sizeof(h->why[i]), "%s", ev->why);
	}
}

static int feed(struct kpmc_stack_parts *p, struct kpmc_record r, struct heard *h)
{
	return kpmc_stack_parts_add(p, &r, listen, h);
}

static void test_parts_one_and_three(void **state)
{
	struct kpmc_stack_parts *p = kpmc_stack_parts_new();
	unsigned char buf[KPMC_CALLSTACK_MAX_BYTES];
	struct heard h = { 0 };
	size_t len;

	(void)state;
	/* 3 kernel + 4 user frames: 64 bytes, one part. */
	len = payload(buf, 3, 4);
	assert_int_equal(feed(p, sample(10, 1), &h), 0);
	assert_int_equal(feed(p, part(10, 1, buf, len, 0), &h), 1);
	assert_int_equal(h.n, 1);
	assert_int_equal(h.kind[0], KPMC_STACK_COMPLETE);
	assert_int_equal(h.nk[0], 3);
	assert_int_equal(h.nu[0], 4);
	assert_int_equal(h.first_user[0], 0x400003);
	/* 254 frames: 2040 bytes, 13 parts (12 of 168, one of 24). */
	len = payload(buf, 127, 127);
	assert_int_equal(len, 2040);
	feed(p, sample(10, 2), &h);
	for (unsigned int k = 0; k < 13; k++) {
		struct kpmc_record r = part(10, 2, buf, len, k);

		assert_int_equal(r.part.parts, 13);
		feed(p, r, &h);
		assert_int_equal(h.n, k == 12 ? 2 : 1);
	}
	assert_int_equal(h.kind[1], KPMC_STACK_COMPLETE);
	assert_int_equal(h.nk[1], 127);
	assert_int_equal(h.nu[1], 127);
	assert_int_equal(h.first_user[1], 0x400000 + 127);
	assert_int_equal(h.last_user[1], 0x400000 + 253);
	kpmc_stack_parts_flush(p, listen, &h);
	assert_int_equal(h.n, 2);
	assert_int_equal(kpmc_stack_parts_stats(p)->stacks, 2);
	assert_int_equal(kpmc_stack_parts_stats(p)->incomplete, 0);
	assert_int_equal(kpmc_stack_parts_stats(p)->orphans, 0);
	kpmc_stack_parts_free(p);
}

/* Two threads' parts interleaved (a kernel never does it; a reader survives it). */
static void test_parts_interleaved_threads(void **state)
{
	struct kpmc_stack_parts *p = kpmc_stack_parts_new();
	unsigned char a[KPMC_CALLSTACK_MAX_BYTES], b[KPMC_CALLSTACK_MAX_BYTES];
	size_t la = payload(a, 0, 30), lb = payload(b, 2, 30);
	struct heard h = { 0 };

	(void)state;
	feed(p, sample(1, 5), &h);
	feed(p, sample(2, 9), &h);
	feed(p, part(1, 5, a, la, 0), &h);
	feed(p, part(2, 9, b, lb, 0), &h);
	feed(p, part(2, 9, b, lb, 1), &h);
	feed(p, part(1, 5, a, la, 1), &h);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.tid[0], 2);
	assert_int_equal(h.nk[0], 2);
	assert_int_equal(h.tid[1], 1);
	assert_int_equal(h.nu[1], 30);
	assert_int_equal(kpmc_stack_parts_stats(p)->stacks, 2);
	kpmc_stack_parts_free(p);
}

static void test_parts_missing(void **state)
{
	struct kpmc_stack_parts *p = kpmc_stack_parts_new();
	unsigned char buf[KPMC_CALLSTACK_MAX_BYTES];
	size_t len = payload(buf, 0, 40);	/* 328 bytes: 2 parts */
	struct heard h = { 0 };
	struct kpmc_record exit_rec = sample(3, 5);

	(void)state;
	/* The last part missing: the thread's next sample gives it up. */
	feed(p, sample(3, 1), &h);
	feed(p, part(3, 1, buf, len, 0), &h);
	feed(p, sample(3, 2), &h);
	assert_int_equal(h.n, 1);
	assert_int_equal(h.kind[0], KPMC_STACK_INCOMPLETE);
	assert_int_equal(h.nsample[0], 1);
	assert_string_equal(h.why[0], "its thread's next sample came after 1 of its 2 parts");
	/* The first part missing: told once, the rest ignored. */
	feed(p, part(3, 2, buf, len, 1), &h);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.kind[1], KPMC_STACK_INCOMPLETE);
	assert_int_equal(h.nsample[1], 2);
	assert_string_equal(h.why[1], "part 1 of 2 came without the parts before it");
	/* A part out of order: 0, then 0 again of another sample. */
	feed(p, sample(3, 3), &h);
	feed(p, part(3, 3, buf, len, 0), &h);
	feed(p, sample(3, 4), &h);
	assert_int_equal(h.n, 3);
	feed(p, part(3, 4, buf, len, 0), &h);
	feed(p, part(3, 4, buf, len, 1), &h);
	assert_int_equal(h.n, 4);
	assert_int_equal(h.kind[3], KPMC_STACK_COMPLETE);
	/* An exit record of the thread, and the end of the stream, give up too. */
	feed(p, sample(3, 5), &h);
	feed(p, part(3, 5, buf, len, 0), &h);
	exit_rec.kind = KPMC_REC_EXIT;
	exit_rec.nsample = 6;
	feed(p, exit_rec, &h);
	assert_int_equal(h.n, 5);
	assert_string_equal(h.why[4], "its thread's next record came after 1 of its 2 parts");
	feed(p, sample(3, 7), &h);
	feed(p, part(3, 7, buf, len, 0), &h);
	kpmc_stack_parts_flush(p, listen, &h);
	assert_int_equal(h.n, 6);
	assert_string_equal(h.why[5], "the stream ended after 1 of its 2 parts");
	assert_int_equal(kpmc_stack_parts_stats(p)->incomplete, 5);
	assert_int_equal(kpmc_stack_parts_stats(p)->stacks, 1);
	kpmc_stack_parts_free(p);
}

static void test_parts_malformed_and_other(void **state)
{
	struct kpmc_stack_parts *p = kpmc_stack_parts_new();
	unsigned char buf[KPMC_CALLSTACK_MAX_BYTES];
	size_t len = payload(buf, 1, 1);
	struct heard h = { 0 };
	struct kpmc_record r;

	(void)state;
	/* bytes beyond the part's data */
	feed(p, sample(4, 1), &h);
	r = part(4, 1, buf, len, 0);
	r.part.bytes = KPMC_FORMAT_PART_BYTES + 1;
	feed(p, r, &h);
	assert_int_equal(h.kind[0], KPMC_STACK_MALFORMED);
	assert_string_equal(h.why[0], "part 0 of 1 with 169 bytes");
	/* a payload whose frame counts are not its length */
	feed(p, sample(4, 2), &h);
	r = part(4, 2, buf, len, 0);
	r.part.bytes -= 8;
	feed(p, r, &h);
	assert_int_equal(h.kind[1], KPMC_STACK_MALFORMED);
	assert_string_equal(h.why[1], "payload of 16 bytes for 1 kernel and 1 user frames (24 bytes)");
	/* more frames than the depth limit */
	feed(p, sample(4, 3), &h);
	((struct kpmc_callstack *)buf)->nr_user = 128;
	feed(p, part(4, 3, buf, len, 0), &h);
	assert_string_equal(h.why[2], "1 kernel and 128 user frames, more than 127 of a mode");
	/* parts of more bytes than the largest callstack */
	len = payload(buf, 127, 127);
	feed(p, sample(4, 4), &h);
	for (unsigned int k = 0; k < 13; k++) {
		r = part(4, 4, buf, len, k);
		r.part.parts = 14;
		if (k == 12)
			r.part.bytes = KPMC_FORMAT_PART_BYTES;
		feed(p, r, &h);
	}
	r.part.part = 13;
	feed(p, r, &h);
	assert_int_equal(h.n, 4);
	assert_int_equal(h.kind[3], KPMC_STACK_MALFORMED);
	assert_string_equal(h.why[3], "parts of more than 2040 bytes, the largest callstack");
	/* another format's parts: counted, skipped */
	feed(p, sample(4, 5), &h);
	r = part(4, 5, buf, 300, 0);
	r.kind = KPMC_REC_FORMAT;
	assert_int_equal(feed(p, r, &h), 1);
	r = part(4, 5, buf, 300, 1);
	r.kind = KPMC_REC_FORMAT;
	assert_int_equal(feed(p, r, &h), 1);
	assert_int_equal(h.n, 4);
	assert_int_equal(kpmc_stack_parts_stats(p)->other_parts, 2);
	assert_int_equal(kpmc_stack_parts_stats(p)->other_payloads, 1);
	assert_int_equal(kpmc_stack_parts_stats(p)->malformed, 4);
	/* a stack with no sample of its own before it */
	len = payload(buf, 0, 1);
	feed(p, part(4, 99, buf, len, 0), &h);
	assert_int_equal(h.kind[4], KPMC_STACK_COMPLETE);
	assert_int_equal(kpmc_stack_parts_stats(p)->orphans, 1);
	kpmc_stack_parts_free(p);
}

/* ---- trace lines ---- */

static void test_stack_line_round_trip(void **state)
{
	uint64_t ip[] = { 0xffff800008012345ull, 0xffff800008010000ull, 0x400abc, 0x400b00, 0x400c10 };
	struct kpmc_stack s = { .pid = 98, .tid = 99, .nsample = 3, .nr_kernel = 2, .nr_user = 3,
				.flags = KPMC_STACK_F_USER_TRUNC | KPMC_STACK_F_KERNEL_PARTIAL | 0x100,
				.kernel = ip, .user = ip + 2 };
	static struct kpmc_trace_line tl;
	char line[1024], why[256];

	(void)state;
	kpmc_format_stack(&s, line, sizeof(line));
	assert_string_equal(line, "      3      98      99   stack k=0xffff800008012345,0xffff800008010000 "
				  "u=0x400abc,0x400b00,0x400c10 kpartial utrunc flags=0x100");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_STACK);
	assert_int_equal(tl.stack.nsample, 3);
	assert_int_equal(tl.stack.pid, 98);
	assert_int_equal(tl.stack.tid, 99);
	assert_int_equal(tl.stack.nr_kernel, 2);
	assert_int_equal(tl.stack.nr_user, 3);
	assert_int_equal(tl.stack.flags, s.flags);
	assert_memory_equal(tl.stack.kernel, ip, sizeof(ip));
	assert_int_equal(tl.stack.user[2], 0x400c10);
	/* no frame */
	s.nr_kernel = s.nr_user = 0;
	s.flags = 0;
	kpmc_format_stack(&s, line, sizeof(line));
	assert_string_equal(line, "      3      98      99   stack empty");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_STACK);
	assert_int_equal(tl.stack.nr_kernel + tl.stack.nr_user, 0);
}

static void test_trace_lines(void **state)
{
	static struct kpmc_trace_line tl;
	struct kpmc_map_line m = { .pid = 42, .start = 0x400000, .end = 0x480000, .offset = 0x1000,
				   .build_id = "8f9f0a0f11130fe3", .path = "/tests/bin/a b" };
	struct kpmc_ksym_line k = { .start = 0xffff800008010000ull, .end = 0xffff800008010080ull,
				    .name = "el0_svc", .module = "" };
	struct kpmc_stack_event ev = { .kind = KPMC_STACK_INCOMPLETE, .pid = 1, .tid = 2, .nsample = 9,
				       .why = "the stream ended after 1 of its 2 parts" };
	char line[512], why[256];

	(void)state;
	kpmc_format_map(&m, line, sizeof(line));
	assert_string_equal(line, "map 42 0x400000-0x480000 0x1000 8f9f0a0f11130fe3 /tests/bin/a b");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_MAP);
	assert_int_equal(tl.map.start, 0x400000);
	assert_int_equal(tl.map.end, 0x480000);
	assert_int_equal(tl.map.offset, 0x1000);
	assert_string_equal(tl.map.build_id, "8f9f0a0f11130fe3");
	assert_string_equal(tl.map.path, "/tests/bin/a b");
	m.build_id[0] = '\0';
	snprintf(m.path, sizeof(m.path), "[vdso]");
	kpmc_format_map(&m, line, sizeof(line));
	assert_string_equal(line, "map 42 0x400000-0x480000 0x1000 - [vdso]");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), 0);
	assert_string_equal(tl.map.build_id, "");
	kpmc_format_ksym(&k, line, sizeof(line));
	assert_string_equal(line, "ksym 0xffff800008010000 0xffff800008010080 el0_svc");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_KSYM);
	assert_string_equal(tl.ksym.name, "el0_svc");
	assert_int_equal(kpmc_parse_trace_line("ksym 0x10 0x20 f [ext4]", &tl, why, sizeof(why)), 0);
	assert_string_equal(tl.ksym.module, "ext4");
	kpmc_format_stack_problem(&ev, line, sizeof(line));
	assert_string_equal(line, "# stack of sample 9 (pid 1, tid 2) incomplete: the stream ended after 1 of its 2 parts");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_STACK_PROBLEM);
	assert_int_equal(kpmc_parse_trace_line("# lost 12 records: the ring was full", &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_LOST);
	assert_int_equal(tl.lost, 12);
	/* rows and headers are not stack lines */
	assert_int_equal(kpmc_parse_trace_line("      1      98      98     ebs     100000", &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_OTHER);
	assert_int_equal(kpmc_parse_trace_line("[Event counts]", &tl, why, sizeof(why)), 0);
	assert_int_equal(tl.kind, KPMC_LINE_OTHER);
	assert_int_equal(kpmc_parse_trace_line("", &tl, why, sizeof(why)), 0);
}

/* Bad lines: refused, the token named. */
static void test_trace_lines_refused(void **state)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "1 2 3 stack u=0x40zz", "not a hexadecimal address: '0x40zz'" },
		{ "1 2 3 stack u=400", "not a hexadecimal address: '400'" },
		{ "1 2 3 stack u=0x1,", "a frame list ends with a comma: 'u=0x1,'" },
		{ "1 2 3 stack u=0x1 x=2", "stack line: not k=, u=, empty or a flag: 'x=2'" },
		{ "1 2 3 stack", "stack line: want frames (k=, u=) or 'empty': ''" },
		{ "1 2 3 stack empty u=0x1", "stack line: want frames (k=, u=) or 'empty': ''" },
		{ "1 2 3 stack u=0x1 u=0x2", "stack line: not k=, u=, empty or a flag: 'u=0x2'" },
		{ "1 -2 3 stack u=0x1", "stack line: not a process id: '-2'" },
		{ "x 2 3 stack u=0x1", "stack line: not a sample number: 'x'" },
		{ "1 2 99999999999 stack u=0x1", "stack line: not a thread id: '99999999999'" },
		{ "map 1 0x2000-0x1000 0x0 - /a", "map line: not an address range START-END: '0x2000-0x1000'" },
		{ "map 1 0x1000-0x2000 0 - /a", "map line: not a file offset: '0'" },
		{ "map 1 0x1000-0x2000 0x0 abc /a", "map line: not a build-id (hexadecimal, or -): 'abc'" },
		{ "map 1 0x1000-0x2000 0x0 -", "map line: no path, or one too long: ''" },
		{ "ksym 0x10 0x10 f", "ksym line: not an end address after the start: '0x10'" },
		{ "ksym 0x10 0x20 f ext4", "ksym line: not a [module]: 'ext4'" },
		{ "ksym 0x10 0x20", "ksym line: no symbol name, or one too long: ''" },
	};
	static struct kpmc_trace_line tl;
	char why[256], line[2200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(kpmc_parse_trace_line(bad[i].line, &tl, why, sizeof(why)), -1);
		assert_string_equal(why, bad[i].why);
	}
	/* 128 user frames: beyond the depth limit */
	snprintf(line, sizeof(line), "1 2 3 stack u=0x1");
	for (i = 1; i < 128; i++)
		strcat(line, ",0x1");
	assert_int_equal(kpmc_parse_trace_line(line, &tl, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more frames than the depth limit (127)"));
}

/* ---- kernel symbols ---- */

static void test_ksyms(void **state)
{
	struct kpmc_ksyms *k = kpmc_ksyms_new();
	char why[160];

	(void)state;
	assert_int_equal(kpmc_ksyms_add_kallsyms_line(k, "ffff800008010000 T el0_svc\n", why, sizeof(why)), 0);
	assert_int_equal(kpmc_ksyms_add_kallsyms_line(k, "ffff800008010100 t invoke_syscall\n", why, sizeof(why)), 0);
	/* data symbols are not kept: invoke_syscall ends at the next code symbol */
	assert_int_equal(kpmc_ksyms_add_kallsyms_line(k, "ffff800008010180 D some_data\n", why, sizeof(why)), 0);
	assert_int_equal(kpmc_ksyms_add_kallsyms_line(k, "ffff800008010200 T do_el0_svc\n", why, sizeof(why)), 0);
	assert_int_equal(kpmc_ksyms_add_kallsyms_line(k, "ffff800000c00000 t ext4_read\t[ext4]\n", why, sizeof(why)), 0);
	assert_int_equal(kpmc_ksyms_add_kallsyms_line(k, "zz T x\n", why, sizeof(why)), -1);
	assert_string_equal(why, "not a kallsyms line (ADDRESS TYPE NAME [MODULE]): 'zz T x\n'");
	assert_int_equal(kpmc_ksyms_count(k), 4);
	kpmc_ksyms_sort(k);
	assert_null(kpmc_ksyms_find(k, 0xffff800000bfffffull));
	assert_string_equal(kpmc_ksyms_find(k, 0xffff800000c00010ull)->module, "ext4");
	assert_string_equal(kpmc_ksyms_find(k, 0xffff800008010000ull)->name, "el0_svc");
	assert_string_equal(kpmc_ksyms_find(k, 0xffff8000080100ffull)->name, "el0_svc");
	assert_string_equal(kpmc_ksyms_find(k, 0xffff8000080101ffull)->name, "invoke_syscall");
	assert_int_equal(kpmc_ksyms_find(k, 0xffff800008010100ull)->end, 0xffff800008010200ull);
	/* the last one: a page */
	assert_string_equal(kpmc_ksyms_find(k, 0xffff800008011100ull)->name, "do_el0_svc");
	assert_null(kpmc_ksyms_find(k, 0xffff800008011200ull));
	kpmc_ksyms_free(k);
	/* kptr_restrict: every address 0 */
	k = kpmc_ksyms_new();
	kpmc_ksyms_add_kallsyms_line(k, "0000000000000000 T el0_svc\n", why, sizeof(why));
	assert_int_equal(kpmc_ksyms_count(k), 0);
	kpmc_ksyms_free(k);
}

/* ---- folded stacks ---- */

static void add(struct kpmc_fold *f, const char *spec)
{
	/* "main,a,b,c" with "!name" for a kernel frame */
	struct kpmc_frame fr[16];
	char buf[256], *save = NULL, *tok;
	unsigned int n = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		fr[n].kernel = tok[0] == '!';
		fr[n].name = tok + fr[n].kernel;
		fr[n].object = fr[n].kernel ? "kernel" : "prog";
		n++;
	}
	assert_int_equal(kpmc_fold_add(f, fr, n), 0);
}

static void test_fold(void **state)
{
	struct kpmc_fold *f = kpmc_fold_new();
	const struct kpmc_fold_stack *st;
	const struct kpmc_fold_function *fn;
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < 6; i++)
		add(f, "main,a,b,c");
	add(f, "main,a,b");
	add(f, "main,a,b,c,!el0_svc,!invoke_syscall");
	add(f, "main,a,b,c,!el0_svc,!invoke_syscall");
	/* recursion: c counts once in this sample's total */
	add(f, "main,a,c,c,c");
	add(f, "main,we;ird name");
	assert_int_equal(kpmc_fold_samples(f), 11);
	st = kpmc_fold_stacks(f, &n);
	assert_int_equal(n, 5);
	assert_string_equal(st[0].folded, "main;a;b");
	assert_int_equal(st[0].samples, 1);
	assert_string_equal(st[1].folded, "main;a;b;c");
	assert_int_equal(st[1].samples, 6);
	assert_string_equal(st[2].folded, "main;a;b;c;el0_svc_[k];invoke_syscall_[k]");
	assert_int_equal(st[2].samples, 2);
	assert_string_equal(st[3].folded, "main;a;c;c;c");
	assert_string_equal(st[4].folded, "main;we_ird_name");
	fn = kpmc_fold_functions(f, &n);
	assert_int_equal(n, 7);
	/* by total, then self, descending; then name */
	assert_string_equal(fn[0].name, "main");
	assert_int_equal(fn[0].total, 11);
	assert_int_equal(fn[0].self, 0);
	assert_string_equal(fn[1].name, "a");
	assert_int_equal(fn[1].total, 10);
	assert_string_equal(fn[2].name, "c");
	assert_int_equal(fn[2].total, 9);
	assert_int_equal(fn[2].self, 7);
	assert_string_equal(fn[3].name, "b");
	assert_int_equal(fn[3].total, 9);
	assert_int_equal(fn[3].self, 1);
	assert_string_equal(fn[4].name, "invoke_syscall");
	assert_int_equal(fn[4].kernel, 1);
	assert_int_equal(fn[4].total, 2);
	assert_int_equal(fn[4].self, 2);
	assert_string_equal(fn[5].name, "el0_svc");
	assert_int_equal(fn[5].self, 0);
	assert_string_equal(fn[6].name, "we;ird name");
	assert_int_equal(fn[6].self, 1);
	/* adding after sorting goes on counting */
	add(f, "main,a,b");
	st = kpmc_fold_stacks(f, &n);
	assert_int_equal(n, 5);
	assert_int_equal(st[0].samples, 2);
	fn = kpmc_fold_functions(f, &n);
	assert_int_equal(fn[0].total, 12);
	kpmc_fold_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_one_and_three),
		cmocka_unit_test(test_parts_interleaved_threads),
		cmocka_unit_test(test_parts_missing),
		cmocka_unit_test(test_parts_malformed_and_other),
		cmocka_unit_test(test_stack_line_round_trip),
		cmocka_unit_test(test_trace_lines),
		cmocka_unit_test(test_trace_lines_refused),
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_fold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
