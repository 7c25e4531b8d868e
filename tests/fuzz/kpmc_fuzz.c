// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_fuzz -s SEED -n OPS [-t WORKERS] [-v]: a stateful fuzzer of
 * /proc/kpmc. WORKERS processes (half of them as uid 1000 when run as root)
 * each run OPS / WORKERS random operations over every /proc/kpmc file and
 * the monitor fd: sessions opened, read, polled, resized and closed;
 * configurations generated from the grammar (memory sampling included) and
 * then mutated; monitoring enabled and disabled; short-lived children
 * (some forking a grandchild, some exec'ing) attached, armed for their
 * exec, detached and killed;
 * short-lived threads with their own sessions, left open for the worker to
 * close; the self page mapped; and, as root, monitoring modules switched
 * and system-wide monitoring turned on and off. Attacks among them:
 * children of the uid 1000 workers exec'ing a setuid-root copy of the
 * fuzzer while being attached; attaches from a child's own user and mount
 * namespaces with its /proc replaced (to anything outside them they must
 * fail: one that succeeds fails the run); no-loss waits while the reader
 * maps and unmaps the ring or closes the session; the sampling-format
 * module loaded and unloaded under sessions that use it. Each worker draws from its own
 * generator seeded by (SEED, worker), so a run is reproducible up to the
 * interleaving. Errors the kernel returns are the point and are only
 * tallied; what fails the run is the fuzzer's own trouble: EFAULT, a
 * syscall stuck for 10 s (SIGALRM), a worker that dies of a signal.
 * Prints, per operation, how often it ran and how often the kernel accepted
 * it ("kpmc_fuzz: op NAME calls C accepted A": a fuzzer whose attaches are
 * all refused tests nothing of attach), then "kpmc_fuzz: seed S ops N
 * seconds T ..." at the end.
 */
#define _GNU_SOURCE	/* unshare(), CLONE_NEWUSER */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/linux/kpmc.h>

#include "../progs/spin.h"

#define MAX_CHILDREN 4

/* A setuid-root copy of the fuzzer (made when run as root): exec'ed by children being attached. */
#define SETUID_COPY "/tmp/kpmc_fuzz_setuid"
/* The sampling-format module the guest root carries (t_common_formats.sh). */
#define FORMAT_KO "/kpmc_fmt_example.ko"
#define FORMAT_NAME "kpmc_fmt_example"
/* Exit statuses of a user's setuid-root child: counted by its user's session, or not. */
#define SETUID_COUNTED 9
#define SETUID_CHECKED 8

#if defined(__aarch64__)
#define SAMPLING_EVENT "0x8"
#else
#define SAMPLING_EVENT "0x100000000"
#endif

/* What the workers did, per operation: in memory shared by all of them. */
static const char *const op_names[] = {
	"config", "monitor-open", "monitor-close", "monitor-poll", "monitor-read", "monitor-ring",
	"enable-1", "enable-0", "self-open", "self-read", "self-mmap", "self-munmap",
	"child-fork", "attach", "attach-exec", "detach", "system-wide", "mm_manager",
	"file-read", "thread", "thread-session", "thread-enable", "ring-mmap-control", "ring-mmap-data",
	"monitor-unprivileged", "userns-attach", "userns-attach-own", "exec-setuid", "noloss-remap",
	"noloss-close", "format-load", "format-unload", "setuid-counted", "setuid-checked", "userns-killed", "system-wide-after",
	"session-stop",
};
#define NR_OP_NAMES (sizeof(op_names) / sizeof(op_names[0]))
static unsigned long (*op_stats)[2];	/* [name]: calls, accepted */

struct worker {
	uint64_t rng;
	int root;
	int monitor;			/* /proc/kpmc/monitor fd, or -1 */
	void *page;			/* mapping of /proc/kpmc/self, or NULL */
	int page_fd;
	pid_t child[MAX_CHILDREN];	/* short-lived children, 0: none */
	/* A short-lived thread: its monitor fd comes back to the worker. */
	pthread_t thread;
	int thread_running;
	int thread_fd;
	unsigned long ops, errors, efault;
	int verbose, index;
};

static uint64_t next(struct worker *w)
{
	/* xorshift64*: small, fast, reproducible. */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545F4914F6CDD1DULL;
}

static unsigned int pick(struct worker *w, unsigned int n)
{
	return (unsigned int)(next(w) % n);
}

static const char *volatile last_noted = "";

static void note(struct worker *w, const char *what, ssize_t rc)
{
	unsigned int k;

	last_noted = what;
	for (k = 0; k < NR_OP_NAMES; k++) {
		if (!strcmp(op_names[k], what)) {
			__atomic_fetch_add(&op_stats[k][0], 1, __ATOMIC_RELAXED);
			if (rc >= 0)
				__atomic_fetch_add(&op_stats[k][1], 1, __ATOMIC_RELAXED);
			break;
		}
	}
	if (rc < 0) {
		__atomic_fetch_add(&w->errors, 1, __ATOMIC_RELAXED);
		if (errno == EFAULT)
			__atomic_fetch_add(&w->efault, 1, __ATOMIC_RELAXED);
	}
	if (w->verbose)
		fprintf(stderr, "w%d %lu %s -> %zd (%s)\n", w->index, w->ops, what, rc,
			rc < 0 ? strerror(errno) : "ok");
}

/* One write() of buf to a /proc/kpmc file, noted as what. */
static void put(struct worker *w, const char *what, const char *file, const char *buf, size_t len)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		note(w, what, -1);
		return;
	}
	note(w, what, write(fd, buf, len));
	close(fd);
}

