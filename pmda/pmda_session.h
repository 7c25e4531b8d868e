/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmdakpmc's kpmc session: the monitor file (records), the configuration
 * (event names through the CLI's pfm_events.c), attaching threads and
 * starting system-wide counting. Opened only when the configuration names
 * something to count: until then the agent holds no session and no counter.
 */
#ifndef KPMC_PMDA_SESSION_H
#define KPMC_PMDA_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uapi/linux/kpmc.h>

#include "pmda_config.h"

/* The session's ring, in records: also the most one drain takes. */
#define KPMC_PMDA_RING_RECORDS 16384

struct kpmc_pmda_session {
	int fd;				/* /proc/kpmc/monitor, -1: none */
	int system_wide;		/* enable cpus=... was written */
	int capable_owner;		/* the module took no "unprivileged": an older one */
	char raw[1024];			/* the set as the kernel took it */
	char counter_name[KPMC_MAX_COUNTERS][96];	/* pmcN: its event as configured */
	char virt_name[KPMC_MAX_VIRT][32];		/* virtN: the active module's name */
};

/*
 * Open the session for c (which must be active); 0, or -1 with why in err.
 * The agent is root, but what it counts is served to others: the session
 * asks kpmc to treat it as an unprivileged owner (perf_event_paranoid's
 * rules, no counting across a setuid exec, no capable-only virtual
 * counters). A module too old to know that takes the session anyway, with
 * capable_owner set for the caller to warn.
 */
int kpmc_pmda_session_open(struct kpmc_pmda_session *s, const struct kpmc_pmda_config *c,
			   char *err, size_t len);

/*
 * Attach thread tid: 0, or -errno with the kernel's reason (last_error) in
 * why. -EBUSY is both "already monitored" and "the counters are taken":
 * kpmc_pmda_attach_classify tells them apart by the reason.
 */
int kpmc_pmda_session_attach(struct kpmc_pmda_session *s, pid_t tid, char *why, size_t len);

/*
 * Read the records there are (non-blocking) into fn, KPMC_PMDA_RING_RECORDS
 * at most. The number read, or -1 when the module went away.
 */
long kpmc_pmda_session_drain(struct kpmc_pmda_session *s,
			     void (*fn)(const struct kpmc_record *r, void *arg), void *arg);

/*
 * Count the cgroup dir_fd (an open directory of the cgroup v2 tree) as a
 * whole: 0, or -errno with the module's reason in why. The session's
 * accepted starts are numbered 1, 2, ...: their CPU records' detail.
 */
int kpmc_pmda_session_count_cgroup(struct kpmc_pmda_session *s, int dir_fd, char *why, size_t len);

/* Start id's counting ends; its last records follow. */
void kpmc_pmda_session_uncount(struct kpmc_pmda_session *s, uint32_t id);

/*
 * Per thread: every attached thread sends its last counts now (enable
 * "stop"), for a drain before the close; the session takes no thread after.
 */
void kpmc_pmda_session_stop(struct kpmc_pmda_session *s);

void kpmc_pmda_session_close(struct kpmc_pmda_session *s);

#endif
