// SPDX-License-Identifier: GPL-2.0
/*
 * The perf backend's memory samples (backends/perf/perf_mem.c): perf's data
 * sources, as Intel PEBS and AMD IBS report them through perf, in kpmc's
 * encoding, field by field.
 */
#define _GNU_SOURCE	/* REG_EFL (nmi_step.h) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "perf_mem.h"
#include "nmi_step.h"

#define DS(op, lvl, snoop)	(PERF_MEM_S(OP, op) | PERF_MEM_S(LVL, lvl) | PERF_MEM_S(SNOOP, snoop))

static struct kpmc_mem_access convert(u64 data_src, u64 addr, u64 weight)
{
	struct kpmc_perf_mem_sample s = {
		.ip = 0x401000, .addr = addr, .data_src = data_src, .weight = weight,
		.has_addr = true, .has_data_src = true, .has_weight = true, .exact = true,
	};
	struct kpmc_mem_access a;

	kpmc_perf_mem_convert(&s, &a);
	return a;
}

static void test_intel_pebs_sources(void **state)
{
	/* Intel load-latency encodings as perf writes them (legacy level bits). */
	static const struct {
		u64 ds;
		u32 source;
	} cases[] = {
		{ DS(LOAD, HIT | PERF_MEM_LVL_L1, NONE), KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_LFB, NONE), KPMC_MEM_SRC(KPMC_MEM_LVL_LFB, KPMC_MEM_SNOOP_NONE) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_L2, NONE), KPMC_MEM_SRC(KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_L3, HITM), KPMC_MEM_SRC(KPMC_MEM_LVL_L3, KPMC_MEM_SNOOP_HITM) },
		{ DS(LOAD, MISS | PERF_MEM_LVL_L3, NA), KPMC_MEM_SRC(KPMC_MEM_LVL_L3_MISS, KPMC_MEM_SNOOP_NA) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_LOC_RAM, MISS), KPMC_MEM_SRC(KPMC_MEM_LVL_RAM, KPMC_MEM_SNOOP_MISS) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_REM_RAM1, HIT), KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_RAM, KPMC_MEM_SNOOP_HIT) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_REM_CCE1, HITM), KPMC_MEM_SRC(KPMC_MEM_LVL_REMOTE_CACHE, KPMC_MEM_SNOOP_HITM) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_IO, NONE), KPMC_MEM_SRC(KPMC_MEM_LVL_IO, KPMC_MEM_SNOOP_NONE) },
		{ DS(LOAD, HIT | PERF_MEM_LVL_UNC, NONE), KPMC_MEM_SRC(KPMC_MEM_LVL_UNCACHED, KPMC_MEM_SNOOP_NONE) },
		/* STLB miss and a locked access. */
		{ DS(LOAD, HIT | PERF_MEM_LVL_L1, NONE) | PERF_MEM_S(TLB, MISS | PERF_MEM_TLB_L2) |
		  PERF_MEM_S(LOCK, LOCKED),
		  KPMC_MEM_SRC(KPMC_MEM_LVL_L1, KPMC_MEM_SNOOP_NONE) | KPMC_MEM_SRC_TLB1_MISS |
		  KPMC_MEM_SRC_TLB2_MISS | KPMC_MEM_SRC_LOCKED },
		/* An STLB hit is no miss. */
		{ DS(LOAD, HIT | PERF_MEM_LVL_L2, NONE) | PERF_MEM_S(TLB, HIT | PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2),
		  KPMC_MEM_SRC(KPMC_MEM_LVL_L2, KPMC_MEM_SNOOP_NONE) },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kpmc_mem_access a = convert(cases[i].ds, 0x7f0000001000ULL + i * 8, 40 + i);

		if (a.source != cases[i].source)
			fail_msg("case %zu: source 0x%x, expected 0x%x", i, a.source, cases[i].source);
		assert_int_equal(a.op, KPMC_MEM_OP_LOAD);
		assert_int_equal(a.ip, 0x401000);
		assert_true(a.addr == 0x7f0000001000ULL + i * 8);
		assert_int_equal(a.latency, 40 + i);
		assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_EXACT | KPMC_MEM_F_ADDR |
				 KPMC_MEM_F_LATENCY | KPMC_MEM_F_SOURCE);
		assert_int_equal(a.size, 0);
		assert_int_equal(a.skid, 0);
	}
}