/*
 * A configuration from the grammar (pmcN, usrN/osN, ebsN, rnd, seed, tbs,
 * mem, fmt=callstack and its options, sets). Half of them valid by construction (distinct counters, events this
 * guest's PMU has), so that monitoring really starts, samples, multiplexes
 * and stops; the others anything the grammar allows.
 */
static size_t gen_config(struct worker *w, char *out, size_t len)
{
	/* arm64 PMUv3 codes, and perf software events (the x86 guest's perf backend). */
	static const char *const events[] = { "0x8", "0x11", "0x1", "0x4000", "0xffff", "0",
					      "0x100000003", "0x100000000" };
#if defined(__aarch64__)
	static const char *const valid[] = { "0x8", "0x11" };
#else
	static const char *const valid[] = { "0x100000003", "0x100000000" };
#endif
	int clean = pick(w, 2), ebs = 0, tbs;
	size_t n = 0;
	unsigned int sets = 1 + pick(w, 3), s, k, c, used, wrote;

	for (s = 0; s < sets && n < len - 64; s++) {
		unsigned int nctr = 1 + pick(w, 4);

		if (s)
			n += (size_t)snprintf(out + n, len - n, ";");
		used = 0;
		wrote = 0;
		for (k = 0; k < nctr && n < len - 64; k++) {
			c = pick(w, 8);
			if (clean) {
				/* General counters 1-4, each once. */
				c = 1 + pick(w, 4);
				if (used & (1u << c))
					continue;
				used |= 1u << c;
			}
			n += (size_t)snprintf(out + n, len - n, "%spmc%u", wrote++ ? "," : "", c);
			/* A general counter needs an event: mostly give one. */
			if (clean)
				n += (size_t)snprintf(out + n, len - n, "=%s", valid[pick(w, 2)]);
			else if (c && pick(w, 8))
				n += (size_t)snprintf(out + n, len - n, "=%s", events[pick(w, 8)]);
			if (pick(w, 4) == 0)
				n += (size_t)snprintf(out + n, len - n, ",usr%u=%u", c, clean ? 1 : pick(w, 2));
			if (pick(w, 4) == 0)
				n += (size_t)snprintf(out + n, len - n, ",os%u=%u", c, pick(w, 2));
			if (pick(w, 6) == 0 && !(clean && (s || ebs))) {
				n += (size_t)snprintf(out + n, len - n, ",ebs%u=%llu", c,
						      (unsigned long long)(next(w) % 5000000) +
						      (clean ? 10000 : pick(w, 3)));
				ebs = 1;
			}
		}
		tbs = pick(w, 4) == 0;
		if (tbs)
			n += (size_t)snprintf(out + n, len - n, ",tbs=%u", clean ? 1 + pick(w, 200) : pick(w, 200));
		if (pick(w, 6) == 0 && (!clean || ebs))
			n += (size_t)snprintf(out + n, len - n, ",rnd=%u,seed=%u", pick(w, 100000), pick(w, 9));
		/* Memory sampling: its records from the overflow interrupt, decoded user code. */
		if (pick(w, 4) == 0 && (!clean || ebs)) {
			n += (size_t)snprintf(out + n, len - n, ",mem=%u", clean ? 1 : pick(w, 3));
		} else if (pick(w, 8) == 0 && (!clean || ebs || tbs)) {
			/* The format module's records (when the root workers have it loaded). */
			n += (size_t)snprintf(out + n, len - n, ",fmt=example");
			if (pick(w, 2))
				n += (size_t)snprintf(out + n, len - n, ",fmt.pad=%u",
						      clean ? pick(w, 2001) : pick(w, 2100));
		} else if (pick(w, 4) == 0 && (!clean || ebs || tbs)) {
			/* Call stacks: kernel frames from the unwinder, user frames from any stack. */
			static const char *const stacks[] = { "kernel", "user", "both", "none" };

			n += (size_t)snprintf(out + n, len - n, ",fmt=callstack");
			if (pick(w, 2))
				n += (size_t)snprintf(out + n, len - n, ",fmt.depth=%u",
						      clean ? 1 + pick(w, 127) : pick(w, 140));
			if (pick(w, 2))
				n += (size_t)snprintf(out + n, len - n, ",fmt.stack=%s",
						      stacks[pick(w, clean ? 3 : 4)]);
		}
		if (sets > 1 && pick(w, 2))
			n += (size_t)snprintf(out + n, len - n, ",mux=%u", clean ? 1 + pick(w, 50) : pick(w, 50));
	}
	return n < len ? n : len - 1;
}

