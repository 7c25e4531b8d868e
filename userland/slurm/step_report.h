/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a counted step leaves behind on each node: its totals as CSV and
 * JSON in the job's directory, written with the job's user's own
 * credentials (a path the user names can only lead where the user could
 * write anyway), and the JSON in the node's spool directory, written by
 * root into a root-owned directory, for pmdakpmc (kpmc.step metrics) and
 * sacct-side tooling.
 */
#ifndef KPMC_STEP_REPORT_H
#define KPMC_STEP_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "step_count.h"
#include "common/cgroup_count.h"

struct kpmc_step_report {
	uint32_t job;
	char step[32];				/* "0", "batch", "extern" */
	char node[64];				/* this node's name */
	uint32_t nodeid;			/* its index in the step */
	uid_t uid;
	char events[KPMC_STEP_EVENTS_MAX];	/* as the user gave them */
	const struct kpmc_cgroup_count *count;
};

/* "kpmc-JOB.STEP.NODE" + suffix, the files' name: 0, or -1 when it does not fit. */
int kpmc_step_report_name(const struct kpmc_step_report *r, const char *suffix, char *out,
			  size_t len);

/* One line a counter: "job,step,node,event,count", run_ns last. Bytes written, -1: too small. */
int kpmc_step_report_csv(const struct kpmc_step_report *r, char *buf, size_t len);

/* One JSON object, newline-terminated. Bytes written, -1: too small. */
int kpmc_step_report_json(const struct kpmc_step_report *r, char *buf, size_t len);

/*
 * text into DIR/NAME as uid/gid (a child that takes the user's credentials
 * and nothing of root's: no supplementary groups), not through a symbolic
 * link at NAME, replacing what was there. 0, or -1 with why in err.
 */
int kpmc_step_write_as(uid_t uid, gid_t gid, const char *dir, const char *name, const char *text,
		       char *err, size_t len);

/*
 * text into SPOOL/NAME by root: SPOOL is made (0755) if missing and must be
 * a directory owned by root that nobody else can write; written to a
 * temporary file and renamed, so a reader sees a whole report or none.
 * 0, or -1 with why in err.
 */
int kpmc_step_spool(const char *spool, const char *name, const char *text, char *err, size_t len);

#endif