static void test_numbered_levels(void **state)
{
	/* AMD IBS through perf: numbered levels, remote, peer. */
	static const struct {
		u64 ds;
		u32 level;
	} cases[] = {
		{ PERF_MEM_S(LVLNUM, L3), KPMC_MEM_LVL_L3 },
		{ PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(SNOOPX, PEER), KPMC_MEM_LVL_PEER_CACHE },
		{ PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(REMOTE, REMOTE), KPMC_MEM_LVL_REMOTE_CACHE },
		{ PERF_MEM_S(LVLNUM, ANY_CACHE), KPMC_MEM_LVL_PEER_CACHE },
		{ PERF_MEM_S(LVLNUM, ANY_CACHE) | PERF_MEM_S(REMOTE, REMOTE), KPMC_MEM_LVL_REMOTE_CACHE },
		{ PERF_MEM_S(LVLNUM, RAM), KPMC_MEM_LVL_RAM },
		{ PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE), KPMC_MEM_LVL_REMOTE_RAM },
		{ PERF_MEM_S(LVLNUM, PMEM), KPMC_MEM_LVL_EXT_MEM },
		{ PERF_MEM_S(LVLNUM, CXL), KPMC_MEM_LVL_EXT_MEM },
		{ PERF_MEM_S(LVLNUM, IO), KPMC_MEM_LVL_IO },
		{ PERF_MEM_S(LVLNUM, LFB), KPMC_MEM_LVL_LFB },
		{ PERF_MEM_S(LVLNUM, L2), KPMC_MEM_LVL_L2 },
		/* The number wins over the older bits; NA falls back to them. */
		{ PERF_MEM_S(LVLNUM, L1) | PERF_MEM_S(LVL, L3), KPMC_MEM_LVL_L1 },
		{ PERF_MEM_S(LVLNUM, NA) | PERF_MEM_S(LVL, L2), KPMC_MEM_LVL_L2 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kpmc_mem_access a = convert(cases[i].ds | PERF_MEM_S(OP, STORE), 0x1000, 0);

		if (KPMC_MEM_SRC_LEVEL(a.source) != cases[i].level)
			fail_msg("case %zu: level %u, expected %u", i, KPMC_MEM_SRC_LEVEL(a.source),
				 cases[i].level);
		assert_int_equal(KPMC_MEM_SRC_SNOOP(a.source), KPMC_MEM_SNOOP_NA);
		assert_int_equal(a.op, KPMC_MEM_OP_STORE);
		/* A store has no weight here: no latency. */
		assert_int_equal(a.flags & KPMC_MEM_F_LATENCY, 0);
	}
}

static void test_missing_fields(void **state)
{
	struct kpmc_perf_mem_sample s = {
		.ip = 0xffffffff81000000ULL, .addr = 0xdead, .data_src = PERF_MEM_S(OP, LOAD),
		.weight = 99, .kernel = true,
	};
	struct kpmc_mem_access a;

	(void)state;
	/* Nothing the driver did not fill is taken. */
	kpmc_perf_mem_convert(&s, &a);
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_KERNEL);
	assert_int_equal(a.op, KPMC_MEM_OP_NONE);
	assert_true(a.ip == 0xffffffff81000000ULL);
	assert_true(a.addr == 0 && a.latency == 0 && a.source == 0);
	/* Address 0 is perf's "none"; an all-NA source is no source. */
	s.has_addr = s.has_data_src = s.has_weight = true;
	s.addr = 0;
	s.weight = 1ULL << 32;		/* instruction latency above, none below */
	s.data_src = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
		     PERF_MEM_S(LVLNUM, NA);
	kpmc_perf_mem_convert(&s, &a);
	assert_int_equal(a.flags, KPMC_MEM_F_HARDWARE | KPMC_MEM_F_KERNEL);
	assert_int_equal(a.op, KPMC_MEM_OP_LOAD);
	/* Load and store at once: an atomic. */
	s.data_src = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(OP, STORE);
	kpmc_perf_mem_convert(&s, &a);
	assert_int_equal(a.op, KPMC_MEM_OP_LOAD_STORE);
}

