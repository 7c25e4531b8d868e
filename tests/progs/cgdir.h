/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup test programs' moves: a process put into a cgroup v2
 * directory, and the directory the calling process started in.
 */
#ifndef KPMC_TEST_CGDIR_H
#define KPMC_TEST_CGDIR_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_pid(const char *dir, pid_t pid)
{
	char path[600], v[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = snprintf(v, sizeof(v), "%d", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, v, (size_t)n) != n) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

/* This process's own cgroup directory ("0::/PATH" of /proc/self/cgroup). */
static void own_dir(char *out, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "0::", 3)) {
		fprintf(stderr, "no cgroup v2 line in /proc/self/cgroup\n");
		exit(1);
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	snprintf(out, len, "/sys/fs/cgroup%s", strcmp(line + 3, "/") ? line + 3 : "");
}

#endif
