/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc/kpmc client of the kpmc CLI, kpmc-top, libkpmc and pmdakpmc:
 * one place that knows the files' names, how a request is written and how
 * a refusal is explained (the kernel keeps why it refused a thread's last
 * write in last_error, doc/proc-abi.md), and what of the info file the
 * programs read themselves.
 *
 * It prints nothing: each program says what failed in its own words
 * ("kpmc: configuration rejected: ...", libkpmc's kpmc_last_error(),
 * pmdakpmc's log), which tests and users match. Linked into libkpmc, whose
 * version script keeps these functions out of libkpmc.so's exports.
 */
#ifndef KPMC_PROC_H
#define KPMC_PROC_H

#include <stddef.h>
#include <uapi/linux/kpmc.h>

#define KPMC_PROC_DIR "/proc/kpmc"
/* By path for the libpfm4 helpers (pfm_events.h, metricbind.h), which read it themselves. */
#define KPMC_PROC_INFO KPMC_PROC_DIR "/info"

/* Is the module loaded (is there a /proc/kpmc)? */
int kpmc_proc_present(void);

/* Open /proc/kpmc/FILE with flags (O_CLOEXEC added): the fd, or -errno. */
int kpmc_proc_open(const char *file, int flags);

/*
 * Why this thread's last request failed with errno err: the kernel's
 * last_error (per thread, so another program's refusal never shows), else
 * strerror(err). Call it before anything else writes to /proc/kpmc.
 */
void kpmc_proc_reason(int err, char *why, size_t len);

/*
 * One write() of req to fd, a /proc/kpmc file or the session's monitor
 * (ring=, wakeup=, noloss, unprivileged): 0, or -errno with the reason in
 * why. The kernel takes a request whole or refuses it; a short write is
 * -EIO.
 */
int kpmc_proc_request(int fd, const char *req, char *why, size_t len);

/*
 * kpmc_proc_request on /proc/kpmc/FILE (config, enable), opened write-only
 * for it: 0 or -errno, the reason in why (also when FILE does not open).
 */
int kpmc_proc_write(const char *file, const char *req, char *why, size_t len);

/*
 * A session for one configuration, as the programs that count for others
 * open one (pmdakpmc, the Slurm plugin, libkpmc's cgroup session): the
 * monitor file opened read-write and non-blocking (the calling thread's
 * session), "unprivileged" asked first when unprivileged is set (a module
 * too old to know it takes the session anyway: *capable_owner then 1), a
 * ring of ring records, the configuration raw (the kernel's form) written.
 * The monitor's descriptor, or -1 with why in err ("cannot start a
 * monitoring session: ...", "ring=N: ...", "configuration '...' rejected:
 * ...", the kernel's reason in each).
 */
int kpmc_proc_session_open(const char *raw, unsigned int ring, int unprivileged,
			   int *capable_owner, char *err, size_t len);

/*
 * What the programs read of /proc/kpmc/info themselves. text: the file's
 * beginning, NUL-terminated, for line parsers (kpmc_mem_default_event's
 * memory_sampling and general_counters); everything up to the
 * virtual_counters line is a bounded number of short lines, well inside
 * it (the per-session lines that follow are what can grow).
 */
#define KPMC_INFO_TEXT 8192
struct kpmc_info {
	char text[KPMC_INFO_TEXT];
	/* "virtual_counters: virt0=a virt1=b": the active module's names, "" for none. */
	char virt_name[KPMC_MAX_VIRT][32];
	/* "virtual_counters_self_read: yes": a thread's read of self gives them too. */
	int virt_self_read;
};

/* info from an info file's text (tests pass their own). */
void kpmc_info_parse(struct kpmc_info *info, const char *text);

/*
 * info from /proc/kpmc/info: 0, or -errno with info empty (no text, no
 * names), which the callers take as "nothing there".
 */
int kpmc_info_read(struct kpmc_info *info);

#endif
