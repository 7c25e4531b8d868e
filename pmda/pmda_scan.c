// SPDX-License-Identifier: GPL-2.0
/* Processes the configuration selects, found in /proc (see pmda_scan.h). */
#include "pmda_scan.h"

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

/* SLURM_JOB_ID=N among the NUL-separated variables of env. */
static void slurm_job(const char *env, size_t n, char *job, size_t len)
{
	const char *key = "SLURM_JOB_ID=";
	size_t kl = strlen(key);

	job[0] = '\0';
	for (size_t i = 0; i < n; i += strlen(env + i) + 1)
		if (!strncmp(env + i, key, kl)) {
			snprintf(job, len, "%.*s", (int)len - 1, env + i + kl);
			return;
		}
}

int kpmc_pmda_proc_info(const char *proc, pid_t pid, struct kpmc_pmda_proc_info *info)
{
	char path[96], buf[8192], *p;
	ssize_t n;

	memset(info, 0, sizeof(*info));
	snprintf(path, sizeof(path), "%s/%d/comm", proc, pid);
	if (slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(info->comm, sizeof(info->comm), "%.*s", (int)sizeof(info->comm) - 1, buf);

	/* Field 22 of stat, after the command in parentheses (which may hold anything). */
	snprintf(path, sizeof(path), "%s/%d/stat", proc, pid);
	if (slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
			 " %*d %*d %*d %*d %*d %*d %llu", &info->start) != 1)
		return -1;

	snprintf(path, sizeof(path), "%s/%d/status", proc, pid);
	if (slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%u", &info->uid) != 1)
		return -1;

	/* cgroup v2: the "0::/path" line. */
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc, pid);
	if (slurp(path, buf, sizeof(buf)) >= 0) {
		for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
			if (!strncmp(p, "0::", 3))
				snprintf(info->cgroup, sizeof(info->cgroup), "%.*s", (int)sizeof(info->cgroup) - 1, p + 3);
	}
	snprintf(path, sizeof(path), "%s/%d/environ", proc, pid);
	n = slurp(path, buf, sizeof(buf));
	if (n > 0)
		slurm_job(buf, (size_t)n, info->job, sizeof(info->job));
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

int kpmc_pmda_selected(const struct kpmc_pmda_config *c, const uid_t *uids, pid_t pid,
		       const struct kpmc_pmda_proc_info *info)
{
	for (unsigned int i = 0; i < c->nsel; i++) {
		const struct kpmc_pmda_selector *s = &c->sel[i];

		switch (s->kind) {
		case KPMC_SEL_COMM:
			if (!strcmp(info->comm, s->text))
				return 1;
			break;
		case KPMC_SEL_PID:
			if ((unsigned long)pid == s->num)
				return 1;
			break;
		case KPMC_SEL_CGROUP:
			if (info->cgroup[0] && cgroup_under(info->cgroup, s->text))
				return 1;
			break;
		case KPMC_SEL_USER:
			if (uids[i] != (uid_t)-1 && info->uid == uids[i])
				return 1;
			break;
		case KPMC_SEL_UID:
			if ((unsigned long)info->uid == s->num)
				return 1;
			break;
		}
	}
	return 0;
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

int kpmc_pmda_scan(const char *proc, const struct kpmc_pmda_config *c, const uid_t *uids,
		   pid_t skip,
		   void (*fn)(pid_t pid, pid_t tid, const struct kpmc_pmda_proc_info *info, void *arg),
		   void *arg)
{
	DIR *d = opendir(proc), *td;
	struct dirent *e, *te;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct kpmc_pmda_proc_info info;
		char path[96];
		pid_t pid;

		if (!numeric(e->d_name))
			continue;
		pid = (pid_t)atoi(e->d_name);
		if (pid == skip || kpmc_pmda_proc_info(proc, pid, &info) ||
		    !kpmc_pmda_selected(c, uids, pid, &info))
			continue;
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
	return found;
}
