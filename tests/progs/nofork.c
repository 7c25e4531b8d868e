// SPDX-License-Identifier: GPL-2.0
/*
 * nofork: kpmc's mappings (the /proc/kpmc/self page, the session's ring:
 * control page and records) are not inherited by fork, and the process
 * cannot make them so with madvise(MADV_DOFORK). It tries on each mapping,
 * then forks; the child counts its mappings of kpmc's files:
 *
 *   nofork dofork self=E ctrl=E data=E child self=S ring=R
 *
 * E: "EINVAL" when madvise refused, "0" when it was accepted (or another
 * errno name); S, R: the child's /proc/self/maps lines naming
 * /proc/kpmc/self and /proc/kpmc/monitor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>
#include <uapi/linux/kpmc.h>

static void die(const char *what)
{
	fprintf(stderr, "nofork: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(int fd, const char *file, const char *s)
{
	char path[64];
	int own = fd < 0;

	if (own) {
		snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
		fd = open(path, O_WRONLY);
	}
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(file);
	if (own)
		close(fd);
}

static void *map(int fd, size_t len, int prot, off_t off, const char *what)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		die(what);
	return p;
}

/* madvise(MADV_DOFORK): "0" if accepted, else the errno's name. */
static const char *dofork(void *p, size_t len)
{
	static char other[3][16];
	static int n;

	if (!madvise(p, len, MADV_DOFORK))
		return "0";
	if (errno == EINVAL)
		return "EINVAL";
	snprintf(other[n % 3], sizeof(other[0]), "errno%d", errno);
	return other[n++ % 3];
}

static int maps_of(const char *file)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, file))
			n++;
	fclose(f);
	return n;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct kpmc_ring_control *ctrl;
	const char *e_self, *e_ctrl, *e_data;
	void *self, *data;
	int mon, fd, status;
	pid_t pid;

	mon = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (mon < 0)
		die("/proc/kpmc/monitor");
	put(mon, "monitor", "ring=64");
	put(-1, "config", "pmc0");
	put(-1, "enable", "1");
	fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("/proc/kpmc/self");
	self = map(fd, page, PROT_READ, 0, "mmap /proc/kpmc/self");
	close(fd);
	ctrl = map(mon, page, PROT_READ | PROT_WRITE, 0, "mmap of the control page");
	data = map(mon, ctrl->data_size, PROT_READ, (off_t)ctrl->data_offset,
		   "mmap of the records");
	e_self = dofork(self, page);
	e_ctrl = dofork((void *)ctrl, page);
	e_data = dofork(data, ctrl->data_size);
	printf("nofork dofork self=%s ctrl=%s data=%s", e_self, e_ctrl, e_data);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		printf(" child self=%d ring=%d\n", maps_of("/proc/kpmc/self"),
		       maps_of("/proc/kpmc/monitor"));
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the child");
	put(-1, "enable", "0");
	close(mon);
	return 0;
}
