// SPDX-License-Identifier: GPL-2.0
/*
 * gen_records: write a deterministic stream of kpmc records (what kpmc -w
 * saves) to stdout: two threads of one process rotating through two event
 * sets, time-based samples, a loss, and exit records; one record of thread
 * 101 says its pmc0 did not count throughout (a hybrid CPU's other core type). The host tests format
 * it with kpmc -R in every output form and compare the totals.
 */
#include <stdio.h>
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

int main(void)
{
	unsigned long long n[2] = { 0, 0 };
	unsigned int i, t;

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
