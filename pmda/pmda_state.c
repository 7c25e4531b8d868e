// SPDX-License-Identifier: GPL-2.0
/* pmdakpmc's totals across restarts (see pmda_state.h). */
#include "pmda_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Version 1 had no uid and no step. */
#define STATE_MAGIC_V1 "kpmc-pmda-state 1"
#define STATE_MAGIC "kpmc-pmda-state 2"

/* Names and paths go in one field: "-" for empty, no blanks (they become '?'). */
static void put_field(FILE *f, const char *s)
{
	if (!*s) {
		fputs(" -", f);
		return;
	}
	fputc(' ', f);
	for (; *s; s++)
		fputc((*s == ' ' || *s == '\t' || *s == '\n') ? '?' : *s, f);
}

static void put_totals(FILE *f, const struct kpmc_pmda_totals *t)
{
	fprintf(f, " %" PRIu64 " %" PRIu64, t->run_ns, t->records);
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
		fprintf(f, " %" PRIu64, t->pmc[i]);
	for (unsigned int i = 0; i < KPMC_MAX_VIRT; i++)
		fprintf(f, " %" PRIu64, t->virt[i]);
}

static void put_table(FILE *f, char kind, const struct kpmc_pmda_task_table *t)
{
	for (unsigned int i = 0; i < t->n; i++) {
		const struct kpmc_pmda_task *k = &t->v[i];

		fprintf(f, "%c %u %u %u %lld %" PRIu64 " %u", kind, k->id, k->pid, k->live_threads,
			(long long)k->ended, k->start, k->uid);
		put_field(f, k->comm);
		put_field(f, k->job);
		put_field(f, k->step);
		put_field(f, k->cgroup);
		put_totals(f, &k->t);
		fputc('\n', f);
	}
}

int kpmc_pmda_state_due(long long last_ms, long long now_ms, unsigned int save_s, int dirty)
{
	return dirty && (last_ms < 0 || now_ms - last_ms >= (long long)save_s * 1000);
}

/* The directory of path, flushed: a rename in it survives a crash. */
static int sync_dir(const char *path)
{
	char dir[4200];
	char *slash;
	int fd, err;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	err = fsync(fd);
	close(fd);
	return err;
}

int kpmc_pmda_state_save(const char *path, const char *sig, const struct kpmc_pmda_counts *c)
{
	char tmp[4200];
	FILE *f;
	int bad, fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* Per-process counts: for the agent only, whatever pmcd lets clients read. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		remove(tmp);
		return -1;
	}
	fprintf(f, "%s\nsig %s\nlost %" PRIu64 " masks %u %u\n", STATE_MAGIC, sig, c->lost,
		c->counter_mask, c->virt_mask);
	put_table(f, 'P', &c->procs);
	put_table(f, 'T', &c->threads);
	for (unsigned int i = 0; i < 256; i++) {
		if (!c->cpu_seen[i])
			continue;
		fprintf(f, "C %u", i);
		put_totals(f, &c->cpu[i]);
		fputc('\n', f);
	}
	/* On disk before it replaces the old file: a crash leaves one or the other whole. */
	bad = fflush(f) || ferror(f) || fsync(fileno(f));
	if (fclose(f) || bad || rename(tmp, path)) {
		int e = errno;

		remove(tmp);
		errno = e;
		return -1;
	}
	return sync_dir(path);
}

/* Whitespace-separated unsigned numbers from *p into v[0..n-1]; 0 or -1. */
static int take_numbers(char **p, uint64_t *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		char *end;

		while (**p == ' ')
			(*p)++;
		if (**p < '0' || **p > '9')
			return -1;
		errno = 0;
		v[i] = strtoull(*p, &end, 10);
		if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
			return -1;
		*p = end;
	}
	return 0;
}

static int take_field(char **p, char *out, size_t len)
{
	size_t n;

	while (**p == ' ')
		(*p)++;
	n = strcspn(*p, " \n");
	if (!n || n >= len)
		return -1;
	memcpy(out, *p, n);
	out[n] = '\0';
	if (!strcmp(out, "-"))
		out[0] = '\0';
	*p += n;
	return 0;
}

static int take_totals(char **p, struct kpmc_pmda_totals *t)
{
	uint64_t v[2 + KPMC_MAX_COUNTERS + KPMC_MAX_VIRT];

	if (take_numbers(p, v, sizeof(v) / sizeof(v[0])))
		return -1;
	t->run_ns = v[0];
	t->records = v[1];
	memcpy(t->pmc, v + 2, sizeof(t->pmc));
	memcpy(t->virt, v + 2 + KPMC_MAX_COUNTERS, sizeof(t->virt));
	return 0;
}

static int restore_task(struct kpmc_pmda_task_table *t, char *p, int version)
{
	struct kpmc_pmda_task k;
	uint64_t v[6] = { 0 };

	memset(&k, 0, sizeof(k));
	if (take_numbers(&p, v, version == 1 ? 5 : 6) || take_field(&p, k.comm, sizeof(k.comm)) ||
	    take_field(&p, k.job, sizeof(k.job)) ||
	    (version > 1 && take_field(&p, k.step, sizeof(k.step))) ||
	    take_field(&p, k.cgroup, sizeof(k.cgroup)) || take_totals(&p, &k.t) || v[5] > UINT32_MAX)
		return -1;
	k.id = (uint32_t)v[0];
	k.pid = (uint32_t)v[1];
	k.live_threads = (unsigned int)v[2];
	k.ended = (time_t)v[3];
	k.start = v[4];
	k.uid = (uint32_t)v[5];
	/* Whatever had ended before the restart has had its last record. */
	k.final = k.ended != 0;
	return kpmc_pmda_table_append(t, &k);
}

int kpmc_pmda_state_load(const char *path, const char *sig, struct kpmc_pmda_counts *c)
{
	char line[4096], want[1100];
	FILE *f = fopen(path, "r");
	int n = 0, bad = 0, version = 2;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "sig %s\n", sig);
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (!strcmp(line, STATE_MAGIC_V1 "\n"))
		version = 1;
	if ((version == 2 && strcmp(line, STATE_MAGIC "\n")) ||
	    !fgets(line, sizeof(line), f) || strcmp(line, want)) {
		fclose(f);
		return 0;	/* another configuration's (or no) totals: start from zero */
	}
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "lost %" SCNu64 " masks %u %u", &c->lost, &c->counter_mask, &c->virt_mask) != 3)
		bad = 1;
	while (!bad && fgets(line, sizeof(line), f)) {
		char *p = line + 2;

		if (!strchr(line, '\n') || line[1] != ' ') {
			bad = 1;
		} else if (line[0] == 'P' || line[0] == 'T') {
			bad = restore_task(line[0] == 'P' ? &c->procs : &c->threads, p, version);
			n++;
		} else if (line[0] == 'C') {
			uint64_t cpu;

			bad = take_numbers(&p, &cpu, 1) || cpu > 255 || take_totals(&p, &c->cpu[cpu]);
			if (!bad)
				c->cpu_seen[cpu] = 1;
		} else {
			bad = 1;
		}
	}
	fclose(f);
	if (bad) {
		kpmc_pmda_counts_free(c);
		return -1;
	}
	c->changed = 1;
	return n;
}
