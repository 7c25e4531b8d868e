// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD for tests/host/papi_component.sh: /proc/kpmc/FILE is
 * $KPMC_FAKE_PROC/FILE, so that make papi's kpmc component runs its whole
 * course on a host without the module (events listed, an event set written
 * as the configuration, counting enabled, counts read). Each write to a
 * file opened write-only replaces it, as each is one request (the last
 * stays there to be checked). A read of "self"
 * returns the file's struct kpmc_self_sets with every count and time
 * multiplied by the read's number on that open file (1, 2, ...): each read
 * sees more than the last, as of a thread that counts, and each thread (its
 * own open of self) counts alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

static const char proc_dir[] = "/proc/kpmc";
/* Per file descriptor: 0, not self; else 1 + the reads of it so far. */
#define FAKE_FDS 1024
static unsigned int self_reads[FAKE_FDS];
/* Per file descriptor: a fake file opened write-only (a request file). */
static unsigned char request_fd[FAKE_FDS];

/* path itself, or its place in the fake directory (in buf). */
static const char *fake_path(const char *path, char *buf, size_t len)
{
	const char *dir = getenv("KPMC_FAKE_PROC");
	size_t n = sizeof(proc_dir) - 1;

	if (!dir || !path || strncmp(path, proc_dir, n) || (path[n] && path[n] != '/'))
		return path;
	snprintf(buf, len, "%s%s", dir, path + n);
	return buf;
}

static int open_fake(const char *name, const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
	char buf[4096];
	const char *p = fake_path(path, buf, sizeof(buf));
	int fd;

	if (p != path && (flags & O_ACCMODE) == O_WRONLY)
		flags |= O_TRUNC;
	fd = real(p, flags, mode);
	if (fd >= 0 && fd < FAKE_FDS) {
		__atomic_store_n(&self_reads[fd],
				 p != path && !strcmp(path + sizeof(proc_dir) - 1, "/self"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&request_fd[fd], p != path && (flags & O_ACCMODE) == O_WRONLY,
				 __ATOMIC_RELAXED);
	}
	return fd;
}

/* The mode argument is there only with O_CREAT (or O_TMPFILE). */
#define OPEN_WRAPPER(name)						\
	int name(const char *path, int flags, ...)			\
	{								\
		mode_t mode = 0;					\
		va_list ap;						\
									\
		if (flags & (O_CREAT | O_TMPFILE)) {			\
			va_start(ap, flags);				\
			mode = va_arg(ap, mode_t);			\
			va_end(ap);					\
		}							\
		return open_fake(#name, path, flags, mode);		\
	}
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

int __open_2(const char *path, int flags)
{
	return open_fake("open", path, flags, 0);
}

int __open64_2(const char *path, int flags)
{
	return open_fake("open64", path, flags, 0);
}

#define PATH_WRAPPER(ret, name, type2)					\
	ret name(const char *path, type2 arg)				\
	{								\
		ret (*real)(const char *, type2) =			\
			(ret (*)(const char *, type2))dlsym(RTLD_NEXT, #name); \
		char buf[4096];						\
									\
		return real(fake_path(path, buf, sizeof(buf)), arg);	\
	}
PATH_WRAPPER(FILE *, fopen, const char *)
PATH_WRAPPER(FILE *, fopen64, const char *)
PATH_WRAPPER(int, stat, struct stat *)
PATH_WRAPPER(int, stat64, struct stat64 *)
PATH_WRAPPER(int, access, int)

ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t (*real)(int, const void *, size_t) =
		(ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");

	if (fd < 0 || fd >= FAKE_FDS || !__atomic_load_n(&request_fd[fd], __ATOMIC_RELAXED))
		return real(fd, buf, len);
	/* One request: the file is it alone. */
	if (ftruncate(fd, 0))
		return -1;
	return pwrite(fd, buf, len, 0);
}

static void scale(struct kpmc_self_sets *ss, unsigned int k)
{
	unsigned int s, i;

	ss->all.run_ns *= k;
	for (i = 0; i < KPMC_MAX_COUNTERS; i++)
		ss->all.counts[i] *= k;
	for (s = 0; s < KPMC_MAX_SETS; s++) {
		ss->sets[s].run_ns *= k;
		for (i = 0; i < KPMC_MAX_COUNTERS; i++)
			ss->sets[s].counts[i] *= k;
	}
}

static ssize_t pread_fake(const char *name, int fd, void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
		(ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, name);
	ssize_t n = real(fd, buf, len, off);

	if (fd >= 0 && fd < FAKE_FDS && self_reads[fd] && n == (ssize_t)sizeof(struct kpmc_self_sets))
		scale(buf, __atomic_add_fetch(&self_reads[fd], 1, __ATOMIC_RELAXED) - 1);
	return n;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return pread_fake("pread", fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	return pread_fake("pread64", fd, buf, len, off);
}
