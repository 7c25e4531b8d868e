// SPDX-License-Identifier: GPL-2.0
/* The chain of a record's consumers (sink.h). */
#include <stdio.h>
#include <string.h>

#include "record_format.h"
#include "sink.h"

void kpmc_chain_init(struct kpmc_chain *c)
{
	memset(c, 0, sizeof(*c));
}

void kpmc_chain_add(struct kpmc_chain *c, struct kpmc_sink *s)
{
	s->next = NULL;
	s->chain = c;
	if (c->last)
		c->last->next = s;
	else
		c->first = s;
	c->last = s;
}

void kpmc_chain_error(struct kpmc_chain *c, const char *what)
{
	if (!c->errors++)
		fprintf(stderr, "kpmc: %s\n", what);
}

void kpmc_chain_record(struct kpmc_chain *c, const struct kpmc_record *rec)
{
	struct kpmc_sink *s;
	char why[256];

	if (c->samples_to && (rec->kind == KPMC_REC_EBS || rec->kind == KPMC_REC_TBS) &&
	    !rec->uncounted_mask && kpmc_record_valid(rec)) {
		c->samples_to->ops->record(c->samples_to, rec);
		return;
	}
	if (kpmc_record_check(rec, why, sizeof(why))) {
		kpmc_chain_error(c, why);
		return;
	}
	if (rec->kind == KPMC_REC_LOST)
		c->lost += rec->lost;
	if (rec->uncounted_mask) {
		c->uncounted |= rec->uncounted_mask;
		c->uncounted_records++;
	}
	if (rec->kind == KPMC_REC_DETACH && rec->detail == KPMC_DETACH_PRIVILEGED_EXEC)
		fprintf(stderr,
			"kpmc: thread %u exec'd a program that raised its privileges (setuid, setgid or file capabilities): its monitoring stopped there, as perf's does (a CAP_PERFMON monitor keeps it)\n",
			rec->tid);
	for (s = c->first; s; s = s->next)
		if (s->ops->record(s, rec) == KPMC_SINK_TAKEN)
			return;
}

void kpmc_chain_flush(struct kpmc_chain *c)
{
	for (struct kpmc_sink *s = c->first; s; s = s->next)
		if (s->ops->flush)
			s->ops->flush(s);
}

void kpmc_chain_finish(struct kpmc_chain *c)
{
	for (struct kpmc_sink *s = c->first; s; s = s->next)
		if (s->ops->finish)
			s->ops->finish(s);
	if (c->lost)
		fprintf(stderr, "kpmc: %llu records lost: the kernel's ring was full (enlarge it with -k)\n",
			c->lost);
	if (c->uncounted) {
		char names[8 * KPMC_MAX_COUNTERS];

		kpmc_format_uncounted(c->uncounted, " ", names, sizeof(names));
		fprintf(stderr,
			"kpmc: %s did not count for part of %llu record%s (marked *): the thread ran on a core type without that counter or event; those counts cover only the rest of its run time\n",
			names, c->uncounted_records, c->uncounted_records == 1 ? "" : "s");
	}
}
