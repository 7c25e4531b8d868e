// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "stackrec.h"
#include "ksyms.h"
#include "procmaps.h"
#include "stackline.h"
#include "stackparts.h"

#include <stdlib.h>
#include <string.h>

struct kpmc_stackrec {
	FILE *out;
	int live;
	struct kpmc_stack_parts *parts;
	struct kpmc_procmaps *maps;
	struct kpmc_ksyms *ksyms;	/* live, loaded at the first kernel frame */
	int ksyms_tried;
	pid_t last_pid;			/* the last record's pid: watched already */
	char line[8192];		/* the longest stack line: 254 frames */
};

struct kpmc_stackrec *kpmc_stackrec_new(FILE *out, int live)
{
	struct kpmc_stackrec *sr = calloc(1, sizeof(*sr));

	if (!sr)
		return NULL;
	sr->out = out;
	sr->live = live && out;
	sr->parts = kpmc_stack_parts_new();
	sr->maps = sr->live ? kpmc_procmaps_new() : NULL;
	if (!sr->parts || (sr->live && !sr->maps)) {
		kpmc_stackrec_free(sr);
		return NULL;
	}
	return sr;
}

void kpmc_stackrec_free(struct kpmc_stackrec *sr)
{
	if (!sr)
		return;
	kpmc_stack_parts_free(sr->parts);
	kpmc_procmaps_free(sr->maps);
	kpmc_ksyms_free(sr->ksyms);
	free(sr);
}

/* /proc/kallsyms, once; NULL if it cannot be read or hides its addresses. */
static struct kpmc_ksyms *kernel_symbols(struct kpmc_stackrec *sr)
{
	char line[512], why[160];
	FILE *f;

	if (sr->ksyms_tried)
		return sr->ksyms;
	sr->ksyms_tried = 1;
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		fprintf(stderr, "kpmc: /proc/kallsyms: %m: kernel frames stay addresses\n");
		return NULL;
	}
	sr->ksyms = kpmc_ksyms_new();
	while (sr->ksyms && fgets(line, sizeof(line), f)) {
		if (kpmc_ksyms_add_kallsyms_line(sr->ksyms, line, why, sizeof(why))) {
			fprintf(stderr, "kpmc: /proc/kallsyms: %s\n", why);
			break;
		}
	}
	fclose(f);
	if (sr->ksyms && !kpmc_ksyms_count(sr->ksyms)) {
		fprintf(stderr,
			"kpmc: /proc/kallsyms hides the kernel's addresses (kernel.kptr_restrict): kernel frames stay addresses\n");
		kpmc_ksyms_free(sr->ksyms);
		sr->ksyms = NULL;
	}
	if (sr->ksyms)
		kpmc_ksyms_sort(sr->ksyms);
	return sr->ksyms;
}

/* A ksym line for each kernel symbol of s not in the trace yet. */
static void write_ksyms(struct kpmc_stackrec *sr, const struct kpmc_stack *s)
{
	struct kpmc_ksyms *k;
	unsigned int i;

	if (!s->nr_kernel || !(k = kernel_symbols(sr)))
		return;
	for (i = 0; i < s->nr_kernel; i++) {
		/* A return address is just past its call: the call is in the symbol before it. */
		struct kpmc_ksym *sym = kpmc_ksyms_find(k, i ? s->kernel[i] - 1 : s->kernel[i]);
		struct kpmc_ksym_line kl;

		if (!sym || sym->written)
			continue;
		sym->written = 1;
		kl.start = sym->start;
		kl.end = sym->end;
		snprintf(kl.name, sizeof(kl.name), "%s", sym->name);
		snprintf(kl.module, sizeof(kl.module), "%s", sym->module);
		kpmc_format_ksym(&kl, sr->line, sizeof(sr->line));
		fprintf(sr->out, "%s\n", sr->line);
	}
}

static void on_stack(const struct kpmc_stack_event *ev, void *arg)
{
	struct kpmc_stackrec *sr = arg;

	if (!sr->out)
		return;
	if (ev->kind == KPMC_STACK_COMPLETE) {
		if (sr->live)
			write_ksyms(sr, ev->stack);
		kpmc_format_stack(ev->stack, sr->line, sizeof(sr->line));
	} else {
		kpmc_format_stack_problem(ev, sr->line, sizeof(sr->line));
	}
	fprintf(sr->out, "%s\n", sr->line);
}

int kpmc_stackrec_record(struct kpmc_stackrec *sr, const struct kpmc_record *rec)
{
	if (sr->live && rec->pid && (pid_t)rec->pid != sr->last_pid &&
	    !KPMC_REC_IS_CPU(rec->kind) && rec->kind != KPMC_REC_LOST) {
		kpmc_procmaps_watch(sr->maps, (pid_t)rec->pid);
		sr->last_pid = (pid_t)rec->pid;
	}
	return kpmc_stack_parts_add(sr->parts, rec, on_stack, sr);
}

void kpmc_stackrec_watch(struct kpmc_stackrec *sr, pid_t pid)
{
	if (sr->live)
		kpmc_procmaps_watch(sr->maps, pid);
}

void kpmc_stackrec_read_maps(struct kpmc_stackrec *sr)
{
	if (sr->live)
		kpmc_procmaps_read(sr->maps, sr->out);
}

void kpmc_stackrec_finish(struct kpmc_stackrec *sr)
{
	const struct kpmc_stack_stats *st = kpmc_stack_parts_stats(sr->parts);

	kpmc_stack_parts_flush(sr->parts, on_stack, sr);
	if (st->incomplete || st->malformed)
		fprintf(stderr,
			"kpmc: call stacks: %llu whole, %llu incomplete (parts missing), %llu malformed (marked '# stack of sample ...')\n",
			st->stacks, st->incomplete, st->malformed);
	if (st->orphans)
		fprintf(stderr, "kpmc: call stacks: %llu came without their sample's record just before\n",
			st->orphans);
	if (st->other_parts)
		fprintf(stderr,
			"kpmc: %llu records of other sampling formats (%llu samples' worth) skipped: this CLI shows fmt=callstack and mem=1\n",
			st->other_parts, st->other_payloads);
}

unsigned long long kpmc_stackrec_problems(const struct kpmc_stackrec *sr)
{
	const struct kpmc_stack_stats *st = kpmc_stack_parts_stats(sr->parts);

	return st->incomplete + st->malformed;
}
