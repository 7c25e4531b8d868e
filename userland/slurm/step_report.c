// SPDX-License-Identifier: GPL-2.0
/* A counted step's files (see step_report.h). */
#include "step_report.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/textput.h"

int kpmc_step_report_name(const struct kpmc_step_report *r, const char *suffix, char *out,
			  size_t len)
{
	int n = snprintf(out, len, "kpmc-%u.%s.%s%s", r->job, r->step, r->node, suffix);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int kpmc_step_report_csv(const struct kpmc_step_report *r, char *buf, size_t len)
{
	const struct kpmc_cgroup_count *c = r->count;
	size_t used = 0;

	put(buf, len, &used, "job,step,node,event,count\n");
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++)
		if (c->counter_name[i][0])
			put(buf, len, &used, "%u,%s,%s,%s,%llu\n", r->job, r->step, r->node,
			    c->counter_name[i], (unsigned long long)c->counts[i]);
	put(buf, len, &used, "%u,%s,%s,run_ns,%llu\n", r->job, r->step, r->node,
	    (unsigned long long)c->run_ns);
	return used < len ? (int)used : -1;
}

int kpmc_step_report_json(const struct kpmc_step_report *r, char *buf, size_t len)
{
	const struct kpmc_cgroup_count *c = r->count;
	const char *sep = "";
	size_t used = 0;

	/* Every string here is the plugin's own or checked (events: kpmc_step_parse_option). */
	put(buf, len, &used,
	    "{\"job\":%u,\"step\":\"%s\",\"node\":\"%s\",\"nodeid\":%u,\"uid\":%u,\"events\":\"%s\",\"counts\":{",
	    r->job, r->step, r->node, r->nodeid, (unsigned int)r->uid, r->events);
	for (unsigned int i = 0; i < KPMC_MAX_COUNTERS; i++) {
		if (!c->counter_name[i][0])
			continue;
		put(buf, len, &used, "%s\"%s\":%llu", sep, c->counter_name[i],
		    (unsigned long long)c->counts[i]);
		sep = ",";
	}
	put(buf, len, &used, "},\"run_ns\":%llu,\"records\":%llu,\"lost\":%llu}\n",
	    (unsigned long long)c->run_ns, (unsigned long long)c->records,
	    (unsigned long long)c->lost);
	return used < len ? (int)used : -1;
}

/* All of text to fd: 0 or -errno. */
static int write_all(int fd, const char *text)
{
	size_t n = strlen(text);

	while (n) {
		ssize_t w = write(fd, text, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		text += w;
		n -= (size_t)w;
	}
	return 0;
}

int kpmc_step_write_as(uid_t uid, gid_t gid, const char *dir, const char *name, const char *text,
		       char *err, size_t len)
{
	int pipefd[2], st, e = 0;
	pid_t pid;

	if (pipe(pipefd)) {
		snprintf(err, len, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		int dfd, fd;

		close(pipefd[0]);
		/* The user's own credentials, groups first (setuid ends the right to change them). */
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid) || (uid && setuid(0) == 0))
			e = EPERM;
		if (!e) {
			dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			fd = dfd < 0 ? -1 : openat(dfd, name,
				O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (fd < 0)
				e = errno;
			else
				e = -write_all(fd, text);
			if (fd >= 0 && close(fd) && !e)
				e = errno;
		}
		if (write(pipefd[1], &e, sizeof(e)) != sizeof(e))
			_exit(2);
		_exit(e ? 1 : 0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &e, sizeof(e)) != sizeof(e))
		e = EIO;
	close(pipefd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (e) {
		snprintf(err, len, "%s/%s as uid %u: %s", dir, name, (unsigned int)uid, strerror(e));
		return -1;
	}
	return 0;
}

int kpmc_step_spool(const char *spool, const char *name, const char *text, char *err, size_t len)
{
	char tmp[256], path[256];
	struct stat st;
	int fd, e;

	if (mkdir(spool, 0755) && errno != EEXIST) {
		snprintf(err, len, "%s: %s", spool, strerror(errno));
		return -1;
	}
	if (lstat(spool, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, len, "%s: not a directory of root's that only root can write", spool);
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/%s", spool, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", spool, name) >= (int)sizeof(tmp)) {
		snprintf(err, len, "%s/%s: name too long", spool, name);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, len, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	e = write_all(fd, text);
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e) {
		unlink(tmp);
		snprintf(err, len, "%s: %s", path, strerror(-e));
		return -1;
	}
	return 0;
}
