// SPDX-License-Identifier: GPL-2.0
/*
 * selffork: a thread's /proc/kpmc/self page is not inherited by fork. The
 * page describes one thread (its tid, its counts, and whether that thread may
 * read its counters from user space); a forked child is another thread, so it
 * must not see its parent's page at all, and maps /proc/kpmc/self again for
 * a page of its own.
 *
 * selffork raw: kpmc's /proc files directly (libkpmc's fork handler would
 * hide what the kernel leaves in the child):
 *   selffork parent maps=1 tid=T page_tid=T counting=1
 *   selffork child maps=0 old=fault own_maps=1 own_page_tid=C tid=C
 *   selffork parent_after page_tid=T counting=1
 * maps: /proc/self/maps lines naming /proc/kpmc/self. old: what a read of
 * the parent's page address gives in the child: "fault" (SIGSEGV) or
 * "tid=N", the tid found there.
 *
 * selffork lib: libkpmc across fork. The parent reads by the fast path, then
 * forks; a fork handler of the program's, run in the child before
 * libkpmc's, maps an anonymous page where the parent's kpmc page was (the
 * address is free in the child). libkpmc's handler must leave it alone, and
 * the child's own fast read must work:
 *   selffork lib claimed=1 kept=1 read=0 path=fast
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>
#include <uapi/linux/kpmc.h>
#include "kpmc.h"

static sigjmp_buf fault_jmp;

static void die(const char *what)
{
	fprintf(stderr, "selffork: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(const char *file, const char *s)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

static const struct kpmc_self_page *map_self(void)
{
	int fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		die("open /proc/kpmc/self");
	p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap /proc/kpmc/self");
	close(fd);
	return p;
}

/* Lines of /proc/self/maps that map /proc/kpmc/self. */
static int self_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/proc/kpmc/self"))
			n++;
	fclose(f);
	return n;
}

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(fault_jmp, 1);
}

static void catch_faults(void)
{
	struct sigaction sa = { .sa_handler = on_segv };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		die("sigaction");
}

/* The start of the (one) /proc/kpmc/self mapping in /proc/self/maps; NULL if none. */
static void *self_map_addr(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	void *addr = NULL;

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/proc/kpmc/self"))
			addr = (void *)strtoul(line, NULL, 16);
	fclose(f);
	return addr;
}

static int child(const struct kpmc_self_page *old)
{
	const struct kpmc_self_page *own;
	char what[32] = "fault";
	int maps = self_maps();

	catch_faults();
	if (!sigsetjmp(fault_jmp, 1))
		snprintf(what, sizeof(what), "tid=%u", *(volatile const __u32 *)&old->tid);
	own = map_self();
	printf("selffork child maps=%d old=%s own_maps=%d own_page_tid=%u tid=%ld\n", maps, what,
	       self_maps(), own->tid, (long)syscall(SYS_gettid));
	return 0;
}

static int raw(void)
{
	const struct kpmc_self_page *page;
	int mon, status;
	pid_t pid;

	/* A session: the thread monitors itself while it is open. */
	mon = open("/proc/kpmc/monitor", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (mon < 0)
		die("/proc/kpmc/monitor");
	put("config", "pmc0");
	put("enable", "1");
	page = map_self();
	printf("selffork parent maps=%d tid=%ld page_tid=%u counting=%u\n", self_maps(),
	       (long)syscall(SYS_gettid), page->tid, page->flags & KPMC_PAGE_COUNTING);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		status = child(page);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "selffork: child status %#x\n", status);
		return 1;
	}
	/* The parent's own page is untouched by the child's leaving. */
	printf("selffork parent_after page_tid=%u counting=%u\n", page->tid,
	       page->flags & KPMC_PAGE_COUNTING);
	put("enable", "0");
	close(mon);
	return 0;
}

/* ---- libkpmc ---- */

static volatile unsigned char *old_page;	/* the parent's kpmc page address */
static int claimed;

/* Child side of fork, registered before libkpmc's handler (so run before it). */
static void claim_old_address(void)
{
	void *p;

	if (!old_page)
		return;
	p = mmap((void *)old_page, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == (void *)old_page) {
		old_page[0] = 0x5a;
		claimed = 1;
	} else if (p != MAP_FAILED) {
		munmap(p, sysconf(_SC_PAGESIZE));	/* a kernel without MAP_FIXED_NOREPLACE */
	}
}

static int lib(void)
{
	struct kpmc_counts c;
	volatile int kept = 0;
	int err, status;
	pid_t pid;

	if (pthread_atfork(NULL, NULL, claim_old_address))
		die("pthread_atfork");
	err = kpmc_start("pmc0,pmc1=0x8");
	if (err) {
		fprintf(stderr, "selffork: kpmc_start: %d %s\n", err, kpmc_last_error());
		return 1;
	}
	kpmc_set_read_path(KPMC_PATH_FAST);
	if (kpmc_read(&c) || kpmc_last_read_path() != KPMC_PATH_FAST) {
		fprintf(stderr, "selffork: the parent's fast read failed\n");
		return 1;
	}
	old_page = self_map_addr();
	if (!old_page) {
		fprintf(stderr, "selffork: no /proc/kpmc/self mapping after a fast read\n");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		catch_faults();
		err = kpmc_read(&c);
		if (!sigsetjmp(fault_jmp, 1))
			kept = claimed && old_page[0] == 0x5a;
		printf("selffork lib claimed=%d kept=%d read=%d path=%s\n", claimed, kept, err,
		       err ? "none" : kpmc_last_read_path() == KPMC_PATH_FAST ? "fast" : "read");
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "selffork: child status %#x\n", status);
		return 1;
	}
	kpmc_stop();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "raw"))
		return raw();
	if (argc == 2 && !strcmp(argv[1], "lib"))
		return lib();
	fprintf(stderr, "usage: selffork raw|lib\n");
	return 2;
}
