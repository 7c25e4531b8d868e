// SPDX-License-Identifier: GPL-2.0
/*
 * fmtcheck CONFIG ITERATIONS|sys:CALLS [HOLD_MS]: samples itself with CONFIG (a set
 * with a sampling format, fmt=NAME) while it spins ITERATIONS two-instruction
 * iterations, holds the configuration HOLD_MS more (a test may try to unload
 * the format's module meanwhile), stops, then reads every record and checks
 * that each sample's parts follow it (same tid and nsample, parts 0..n-1,
 * one count n) and reassemble. Prints
 *   fmtcheck samples=S detach=D lost=L parts=P payloads=Y bad=B
 * then, for fmt=example's payloads (tests/kmod/kpmc_fmt_example.c),
 *   example seq=FIRST..LAST in_order=0|1 pad_ok=K ip_in_text=T user=U periods=P
 * and, for fmt=callstack's,
 *   callstack stacks=N user_frames=MIN..MAX leaf_in_text=T kernel=K kernel_partial=P
 *   kstack ADDR... (the first kernel stack)
 * and a line "fmtcheck bad: why" for each of the first few defects.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <uapi/linux/kpmc.h>

#include "procput.h"
#include "spin.h"

/* The example format's payload (kpmc_fmt_example.c). */
struct fmt_example_sample {
	uint64_t ip, seq, period;
	uint32_t tid, user;
};
static const uint8_t example_uuid[16] = { 0xe4, 0x7a, 0x19, 0x3c, 0x55, 0x0f, 0x4d, 0x2b,
					  0x9e, 0x61, 0xc8, 0x02, 0x7d, 0xb3, 0x46, 0xf1 };

extern char __executable_start[], etext[];

static unsigned long bad;

static void defect(const char *what, unsigned long long a, unsigned long long b)
{
	if (++bad <= 5)
		printf("fmtcheck bad: %s (%llu, %llu)\n", what, a, b);
}

static int in_text(uint64_t ip)
{
	return ip >= (uintptr_t)__executable_start && ip < (uintptr_t)etext;
}

/* What the payloads say, over the run. */
static struct {
	unsigned long n, in_order, pad_ok, ip_in_text, user, periods;
	uint64_t first, last, period;
} ex;
static struct {
	unsigned long n, leaf_in_text, kernel, partial;
	unsigned int umin, umax;
	uint64_t first_kernel[KPMC_STACK_MAX_DEPTH];
	unsigned int nfirst;
} cs = { .umin = ~0u };

static void example_payload(const uint8_t *p, size_t len)
{
	struct fmt_example_sample e;
	size_t i;
	int ok = 1;

	if (len < sizeof(e)) {
		defect("example payload short", len, sizeof(e));
		return;
	}
	memcpy(&e, p, sizeof(e));
	if (!ex.n++)
		ex.first = e.seq;
	else if (e.seq == ex.last + 1)
		ex.in_order++;
	ex.last = e.seq;
	for (i = sizeof(e); i < len; i++)
		ok &= p[i] == ((i - sizeof(e)) & 0xff);
	ex.pad_ok += ok;
	ex.ip_in_text += in_text(e.ip);
	ex.user += e.user;
	if (e.period && (!ex.period || e.period == ex.period)) {
		ex.period = e.period;
		ex.periods++;
	}
}

static void callstack_payload(const uint8_t *p, size_t len)
{
	struct kpmc_callstack h;
	unsigned int n;

	if (len < sizeof(h)) {
		defect("callstack payload short", len, sizeof(h));
		return;
	}
	memcpy(&h, p, sizeof(h));
	n = h.nr_kernel + h.nr_user;
	if (len != sizeof(h) + 8ull * n) {
		defect("callstack length", len, sizeof(h) + 8ull * n);
		return;
	}
	cs.n++;
	if (h.nr_kernel && !cs.kernel++) {
		cs.nfirst = h.nr_kernel;
		memcpy(cs.first_kernel, p + sizeof(h), 8ull * h.nr_kernel);
	}
	cs.partial += !!(h.flags & KPMC_STACK_F_KERNEL_PARTIAL);
	if (h.nr_user < cs.umin)
		cs.umin = h.nr_user;
	if (h.nr_user > cs.umax)
		cs.umax = h.nr_user;
	if (h.nr_user) {
		uint64_t leaf;

		memcpy(&leaf, p + sizeof(h) + 8ull * h.nr_kernel, 8);
		cs.leaf_in_text += in_text(leaf);
	}
}

