// SPDX-License-Identifier: GPL-2.0
/*
 * kpmcattack: what an unprivileged user tries against kpmc, each mode one
 * attempt, its outcome on one line.
 *
 *   kpmcattack attach PROCDIR PID SECONDS
 *	Through PROCDIR/kpmc (a procfs the caller reaches at any path, e.g.
 *	bound elsewhere before its own tmpfs went over /proc): a session,
 *	"pmc1=0x8,tbs=10" (user-mode instructions, a record per 10 ms), "pid=PID" to enable, then the
 *	records for SECONDS. Prints
 *	"kpmcattack attach=0 records=R instructions=I" or
 *	"kpmcattack attach=-1 errno=E".
 *   kpmcattack orphan RING PID
 *	A session with a ring of RING records, PID attached, and the program
 *	exits without reading: "kpmcattack orphan=0" or "orphan=-1 errno=E".
 *   kpmcattack reader SAMPLES
 *	No-loss mode, self-monitored with cycle-counter EBS (pmc0,ebs0=20000),
 *	then a second thread (monitored as the opener's child, not the
 *	opener) drains the ring while it works, producing more than the
 *	ring's high mark between two reads, until it has read SAMPLES EBS
 *	records of its own: "kpmcattack reader=0 samples=S lost=L" within
 *	20 s, else "kpmcattack reader=timeout samples=S".
 *   kpmcattack unpriv CMD CONFIG
 *	A session; the command CMD written to it ("-": none), then CONFIG
 *	and "1" to enable (self-monitoring): "kpmcattack unpriv cmd=R
 *	enable=E" with each write's result (0 or the errno).
 *   kpmcattack nlexec PROGRAM ARG
 *	A child process whose second thread, attached (pid=its tid), execs
 *	PROGRAM ARG: exec makes it the leader, with the process's number.
 *	Prints "kpmcattack nlexec child=C thread=T exit_pid=P exit_tid=X
 *	instructions=I" from the EXIT record of the exec'd program.
 *   kpmcattack inherit ITERATIONS
 *	No-loss mode (ring=64,noloss, cycle-counter EBS every 20,000), a
 *	child attached that inherited the session's file and spins
 *	ITERATIONS; the program exits at once without reading: "kpmcattack
 *	inherit child=C". Nobody reads: the child must not wait for a reader
 *	on the strength of holding the file.
 *   kpmcattack uring ITERATIONS
 *	The same session; the attached child first queues 64 io_uring
 *	timeouts (10 ms apart: each completion is task work that makes a
 *	signal look pending), then spins ITERATIONS; the program reads every
 *	200 ms until the child ends: "kpmcattack uring samples=S lost=L"
 *	(or "uring=-1 errno=E"; "uring=nosys": a kernel without io_uring).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#include "spin.h"

static const char *procdir = "/proc";

static int put_at(int fd, const char *file, const char *s)
{
	char path[256];
	int own = fd < 0, ok;

	snprintf(path, sizeof(path), "%s/kpmc/%s", procdir, file);
	if (own)
		fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	if (own) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return ok ? 0 : -1;
}

static int open_monitor(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/kpmc/monitor", procdir);
	return open(path, O_RDWR);
}

static unsigned long arg_ul(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "kpmcattack: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int attach(const char *dir, unsigned long pid, unsigned long seconds)
{
	struct kpmc_record rec[64];
	unsigned long long records = 0, instructions = 0;
	char req[64];
	double end;
	int fd;

	procdir = dir;
	fd = open_monitor();
	snprintf(req, sizeof(req), "pid=%lu", pid);
	if (fd < 0 || put_at(-1, "config", "pmc1=0x8,tbs=10") || put_at(-1, "enable", req)) {
		printf("kpmcattack attach=-1 errno=%d\n", errno);
		return 0;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	end = now_s() + seconds;
	while (now_s() < end) {
		ssize_t n = read(fd, rec, sizeof(rec));

		for (ssize_t i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
			records++;
			if (rec[i].counter_mask & (1u << 1))
				instructions += rec[i].counts[1];
		}
		usleep(20000);
	}
	printf("kpmcattack attach=0 records=%llu instructions=%llu\n", records, instructions);
	return 0;
}

static int orphan(unsigned long ring, unsigned long pid)
{
	char req[64];
	int fd = open_monitor();

	snprintf(req, sizeof(req), "ring=%lu", ring);
	if (fd < 0 || put_at(fd, "monitor", req) || put_at(-1, "config", "pmc1=0x8")) {
		printf("kpmcattack orphan=-1 errno=%d\n", errno);
		return 0;
	}
	snprintf(req, sizeof(req), "pid=%lu", pid);
	if (put_at(-1, "enable", req)) {
		printf("kpmcattack orphan=-1 errno=%d\n", errno);
		return 0;
	}
	printf("kpmcattack orphan=0\n");
	return 0;
}

struct reader {
	int fd;
	unsigned long want;
	volatile unsigned long samples, lost;
	volatile int done;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	struct kpmc_record rec[64];
	unsigned int tid = (unsigned int)syscall(SYS_gettid);

	while (r->samples < r->want) {
		ssize_t n;

		spin(1500000);
		n = read(r->fd, rec, sizeof(rec));
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
			if (rec[i].kind == KPMC_REC_EBS && rec[i].tid == tid)
				r->samples++;
			if (rec[i].kind == KPMC_REC_LOST)
				r->lost += rec[i].lost;
		}
	}
	r->done = 1;
	return NULL;
}

static int reader(unsigned long want)
{
	struct reader r = { .want = want };
	pthread_t th;
	double end;

	r.fd = open_monitor();
	if (r.fd < 0 || put_at(r.fd, "monitor", "ring=64,noloss") ||
	    put_at(-1, "config", "pmc0,ebs0=20000") || put_at(-1, "enable", "1")) {
		printf("kpmcattack reader=-1 errno=%d\n", errno);
		return 1;
	}
	fcntl(r.fd, F_SETFL, O_NONBLOCK);
	if (pthread_create(&th, NULL, reader_thread, &r)) {
		printf("kpmcattack reader=-1 errno=%d\n", errno);
		return 1;
	}
	/* The opener sleeps: it never drains the ring. */
	end = now_s() + 20;
	while (!r.done && now_s() < end)
		usleep(100000);
	if (!r.done) {
		printf("kpmcattack reader=timeout samples=%lu\n", r.samples);
		fflush(stdout);
		_exit(0);
	}
	pthread_join(th, NULL);
	printf("kpmcattack reader=0 samples=%lu lost=%lu\n", r.samples, r.lost);
	return 0;
}

