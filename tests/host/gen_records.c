// SPDX-License-Identifier: GPL-2.0
/*
 * gen_records: write a deterministic stream of kpmc records (what kpmc -w
 * saves) to stdout: two threads of one process rotating through two event
 * sets, time-based samples, a loss, and exit records; one record of thread
 * 101 says its pmc0 did not count throughout (a hybrid CPU's other core type). The host tests format
 * it with kpmc -R in every output form and compare the totals.
 *
 * gen_records --stacks MAIN A B C: fmt=callstack's records instead, with
 * user frames in the functions at those addresses (callchain's main, a, b,
 * c) and kernel frames in two made-up kernel symbols (tests/host/stacks.sh
 * gives the trace their ksym lines): whole stacks of one and of two parts,
 * a sample whose second part is missing, another format's parts, a loss,
 * a malformed payload, an empty stack and an unmapped address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/kpmc.h>

static unsigned int uncounted_next;	/* uncounted_mask of the next record */

static void put(unsigned int kind, unsigned int tid, unsigned int set, unsigned long long n,
		unsigned long long run, unsigned long long c0, unsigned long long c1)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.version = KPMC_RECORD_VERSION;
	r.size = sizeof(r);
	r.kind = (unsigned char)kind;
	r.set = (unsigned char)set;
	r.pid = 100;
	r.tid = tid;
	r.nsample = n;
	r.run_ns = run;
	if (kind == KPMC_REC_LOST) {
		r.pid = r.tid = 0;
		r.lost = c0;
	} else {
		/* set 0 counts pmc0 and pmc1, set 1 only pmc1 */
		r.counter_mask = set ? 0x2 : 0x3;
		r.counts[0] = set ? 0 : c0;
		r.counts[1] = c1;
		r.virt_mask = 0x1;
		r.virt[0] = c1 / 1000;
		r.uncounted_mask = uncounted_next;
	}
	uncounted_next = 0;
	fwrite(&r, sizeof(r), 1, stdout);
}

/* Made-up kernel symbols: a syscall entry and the syscall it calls. */
#define KSYM_ENTRY	0xffffffff81000000ull
#define KSYM_GETPPID	0xffffffff81001000ull
#define STACK_PID	300

static void put_sample(unsigned int tid, unsigned long long n)
{
	struct kpmc_record r;

	memset(&r, 0, sizeof(r));
	r.version = KPMC_RECORD_VERSION;
	r.size = sizeof(r);
	r.kind = KPMC_REC_EBS;
	r.pid = STACK_PID;
	r.tid = tid;
	r.nsample = n;
	r.run_ns = 1000000;
	r.period = 100000;
	r.counter_mask = 0x1;
	r.counts[0] = 100000;
	fwrite(&r, sizeof(r), 1, stdout);
}

/*
 * The parts of a payload as the kernel cuts it; parts with bit k of skip
 * set are left out (a ring that dropped them, which kpmc's never does).
 */
static void put_parts(unsigned int kind, const unsigned char *uuid, unsigned int tid,
		      unsigned long long n, const void *payload, size_t len, unsigned int skip)
{
	unsigned int parts = (unsigned int)((len + KPMC_FORMAT_PART_BYTES - 1) / KPMC_FORMAT_PART_BYTES);
	unsigned int i;

	for (i = 0; i < parts; i++) {
		size_t off = (size_t)i * KPMC_FORMAT_PART_BYTES;
		size_t chunk = len - off < KPMC_FORMAT_PART_BYTES ? len - off : KPMC_FORMAT_PART_BYTES;
		struct kpmc_record r;

		if (skip & (1u << i))
			continue;
		memset(&r, 0, sizeof(r));
		r.version = KPMC_RECORD_VERSION;
		r.size = sizeof(r);
		r.kind = (unsigned char)kind;
		r.pid = STACK_PID;
		r.tid = tid;
		r.nsample = n;
		memcpy(r.part.uuid, uuid, 16);
		r.part.part = (unsigned short)i;
		r.part.parts = (unsigned short)parts;
		r.part.bytes = (unsigned int)chunk;
		memcpy(r.part.data, (const char *)payload + off, chunk);
		fwrite(&r, sizeof(r), 1, stdout);
	}
}

static const unsigned char callstack_uuid[16] = { 0x5b, 0x2e, 0x8c, 0x41, 0x7a, 0x0d, 0x4f, 0x93,
						  0xb1, 0x6e, 0x2c, 0xd4, 0x90, 0x17, 0xa3, 0x58 };