int main(int argc, char **argv)
{
	unsigned long long samples = 0, detach = 0, lost = 0, parts = 0, payloads = 0;
	static struct kpmc_record rec[8192];
	static uint8_t payload[KPMC_FORMAT_PART_BYTES * 64];
	size_t nrec = 0, i, j;
	unsigned long n;
	ssize_t got;
	int mon, syscalls;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: fmtcheck CONFIG ITERATIONS [HOLD_MS]\n");
		return 2;
	}
	/* "sys:N": N getppid() calls instead of N spin iterations. */
	syscalls = !strncmp(argv[2], "sys:", 4);
	n = strtoul(argv[2] + (syscalls ? 4 : 0), NULL, 0);
	mon = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK);
	if (mon < 0) {
		perror("/proc/kpmc/monitor");
		return 1;
	}
	put(mon, "monitor", "ring=8192");
	put(-1, "config", argv[1]);
	put(-1, "enable", "1");
	if (syscalls)
		for (i = 0; i < n; i++)
			getppid();
	else
		spin(n);
	if (argc == 4) {
		struct timespec ts = { 0, 0 };
		unsigned long ms = strtoul(argv[3], NULL, 0);

		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (long)(ms % 1000) * 1000000L;
		printf("fmtcheck holding\n");
		fflush(stdout);
		nanosleep(&ts, NULL);
	}
	put(-1, "enable", "0");
	while (nrec < sizeof(rec) / sizeof(rec[0]) &&
	       (got = read(mon, rec + nrec, sizeof(rec) - nrec * sizeof(rec[0]))) > 0)
		nrec += (size_t)got / sizeof(rec[0]);

	for (i = 0; i < nrec; i++) {
		const struct kpmc_record *r = &rec[i];
		size_t len = 0;
		unsigned int np;

		switch (r->kind) {
		case KPMC_REC_DETACH:
			detach++;
			continue;
		case KPMC_REC_LOST:
			lost += r->lost;
			continue;
		case KPMC_REC_STACK:
		case KPMC_REC_FORMAT:
			defect("parts without their sample", r->nsample, r->part.part);
			parts++;
			continue;
		case KPMC_REC_TBS:
		case KPMC_REC_EBS:
			samples++;
			break;
		default:
			continue;
		}
		/* The sample's parts follow it. */
		if (i + 1 >= nrec || (rec[i + 1].kind != KPMC_REC_STACK &&
				      rec[i + 1].kind != KPMC_REC_FORMAT))
			continue;
		np = rec[i + 1].part.parts;
		for (j = 0; j < np; j++) {
			const struct kpmc_record *p = &rec[i + 1 + j];

			if (i + 1 + j >= nrec || p->kind != rec[i + 1].kind || p->tid != r->tid ||
			    p->nsample != r->nsample || p->part.part != j || p->part.parts != np ||
			    p->part.bytes > KPMC_FORMAT_PART_BYTES ||
			    memcmp(p->part.uuid, rec[i + 1].part.uuid, 16)) {
				defect("part out of place", r->nsample, j);
				break;
			}
			if (len + p->part.bytes <= sizeof(payload))
				memcpy(payload + len, p->part.data, p->part.bytes);
			len += p->part.bytes;
			parts++;
		}
		if (j < np)
			continue;
		payloads++;
		if (rec[i + 1].kind == KPMC_REC_STACK)
			callstack_payload(payload, len);
		else if (!memcmp(rec[i + 1].part.uuid, example_uuid, 16))
			example_payload(payload, len);
		i += np;
	}
	printf("fmtcheck samples=%llu detach=%llu lost=%llu parts=%llu payloads=%llu bad=%lu\n",
	       samples, detach, lost, parts, payloads, bad);
	if (ex.n)
		printf("example seq=%llu..%llu in_order=%d pad_ok=%lu ip_in_text=%lu user=%lu periods=%lu\n",
		       (unsigned long long)ex.first, (unsigned long long)ex.last,
		       ex.in_order + 1 == ex.n, ex.pad_ok, ex.ip_in_text, ex.user, ex.periods);
	if (cs.n) {
		printf("callstack stacks=%lu user_frames=%u..%u leaf_in_text=%lu kernel=%lu kernel_partial=%lu\n",
		       cs.n, cs.umin, cs.umax, cs.leaf_in_text, cs.kernel, cs.partial);
		/* The first kernel stack, for a test to look up in /proc/kallsyms. */
		printf("kstack");
		for (i = 0; i < cs.nfirst; i++)
			printf(" %llx", (unsigned long long)cs.first_kernel[i]);
		printf("\n");
	}
	return 0;
}