static int unpriv(const char *cmd, const char *config)
{
	int fd = open_monitor(), c = 0, e = 0;

	if (fd < 0) {
		printf("kpmcattack unpriv=-1 errno=%d\n", errno);
		return 1;
	}
	if (strcmp(cmd, "-") && put_at(fd, "monitor", cmd))
		c = errno;
	if (put_at(-1, "config", config) || put_at(-1, "enable", "1"))
		e = errno;
	printf("kpmcattack unpriv cmd=%d enable=%d\n", c, e);
	return 0;
}

static int sync_pipe[2], go_pipe[2];
static char *const *exec_argv;

static void *exec_thread(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char c;

	(void)arg;
	if (write(sync_pipe[1], &tid, sizeof(tid)) != sizeof(tid) ||
	    read(go_pipe[0], &c, 1) != 1)
		_exit(3);
	execv(exec_argv[0], exec_argv);
	_exit(4);
}

static int nlexec(char **argv)
{
	struct kpmc_record rec[64];
	unsigned long long instructions = 0;
	unsigned int exit_pid = 0, exit_tid = 0;
	char req[64], c = 'g';
	pid_t child, tid;
	int fd, status;

	exec_argv = argv;
	fd = open_monitor();
	if (fd < 0 || put_at(-1, "config", "pmc1=0x8") || pipe(sync_pipe) || pipe(go_pipe)) {
		printf("kpmcattack nlexec=-1 errno=%d\n", errno);
		return 1;
	}
	child = fork();
	if (child == 0) {
		pthread_t th;

		if (pthread_create(&th, NULL, exec_thread, NULL))
			_exit(2);
		pthread_join(th, NULL);
		_exit(5);
	}
	if (read(sync_pipe[0], &tid, sizeof(tid)) != sizeof(tid))
		return 1;
	snprintf(req, sizeof(req), "pid=%d", (int)tid);
	if (put_at(-1, "enable", req)) {
		printf("kpmcattack nlexec=-1 errno=%d\n", errno);
		return 1;
	}
	if (write(go_pipe[1], &c, 1) != 1)
		return 1;
	waitpid(child, &status, 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));

		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
			if (rec[i].kind != KPMC_REC_EXIT)
				continue;
			exit_pid = rec[i].pid;
			exit_tid = rec[i].tid;
			instructions += rec[i].counts[1];
		}
	}
	printf("kpmcattack nlexec child=%d thread=%d exit_pid=%u exit_tid=%u instructions=%llu\n",
	       (int)child, (int)tid, exit_pid, exit_tid, instructions);
	return 0;
}

