// SPDX-License-Identifier: GPL-2.0
/*
 * A monitored run: open a session (/proc/kpmc/monitor), configure it, start
 * the program (or attach to a thread, or count the CPUs), hand its records
 * to the chain while it runs, stop, and finish the chain.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common/ringmap.h"
#include "options.h"
#include "stacks/stackrec.h"

#define READ_BATCH 64

struct run {
	struct kpmc_run_opts *o;
	int mon;
	/* The session's ring, mapped (unless --no-mmap, or a module without it: read()). */
	struct kpmc_ringmap ring;
	char normalized[1024], mappings[2048];
	char virt_names[KPMC_MAX_VIRT][32];
	struct kpmc_trace t;
	FILE *out, *raw;
	FILE *report;			/* kpmc mem: where its report goes (the trace goes nowhere) */
	struct kpmc_memrep *memrep;
	int live_stacks;		/* fmt=callstack, per thread: symbols and mappings go in */
	pid_t child;
	int status, child_reaped, stopped_at_exec, unloaded;
	/* -G: the cgroup's directory; made by kpmc for the program (removed at the end) */
	char cgroup_dir[256];
	int cgroup_made;
};

#define KPMC_CGROUP_ROOT "/sys/fs/cgroup"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * The session's wake-up policy: --wakeup's, or, when nothing is shown while
 * the program runs (totals, a trace file), the watermark's alone, as perf
 * record is woken: a wake-up, a switch to kpmc and back, costs more than
 * a dozen samples. A module without the setting keeps its default then.
 */
static int set_wakeup(int mon, const char *wakeup, int quiet_run)
{
	char req[32], reason[256];

	if (!wakeup && !quiet_run)
		return 0;
	snprintf(req, sizeof(req), "wakeup=%s", wakeup ? wakeup : "watermark");
	if (!kpmc_proc_request(mon, req, reason, sizeof(reason)) || !wakeup)
		return 0;
	fprintf(stderr, "kpmc: --wakeup %s: %s\n", wakeup, reason);
	return 1;
}

/*
 * Opening the monitor file creates this thread's session (read-write: the
 * ring's size, the mapped ring's tail); its ring, wake-ups, the mapping,
 * the configuration, and the configuration as the module normalized it.
 */
