// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc report reads a text trace twice: first its map and ksym lines (which
 * may come after the stacks they symbolize: kpmc writes mappings at each
 * drain), then its stack lines. A user address is looked up in the
 * latest mapping of its process that covers it; the file is found by
 * build-id and path (--symfs first) and is used only if its build-id is
 * the recorded one. A kernel address is looked up in the trace's ksym
 * lines (or a kallsyms file, --kallsyms). Return addresses are looked up
 * one byte back, inside their call.
 */
#define _GNU_SOURCE
#include "stackreport.h"
#include "common/elfsyms.h"
#include "common/growarray.h"
#include "ksyms.h"
#include "stackfold.h"
#include "stackline.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct file {
	char *path;			/* as the trace has it */
	char build_id[KPMC_BUILD_ID_HEX + 1];
	const char *base;		/* its base name: the object column, unresolved frames */
	struct kpmc_elf *elf;		/* NULL: no matching file found */
	int tried;
};

struct mapping {
	uint32_t pid;
	uint64_t start, end, offset;
	size_t file;
	size_t order;			/* its place in the trace: the latest wins */
};

struct report {
	const char *trace, *symfs;
	struct mapping *maps;
	size_t nmaps, capmaps;
	struct file *files;
	size_t nfiles, capfiles;
	struct kpmc_ksyms *ksyms;
	size_t nksyms;
	unsigned long long lost, problems, stacks, empty;
	struct kpmc_fold *fold;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kpmc report [--folded] [--symfs DIR] [--kallsyms FILE] [-n ROWS] [-o FILE] TRACE\n"
		"  TRACE           a text trace recorded with fmt=callstack (kpmc -o TRACE -c ...,fmt=callstack)\n"
		"  --folded        folded stacks (\"main;a;b;c 123\", kernel frames as name_[k]) for flame graphs\n"
		"  --symfs DIR     look for the binaries under DIR first: DIR/.build-id/XX/REST (build-id),\n"
		"                  DIR/PATH, DIR/BASENAME (a copy of the recording machine's files)\n"
		"  --kallsyms FILE kernel symbols from FILE (/proc/kallsyms format) besides the trace's ksym lines\n"
		"  -n ROWS         at most ROWS functions (default all)\n"
		"  -o FILE         write the report to FILE\n");
}

static int add_file(struct report *r, const struct kpmc_map_line *m, size_t *idx)
{
	struct file *f;
	size_t i;

	for (i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].path, m->path) && !strcmp(r->files[i].build_id, m->build_id)) {
			*idx = i;
			return 0;
		}
	if (grow_array((void **)&r->files, &r->capfiles, r->nfiles + 1, sizeof(*r->files), 16))
		return -1;
	f = &r->files[r->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(m->path);
	if (!f->path)
		return -1;
	snprintf(f->build_id, sizeof(f->build_id), "%s", m->build_id);
	f->base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	*idx = r->nfiles++;
	return 0;
}

static int add_mapping(struct report *r, const struct kpmc_map_line *m)
{
	struct mapping *mp;

	if (grow_array((void **)&r->maps, &r->capmaps, r->nmaps + 1, sizeof(*r->maps), 64))
		return -1;
	mp = &r->maps[r->nmaps];
	mp->pid = m->pid;
	mp->start = m->start;
	mp->end = m->end;
	mp->offset = m->offset;
	mp->order = r->nmaps;
	if (add_file(r, m, &mp->file))
		return -1;
	r->nmaps++;
	return 0;
}