/* Byte flips, truncation, junk, huge numbers, control bytes. */
static size_t mutate(struct worker *w, char *buf, size_t n, size_t len)
{
	static const char *const junk[] = { "=", ",", ";", "99999999999999999999", "\n", "\x1b[31m",
					    "pmc", "=0x", "-1", ",,", "\xff" };
	unsigned int k, times = 1 + pick(w, 3);

	for (k = 0; k < times; k++) {
		switch (pick(w, 4)) {
		case 0:
			if (n)
				buf[pick(w, (unsigned int)n)] ^= (char)(1u << pick(w, 8));
			break;
		case 1:
			if (n)
				n = pick(w, (unsigned int)n + 1);
			break;
		default: {
			const char *j = junk[pick(w, sizeof(junk) / sizeof(junk[0]))];
			size_t at = n ? pick(w, (unsigned int)n + 1) : 0, jl = strlen(j);

			if (n + jl < len) {
				memmove(buf + at + jl, buf + at, n - at);
				memcpy(buf + at, j, jl);
				n += jl;
			}
		}
		}
	}
	return n;
}

static void op_config(struct worker *w)
{
	char buf[1200];
	size_t n = gen_config(w, buf, 1100);

	if (pick(w, 3) == 0)
		n = mutate(w, buf, n, sizeof(buf));
	put(w, "config", "config", buf, n ? n : 1);
}

static void op_monitor_open(struct worker *w)
{
	if (w->monitor >= 0) {
		note(w, "monitor-close", close(w->monitor));
		w->monitor = -1;
		return;
	}
	w->monitor = open("/proc/kpmc/monitor", pick(w, 2) ? O_RDWR | O_NONBLOCK : O_RDWR);
	note(w, "monitor-open", w->monitor);
}

static void op_monitor_io(struct worker *w)
{
	static char buf[256 * 80];
	struct pollfd p;
	char ring[32];
	size_t sizes[] = { 0, 1, 255, 256, 257, sizeof(buf) };

	if (w->monitor < 0)
		return op_monitor_open(w);
	switch (pick(w, 4)) {
	case 2: {
		/*
		 * The mapped ring: control page and records (or bad offsets and
		 * lengths), and a tail written anywhere (the kernel must not trust it).
		 */
		long pg = sysconf(_SC_PAGESIZE);
		size_t len = (size_t)pg * (1 + pick(w, 4));
		off_t off = pick(w, 4) ? 0 : (off_t)pg * pick(w, 3);
		struct kpmc_ring_control *ctl;
		void *data;

		ctl = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, w->monitor, 0);
		note(w, "ring-mmap-control", ctl == MAP_FAILED ? -1 : 0);
		data = mmap(NULL, len, PROT_READ | (pick(w, 4) ? 0 : PROT_WRITE), MAP_SHARED,
			    w->monitor, off ? off : pg);
		note(w, "ring-mmap-data", data == MAP_FAILED ? -1 : 0);
		if (ctl != MAP_FAILED) {
			uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);

			__atomic_store_n(&ctl->data_tail, pick(w, 2) ? head : next(w), __ATOMIC_RELEASE);
			munmap(ctl, (size_t)pg);
		}
		if (data != MAP_FAILED)
			munmap(data, len);
		break;
	}
	case 0:
		p.fd = w->monitor;
		p.events = POLLIN;
		note(w, "monitor-poll", poll(&p, 1, (int)pick(w, 3)));
		if (p.revents & POLLIN)
			note(w, "monitor-read", read(w->monitor, buf, sizeof(buf)));
		break;
	case 1:
		/* Blocking reads would wait for records: only when poll says so. */
		p.fd = w->monitor;
		p.events = POLLIN;
		if (poll(&p, 1, 0) == 1)
			note(w, "monitor-read", read(w->monitor, buf, sizes[pick(w, 6)]));
		break;
	default:
		/* A session judged as a user's from now on (a root daemon's). */
		if (pick(w, 16) == 0) {
			note(w, "monitor-unprivileged", write(w->monitor, "unprivileged", 12));
			break;
		}
		snprintf(ring, sizeof(ring), "ring=%u", 1u << pick(w, 16));
		if (pick(w, 4) == 0)
			snprintf(ring, sizeof(ring), "ring=%u", pick(w, 100000));
		/* No-loss mode: monitored threads of this session may wait for its reader. */
		if (pick(w, 3) == 0)
			strcat(ring, pick(w, 4) ? ",noloss" : ",nolos");
		note(w, "monitor-ring", write(w->monitor, ring, strlen(ring)));
	}
}

