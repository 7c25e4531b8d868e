// SPDX-License-Identifier: GPL-2.0
/*
 * cgwork CGDIR N: known user-mode work inside and outside the cgroup v2
 * directory CGDIR, for per-cgroup counts (kpmc -G, perf's cgroup events):
 *   - two processes are moved into CGDIR by this process while they wait on
 *     a pipe (no task is moved while it runs), then spin N and 2N iterations
 *     (2N and 4N user instructions: spin.h's loop) there;
 *   - a third spins N outside, is moved into CGDIR by this process while it
 *     waits on a pipe, spins 3N inside, is moved back while it waits again,
 *     and spins N outside;
 *   - this process spins N outside.
 * Inside: 12N user instructions, plus the few hundred of libc between the
 * steps. It prints "cgwork inside=12N outside=6N".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "spin.h"
#include "cgdir.h"

/*
 * ready: a child waits (its turn to be moved). Each child has a go pipe of
 * its own: a byte meant for one must never let another run before its move.
 */
static int ready[2];

/* A process moved into dir while it waits, then let go: it spins n there. */
static pid_t joiner(const char *dir, unsigned long n)
{
	int go[2];
	pid_t pid;
	char c = 'j';

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		spin(n);
		_exit(0);
	}
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		return -1;
	put_pid(dir, pid);
	if (write(go[1], &c, 1) != 1)
		return -1;
	close(go[0]);
	close(go[1]);
	return pid;
}

int main(int argc, char **argv)
{
	unsigned long n;
	int go[2], st, ok = 1;
	char home[512], c = 'g';
	pid_t a, b, m;

	if (argc != 3 || !(n = strtoul(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: cgwork CGDIR N\n");
		return 2;
	}
	own_dir(home, sizeof(home));
	if (pipe(ready) || pipe(go))
		return 1;
	a = joiner(argv[1], n);
	b = joiner(argv[1], 2 * n);
	m = fork();
	if (m == 0) {
		spin(n);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		spin(3 * n);
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		spin(n);
		_exit(0);
	}
	if (a < 0 || b < 0 || m < 0)
		return 1;
	/* Moved while it waits: it switches in again already moved. */
	if (read(ready[0], &c, 1) != 1)
		return 1;
	put_pid(argv[1], m);
	if (write(go[1], &c, 1) != 1 || read(ready[0], &c, 1) != 1)
		return 1;
	put_pid(home, m);
	if (write(go[1], &c, 1) != 1)
		return 1;
	spin(n);
	while (waitpid(-1, &st, 0) > 0)
		ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
	printf("cgwork inside=%lu outside=%lu\n", 12 * n, 6 * n);
	return ok ? 0 : 1;
}
