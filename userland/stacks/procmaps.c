// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "procmaps.h"
#include "common/elfsyms.h"
#include "common/growarray.h"
#include "stackline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A mapping already in the trace. */
struct written {
	uint64_t start, end, offset;
	char *path;
};

struct proc {
	pid_t pid;
	int gone;			/* its maps could not be read: it exited */
	struct written *w;
	size_t nw, capw;
};

/* A file's build-id, read once per file version. */
struct build_id {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	char hex[KPMC_BUILD_ID_HEX + 1];
};

struct kpmc_procmaps {
	struct proc *procs;		/* sorted by pid */
	size_t nprocs, capprocs;
	struct build_id *ids;
	size_t nids, capids;
};

struct kpmc_procmaps *kpmc_procmaps_new(void)
{
	return calloc(1, sizeof(struct kpmc_procmaps));
}

static void free_proc(struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nw; i++)
		free(p->w[i].path);
	free(p->w);
	p->w = NULL;
	p->nw = p->capw = 0;
}

void kpmc_procmaps_free(struct kpmc_procmaps *pm)
{
	size_t i;

	if (!pm)
		return;
	for (i = 0; i < pm->nprocs; i++)
		free_proc(&pm->procs[i]);
	for (i = 0; i < pm->nids; i++)
		free(pm->ids[i].path);
	free(pm->procs);
	free(pm->ids);
	free(pm);
}

/* The index pid has, or would have, in the sorted array. */
static size_t proc_slot(const struct kpmc_procmaps *pm, pid_t pid)
{
	size_t lo = 0, hi = pm->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kpmc_procmaps_watch(struct kpmc_procmaps *pm, pid_t pid)
{
	size_t i = proc_slot(pm, pid);

	if (i < pm->nprocs && pm->procs[i].pid == pid)
		return 0;
	if (grow_array((void **)&pm->procs, &pm->capprocs, pm->nprocs + 1, sizeof(*pm->procs), 16))
		return -1;
	memmove(&pm->procs[i + 1], &pm->procs[i], (pm->nprocs - i) * sizeof(pm->procs[0]));
	memset(&pm->procs[i], 0, sizeof(pm->procs[i]));
	pm->procs[i].pid = pid;
	pm->nprocs++;
	return 0;
}

/* path's build-id ("" if none or unreadable), from the cache while the file is unchanged. */
static const char *build_id_of(struct kpmc_procmaps *pm, const char *path)
{
	struct build_id *b;
	struct stat st;
	size_t i;

	if (path[0] != '/' || stat(path, &st))
		return "";
	for (i = 0; i < pm->nids; i++) {
		b = &pm->ids[i];
		if (b->dev == st.st_dev && b->ino == st.st_ino && b->mtime.tv_sec == st.st_mtim.tv_sec &&
		    b->mtime.tv_nsec == st.st_mtim.tv_nsec && !strcmp(b->path, path))
			return b->hex;
	}
	if (grow_array((void **)&pm->ids, &pm->capids, pm->nids + 1, sizeof(*pm->ids), 16))
		return "";
	b = &pm->ids[pm->nids];
	b->path = strdup(path);
	if (!b->path)
		return "";
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->mtime = st.st_mtim;
	if (kpmc_elf_file_build_id(path, b->hex, sizeof(b->hex)))
		b->hex[0] = '\0';
	pm->nids++;
	return b->hex;
}

static int already_written(const struct proc *p, uint64_t start, uint64_t end, uint64_t offset,
			   const char *path)
{
	size_t i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].start == start && p->w[i].end == end && p->w[i].offset == offset &&
		    !strcmp(p->w[i].path, path))
			return 1;
	return 0;
}

static int remember(struct proc *p, uint64_t start, uint64_t end, uint64_t offset, const char *path)
{
	if (grow_array((void **)&p->w, &p->capw, p->nw + 1, sizeof(*p->w), 16))
		return -1;
	p->w[p->nw].path = strdup(path);
	if (!p->w[p->nw].path)
		return -1;
	p->w[p->nw].start = start;
	p->w[p->nw].end = end;
	p->w[p->nw].offset = offset;
	p->nw++;
	return 0;
}

/* One process's new executable mappings as map lines; -1 if it is gone. */
static int read_proc(struct kpmc_procmaps *pm, struct proc *p, FILE *out, unsigned int *lines)
{
	static struct kpmc_map_line m;	/* a path's worth: not on the stack */
	char path[64], line[KPMC_MAP_PATH + 128], text[KPMC_MAP_PATH + 256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], *name;
		size_t n;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perms, &off, &pos) < 4 || !pos)
			continue;
		if (!strchr(perms, 'x'))
			continue;
		name = line + pos;
		name += strspn(name, " \t");
		name[strcspn(name, "\n")] = '\0';
		/* A file replaced since it was mapped: the path names another file now. */
		n = strlen(name);
		if (n > 10 && !strcmp(name + n - 10, " (deleted)"))
			name[n - 10] = '\0';
		if (!name[0])
			name = "[anon]";
		if (already_written(p, s, e, off, name))
			continue;
		if (remember(p, s, e, off, name))
			break;
		m.pid = (uint32_t)p->pid;
		m.start = s;
		m.end = e;
		m.offset = off;
		snprintf(m.build_id, sizeof(m.build_id), "%s", build_id_of(pm, name));
		snprintf(m.path, sizeof(m.path), "%s", name);
		kpmc_format_map(&m, text, sizeof(text));
		fprintf(out, "%s\n", text);
		(*lines)++;
	}
	fclose(f);
	return 0;
}

unsigned int kpmc_procmaps_read(struct kpmc_procmaps *pm, FILE *out)
{
	unsigned int lines = 0;
	size_t i;

	/*
	 * A process gone stays known, as gone: its records still in the ring
	 * must not bring it back (its pid reused meanwhile is not read).
	 */
	for (i = 0; i < pm->nprocs; i++) {
		if (pm->procs[i].gone || !read_proc(pm, &pm->procs[i], out, &lines))
			continue;
		pm->procs[i].gone = 1;
		free_proc(&pm->procs[i]);
	}
	return lines;
}