/* A sample and its stack: nk kernel frames, then nu user frames, in ip[]. */
static void put_stack(unsigned int tid, unsigned long long n, const unsigned long long *ip,
		      unsigned int nk, unsigned int nu, unsigned int flags, unsigned int skip)
{
	union {
		struct kpmc_callstack cs;
		unsigned char bytes[sizeof(struct kpmc_callstack) + 2 * KPMC_STACK_MAX_DEPTH * 8];
	} p;

	memset(&p, 0, sizeof(p));
	p.cs.nr_kernel = (unsigned short)nk;
	p.cs.nr_user = (unsigned short)nu;
	p.cs.flags = (unsigned short)flags;
	memcpy(p.cs.ip, ip, (nk + nu) * sizeof(ip[0]));
	put_sample(tid, n);
	put_parts(KPMC_REC_STACK, callstack_uuid, tid, n, &p, sizeof(p.cs) + (nk + nu) * 8, skip);
}

static int gen_stacks(char **argv)
{
	unsigned long long fn[4], ip[64];
	unsigned long long n = 0;
	static const unsigned char other_uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	unsigned char other[200];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		char *end;

		fn[i] = strtoull(argv[i], &end, 0);
		if (!argv[i][0] || *end) {
			fprintf(stderr, "gen_records: --stacks: '%s' is not an address\n", argv[i]);
			return 2;
		}
	}
	/* main, a, b, c: leaf 2 bytes into c, return addresses 6 bytes in (main: 0x20). */
#define MAIN_RET (fn[0] + 0x20)
#define A_RET (fn[1] + 6)
#define B_RET (fn[2] + 6)
#define C_LEAF (fn[3] + 2)
	/* 30 samples in c. */
	for (i = 0; i < 30; i++) {
		unsigned long long u[] = { C_LEAF, B_RET, A_RET, MAIN_RET };

		put_stack(STACK_PID, ++n, u, 0, 4, 0, 0);
	}
	/* 10 in the kernel, in a system call c made. */
	for (i = 0; i < 10; i++) {
		unsigned long long k[] = { KSYM_GETPPID + 0x10, KSYM_ENTRY + 0x8, C_LEAF, B_RET, A_RET, MAIN_RET };

		put_stack(STACK_PID, ++n, k, 2, 4, 0, 0);
	}
	/* c recursing: 31 user frames, two parts. */
	ip[0] = C_LEAF;
	for (i = 1; i < 28; i++)
		ip[i] = fn[3] + 6;
	ip[28] = B_RET;
	ip[29] = A_RET;
	ip[30] = MAIN_RET;
	put_stack(STACK_PID, ++n, ip, 0, 31, 0, 0);
	/* Two parts, the second missing: given up at the next sample. */
	put_stack(STACK_PID, ++n, ip, 0, 31, 0, 0x2);
	/* Another format's two parts: skipped. */
	memset(other, 0xa5, sizeof(other));
	put_sample(STACK_PID, ++n);
	put_parts(KPMC_REC_FORMAT, other_uuid, STACK_PID, n, other, sizeof(other), 0);
	put(KPMC_REC_LOST, 0, 0, 0, 0, 3, 0);
	/* A payload that says 5 user frames in 16 bytes. */
	{
		struct kpmc_callstack bad = { .nr_user = 5 };
		unsigned long long pad = C_LEAF;
		unsigned char b[16];

		memcpy(b, &bad, 8);
		memcpy(b + 8, &pad, 8);
		put_sample(STACK_PID, ++n);
		put_parts(KPMC_REC_STACK, callstack_uuid, STACK_PID, n, b, sizeof(b), 0);
	}
	/* No frame at all; then an address no mapping covers, its walk cut short. */
	put_stack(STACK_PID, ++n, ip, 0, 0, 0, 0);
	ip[0] = 0x7000;
	put_stack(STACK_PID, ++n, ip, 0, 1, KPMC_STACK_F_USER_FAULT, 0);
	/* A second thread: 10 samples in b. */
	for (i = 0; i < 10; i++) {
		unsigned long long u[] = { fn[2] + 2, A_RET, MAIN_RET };

		put_stack(STACK_PID + 1, i + 1, u, 0, 3, 0, 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long n[2] = { 0, 0 };
	unsigned int i, t;

	if (argc == 6 && !strcmp(argv[1], "--stacks"))
		return gen_stacks(argv + 2);
	if (argc != 1) {
		fprintf(stderr, "usage: gen_records [--stacks MAIN A B C]\n");
		return 2;
	}

	for (i = 0; i < 20; i++)
		for (t = 0; t < 2; t++) {
			if (i == 4 && t == 1)
				uncounted_next = 0x1;
			put(i % 2 ? KPMC_REC_MUX : KPMC_REC_TBS, 100 + t, i % 2, ++n[t],
			    (t + 1) * 10000000ULL, 1000003ULL * (i + 1), 777ULL * (i + 1) * (t + 2));
		}
	put(KPMC_REC_LOST, 0, 0, 0, 0, 5, 0);
	for (t = 0; t < 2; t++)
		put(KPMC_REC_EXIT, 100 + t, 0, ++n[t], 123456, 4242 + t, 99 + t);
	return 0;
}