static void op_enable(struct worker *w)
{
	if (pick(w, 2))
		put(w, "enable-1", "enable", "1", 1);
	else
		put(w, "enable-0", "enable", "0", 1);
}

static void op_self(struct worker *w)
{
	char buf[4096];

	if (w->page) {
		note(w, "self-munmap", munmap(w->page, 4096));
		close(w->page_fd);
		w->page = NULL;
		return;
	}
	w->page_fd = open("/proc/kpmc/self", O_RDONLY);
	if (w->page_fd < 0) {
		note(w, "self-open", -1);
		return;
	}
	if (pick(w, 2)) {
		note(w, "self-read", read(w->page_fd, buf, pick(w, 2) ? sizeof(buf) : 7));
		close(w->page_fd);
		return;
	}
	w->page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, w->page_fd, 0);
	if (w->page == MAP_FAILED) {
		note(w, "self-mmap", -1);
		w->page = NULL;
		close(w->page_fd);
	} else {
		/* Touch it: the page must be readable for as long as it is mapped. */
		volatile const uint32_t *seq = w->page;

		(void)*seq;
		note(w, "self-mmap", 0);
	}
}

/*
 * The setuid-root copy run by a user's child (real uid not its effective
 * one): no session of that user may count it, however the exec raced the
 * user's attach (its thread was counting before the exec, or the attach came
 * during it). Its self page says whether it is counted.
 */
static int counted_after_setuid_exec(void)
{
	const struct kpmc_self_page *p;
	int fd, counted;

	if (getuid() == geteuid())
		return 0;
	/* From here the exit status says what was found: SETUID_CHECKED or SETUID_COUNTED. */
	fd = open("/proc/kpmc/self", O_RDONLY);
	if (fd < 0)
		return 0;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	/* Written at every switch-in: spin past a few ticks first. */
	spin(200000);
	counted = !!(__atomic_load_n(&p->flags, __ATOMIC_ACQUIRE) & KPMC_PAGE_COUNTING);
	if (counted)
		fprintf(stderr, "kpmc_fuzz: SECURITY: uid %d's setuid-root child %d is counted\n",
			(int)getuid(), (int)getpid());
	return counted ? SETUID_COUNTED : SETUID_CHECKED;
}

static void reap(struct worker *w, unsigned int i)
{
	int status;

	if (w->child[i] > 0) {
		kill(w->child[i], SIGKILL);
		if (waitpid(w->child[i], &status, 0) == w->child[i] && WIFEXITED(status) &&
		    WEXITSTATUS(status) == SETUID_COUNTED)
			note(w, "setuid-counted", 0);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == SETUID_CHECKED)
			note(w, "setuid-checked", 0);
	}
	w->child[i] = 0;
}

/*
 * A child's life: spin (long enough to be attached, short enough not to
 * starve the workers), sometimes with a grandchild beside it (followed if
 * the child counts by then), sometimes exec'ing itself to spin on (an exec
 * that starts an armed thread's counting).
 */
static void child_main(struct worker *w)
{
	char arg[24];
	pid_t g = -1;

	if (pick(w, 4) == 0) {
		g = fork();
		if (g == 0) {
			spin(50000 + (next(w) % 500000));
			_exit(0);
		}
	}
	spin(100000 + (next(w) % 2000000));
	if (g > 0)
		waitpid(g, NULL, 0);
	if (pick(w, 3) == 0) {
		snprintf(arg, sizeof(arg), "%llu", (unsigned long long)(100000 + next(w) % 1000000));
		/*
		 * Half the time the setuid-root copy: an exec that must end the
		 * counting of a user's session, racing the worker's attach.
		 */
		if (pick(w, 2) && access(SETUID_COPY, X_OK) == 0) {
			note(w, "exec-setuid", 0);
			execl(SETUID_COPY, "kpmc_fuzz", "-E", arg, (char *)NULL);
		}
		execl("/proc/self/exe", "kpmc_fuzz", "-E", arg, (char *)NULL);
	}
	_exit(0);
}

/*
 * Children: spawn, attach (some armed for their exec), detach, kill; now
 * and then the session's end while it is read (its threads' last records:
 * it then takes no thread until the worker opens another).
 */
static void op_child(struct worker *w)
{
	unsigned int i = pick(w, MAX_CHILDREN);
	char buf[48];
	int at_exec;

	switch (pick(w, 5)) {
	case 0:
		reap(w, i);
		w->child[i] = fork();
		if (w->child[i] == 0)
			child_main(w);
		note(w, "child-fork", w->child[i]);
		break;
	case 1:
		if (w->child[i] <= 0)
			break;
		at_exec = pick(w, 3) == 0;
		snprintf(buf, sizeof(buf), "pid=%d%s", w->child[i], at_exec ? ",exec" : "");
		put(w, at_exec ? "attach-exec" : "attach", "enable", buf, strlen(buf));
		break;
	case 2:
		if (w->child[i] <= 0)
			break;
		snprintf(buf, sizeof(buf), "pid=%d,stop", w->child[i]);
		put(w, "detach", "enable", buf, strlen(buf));
		break;
	case 3:
		if (pick(w, 4) == 0)
			put(w, "session-stop", "enable", "stop", 4);
		else
			reap(w, i);
		break;
	default:
		reap(w, i);
	}
}

