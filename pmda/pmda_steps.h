/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slurm job steps counted by kpmc's SPANK plugin (userland/slurm): each
 * counted step leaves its node's totals in the node's spool directory
 * (kpmc-JOB.STEP.NODE.json, written by root into a directory only root can
 * write), which the agent serves as kpmc.step.* (the `steps DIR`
 * directive), one instance a step, labelled with its job, step and user.
 * The job is what Slurm said in slurmstepd, never a process's environment.
 */
#ifndef KPMC_PMDA_STEPS_H
#define KPMC_PMDA_STEPS_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/linux/kpmc.h>

struct kpmc_pmda_step {
	unsigned int inst;			/* instance id, kept while the file is there */
	uint32_t job;
	char step[32];				/* "0", "batch", ... */
	uint32_t uid;
	char events[512];
	char name[KPMC_MAX_COUNTERS][96];	/* pmcN's event, "" past the step's events */
	uint64_t count[KPMC_MAX_COUNTERS];
	uint64_t run_ns, lost;
	int seen;				/* found by the last read */
};

struct kpmc_pmda_steps {
	struct kpmc_pmda_step *v;
	size_t n, cap;
	unsigned int next_inst;
	int changed;				/* steps came or went since the flag was cleared */
};

/*
 * One report (the plugin's JSON line) into s, inst untouched: 0, or -1 when
 * it is not one (a field missing, a name with characters a label cannot
 * carry, more than KPMC_MAX_COUNTERS counts).
 */
int kpmc_pmda_step_parse(const char *text, struct kpmc_pmda_step *s);

/*
 * The reports in dir into t: a step keeps its instance id while its file
 * is there, and goes with it. Only dir owned by root and writable by
 * nobody else is read, and in it only regular files owned by root. The
 * number of steps, or -1 with errno (dir refused: EPERM).
 */
int kpmc_pmda_steps_read(struct kpmc_pmda_steps *t, const char *dir);

const struct kpmc_pmda_step *kpmc_pmda_steps_find(const struct kpmc_pmda_steps *t, unsigned int inst);

void kpmc_pmda_steps_free(struct kpmc_pmda_steps *t);

#endif
