/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the x86 memory-sampling tests (test_x86_pebs.c, test_x86_ibs.c) do
 * the same way: probe the MSR model as a CPU model, parse and encode a
 * configuration as the core would, arm the sampling counter a period from
 * its overflow, and expect a refusal with its exact reason. The includer
 * defines HARNESS_BACKEND, the backend under test.
 */
#ifndef KPMC_X86_SAMPLING_HARNESS_H
#define KPMC_X86_SAMPLING_HARNESS_H

#include "msr_model.h"
#include "kpmc/sampling.h"

extern const struct kpmc_backend HARNESS_BACKEND;

static const struct kpmc_backend *be = &HARNESS_BACKEND;
static struct kpmc_pmu_desc desc;
static char why[KPMC_ERR_MAX];

/* Probe the model as kind (after tweak, if any, changes it). */
static int probe(enum model_kind kind, void (*tweak)(void))
{
	model_init(kind);
	if (tweak)
		tweak();
	memset(&desc, 0, sizeof(desc));
	why[0] = '\0';
	return be->probe(&desc, why, sizeof(why));
}

static int configure(const char *s, struct kpmc_hw_config *hw)
{
	struct kpmc_config c;
	int r = kpmc_config_parse(s, strlen(s), &desc, &c, why, sizeof(why));

	if (r)
		return r;
	why[0] = '\0';
	return be->encode(&c, hw, why, sizeof(why));
}

/* The core's load() with the sampling counter period events from its overflow. */
static void arm(struct kpmc_hw_config *hw, u64 period)
{
	u64 start[KPMC_MAX_COUNTERS] = { 0 };

	start[hw->sampling_index] = kpmc_overflow_start(period, hw->width_mask[hw->sampling_index]);
	be->load(hw, start);
}

static void expect_refused(const char *config, int err, const char *reason)
{
	struct kpmc_hw_config hw;
	int r = configure(config, &hw);

	if (r != err)
		fail_msg("'%s': %d, expected %d (%s)", config, r, err, why);
	if (strcmp(why, reason))
		fail_msg("'%s': reason '%s', expected '%s'", config, why, reason);
}

#endif