/*
 * A short-lived thread of the worker: its own session and configuration,
 * counting itself while the worker goes on; it exits with its session's
 * file still open, and the worker closes that later (a session whose owner
 * is gone). Its generator is drawn from the worker's, so runs repeat.
 */
static void *thread_main(void *arg)
{
	struct worker *tw = arg;
	int fd = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK);

	note(tw, "thread-session", fd);
	op_config(tw);
	put(tw, "thread-enable", "enable", "1", 1);
	spin(50000 + (next(tw) % 500000));
	if (pick(tw, 2))
		put(tw, "enable-0", "enable", "0", 1);
	tw->thread_fd = fd;
	return tw;
}

static void thread_join(struct worker *w)
{
	struct worker *tw;

	if (!w->thread_running)
		return;
	w->thread_running = 0;
	if (pthread_join(w->thread, (void **)&tw)) {
		note(w, "thread", -1);
		return;
	}
	if (tw->thread_fd >= 0)
		close(tw->thread_fd);
	w->errors += tw->errors;
	w->efault += tw->efault;
	free(tw);
}

static void op_thread(struct worker *w)
{
	struct worker *tw;

	if (w->thread_running)
		return thread_join(w);
	tw = calloc(1, sizeof(*tw));
	if (!tw)
		return;
	tw->rng = next(w) | 1;
	tw->root = w->root;
	tw->monitor = -1;
	tw->thread_fd = -1;
	tw->index = w->index;
	tw->verbose = w->verbose;
	if (pthread_create(&w->thread, NULL, thread_main, tw)) {
		note(w, "thread", -1);
		free(tw);
		return;
	}
	note(w, "thread", 0);
	w->thread_running = 1;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * A child in its own user and mount namespaces (as root inside them) tries
 * to attach: to a process outside them, which the kernel must refuse
 * whatever the child did to its /proc (a tmpfs over it; TARGET/mem and
 * TARGET/environ made links to its own files, to an nsfs file, to another
 * procfs file, a fifo, a directory), or to a child of its own, which it may. An
 * attach to an outside process that succeeds fails the run. Exit status
 * 10: no unprivileged user namespaces in this kernel.
 */
static int userns_child(struct worker *w, pid_t target)
{
	static const char *const links[] = { "/tmp/p/self/mem", "/tmp/p/self/ns/net", "/tmp/p/kpmc/info",
					     "/tmp/p/1/environ", "/dev/null", "/nonexistent" };
	static const char sampling[] = "pmc1=" SAMPLING_EVENT ",tbs=10";
	int own = target == 0, cfg, en, mon, trick, go[2] = { -1, -1 };
	char req[48], dir[48], path[80], outer_uid[32], outer_gid[32];
	ssize_t rc;

	snprintf(outer_uid, sizeof(outer_uid), "0 %u 1", (unsigned int)getuid());
	snprintf(outer_gid, sizeof(outer_gid), "0 %u 1", (unsigned int)getgid());
	mon = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK);
	cfg = open("/proc/kpmc/config", O_WRONLY);
	en = open("/proc/kpmc/enable", O_WRONLY);
	if (cfg < 0 || en < 0)
		return 11;
	if (write(cfg, sampling, strlen(sampling)) < 0)
		return 12;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 10;
	/* Root inside, as unshare -Urm makes it: the mount tricks need it. */
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", outer_uid) || write_file("/proc/self/gid_map", outer_gid))
		return 15;
	/*
	 * Its own: a spinner started inside the namespaces (itself it would
	 * enable with "1"). It spins only once the attach was tried: on a debug
	 * kernel the mount tricks below outlast a short spin, and an attach to
	 * a task that already exited tests nothing.
	 */
	if (own) {
		if (pipe(go))
			return 14;
		target = fork();
		if (target == 0) {
			char c;

			close(go[1]);
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			spin(20000 + next(w) % 200000);
			_exit(0);
		}
		close(go[0]);
		if (target < 0)
			return 14;
	}
	trick = pick(w, 4);
	if (trick && !mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
	    !mount("none", "/tmp", "tmpfs", 0, NULL) && !mkdir("/tmp/p", 0700) &&
	    !mount("/proc", "/tmp/p", NULL, MS_BIND | MS_REC, NULL) &&
	    !mount("none", "/proc", "tmpfs", 0, NULL)) {
		snprintf(dir, sizeof(dir), "/proc/%d", target);
		mkdir(dir, 0755);
		snprintf(path, sizeof(path), "%s/mem", dir);
		if (trick == 1)
			mkfifo(path, 0600);
		else if (trick == 2)
			mkdir(path, 0700);
		else if (symlink(links[pick(w, 6)], path) < 0)
			return 13;
		snprintf(path, sizeof(path), "%s/environ", dir);
		if (symlink(links[pick(w, 6)], path) < 0)
			return 13;
	}
	snprintf(req, sizeof(req), "pid=%d", target);
	rc = write(en, req, strlen(req));
	note(w, own ? "userns-attach-own" : "userns-attach", rc);
	if (rc >= 0 && !own)
		fprintf(stderr, "kpmc_fuzz: SECURITY: attach to pid %d from a user namespace accepted\n",
			target);
	if (own) {
		close(go[1]);
		waitpid(target, NULL, 0);
	}
	if (mon >= 0)
		close(mon);
	return 0;
}

