// SPDX-License-Identifier: GPL-2.0
/* Processes the configuration selects, found in /proc (see pmda_scan.h). */
#include "pmda_scan.h"
#include "common/growarray.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole of a small /proc file into buf (NUL-terminated); its length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

static ssize_t slurp_of(const char *proc, pid_t pid, const char *file, char *buf, size_t len)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%d/%s", proc, pid, file);
	return slurp(path, buf, len);
}

/*
 * stat: the command between the first '(' and the last ')' (it may hold
 * anything, ')' included), and field 22, the start time.
 */
static int read_stat(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info)
{
	char buf[1024], *open_paren, *close_paren;
	size_t n;

	if (slurp_of(proc, pid, "stat", buf, sizeof(buf)) < 0)
		return -1;
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	n = (size_t)(close_paren - open_paren - 1);
	if (n >= sizeof(info->comm))
		n = sizeof(info->comm) - 1;
	memcpy(info->comm, open_paren + 1, n);
	info->comm[n] = '\0';
	if (sscanf(close_paren + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
		   " %*d %*d %*d %*d %*d %*d %llu", &info->start) != 1)
		return -1;
	return 0;
}

/* status: the real and effective uids. */
static int read_status(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info)
{
	char buf[4096], *p;
	unsigned int uid, euid;

	if (slurp_of(proc, pid, "status", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%u %u", &uid, &euid) != 2)
		return -1;
	info->uid = (uid_t)uid;
	info->euid = (uid_t)euid;
	return 0;
}

/* "[NODE_]slurmstepd.scope" */
static int stepd_scope(const char *c, size_t n)
{
	static const char scope[] = "slurmstepd.scope";
	size_t sl = sizeof(scope) - 1;

	return n >= sl && !memcmp(c + n - sl, scope, sl) && (n == sl || c[n - sl - 1] == '_');
}

/* "slurm" or "slurm_NODE" (cgroup v1) */
static int slurm_root(const char *c, size_t n)
{
	return (n == 5 && !memcmp(c, "slurm", 5)) || (n > 6 && !memcmp(c, "slurm_", 6));
}

/* "PREFIX" followed by one or more of [0-9] (digits) or [A-Za-z0-9_] (names) only. */
static int component_value(const char *c, size_t n, const char *prefix, int digits_only,
			   char *out, size_t len)
{
	size_t pl = strlen(prefix);

	if (n <= pl || memcmp(c, prefix, pl) || n - pl >= len)
		return 0;
	for (size_t i = pl; i < n; i++)
		if (digits_only ? !isdigit((unsigned char)c[i]) :
		    !(isalnum((unsigned char)c[i]) || c[i] == '_'))
			return 0;
	memcpy(out, c + pl, n - pl);
	out[n - pl] = '\0';
	return 1;
}

/* One cgroup path: the job below slurmstepd's scope (v2) or /slurm/uid_U (v1). */
static int slurm_path(const char *path, size_t plen, int v2, char *job, size_t jlen, char *step,
		      size_t slen)
{
	const char *comp[6];
	size_t clen[6], nc = 0;
	const char *p = path, *end = path + plen;
	char tmp[64];
	size_t j;

	if (p == end || *p != '/')
		return 0;
	while (p < end && nc < 6) {
		const char *q;

		p++;
		q = memchr(p, '/', (size_t)(end - p));
		if (!q)
			q = end;
		comp[nc] = p;
		clen[nc++] = (size_t)(q - p);
		p = q;
	}
	if (v2) {
		/* /slurmstepd.scope/job_N or /system.slice/slurmstepd.scope/job_N */
		if (nc >= 2 && stepd_scope(comp[0], clen[0]))
			j = 1;
		else if (nc >= 3 && clen[0] == 12 && !memcmp(comp[0], "system.slice", 12) &&
			 stepd_scope(comp[1], clen[1]))
			j = 2;
		else
			return 0;
	} else {
		/* /slurm/uid_U/job_N */
		if (nc < 3 || !slurm_root(comp[0], clen[0]) ||
		    !component_value(comp[1], clen[1], "uid_", 1, tmp, sizeof(tmp)))
			return 0;
		j = 2;
	}
	if (!component_value(comp[j], clen[j], "job_", 1, job, jlen))
		return 0;
	if (j + 1 >= nc || !component_value(comp[j + 1], clen[j + 1], "step_", 0, step, slen))
		step[0] = '\0';
	return 1;
}

int kpmc_pmda_slurm_job(const char *text, char *job, size_t jlen, char *step, size_t slen)
{
	const char *line = text;

	job[0] = '\0';
	step[0] = '\0';
	/* Lines "ID:CONTROLLERS:PATH"; v2 is "0::PATH". */
	while (*line) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *c1 = memchr(line, ':', (size_t)(end - line));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;

		if (c2) {
			int v2 = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;

			if (slurm_path(c2 + 1, (size_t)(end - c2 - 1), v2, job, jlen, step, slen))
				return 1;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	job[0] = '\0';
	step[0] = '\0';
	return 0;
}

/* cgroup: the v2 path and the Slurm job. */
static int read_cgroup(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info)
{
	char buf[8192];
	const char *p;

	info->cgroup[0] = '\0';
	if (slurp_of(proc, pid, "cgroup", buf, sizeof(buf)) < 0)
		return -1;
	kpmc_pmda_slurm_job(buf, info->job, sizeof(info->job), info->step, sizeof(info->step));
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "0::", 3)) {
			size_t n = strcspn(p + 3, "\n");

			snprintf(info->cgroup, sizeof(info->cgroup), "%.*s",
				 (int)(n < sizeof(info->cgroup) ? n : sizeof(info->cgroup) - 1), p + 3);
			break;
		}
	return 0;
}

int kpmc_pmda_proc_start(const char *proc, pid_t pid, unsigned long long *start)
{
	struct kpmc_pmda_proc_info info;

	if (read_stat(proc, pid, &info))
		return -1;
	*start = info.start;
	return 0;
}

int kpmc_pmda_proc_info(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info)
{
	memset(info, 0, sizeof(*info));
	if (read_stat(proc, pid, info) || read_status(proc, pid, info))
		return -1;
	/* A process may have no cgroup file (no cgroup support): no path, no job. */
	read_cgroup(proc, pid, info);
	return 0;
}

/* path is prefix itself or below it. */
static int cgroup_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (!strcmp(prefix, "/"))
		return path[0] == '/';
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

static int owned_by(const struct kpmc_pmda_proc_info *info, uid_t want)
{
	return want != (uid_t)-1 && info->uid == want && info->euid == want;
}

/* What a selector needs of a process beyond its pid, comm and start time. */
enum { HAVE_UID = 1, HAVE_CGROUP = 2 };
#define NEED_UID	(-1)
#define NEED_CGROUP	(-2)

/*
 * 1: selected; 0: not; NEED_UID or NEED_CGROUP: the selectors decided so
 * far do not select it, and one still undecided needs that (the uids first:
 * status is cheaper than cgroup).
 */
static int match(const struct kpmc_pmda_config *c, const uid_t *uids, pid_t pid,
		 const struct kpmc_pmda_proc_info *info, unsigned int have)
{
	int need_uid = 0, need_cgroup = 0;

	for (unsigned int i = 0; i < c->nsel; i++) {
		const struct kpmc_pmda_selector *s = &c->sel[i];

		switch (s->kind) {
		case KPMC_SEL_COMM:
			if (strcmp(info->comm, s->text))
				break;
			if (!(have & HAVE_UID))
				need_uid = 1;
			else if (owned_by(info, s->owner[0] ? uids[i] : (uid_t)s->num))
				return 1;
			break;
		case KPMC_SEL_PID:
			if ((unsigned long)pid == s->num)
				return 1;
			break;
		case KPMC_SEL_CGROUP:
			if (!(have & HAVE_CGROUP))
				need_cgroup = 1;
			else if (info->cgroup[0] && cgroup_under(info->cgroup, s->text))
				return 1;
			break;
		case KPMC_SEL_USER:
			if (!(have & HAVE_UID))
				need_uid = 1;
			else if (owned_by(info, uids[i]))
				return 1;
			break;
		case KPMC_SEL_UID:
			if (!(have & HAVE_UID))
				need_uid = 1;
			else if (owned_by(info, (uid_t)s->num))
				return 1;
			break;
		}
	}
	return need_uid ? NEED_UID : need_cgroup ? NEED_CGROUP : 0;
}

int kpmc_pmda_selected(const struct kpmc_pmda_config *c, const uid_t *uids, pid_t pid,
		       const struct kpmc_pmda_proc_info *info)
{
	return match(c, uids, pid, info, HAVE_UID | HAVE_CGROUP) == 1;
}

static int numeric(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static struct kpmc_pmda_scan_entry *cache_find(const struct kpmc_pmda_scan_cache *cache, pid_t pid,
					       unsigned int *where)
{
	unsigned int lo = 0, hi = cache->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (cache->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (where)
		*where = lo;
	return lo < cache->n && cache->v[lo].pid == pid ? &cache->v[lo] : NULL;
}

/* The process's cgroup and job, read once in its life (pid and start time). */
static void cgroup_of(const char *proc, pid_t pid, struct kpmc_pmda_scan_cache *cache,
		      struct kpmc_pmda_proc_info *info)
{
	unsigned int at;
	struct kpmc_pmda_scan_entry *e = cache_find(cache, pid, &at);

	if (e && e->start == info->start) {
		e->seen = cache->gen;
	} else {
		if (read_cgroup(proc, pid, info))
			info->cgroup[0] = info->job[0] = info->step[0] = '\0';
		if (!e) {
			if (grow_array((void **)&cache->v, &cache->cap, (size_t)cache->n + 1,
				       sizeof(*cache->v), 64))
				return;	/* not cached: read again next time */
			memmove(&cache->v[at + 1], &cache->v[at], (cache->n - at) * sizeof(*e));
			cache->n++;
			e = &cache->v[at];
		}
		e->pid = pid;
		e->start = info->start;
		e->seen = cache->gen;
		memcpy(e->job, info->job, sizeof(e->job));
		memcpy(e->step, info->step, sizeof(e->step));
		memcpy(e->cgroup, info->cgroup, sizeof(e->cgroup));
		return;
	}
	memcpy(info->job, e->job, sizeof(info->job));
	memcpy(info->step, e->step, sizeof(info->step));
	memcpy(info->cgroup, e->cgroup, sizeof(info->cgroup));
}

int kpmc_pmda_scan(const char *proc, const struct kpmc_pmda_config *c, const uid_t *uids,
		   pid_t skip, struct kpmc_pmda_scan_cache *cache,
		   void (*fn)(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg),
		   void *arg)
{
	DIR *d = opendir(proc), *td;
	struct dirent *e, *te;
	unsigned int keep = 0;
	int found = 0;

	if (!d)
		return 0;
	cache->gen++;
	while ((e = readdir(d))) {
		struct kpmc_pmda_proc_info info;
		unsigned int have = 0;
		char path[4200];
		pid_t pid;
		int m;

		if (!numeric(e->d_name))
			continue;
		pid = (pid_t)atoi(e->d_name);
		memset(&info, 0, sizeof(info));
		if (pid == skip || read_stat(proc, pid, &info))
			continue;
		while ((m = match(c, uids, pid, &info, have)) < 0) {
			if (m == NEED_UID) {
				if (read_status(proc, pid, &info))
					break;
				have |= HAVE_UID;
			} else {
				cgroup_of(proc, pid, cache, &info);
				have |= HAVE_CGROUP;
			}
		}
		if (m != 1)
			continue;
		/* Selected: its owner and cgroup are what its labels say. */
		if (!(have & HAVE_UID) && read_status(proc, pid, &info))
			continue;
		if (!(have & HAVE_CGROUP))
			cgroup_of(proc, pid, cache, &info);
		found++;
		snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td)))
			if (numeric(te->d_name))
				fn(pid, (pid_t)atoi(te->d_name), &info, arg);
		closedir(td);
	}
	closedir(d);
	/* Processes gone (or not looked at again): forgotten. */
	for (unsigned int i = 0; i < cache->n; i++)
		if (cache->v[i].seen == cache->gen)
			cache->v[keep++] = cache->v[i];
	cache->n = keep;
	return found;
}

int kpmc_pmda_scan_info(const char *proc, const struct kpmc_pmda_scan_cache *cache, pid_t pid,
			struct kpmc_pmda_proc_info *info)
{
	const struct kpmc_pmda_scan_entry *e = cache_find(cache, pid, NULL);

	memset(info, 0, sizeof(*info));
	if (!e || read_stat(proc, pid, info) || info->start != e->start ||
	    read_status(proc, pid, info))
		return -1;
	memcpy(info->job, e->job, sizeof(info->job));
	memcpy(info->step, e->step, sizeof(info->step));
	memcpy(info->cgroup, e->cgroup, sizeof(info->cgroup));
	return 0;
}

int kpmc_pmda_scan_saw(const struct kpmc_pmda_scan_cache *cache, pid_t pid, unsigned long long start)
{
	const struct kpmc_pmda_scan_entry *e = cache_find(cache, pid, NULL);

	return e && e->seen == cache->gen && (!start || e->start == start);
}

void kpmc_pmda_scan_cache_free(struct kpmc_pmda_scan_cache *cache)
{
	free(cache->v);
	memset(cache, 0, sizeof(*cache));
}