static int open_session(struct run *r, const char *fullcfg)
{
	const struct kpmc_run_opts *o = r->o;
	char req[48], reason[256];
	FILE *f;

	r->mon = kpmc_proc_open("monitor", O_RDWR);
	if (r->mon < 0) {
		kpmc_proc_reason(-r->mon, reason, sizeof(reason));
		fprintf(stderr, "kpmc: cannot start a monitoring session: %s\n", reason);
		return 1;
	}
	if (o->ring_records || o->noloss) {
		if (o->ring_records)
			snprintf(req, sizeof(req), "ring=%lu%s", o->ring_records, o->noloss ? ",noloss" : "");
		else
			snprintf(req, sizeof(req), "noloss");
		if (kpmc_proc_request(r->mon, req, reason, sizeof(reason))) {
			if (o->ring_records)
				fprintf(stderr, "kpmc: -k %lu%s: %s\n", o->ring_records,
					o->noloss ? " --no-loss" : "", reason);
			else
				fprintf(stderr, "kpmc: --no-loss: %s\n", reason);
			return 1;
		}
	}
	if (set_wakeup(r->mon, o->wakeup, o->aggregate || o->outfile))
		return 1;
	/*
	 * The mapped ring, after its size is set (mapping fixes it). A module
	 * without one (EIO) is read() from, as is any ring this CLI cannot map.
	 */
	if (!o->no_mmap) {
		int err = kpmc_ringmap_open(&r->ring, r->mon, reason, sizeof(reason));

		if (err && err != -EIO)
			fprintf(stderr, "kpmc: %s; reading records with read()\n", reason);
	}
	if (kpmc_proc_write_told("config", fullcfg, "configuration rejected"))
		return 1;
	f = fopen(KPMC_PROC_DIR "/config", "r");
	if (!f || !fgets(r->normalized, sizeof(r->normalized), f) ||
	    kpmc_format_mappings(r->normalized, r->mappings, sizeof(r->mappings), &r->t.o.cols) < 0) {
		fprintf(stderr, "kpmc: cannot read back the configuration\n");
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

/* -w's file, the trace's file (kpmc mem: its report's), the chain. */
static int open_outputs(struct run *r)
{
	const struct kpmc_run_opts *o = r->o;
	struct kpmc_output *out = &r->t.o;
	long virt_mask;

	if (o->rawfile) {
		r->raw = fopen(o->rawfile, "wb");
		if (!r->raw) {
			fprintf(stderr, "kpmc: -w %s: %s\n", o->rawfile, strerror(errno));
			return 1;
		}
	}
	out->cols.system_wide = o->system_wide;
	virt_mask = kpmc_virtual_counters(r->virt_names, o->virt_wanted);
	if (virt_mask < 0)
		return 2;
	out->virt_wanted = o->virt_wanted ? (uint32_t)virt_mask : ~0u;
	for (unsigned int i = 0; i < KPMC_MAX_VIRT; i++)
		out->cols.virt_names[i] = r->virt_names[i][0] ? r->virt_names[i] : NULL;
	r->out = stdout;
	if (o->outfile) {
		r->out = fopen(o->outfile, "w");
		if (!r->out) {
			fprintf(stderr, "kpmc: %s: %s\n", o->outfile, strerror(errno));
			return 1;
		}
	}
	/* kpmc mem: the report goes where the trace would; the trace nowhere. */
	if (o->mem) {
		r->report = r->out;
		r->out = fopen("/dev/null", "w");
		if (!r->out) {
			perror("kpmc: /dev/null");
			return 1;
		}
		r->memrep = kpmc_memrep_new();
		if (!r->memrep) {
			fprintf(stderr, "kpmc: mem: out of memory\n");
			return 1;
		}
	}
	/*
	 * With fmt=callstack the kernel symbols and the programs' mappings
	 * that symbolize the stacks later go into the trace (stackrec.c).
	 */
	r->live_stacks = !o->system_wide && strstr(r->normalized, "fmt=callstack") != NULL;
	if (kpmc_trace_setup(&r->t, o, r->out, r->raw, r->memrep, r->live_stacks,
			     !strstr(r->normalized, "fmt="))) {
		fprintf(stderr, "kpmc: out of memory\n");
		return 1;
	}
	return 0;
}

/* The child waits on the gate so counting can be armed before its exec. */
static void run_child(struct run *r, int gate)
{
	char **prog = r->o->prog;
	char c;

	if (read(gate, &c, 1) != 1)
		_exit(126);	/* the parent gave up */
	/* kpmc mem, fmt=callstack: stop after the exec, for the parent to read the map. */
	if ((r->memrep || r->live_stacks) && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(126);
	execvp(prog[0], prog);
	fprintf(stderr, "kpmc: cannot run %s: %s\n", prog[0], strerror(errno));
	_exit(127);
}

/*
 * -G with a cgroup of its own: the program, waiting at the gate, is moved
 * into it, so it runs there from its first instruction. Moved while it
 * waits: the counters follow a task's cgroup when it switches in, and it
 * switches in at the gate's opening at the latest.
 */
static int cgroup_take(const struct run *r, pid_t pid)
{
	char procs[sizeof(r->cgroup_dir) + 16], v[16];
	int fd, n, ok;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", r->cgroup_dir);
	n = snprintf(v, sizeof(v), "%d", (int)pid);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, v, (size_t)n) == n;
	if (!ok)
		fprintf(stderr, "kpmc: -G: cannot move the program into %s: %s\n", r->cgroup_dir,
			strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * -G: an open descriptor of the cgroup's directory, for the module (which
 * takes no path); one that does not exist yet is made for the program.
 */
static int open_cgroup(struct run *r)
{
	int fd;

	snprintf(r->cgroup_dir, sizeof(r->cgroup_dir), KPMC_CGROUP_ROOT "/%s", r->o->cgroup);
	if (mkdir(r->cgroup_dir, 0755) == 0)
		r->cgroup_made = 1;
	else if (errno != EEXIST) {
		fprintf(stderr, "kpmc: -G: cannot make %s: %s\n", r->cgroup_dir, strerror(errno));
		return -1;
	}
	fd = open(r->cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kpmc: -G: %s: %s\n", r->cgroup_dir, strerror(errno));
		if (r->cgroup_made)
			rmdir(r->cgroup_dir);
		r->cgroup_made = 0;
	}
	return fd;
}

/* -G given up before counting: its descriptor closed, a cgroup made for it removed. */
static void cgroup_drop(struct run *r, int cgroup_fd)
{
	if (cgroup_fd >= 0)
		close(cgroup_fd);
	if (r->cgroup_made && !rmdir(r->cgroup_dir))
		r->cgroup_made = 0;
}

/* Attach to -p's thread, or start the program with counting armed. */
static int start(struct run *r)
{
	const struct kpmc_run_opts *o = r->o;
	int gate[2], cgroup_fd = -1;
	char req[64];

	if (o->attach) {
		snprintf(req, sizeof(req), "pid=%d", o->attach);
		return kpmc_proc_write_told("enable", req, "cannot attach") ? 1 : 0;
	}
	if (o->cgroup) {
		cgroup_fd = open_cgroup(r);
		if (cgroup_fd < 0)
			return 1;
	}
	if (pipe2(gate, O_CLOEXEC)) {
		perror("kpmc: pipe");
		cgroup_drop(r, cgroup_fd);
		return 1;
	}
	r->child = fork();
	if (r->child < 0) {
		perror("kpmc: fork");
		cgroup_drop(r, cgroup_fd);
		return 1;
	}
	if (r->child == 0) {
		close(gate[1]);
		run_child(r, gate[0]);
	}
	close(gate[0]);
	if (r->cgroup_made && cgroup_take(r, r->child)) {
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
		cgroup_drop(r, cgroup_fd);
		return 1;
	}
	if (o->cgroup)
		snprintf(req, sizeof(req), "cgroup=%d", cgroup_fd);
	else if (o->system_wide)
		snprintf(req, sizeof(req), "%s=%s", o->exclude_idle ? "cpus_noidle" : "cpus", o->cpus);
	else
		snprintf(req, sizeof(req), "pid=%d,exec", r->child);
	if (kpmc_proc_write_told("enable", req, "cannot enable monitoring")) {
		kill(r->child, SIGKILL);
		waitpid(r->child, NULL, 0);
		cgroup_drop(r, cgroup_fd);
		return 1;
	}
	/* The module holds the cgroup now. */
	if (cgroup_fd >= 0)
		close(cgroup_fd);
	if (write(gate[1], "g", 1) != 1) {
		perror("kpmc: releasing the program");
		kill(r->child, SIGKILL);
	}
	close(gate[1]);
	/*
	 * kpmc mem: the program's map (load address) before it runs a single
	 * instruction; a short program may be gone by the first drain. It
	 * stops at its exec (traced), and goes on untraced once the trace has
	 * its mappings too (fmt=callstack).
	 */
	if (r->memrep || r->live_stacks) {
		int st;

		if (waitpid(r->child, &st, 0) == r->child && WIFSTOPPED(st)) {
			if (r->memrep)
				kpmc_memrep_snapshot(r->memrep, r->child);
			r->stopped_at_exec = 1;
		} else {
			r->status = st;
			r->child_reaped = 1;
		}
	}
	return 0;
}

static void take_mapped(const struct kpmc_record *rec, void *chain)
{
	kpmc_chain_record(chain, rec);
}

/* Read what is there (or wait, if blocking); 0 on EOF/EAGAIN, -1 on error. */
static int drain(struct run *r)
{
	struct kpmc_record recs[READ_BATCH];
	struct kpmc_chain *chain = &r->t.chain;
	ssize_t n, i;

	if (r->ring.ctrl) {
		/* Zero-copy: each record formatted where the kernel wrote it. */
		n = kpmc_ringmap_drain(&r->ring, r->mon, take_mapped, chain);
		if (n < 0 && errno == EPROTO)
			fprintf(stderr, "kpmc: the mapped ring's control page makes no sense\n");
		kpmc_chain_flush(chain);
		return n < 0 ? -1 : 0;
	}
	for (;;) {
		n = read(r->mon, recs, sizeof(recs));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (n == 0)
			return 0;
		for (i = 0; i < n / (ssize_t)sizeof(recs[0]); i++)
			kpmc_chain_record(chain, &recs[i]);
		kpmc_chain_flush(chain);
	}
}

/* Is the attached thread still there? */
static int thread_alive(pid_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", tid);
	return stat(path, &st) == 0;
}

/* Records until the program ends (or the attached thread, or ^C). */
static int follow(struct run *r)
{
	const struct kpmc_run_opts *o = r->o;
	struct kpmc_stackrec *stacks = kpmc_trace_stacks(&r->t);
	int pidfd = -1;

	signal(SIGINT, on_sigint);
	fputs(r->mappings, r->out);
	fputs("[Event counts]\n", r->out);
	if (r->stopped_at_exec) {
		kpmc_stackrec_watch(stacks, r->child);
		kpmc_stackrec_read_maps(stacks);
		ptrace(PTRACE_DETACH, r->child, NULL, NULL);
	}
	fcntl(r->mon, F_SETFL, O_NONBLOCK);
	/*
	 * The program's end wakes the poll below (a pidfd, 5.3 on): waitpid()
	 * then, not at every wake-up for records. Without one, at every turn.
	 */
#ifdef SYS_pidfd_open
	if (!o->attach && !r->child_reaped)
		pidfd = (int)syscall(SYS_pidfd_open, r->child, 0);
#endif
	for (;;) {
		struct pollfd p[2] = { { .fd = r->mon, .events = POLLIN },
				       { .fd = pidfd, .events = POLLIN } };
		int done, ended = pidfd < 0 || r->unloaded;

		if (!r->unloaded) {
			/*
			 * Records, the program's end, unload and signals wake it:
			 * a timeout only for what is looked at every turn.
			 */
			poll(p, pidfd < 0 ? 1 : 2, pidfd < 0 || r->memrep || r->live_stacks ? 100 : -1);
			ended |= p[1].revents != 0;
			if (drain(r) < 0) {
				fprintf(stderr, "kpmc: monitoring ended: the kpmc module was unloaded\n");
				r->unloaded = 1;
			}
		}
		/* kpmc mem: the program's map while it runs (load address, heap, stack). */
		if (r->memrep && r->child > 0)
			kpmc_memrep_snapshot(r->memrep, r->child);
		/* fmt=callstack: mappings made since the last drain (missed: those already gone). */
		kpmc_stackrec_read_maps(stacks);
		if (o->attach) {
			done = interrupted || !thread_alive(o->attach);
		} else {
			pid_t w = r->child_reaped ? r->child : !ended && !r->unloaded ? 0 :
				  waitpid(r->child, &r->status, r->unloaded ? 0 : WNOHANG);

			done = w == r->child;
			if (w < 0 && errno != EINTR) {
				perror("kpmc: waitpid");
				if (pidfd >= 0)
					close(pidfd);
				return 1;
			}
		}
		if (done)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}

/* Every last record in, then the session closed. */
static void stop(struct run *r)
{
	/* System-wide: the program is done; every CPU sends its last record. */
	if (r->o->system_wide && !r->unloaded)
		kpmc_proc_write_told("enable", "0", "cannot stop system-wide monitoring");
	/*
	 * Per thread: what still counts (children the program left behind,
	 * an attached thread interrupted) sends its last counts in a DETACH
	 * record, into the ring that is still read; the write returns once
	 * all are there. Closing instead would drop them.
	 */
	if (!r->o->system_wide && !r->unloaded)
		kpmc_proc_write_told("enable", "stop", "cannot stop monitoring");
	/* The exit records were queued before the parent could see the exit. */
	if (!r->unloaded && drain(r) < 0)
		fprintf(stderr, "kpmc: monitoring ended: the kpmc module was unloaded\n");
	kpmc_ringmap_close(&r->ring);
	close(r->mon);
}

static int child_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int kpmc_run(struct kpmc_run_opts *o)
{
	static struct run r;
	char fullcfg[1024];
	unsigned int failed;
	int rc;

	if (!kpmc_module_loaded())
		return 1;
	/* Event names (instr, cycles:u, libpfm4 strings) become raw configurations. */
	if (kpmc_configs_to_raw(o))
		return 2;
	for (int i = 0; o->anchor && i < o->nconfigs; i++)
		if (!kpmc_config_counts_pmc(o->configs[i], o->anchor - 1)) {
			fprintf(stderr, "kpmc: --anchor pmc%u: event set %d (%s) does not count it; an anchor is counted by every set\n",
				o->anchor - 1, i, o->configs[i]);
			return 2;
		}
	if (kpmc_build_config(o->configs, o->nconfigs, o->tbs_ms, fullcfg, sizeof(fullcfg)) < 0) {
		fprintf(stderr, "kpmc: configuration too long\n");
		return 2;
	}
	r.o = o;
	rc = open_session(&r, fullcfg);
	if (!rc)
		rc = open_outputs(&r);
	if (!rc)
		rc = start(&r);
	if (!rc)
		rc = follow(&r);
	if (rc)
		return rc;
	stop(&r);
	kpmc_chain_finish(&r.t.chain);
	if (r.out != stdout)
		fclose(r.out);
	if (r.raw)
		fclose(r.raw);
	failed = r.t.chain.errors;
	/* Its program's cgroup goes with it; one a program left a process in stays (said). */
	if (r.cgroup_made && rmdir(r.cgroup_dir))
		fprintf(stderr, "kpmc: -G: %s stays: %s\n", r.cgroup_dir, strerror(errno));
	if (r.memrep) {
		failed += kpmc_mem_report(&o->memo, r.memrep, r.report);
		kpmc_memrep_free(r.memrep);
		if (r.report != stdout)
			fclose(r.report);
	}
	rc = o->attach ? 0 : child_status(r.status);
	return failed ? 1 : rc;
}