/*
 * Wait for child c as a reader must: the child inherited the worker's
 * counting (a fork follows it), and with a no-loss session of a few records
 * it waits for the worker to read, as perfmon2's blocking mode makes any
 * monitored thread wait for its reader. So drain the session while waiting.
 */
static pid_t wait_reading(struct worker *w, pid_t c, int *status)
{
	static char buf[64 * sizeof(struct kpmc_record)];
	struct timespec t0, t;
	struct pollfd p;
	pid_t r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((r = waitpid(c, status, WNOHANG)) == 0) {
		/* Within the hang alarm's 10 s: a child still stuck is killed and counted. */
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 6) {
			note(w, "userns-killed", 0);
			kill(c, SIGKILL);
			return waitpid(c, status, 0);
		}
		if (w->monitor >= 0) {
			p.fd = w->monitor;
			p.events = POLLIN;
			if (poll(&p, 1, 1) == 1 && (p.revents & POLLIN))
				note(w, "monitor-read", read(w->monitor, buf, sizeof(buf)));
		} else {
			usleep(1000);
		}
	}
	return r;
}

static void op_userns(struct worker *w)
{
	unsigned int i = pick(w, MAX_CHILDREN);
	pid_t target = 0, c;
	int status;

	switch (pick(w, 4)) {
	case 0:
		target = w->child[i] > 0 ? w->child[i] : 1;
		break;
	case 1:
		target = getpid();
		break;
	case 2:
		target = 1;
		break;
	}
	/*
	 * Not counting across the fork: the child would inherit it into the
	 * worker's session, whose file the worker may have closed while other
	 * children keep it open (then nobody reads, and a no-loss wait lasts
	 * until the child is killed: the documented rule, not a defect).
	 */
	put(w, "enable-0", "enable", "0", 1);
	c = fork();
	if (c == 0)
		_exit(userns_child(w, target));
	if (c < 0 || wait_reading(w, c, &status) != c)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 10)
		__atomic_store_n(&op_stats[NR_OP_NAMES][0], 1, __ATOMIC_RELAXED);
}

/*
 * No-loss waits under a reader that maps and unmaps the ring: a child,
 * attached to the worker's session with a ring of 8 records and no-loss
 * mode, samples until it must wait; meanwhile the worker maps the ring,
 * sometimes consumes, unmaps, and then kills the child or closes the
 * session under it.
 */
static void op_noloss(struct worker *w)
{
	static const char cfg[] = "pmc1=" SAMPLING_EVENT
#if defined(__aarch64__)
		",ebs1=20000";
#else
		",tbs=1";
#endif
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int i = pick(w, MAX_CHILDREN), k;
	char buf[48];

	if (w->monitor < 0)
		return op_monitor_open(w);
	note(w, "monitor-ring", write(w->monitor, "ring=8,noloss", 13));
	put(w, "config", "config", cfg, sizeof(cfg) - 1);
	reap(w, i);
	w->child[i] = fork();
	if (w->child[i] == 0) {
		spin(200000 + next(w) % 2000000);
		_exit(0);
	}
	note(w, "child-fork", w->child[i]);
	if (w->child[i] < 0)
		return;
	snprintf(buf, sizeof(buf), "pid=%d", w->child[i]);
	put(w, "attach", "enable", buf, strlen(buf));
	for (k = 0; k < 4; k++) {
		struct kpmc_ring_control *ctl;
		void *data;

		usleep(1000 * (1 + pick(w, 5)));
		ctl = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, w->monitor, 0);
		data = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, w->monitor, pg);
		note(w, "noloss-remap", ctl == MAP_FAILED || data == MAP_FAILED ? -1 : 0);
		if (ctl != MAP_FAILED) {
			if (pick(w, 2))
				__atomic_store_n(&ctl->data_tail,
						 __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE),
						 __ATOMIC_RELEASE);
			munmap(ctl, (size_t)pg);
		}
		if (data != MAP_FAILED)
			munmap(data, (size_t)pg);
	}
	if (pick(w, 3) == 0) {
		note(w, "noloss-close", close(w->monitor));
		w->monitor = -1;
	}
	reap(w, i);
}