/* Two samples that differ in every field. */
static const struct kpmc_perf_mem_sample slot_a = {
	.ip = 0x401100, .addr = 0x7f00000a0000, .weight = 40,
	.data_src = DS(LOAD, HIT | PERF_MEM_LVL_L1, NONE),
	.has_addr = true, .has_data_src = true, .has_weight = true, .exact = true,
};
static const struct kpmc_perf_mem_sample slot_b = {
	.ip = 0x402200, .addr = 0x7f00000b0000, .weight = 90,
	.data_src = DS(STORE, HIT | PERF_MEM_LVL_L2, HIT),
	.has_addr = true, .has_data_src = true, .has_weight = true,
};
static struct kpmc_perf_mem_slot slot;
static struct kpmc_mem_access slot_out;

/* perf's overflow handler, as the NMI it is on x86. */
static void slot_nmi(void)
{
	kpmc_perf_mem_keep(&slot, &slot_b);
}

static void slot_take(void *arg)
{
	(void)arg;
	kpmc_perf_mem_take(&slot, true, &slot_out);
}

static bool same(const struct kpmc_mem_access *a, const struct kpmc_perf_mem_sample *s)
{
	struct kpmc_mem_access want;

	kpmc_perf_mem_convert(s, &want);
	return !memcmp(a, &want, sizeof(want));
}

/*
 * The pending sample as the core takes it, with perf's handler (an NMI on
 * x86) keeping a newer one at every instruction of the take: one sample
 * whole, the older or the newer, never a mix; the newer, if not taken then,
 * taken next; each once.
 */
static void test_pending_not_torn(void **state)
{
	struct kpmc_mem_access next;
	unsigned long step, fired = 0, torn = 0, twice = 0, lost = 0, first = 0;

	(void)state;
	if (!nmi_step_available())
		skip();
	memset(&slot, 0, sizeof(slot));
	assert_false(kpmc_perf_mem_take(&slot, true, &next));
	for (step = 1; step < 1000; step++) {
		kpmc_perf_mem_keep(&slot, &slot_a);
		memset(&slot_out, 0, sizeof(slot_out));
		if (!nmi_at_step(slot_take, NULL, step, slot_nmi))
			break;
		fired++;
		memset(&next, 0, sizeof(next));
		if (same(&slot_out, &slot_a)) {
			if (!kpmc_perf_mem_take(&slot, true, &next) || !same(&next, &slot_b))
				lost++;
		} else if (same(&slot_out, &slot_b)) {
			if (kpmc_perf_mem_take(&slot, true, &next))
				twice++;
		} else if (!torn++) {
			first = step;
			print_message("NMI at instruction %lu of the take: a torn sample (ip 0x%llx addr 0x%llx latency %u source 0x%x op %u)\n",
				      step, (unsigned long long)slot_out.ip,
				      (unsigned long long)slot_out.addr, slot_out.latency,
				      slot_out.source, slot_out.op);
		}
	}
	if (torn || twice || lost)
		fail_msg("of %lu NMIs in the take: %lu torn samples (the first at instruction %lu), %lu newer samples taken twice, %lu lost",
			 fired, torn, first, twice, lost);
	assert_true(fired >= 10 && fired < 999);
	/* Discarded (the next thread's load): nothing pending. */
	kpmc_perf_mem_keep(&slot, &slot_a);
	kpmc_perf_mem_discard(&slot);
	assert_false(kpmc_perf_mem_take(&slot, true, &next));
}

/* A sample of kernel code for an owner who may not count kernel mode: no address. */
static void test_kernel_hidden(void **state)
{
	struct kpmc_perf_mem_sample k = slot_a;
	struct kpmc_mem_access a;

	(void)state;
	k.ip = 0xffffffff81000000ULL;
	k.addr = 0xffff888000001000ULL;
	k.kernel = true;
	memset(&slot, 0, sizeof(slot));
	kpmc_perf_mem_keep(&slot, &k);
	assert_true(kpmc_perf_mem_take(&slot, false, &a));
	assert_true(a.ip == 0 && a.addr == 0);
	assert_true(a.flags & KPMC_MEM_F_KERNEL);
	assert_false(a.flags & KPMC_MEM_F_ADDR);
	kpmc_perf_mem_keep(&slot, &k);
	assert_true(kpmc_perf_mem_take(&slot, true, &a));
	assert_true(a.ip == k.ip && a.addr == k.addr);
	assert_int_equal(a.flags & (KPMC_MEM_F_KERNEL | KPMC_MEM_F_ADDR),
			 KPMC_MEM_F_KERNEL | KPMC_MEM_F_ADDR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_pebs_sources),
		cmocka_unit_test(test_numbered_levels),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_pending_not_torn),
		cmocka_unit_test(test_kernel_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