static int by_pid_order(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The latest mapping of pid covering addr, or NULL. */
static const struct mapping *mapping_of(const struct report *r, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = r->nmaps;

	/* The first mapping of the next pid: pid's are just before it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->maps[mid].pid <= pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && r->maps[lo].pid == pid)
		if (addr >= r->maps[lo].start && addr < r->maps[lo].end)
			return &r->maps[lo];
	return NULL;
}

/* candidate, if it is the recorded file (same build-id, where one was recorded). */
static struct kpmc_elf *try_candidate(const struct file *f, const char *candidate)
{
	struct kpmc_elf *e;
	struct stat st;
	char why[256];

	if (stat(candidate, &st) || !S_ISREG(st.st_mode))
		return NULL;
	e = kpmc_elf_open(candidate, why, sizeof(why));
	if (!e)
		return NULL;
	if (f->build_id[0] && strcmp(kpmc_elf_build_id(e), f->build_id)) {
		fprintf(stderr, "kpmc: report: %s has build-id %s, the trace's %s had %s: not used\n",
			candidate, kpmc_elf_build_id(e)[0] ? kpmc_elf_build_id(e) : "(none)", f->path,
			f->build_id);
		kpmc_elf_close(e);
		return NULL;
	}
	return e;
}

/* The file of a mapping: by build-id and path under --symfs, then the path itself. */
static struct kpmc_elf *file_elf(struct report *r, struct file *f)
{
	char cand[KPMC_MAP_PATH + 512];

	if (f->tried)
		return f->elf;
	f->tried = 1;
	/* Pseudo-mappings ([vdso], [anon]) have no file. */
	if (f->path[0] != '/')
		return NULL;
	if (r->symfs && f->build_id[0]) {
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s", r->symfs, f->build_id, f->build_id + 2);
		f->elf = try_candidate(f, cand);
	}
	if (!f->elf && r->symfs) {
		snprintf(cand, sizeof(cand), "%s%s", r->symfs, f->path);
		f->elf = try_candidate(f, cand);
	}
	if (!f->elf && r->symfs) {
		snprintf(cand, sizeof(cand), "%s/%s", r->symfs, f->base);
		f->elf = try_candidate(f, cand);
	}
	if (!f->elf)
		f->elf = try_candidate(f, f->path);
	if (!f->elf)
		fprintf(stderr, "kpmc: report: no file for %s (build-id %s)%s: its frames show as [%s]\n",
			f->path, f->build_id[0] ? f->build_id : "not recorded",
			r->symfs ? " here or under --symfs" : " here (--symfs DIR: a copy of the recording machine's files)",
			f->base);
	return f->elf;
}

/* Names made up for unresolved frames live here while their sample is counted. */
static char made_names[KPMC_CALLSTACK_MAX_FRAMES][KPMC_MAP_PATH / 16];

static void user_frame(struct report *r, uint32_t pid, uint64_t addr, unsigned int slot,
		       struct kpmc_frame *fr)
{
	const struct mapping *m = mapping_of(r, pid, addr);
	struct file *f = m ? &r->files[m->file] : NULL;
	struct kpmc_elf *e = f ? file_elf(r, f) : NULL;
	uint64_t vaddr, off;
	const char *name = NULL;

	fr->kernel = 0;
	if (e && !kpmc_elf_offset_vaddr(e, addr - m->start + m->offset, &vaddr))
		name = kpmc_elf_function(e, vaddr, &off);
	fr->object = f ? f->base : "?";
	if (name) {
		fr->name = name;
		return;
	}
	snprintf(made_names[slot], sizeof(made_names[slot]), "[%s]", f ? f->base : "unknown");
	fr->name = made_names[slot];
}

static void kernel_frame(struct report *r, uint64_t addr, struct kpmc_frame *fr)
{
	struct kpmc_ksym *s = r->nksyms ? kpmc_ksyms_find(r->ksyms, addr) : NULL;

	fr->kernel = 1;
	fr->name = s ? s->name : "[kernel]";
	fr->object = s && s->module[0] ? s->module : "kernel";
}

/* One stack: its frames outermost first (user, then kernel), counted. */
static int count_stack(struct report *r, const struct kpmc_stack *s)
{
	static struct kpmc_frame frames[KPMC_CALLSTACK_MAX_FRAMES];
	unsigned int n = 0, i;

	if (!s->nr_kernel && !s->nr_user) {
		r->empty++;
		return 0;
	}
	/* The first address of a mode is where it was interrupted; the others return there. */
	for (i = s->nr_user; i-- > 0; n++)
		user_frame(r, s->pid, i ? s->user[i] - 1 : s->user[i], n, &frames[n]);
	for (i = s->nr_kernel; i-- > 0; n++)
		kernel_frame(r, i ? s->kernel[i] - 1 : s->kernel[i], &frames[n]);
	r->stacks++;
	return kpmc_fold_add(r->fold, frames, n);
}

/* Each line of the trace to fn; the first error (the line named) ends it. */
static int each_line(struct report *r, FILE *in, int (*fn)(struct report *, struct kpmc_trace_line *))
{
	static struct kpmc_trace_line tl;
	unsigned long lineno = 0;
	char *line = NULL, why[256];
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	while ((n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (kpmc_parse_trace_line(line, &tl, why, sizeof(why))) {
			fprintf(stderr, "kpmc: report: %s:%lu: %s\n", r->trace, lineno, why);
			rc = 2;
			break;
		}
		rc = fn(r, &tl);
		if (rc) {
			fprintf(stderr, "kpmc: report: out of memory at %s:%lu\n", r->trace, lineno);
			break;
		}
	}
	free(line);
	return rc;
}

static int first_pass(struct report *r, struct kpmc_trace_line *tl)
{
	switch (tl->kind) {
	case KPMC_LINE_MAP:
		return add_mapping(r, &tl->map) ? 1 : 0;
	case KPMC_LINE_KSYM:
		if (kpmc_ksyms_add(r->ksyms, tl->ksym.start, tl->ksym.end, tl->ksym.name, tl->ksym.module))
			return 1;
		r->nksyms++;
		return 0;
	case KPMC_LINE_LOST:
		r->lost += tl->lost;
		return 0;
	case KPMC_LINE_STACK_PROBLEM:
		r->problems++;
		return 0;
	default:
		return 0;
	}
}

static int second_pass(struct report *r, struct kpmc_trace_line *tl)
{
	if (tl->kind != KPMC_LINE_STACK)
		return 0;
	return count_stack(r, &tl->stack) ? 1 : 0;
}

static int read_kallsyms(struct report *r, const char *path)
{
	char line[512], why[200];
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f) {
		fprintf(stderr, "kpmc: report: --kallsyms %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), f))
		if (kpmc_ksyms_add_kallsyms_line(r->ksyms, line, why, sizeof(why))) {
			fprintf(stderr, "kpmc: report: --kallsyms %s: %s\n", path, why);
			rc = 2;
			break;
		}
	fclose(f);
	r->nksyms = kpmc_ksyms_count(r->ksyms);
	return rc;
}

static void print_folded(struct report *r, FILE *out)
{
	size_t n, i;
	const struct kpmc_fold_stack *st = kpmc_fold_stacks(r->fold, &n);

	for (i = 0; i < n; i++)
		fprintf(out, "%s %lu\n", st[i].folded, st[i].samples);
}

static void print_table(struct report *r, FILE *out, unsigned long rows)
{
	size_t n, i;
	const struct kpmc_fold_function *fn = kpmc_fold_functions(r->fold, &n);
	double all = (double)kpmc_fold_samples(r->fold);

	fprintf(out, "# kpmc report of %s: %llu samples with a call stack, %llu with no frame, %llu given up (parts missing or malformed), %llu records lost\n",
		r->trace, r->stacks, r->empty, r->problems, r->lost);
	fprintf(out, "# total: samples in the function or its callees; self: samples in the function itself\n");
	fprintf(out, "%9s %7s %9s %7s  %-4s %-40s %s\n", "total", "%total", "self", "%self", "mode",
		"function", "object");
	for (i = 0; i < n && (!rows || i < rows); i++)
		fprintf(out, "%9lu %6.2f%% %9lu %6.2f%%  %-4s %-40s %s\n", fn[i].total,
			100.0 * (double)fn[i].total / all, fn[i].self, 100.0 * (double)fn[i].self / all,
			fn[i].kernel ? "[k]" : "[.]", fn[i].name, fn[i].object);
}

static void free_report(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++) {
		kpmc_elf_close(r->files[i].elf);
		free(r->files[i].path);
	}
	free(r->files);
	free(r->maps);
	kpmc_ksyms_free(r->ksyms);
	kpmc_fold_free(r->fold);
}

int kpmc_report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "folded", no_argument, NULL, 'f' },
		{ "symfs", required_argument, NULL, 's' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report r = { 0 };
	const char *outfile = NULL, *kallsyms = NULL;
	unsigned long rows = 0;
	int opt, folded = 0, rc;
	FILE *in, *out = stdout;

	while ((opt = getopt_long(argc, argv, "+n:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			folded = 1;
			break;
		case 's':
			r.symfs = optarg;
			break;
		case 'k':
			kallsyms = optarg;
			break;
		case 'n': {
			char *end;

			errno = 0;
			rows = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || !rows) {
				fprintf(stderr, "kpmc: report: -n '%s': want a number of rows, at least 1\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'o':
			outfile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	r.trace = argv[optind];
	in = fopen(r.trace, "re");
	if (!in) {
		fprintf(stderr, "kpmc: report: %s: %s\n", r.trace, strerror(errno));
		return 2;
	}
	r.ksyms = kpmc_ksyms_new();
	r.fold = kpmc_fold_new();
	if (!r.ksyms || !r.fold) {
		fprintf(stderr, "kpmc: report: out of memory\n");
		fclose(in);
		free_report(&r);
		return 1;
	}
	rc = each_line(&r, in, first_pass);
	if (!rc && kallsyms)
		rc = read_kallsyms(&r, kallsyms);
	if (!rc) {
		if (r.nmaps > 1)
			qsort(r.maps, r.nmaps, sizeof(*r.maps), by_pid_order);
		kpmc_ksyms_sort(r.ksyms);
		rewind(in);
		rc = each_line(&r, in, second_pass);
	}
	fclose(in);
	if (!rc && outfile && !(out = fopen(outfile, "w"))) {
		fprintf(stderr, "kpmc: report: -o %s: %s\n", outfile, strerror(errno));
		rc = 2;
	}
	if (!rc && !r.stacks && !r.empty)
		fprintf(stderr, "kpmc: report: %s has no stack lines (record with -o FILE and fmt=callstack on a sampling set)\n",
			r.trace);
	if (!rc) {
		if (folded)
			print_folded(&r, out);
		else
			print_table(&r, out, rows);
		if (out != stdout && fclose(out)) {
			fprintf(stderr, "kpmc: report: -o %s: %s\n", outfile, strerror(errno));
			rc = 1;
		}
	}
	free_report(&r);
	return rc;
}