/* Sampling-format modules loaded and unloaded under sessions that use them (root). */
static void op_format(struct worker *w)
{
	int fd;

	if (!w->root)
		return op_config(w);
	if (pick(w, 2)) {
		note(w, "format-unload", syscall(SYS_delete_module, FORMAT_NAME, O_NONBLOCK));
		return;
	}
	fd = open(FORMAT_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		note(w, "format-load", -1);
		return;
	}
	/* EEXIST (loaded already) counts as refused. */
	note(w, "format-load", syscall(SYS_finit_module, fd, "", 0));
	close(fd);
}

static void op_root(struct worker *w)
{
	char buf[32];

	if (!w->root)
		return op_config(w);
	if (pick(w, 2)) {
		snprintf(buf, sizeof(buf), "activate %u", pick(w, 8));
		put(w, "mm_manager", "mm_manager", buf, strlen(buf));
	} else {
		snprintf(buf, sizeof(buf), "%s", pick(w, 2) ? "cpus=all" : "cpus_noidle=0");
		put(w, "system-wide", "enable", buf, strlen(buf));
	}
}

static void op_read_files(struct worker *w)
{
	static const char *const files[] = { "/proc/kpmc/info", "/proc/kpmc/last_error",
					     "/proc/kpmc/config", "/proc/kpmc/mm_manager" };
	char buf[4096];
	int fd = open(files[pick(w, 4)], O_RDONLY);

	if (fd < 0) {
		note(w, "file-read", -1);
		return;
	}
	note(w, "file-read", read(fd, buf, sizeof(buf)));
	close(fd);
}

static const struct {
	void (*fn)(struct worker *w);
	unsigned int weight;
	const char *name;
} ops[] = {
	{ op_config, 6, "config" }, { op_monitor_open, 3, "monitor-open" },
	{ op_monitor_io, 6, "monitor-io" }, { op_enable, 5, "enable" }, { op_self, 3, "self" },
	{ op_child, 6, "child" }, { op_root, 2, "root" }, { op_read_files, 2, "read-files" },
	{ op_thread, 2, "thread" }, { op_userns, 1, "userns" }, { op_noloss, 1, "noloss" },
	{ op_format, 1, "format" },
};

/* What the worker was doing, for the report of a hang (read in the signal handler). */
static const char *volatile running_op = "";

static void put_str(const char *s)
{
	if (write(2, s, strlen(s)) < 0)
		_exit(3);
}

static void on_alarm(int sig)
{
	(void)sig;
	put_str("kpmc_fuzz: a syscall hung for 10 s in operation ");
	put_str(running_op);
	put_str(" (last noted: ");
	put_str(last_noted);
	put_str(")\n");
	_exit(3);
}

static int run_worker(struct worker *w, unsigned long nops)
{
	unsigned int total = 0, k, r;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		total += ops[k].weight;
	signal(SIGALRM, on_alarm);
	for (w->ops = 0; w->ops < nops; w->ops++) {
		alarm(10);
		r = pick(w, total);
		for (k = 0; r >= ops[k].weight; k++)
			r -= ops[k].weight;
		running_op = ops[k].name;
		last_noted = "";
		ops[k].fn(w);
		/* Progress on stderr (the console in a guest): where a hang happened. */
		if ((w->ops + 1) % 2500 == 0)
			fprintf(stderr, "kpmc_fuzz: worker %d: %lu ops\n", w->index, w->ops + 1);
	}
	alarm(0);
	thread_join(w);
	for (k = 0; k < MAX_CHILDREN; k++)
		reap(w, k);
	if (w->page)
		munmap(w->page, 4096);
	put(w, "enable-0", "enable", "0", 1);
	if (w->monitor >= 0)
		close(w->monitor);
	printf("kpmc_fuzz: worker %d (%s): %lu ops, %lu errors returned\n", w->index,
	       w->root ? "root" : "uid 1000", w->ops, w->errors);
	/* The worker ends with _exit(): nothing else flushes its stdout. */
	fflush(stdout);
	return w->efault ? 4 : 0;
}

/*
 * After the workers, as root: system-wide counting started and stopped once
 * with a configuration it takes. During the run most starts are refused
 * (EBUSY: some worker's thread is counting), so this is what shows that the
 * module still starts it after everything the workers did.
 */
static void system_wide_after(void)
{
	static const char cfg[] = "pmc1=" SAMPLING_EVENT ",tbs=10";
	struct worker w = { .monitor = -1, .index = -1 };

	int fd, i;
	ssize_t rc = -1;

	w.monitor = open("/proc/kpmc/monitor", O_RDWR | O_NONBLOCK);
	put(&w, "config", "config", cfg, sizeof(cfg) - 1);
	/* Threads of closed sessions stop at their next tick: the PMU may be busy a moment. */
	for (i = 0; i < 50 && rc < 0; i++) {
		fd = open("/proc/kpmc/enable", O_WRONLY);
		rc = fd < 0 ? -1 : write(fd, "cpus=all", 8);
		if (fd >= 0)
			close(fd);
		if (rc < 0)
			usleep(100000);
	}
	note(&w, "system-wide-after", rc);
	usleep(50000);
	put(&w, "enable-0", "enable", "0", 1);
	if (w.monitor >= 0)
		close(w.monitor);
}