/* A no-loss session with cycle-counter EBS and a child attached, held at go_pipe. */
static pid_t noloss_child(int *fd)
{
	char req[32];
	pid_t child;
	char c;

	*fd = open_monitor();
	if (*fd < 0 || put_at(*fd, "monitor", "ring=64,noloss") ||
	    put_at(-1, "config", "pmc0,ebs0=20000") || pipe(go_pipe))
		return -1;
	child = fork();
	if (child == 0) {
		if (read(go_pipe[0], &c, 1) != 1)
			_exit(3);
		return 0;
	}
	snprintf(req, sizeof(req), "pid=%d", (int)child);
	if (child < 0 || put_at(-1, "enable", req))
		return -1;
	return child;
}

static int inherit(unsigned long iterations)
{
	pid_t child;
	int fd;

	child = noloss_child(&fd);
	if (child < 0) {
		printf("kpmcattack inherit=-1 errno=%d\n", errno);
		return 1;
	}
	if (child == 0) {
		spin(iterations);
		_exit(0);
	}
	printf("kpmcattack inherit child=%d\n", (int)child);
	if (write(go_pipe[1], "g", 1) != 1)
		return 1;
	return 0;
}

/* 64 io_uring timeouts, 10 ms apart, queued and left to complete. */
static int uring_timeouts(void)
{
	static struct __kernel_timespec ts[64];
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	unsigned int *tail, *array, i;
	char *sq;
	long n;
	int fd = (int)syscall(__NR_io_uring_setup, 64, &p);

	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "kpmcattack uring: io_uring_setup: %s\n", strerror(e));
		return e == ENOSYS ? -ENOSYS : -1;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		    fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqes == MAP_FAILED) {
		perror("kpmcattack uring: mmap");
		return -1;
	}
	tail = (unsigned int *)(sq + p.sq_off.tail);
	array = (unsigned int *)(sq + p.sq_off.array);
	for (i = 0; i < 64; i++) {
		ts[i].tv_nsec = (long long)(i + 1) * 10000000;
		ts[i].tv_sec = ts[i].tv_nsec / 1000000000;
		ts[i].tv_nsec %= 1000000000;
		memset(&sqes[i], 0, sizeof(sqes[i]));
		sqes[i].opcode = IORING_OP_TIMEOUT;
		sqes[i].fd = -1;
		sqes[i].addr = (unsigned long)&ts[i];
		sqes[i].len = 1;
		sqes[i].user_data = i;
		array[i] = i;
	}
	__atomic_store_n(tail, *tail + 64, __ATOMIC_RELEASE);
	n = syscall(__NR_io_uring_enter, fd, 64, 0, 0, NULL, 0);
	if (n != 64) {
		fprintf(stderr, "kpmcattack uring: io_uring_enter: %ld submitted (%s)\n", n, strerror(errno));
		return -1;
	}
	return 0;
}

static int uring(unsigned long iterations)
{
	struct kpmc_record rec[64];
	unsigned long long samples = 0, lost = 0;
	pid_t child;
	int fd, status, done = 0;

	child = noloss_child(&fd);
	if (child < 0) {
		printf("kpmcattack uring=-1 errno=%d\n", errno);
		return 1;
	}
	if (child == 0) {
		int err = uring_timeouts();

		if (err)
			_exit(err == -ENOSYS ? 7 : 4);
		spin(iterations);
		_exit(0);
	}
	if (write(go_pipe[1], "g", 1) != 1)
		return 1;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (!done) {
		ssize_t n;

		usleep(200000);
		done = waitpid(child, &status, WNOHANG) == child;
		while ((n = read(fd, rec, sizeof(rec))) > 0) {
			for (ssize_t i = 0; i < n / (ssize_t)sizeof(rec[0]); i++) {
				if (rec[i].kind == KPMC_REC_EBS && rec[i].tid == (unsigned int)child)
					samples++;
				if (rec[i].kind == KPMC_REC_LOST)
					lost += rec[i].lost;
			}
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 7) {
		printf("kpmcattack uring=nosys\n");
		return 0;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("kpmcattack uring=-1 errno=0 child_status=0x%x\n", status);
		return 1;
	}
	printf("kpmcattack uring samples=%llu lost=%llu\n", samples, lost);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "attach"))
		return attach(argv[2], arg_ul(argv[3]), arg_ul(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "orphan"))
		return orphan(arg_ul(argv[2]), arg_ul(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "reader"))
		return reader(arg_ul(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "unpriv"))
		return unpriv(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "nlexec"))
		return nlexec(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "inherit"))
		return inherit(arg_ul(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "uring"))
		return uring(arg_ul(argv[2]));
	fprintf(stderr, "usage: kpmcattack attach PROCDIR PID SECONDS | orphan RING PID | reader SAMPLES | unpriv CMD CONFIG | nlexec PROGRAM ARG | inherit N | uring N\n");
	return 2;
}