/* A root-owned, setuid copy of this program: a child's exec then changes its credentials. */
static int make_setuid_copy(void)
{
	char buf[65536];
	ssize_t n;
	int in = open("/proc/self/exe", O_RDONLY), out;

	unlink(SETUID_COPY);
	out = open(SETUID_COPY, O_WRONLY | O_CREAT | O_EXCL, 0700);
	if (in < 0 || out < 0) {
		perror("kpmc_fuzz: " SETUID_COPY);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			perror("kpmc_fuzz: " SETUID_COPY);
			return -1;
		}
	}
	close(in);
	if (n < 0 || fchown(out, 0, 0) || fchmod(out, 04755) || close(out)) {
		perror("kpmc_fuzz: " SETUID_COPY);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1, nops = 1000;
	int workers = 4, verbose = 0, opt, i, status, bad = 0;
	struct timespec t0, t1;
	pid_t pid[64];

	/* A child's exec: spin on, then end (child_main). */
	if (argc == 3 && !strcmp(argv[1], "-E")) {
		spin(strtoull(argv[2], NULL, 0) | 1);
		return counted_after_setuid_exec();
	}
	/* One slot more than the names: [NR_OP_NAMES][0] set when user namespaces are refused. */
	op_stats = mmap(NULL, sizeof(*op_stats) * (NR_OP_NAMES + 1), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (op_stats == MAP_FAILED) {
		perror("kpmc_fuzz: mmap");
		return 2;
	}
	while ((opt = getopt(argc, argv, "s:n:t:v")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': nops = strtoull(optarg, NULL, 0); break;
		case 't': workers = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: kpmc_fuzz -s SEED -n OPS [-t WORKERS] [-v]\n");
			return 2;
		}
	}
	if (workers < 1 || workers > 64) {
		fprintf(stderr, "kpmc_fuzz: 1 to 64 workers\n");
		return 2;
	}
	/* As root: the setuid-root copy that the children of the uid 1000 workers exec. */
	if (geteuid() == 0 && make_setuid_copy())
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < workers; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct worker w = { .monitor = -1, .index = i, .verbose = verbose };

			w.rng = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(i + 1) * 0xBF58476D1CE4E5B9ULL;
			w.root = geteuid() == 0 && !(i & 1);
			/*
			 * Dumpable again after the change of uid (which cleared it), as a
			 * user's own process is: else its children would be attachable by
			 * no one but root, and its /proc/self/uid_map unwritable.
			 */
			if (geteuid() == 0 && !w.root &&
			    (setgid(1000) || setuid(1000) || prctl(PR_SET_DUMPABLE, 1))) {
				perror("kpmc_fuzz: setuid");
				_exit(1);
			}
			_exit(run_worker(&w, nops / (unsigned long long)workers));
		}
	}
	for (i = 0; i < workers; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "kpmc_fuzz: worker %d ended with status 0x%x\n", i, status);
			bad = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (geteuid() == 0)
		system_wide_after();
	/* No format module left behind (kpmc could not be unloaded after the run). */
	for (i = 0; geteuid() == 0 && i < 100; i++) {
		if (syscall(SYS_delete_module, FORMAT_NAME, O_NONBLOCK) < 0 && errno == ENOENT)
			break;
		usleep(100000);
	}
	unlink(SETUID_COPY);
	for (i = 0; i < (int)NR_OP_NAMES; i++) {
		/* The kernel's ptrace rule: nothing outside a user namespace is attachable from it. */
		if (!strcmp(op_names[i], "userns-attach") && op_stats[i][1]) {
			fprintf(stderr, "kpmc_fuzz: %lu attaches from a user namespace to a process outside it accepted\n",
				op_stats[i][1]);
			bad = 1;
		}
		if (!strcmp(op_names[i], "setuid-counted") && op_stats[i][0]) {
			fprintf(stderr, "kpmc_fuzz: %lu setuid-root children counted by their user's session\n",
				op_stats[i][0]);
			bad = 1;
		}
	}
	if (op_stats[NR_OP_NAMES][0])
		printf("kpmc_fuzz: no user namespaces for unprivileged users in this kernel\n");
	for (i = 0; i < (int)NR_OP_NAMES; i++)
		printf("kpmc_fuzz: op %s calls %lu accepted %lu\n", op_names[i], op_stats[i][0],
		       op_stats[i][1]);
	printf("kpmc_fuzz: seed %llu ops %llu workers %d seconds %.1f %s\n", seed,
	       nops / (unsigned long long)workers * (unsigned long long)workers, workers,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       bad ? "FAILED" : "ok");
	return bad;
}
