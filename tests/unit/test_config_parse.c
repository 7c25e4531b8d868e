// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the config parser, counter arithmetic and ring indices: the
 * same sources the module is built from. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kpmc/config.h"
#include "kpmc/counter.h"
#include "kpmc/ring.h"
#include "kpmc/sampling.h"

/* A PMU shaped like the QEMU cortex-a57's: a fixed cycle counter + 6 event counters. */
static int fake_check_event(const struct kpmc_pmu_desc *pmu, unsigned int slot,
			    uint64_t event, char *why, size_t len)
{
	(void)pmu;
	(void)slot;
	if (event > 0xffff) {
		snprintf(why, len, "event 0x%llx does not fit", (unsigned long long)event);
		return -EINVAL;
	}
	if (event == 0x3f) {
		snprintf(why, len, "event 0x3f is not implemented");
		return -EINVAL;
	}
	return 0;
}

static struct kpmc_pmu_desc pmu = {
	.model = "fake",
	.nr_fixed = 1,
	.nr_counters = 7,
	.width = { 64, 32, 32, 32, 32, 32, 32 },
	.fixed_event = { 0x11 },
	.fixed_name = { "cycles" },
	.check_event = fake_check_event,
};

static int parse(const char *s, struct kpmc_config *c, char *err)
{
	return kpmc_config_parse(s, strlen(s), &pmu, c, err, KPMC_ERR_MAX);
}

static void test_valid_configs(void **state)
{
	struct kpmc_config c;
	char err[KPMC_ERR_MAX], out[KPMC_CONFIG_STR_MAX * 2];

	(void)state;
	assert_int_equal(parse("pmc0,pmc1=0x8,usr1=1,os1=0", &c, err), 0);
	assert_int_equal(c.mask, 0x3);
	assert_int_equal(c.ctr[0].event, 0x11);
	assert_int_equal(c.ctr[1].event, 0x8);
	assert_true(c.ctr[1].usr);
	assert_false(c.ctr[1].os);
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc0=0x11,usr0=1,os0=0,pmc1=0x8,usr1=1,os1=0");

	assert_int_equal(parse("pmc6=17,os6=1,usr6=0,tbs=100\n", &c, err), 0);
	assert_int_equal(c.mask, 1u << 6);
	assert_int_equal(c.ctr[6].event, 17);
	assert_false(c.ctr[6].usr);
	assert_true(c.ctr[6].os);
	assert_int_equal(c.tbs_ms, 100);
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc6=0x11,usr6=0,os6=1,tbs=100");

	assert_int_equal(parse("pmc0=0x11,os0=1", &c, err), 0);
	assert_true(c.ctr[0].usr && c.ctr[0].os);
	assert_int_equal(parse("pmc2=0XFFFF", &c, err), 0);
	assert_int_equal(c.ctr[2].event, 0xffff);
}

/* Each rejected string, and a word its error message must contain. */
static const struct {
	const char *in;
	const char *msg;
} bad[] = {
	{ "", "empty" },
	{ "\n", "empty" },
	{ "pmc99=0x8", "out of range" },
	{ "pmc7=0x8", "out of range" },
	{ "pmc0=0xzz", "only counts" },
	{ "pmc1=0xzz", "bad number" },
	{ "pmc1=", "bad number" },
	{ "pmc1=0x", "bad number" },
	{ "pmc1", "needs an event" },
	{ "pmc0=0x8", "fixed" },
	{ "pmc1=0x8,pmc1=0x8", "twice" },
	{ "pmc1=0x8,", "empty token" },
	{ ",pmc1=0x8", "empty token" },
	{ "pmc1=0x8,,usr1=1", "empty token" },
	{ "pmc1=0x8 ", "unexpected character" },
	{ "pmc1=0x8\n\n", "unexpected character" },
	{ "foo", "unknown token" },
	{ "pmc", "unknown token" },
	{ "pmcx=1", "unknown token" },
	{ "usr1=1", "no counter" },
	{ "pmc1=0x8,usr2=1", "not configured" },
	{ "pmc1=0x8,usr1=2", "0 or 1" },
	{ "pmc1=0x8,usr1", "0 or 1" },
	{ "pmc1=0x8,usr1=1,usr1=0", "twice" },
	{ "pmc1=0x8,usr1=0,os1=0", "no mode" },
	{ "pmc1=0x10000", "does not fit" },
	{ "pmc1=0x3f", "not implemented" },
	{ "pmc1=99999999999999999999999", "bad number" },
	{ "pmc1=0x8,tbs=abc", "milliseconds" },
	{ "pmc1=0x8,tbs=86400001", "milliseconds" },
	{ "pmc1=0x8,tbs=1,tbs=2", "twice" },
	{ "tbs=100", "no counter" },
	{ "pmc123456789=1", "too large" },
	{ "pmc1=-1", "bad number" },
};

static void test_rejections(void **state)
{
	struct kpmc_config c, before;
	char err[KPMC_ERR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0xa5, sizeof(c));
		before = c;
		if (parse(bad[i].in, &c, err) == 0)
			fail_msg("accepted '%s'", bad[i].in);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': message '%s' lacks '%s'", bad[i].in, err, bad[i].msg);
		assert_memory_equal(&c, &before, sizeof(c));
	}
}

static void test_nul_and_binary(void **state)
{
	struct kpmc_config c;
	char err[KPMC_ERR_MAX];
	char junk[4096];
	const char nul[] = "pmc1=0x8\0pmc2=0x8";

	(void)state;
	assert_int_equal(kpmc_config_parse(nul, sizeof(nul) - 1, &pmu, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unexpected character"));
	memset(junk, 'x', sizeof(junk));
	assert_int_equal(kpmc_config_parse(junk, sizeof(junk), &pmu, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too long"));
	/* The message quotes at most 40 bytes, printable only. */
	assert_true(strlen(err) < 100);
}

static void test_parse_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(kpmc_parse_u64("0", 1, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(kpmc_parse_u64("18446744073709551615", 20, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(kpmc_parse_u64("18446744073709551616", 20, &v), -EINVAL);
	assert_int_equal(kpmc_parse_u64("0xffffffffffffffff", 18, &v), 0);
	assert_int_equal(kpmc_parse_u64("0x1ffffffffffffffff", 19, &v), -EINVAL);
	assert_int_equal(kpmc_parse_u64("0x", 2, &v), -EINVAL);
	assert_int_equal(kpmc_parse_u64("", 0, &v), -EINVAL);
	assert_int_equal(kpmc_parse_u64("12a", 3, &v), -EINVAL);
}

static void test_counter_delta(void **state)
{
	uint64_t m32 = kpmc_width_mask(32), m64 = kpmc_width_mask(64);

	(void)state;
	assert_true(m32 == 0xffffffffull);
	assert_true(m64 == UINT64_MAX);
	assert_true(kpmc_width_mask(48) == 0xffffffffffffull);
	assert_true(kpmc_counter_delta(150, 100, m32) == 50);
	/* Wrapped once between the two reads. */
	assert_true(kpmc_counter_delta(10, 0xfffffff0ull, m32) == 0x1a);
	assert_true(kpmc_counter_delta(5, UINT64_MAX - 4, m64) == 10);
	/* Counters narrower than the register: high garbage bits do not leak in. */
	assert_true(kpmc_counter_delta(0x100000005ull, 0xfffffffbull, m32) == 10);
}

static void test_ring(void **state)
{
	struct kpmc_ring_pos r = { .capacity = 4 };
	uint32_t first;
	int i;

	(void)state;
	assert_false(kpmc_ring_capacity_valid(0));
	assert_false(kpmc_ring_capacity_valid(6));
	assert_true(kpmc_ring_capacity_valid(4096));
	for (i = 0; i < 4; i++) {
		assert_int_equal(kpmc_ring_reserve(&r), i);
		kpmc_ring_produced(&r);
	}
	assert_int_equal(kpmc_ring_reserve(&r), -1);
	assert_true(r.dropped == 1);
	assert_int_equal(kpmc_ring_peek(&r, 3, &first), 3);
	assert_int_equal(first, 0);
	kpmc_ring_consumed(&r, 3);
	/* Next records wrap to slots 0, 1, 2. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(kpmc_ring_reserve(&r), i);
		kpmc_ring_produced(&r);
	}
	assert_int_equal(kpmc_ring_reserve(&r), -1);
	assert_true(r.dropped == 2);
	assert_int_equal(kpmc_ring_peek(&r, 64, &first), 4);
	assert_int_equal(first, 3);
	kpmc_ring_consumed(&r, 4);
	assert_int_equal(kpmc_ring_peek(&r, 64, &first), 0);
	/* Two drops so far, neither told yet; telling clears the count. */
	assert_true(r.unreported == 2);
	assert_true(kpmc_ring_take_unreported(&r) == 2);
	assert_true(kpmc_ring_take_unreported(&r) == 0);
	assert_true(r.dropped == 2);
	assert_true(kpmc_ring_has_room(&r));
	/* Positions are free-running: far past 2^32 nothing aliases. */
	r.head = r.tail = 0xfffffffeull;
	assert_int_equal(kpmc_ring_reserve(&r), 2);
	kpmc_ring_produced(&r);
	assert_true(kpmc_ring_used(&r) == 1);
}

static void test_ebs_configs(void **state)
{
	struct kpmc_config c;
	char err[KPMC_ERR_MAX], out[KPMC_CONFIG_STR_MAX * 2];

	(void)state;
	assert_int_equal(parse("pmc0,pmc1=0x8,ebs0=1000000", &c, err), 0);
	assert_int_equal(c.ebs_period, 1000000);
	assert_int_equal(c.ebs_slot, 0);
	assert_int_equal(c.ebs_range, 0);
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc0=0x11,usr0=1,os0=0,pmc1=0x8,usr1=1,os1=0,ebs0=1000000");
	assert_int_equal(parse(out, &c, err), 0);

	assert_int_equal(parse("pmc1=0x8,ebs1=0x100000,rnd=1000,seed=7,tbs=10", &c, err), 0);
	assert_int_equal(c.ebs_slot, 1);
	assert_int_equal(c.ebs_period, 0x100000);
	assert_int_equal(c.ebs_range, 1000);
	assert_int_equal(c.seed, 7);
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc1=0x8,usr1=1,os1=0,tbs=10,ebs1=1048576,rnd=1000,seed=7");

	/* Memory sampling: mem=1 on an EBS configuration, read back. */
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,mem=1", &c, err), 0);
	assert_true(c.mem);
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc1=0x8,usr1=1,os1=0,ebs1=100000,mem=1");
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,mem=0", &c, err), 0);
	assert_false(c.mem);
	/* A load-latency threshold, where the PMU's memory sampling has one. */
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,mem=1,ldlat=30", &c, err), -EINVAL);
	assert_string_equal(err, "'pmc1=0x8,ebs1=100000,mem=1,ldlat=30': "
			    "ldlat: this PMU's memory sampling has no load-latency threshold");
	pmu.mem_ldlat = true;
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,mem=1,ldlat=30", &c, err), 0);
	assert_int_equal(c.mem_ldlat, 30);
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc1=0x8,usr1=1,os1=0,ebs1=100000,mem=1,ldlat=30");
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,ldlat=30", &c, err), -EINVAL);
	assert_string_equal(err, "'pmc1=0x8,ebs1=100000,ldlat=30': ldlat needs mem=1 (memory sampling)");
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,mem=1,ldlat=2", &c, err), -EINVAL);
	assert_string_equal(err, "'ldlat=2': ldlat wants a load-latency threshold in cycles (3 to 65535)");
	pmu.mem_ldlat = false;

	/*
	 * Sampling formats: fmt=NAME and its fmt.KEY=VALUE options, collected
	 * for the format to check, and read back in the same form.
	 */
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,fmt=callstack,fmt.depth=16,fmt.stack=user", &c, err), 0);
	assert_string_equal(c.fmt_name, "callstack");
	assert_string_equal(c.fmt_args, "depth=16,stack=user");
	kpmc_config_format(&c, out, sizeof(out));
	assert_string_equal(out, "pmc1=0x8,usr1=1,os1=0,ebs1=100000,fmt=callstack,fmt.depth=16,fmt.stack=user");
	assert_int_equal(parse(out, &c, err), 0);
	assert_string_equal(c.fmt_args, "depth=16,stack=user");
	assert_int_equal(parse("pmc1=0x8,tbs=5,fmt=my_fmt2", &c, err), 0);
	assert_string_equal(c.fmt_name, "my_fmt2");
	assert_string_equal(c.fmt_args, "");
	/* fmt=mem is mem=1. */
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,fmt=mem", &c, err), 0);
	assert_true(c.mem);
	assert_string_equal(c.fmt_name, "");
	assert_int_equal(parse("pmc1=0x8,fmt=callstack", &c, err), -EINVAL);
	assert_string_equal(err, "'pmc1=0x8,fmt=callstack': fmt=NAME needs samples to follow: tbs=MS or an ebsN counter");
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,fmt.depth=3", &c, err), -EINVAL);
	assert_string_equal(err, "'pmc1=0x8,ebs1=100000,fmt.depth=3': fmt.KEY options need fmt=NAME");
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,fmt=Call", &c, err), -EINVAL);
	assert_string_equal(err, "'fmt=Call': a format's name is made of a-z, 0-9 and _");
	assert_int_equal(parse("pmc1=0x8,ebs1=100000,fmt=callstack,fmt.x", &c, err), -EINVAL);
	assert_string_equal(err, "'fmt.x': fmt.KEY wants a value: fmt.KEY=VALUE");

	/* 32-bit counter: the period (+ range) must fit. */
	assert_int_equal(parse("pmc1=0x8,ebs1=4294967295", &c, err), 0);
	assert_int_equal(parse("pmc0,ebs0=10000000000", &c, err), 0);

	const char *bad[] = {
		"pmc0,ebs0=9999",		/* below the minimum period */
		"pmc0,ebs0=",
		"pmc0,ebs0",
		"pmc0,ebs1=100000",		/* pmc1 not configured */
		"pmc0,pmc1=0x8,ebs0=100000,ebs1=100000",
		"pmc0,ebs0=100000,ebs0=100000",
		"pmc0,ebs7=100000",		/* no such counter */
		"pmc1=0x8,ebs1=4294967296",	/* does not fit 32 bits */
		"pmc1=0x8,ebs1=4294967295,rnd=1",
		"pmc0,ebs0=100000,rnd=100000",	/* range >= period */
		"pmc0,ebs0=100000,rnd=90001",	/* period - range below the minimum */
		"pmc0,rnd=10",			/* no sampling counter */
		"pmc0,ebs0=100000,seed=3",	/* seed without rnd */
		"pmc0,ebs0=100000,rnd=10,rnd=10",
		"pmc0,ebs0=100000,rnd=x",
		"pmc0,mem=1",			/* memory sampling without EBS */
		"pmc0,ebs0=100000,mem=2",
		"pmc0,ebs0=100000,mem",
		"pmc0,ebs0=100000,mem=1,mem=1",
		"pmc0,ebs0=100000,mem=1,ldlat=65536",
		"pmc0,ebs0=100000,mem=1,ldlat=",
		"pmc0,ebs0=100000,mem=1,ldlat=1,ldlat=1",
		"pmc0,ebs0=100000,fmt=",
		"pmc0,ebs0=100000,fmt",
		"pmc0,ebs0=100000,fmt=a_name_longer_than_23_chars",
		"pmc0,ebs0=100000,fmt=a,fmt=b",
		"pmc0,ebs0=100000,fmt=mem,mem=1",
		"pmc0,ebs0=100000,mem=1,fmt=callstack",
		"pmc0,ebs0=100000,fmt=callstack,fmt.=1",
		"pmc0,ebs0=100000,fmt=callstack,fmt.depth=",
		"pmc0,ebs0=100000,fmt=c,fmt.a=0123456789012345678901234567890123456789,"
		"fmt.b=0123456789012345678901234567890123456789,fmt.c=0123456789",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0x5a, sizeof(c));
		if (parse(bad[i], &c, err) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(strlen(err) > 0);
		assert_int_equal(c.mask, 0x5a5a5a5a);
	}
}

static void test_random_periods(void **state)
{
	u64 a = kpmc_rand_init(42), b = kpmc_rand_init(42), z = kpmc_rand_init(0);
	u64 lo = ~0ULL, hi = 0, sum = 0;
	const u64 p = 1000000, r = 50000;
	int i, n = 100000, differ = 0;

	(void)state;
	assert_true(z != 0);
	for (i = 0; i < n; i++) {
		u64 x = kpmc_next_period(&a, p, r);

		/* The same seed gives the same stream. */
		assert_true(x == kpmc_next_period(&b, p, r));
		assert_true(x >= p - r && x <= p + r);
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		sum += x;
		differ += x != p;
	}
	/* Uniform over the whole range: both ends reached closely, mean near p. */
	assert_true(lo < p - r + 200 && hi > p + r - 200);
	assert_true(sum / n > p - 1000 && sum / n < p + 1000);
	assert_true(differ > n * 9 / 10);
	/* Another seed, another stream; range 0, the period itself. */
	a = kpmc_rand_init(42);
	b = kpmc_rand_init(43);
	assert_true(kpmc_next_period(&a, p, r) != kpmc_next_period(&b, p, r) ||
		    kpmc_next_period(&a, p, r) != kpmc_next_period(&b, p, r));
	assert_true(kpmc_next_period(&a, p, 0) == p);
	/* Overflow start values. */
	assert_true(kpmc_overflow_start(1000, 0xffffffffULL) == 0xfffffc18ULL);
	assert_true(kpmc_overflow_start(1000, ~0ULL) == 0ULL - 1000);
	assert_true(kpmc_counter_delta(5, kpmc_overflow_start(1000, 0xffffffffULL),
				       0xffffffffULL) == 1005);
}

static void test_config_sets(void **state)
{
	struct kpmc_config_sets sets;
	char err[KPMC_ERR_MAX], out[KPMC_CONFIG_STR_MAX * 2];

	(void)state;
	assert_int_equal(kpmc_config_sets_parse("pmc1=0x8\n", 9, &pmu, &sets, err, sizeof(err)), 0);
	assert_int_equal(sets.nr, 1);
	assert_int_equal(sets.set[0].mux_ms, 0);

	const char *two = "pmc1=0x8,mux=5;pmc0,ebs0=100000,muxsamples=3";
	assert_int_equal(kpmc_config_sets_parse(two, strlen(two), &pmu, &sets, err, sizeof(err)), 0);
	assert_int_equal(sets.nr, 2);
	assert_int_equal(sets.set[0].mux_ms, 5);
	assert_int_equal(sets.set[1].mux_samples, 3);
	assert_int_equal(sets.set[1].mux_ms, 0);
	kpmc_config_sets_format(&sets, out, sizeof(out));
	assert_string_equal(out, "pmc1=0x8,usr1=1,os1=0,mux=5;"
				 "pmc0=0x11,usr0=1,os0=0,ebs0=100000,muxsamples=3");
	/* A set without mux= gets the default time slice. */
	assert_int_equal(kpmc_config_sets_parse("pmc1=0x8;pmc1=0x11", 18, &pmu, &sets, err,
						sizeof(err)), 0);
	assert_int_equal(sets.set[0].mux_ms, KPMC_MUX_DEFAULT_MS);
	assert_int_equal(sets.set[1].mux_ms, KPMC_MUX_DEFAULT_MS);
	/* Randomized slices, with or without a seed of their own; round trip. */
	const char *rnd = "pmc1=0x8,mux=4,muxrnd=2,seed=9;pmc1=0x11,muxrnd=3";
	assert_int_equal(kpmc_config_sets_parse(rnd, strlen(rnd), &pmu, &sets, err, sizeof(err)), 0);
	assert_int_equal(sets.set[0].mux_rnd_ms, 2);
	assert_int_equal(sets.set[0].seed, 9);
	assert_int_equal(sets.set[1].mux_ms, KPMC_MUX_DEFAULT_MS);
	assert_int_equal(sets.set[1].mux_rnd_ms, 3);
	kpmc_config_sets_format(&sets, out, sizeof(out));
	assert_string_equal(out, "pmc1=0x8,usr1=1,os1=0,mux=4,muxrnd=2,seed=9;"
				 "pmc1=0x11,usr1=1,os1=0,mux=10,muxrnd=3,seed=0");

	const char *bad[] = {
		"pmc1=0x8,mux=4,muxrnd=4;pmc0", "pmc1=0x8,muxrnd=1", "pmc1=0x8,mux=4,muxrnd=x;pmc0",
		"pmc1=0x8,mux=4,muxrnd=1,muxrnd=1;pmc0", "pmc1=0x8,muxsamples=2,muxrnd=1;pmc0,ebs0=100000",
		"pmc1=0x8;", ";pmc1=0x8", "pmc1=0x8;;pmc1=0x8", "pmc1=0x8,mux=5",
		"pmc1=0x8;pmc1=0x8;pmc1=0x8;pmc1=0x8;pmc1=0x8", "pmc1=0x8,mux=0;pmc0",
		"pmc1=0x8,muxsamples=2;pmc0", "pmc1=0x8\n;pmc0", "pmc1=0x8;pmc9=0x8",
		"pmc1=0x8,mux=5,mux=5;pmc0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&sets, 0x5a, sizeof(sets));
		if (kpmc_config_sets_parse(bad[i], strlen(bad[i]), &pmu, &sets, err,
					   sizeof(err)) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(strlen(err) > 0);
		/* Parsed in place: on error no set is left usable. */
		assert_int_equal(sets.nr, 0);
	}
}

static void test_mux_schedule(void **state)
{
	unsigned int set = 0, i, order[9];
	u64 rs, lo = ~0ULL, hi = 0, slice, sum = 0;

	(void)state;
	/* Time slices: due at exactly the slice of the set's on-CPU time. */
	assert_false(kpmc_mux_due(9999999, 0, 10000000, 0));
	assert_true(kpmc_mux_due(10000000, 0, 10000000, 0));
	/* Sample counts. */
	assert_false(kpmc_mux_due(0, 1, 0, 2));
	assert_true(kpmc_mux_due(0, 2, 0, 2));
	/* Either, whichever comes first; neither set: never. */
	assert_true(kpmc_mux_due(20000000, 0, 20000000, 5));
	assert_true(kpmc_mux_due(0, 5, 20000000, 5));
	assert_false(kpmc_mux_due(~0ULL, ~0U, 0, 0));
	/* The slice: mux_ms itself, or none, without a range. */
	rs = kpmc_rand_init(7);
	assert_int_equal(kpmc_mux_slice_ns(&rs, 4, 0), 4000000);
	assert_int_equal(kpmc_mux_slice_ns(&rs, 0, 0), 0);
	/* With one: within [2, 6] ms, spread over it (mean near 4 ms), never twice the same run. */
	for (i = 0; i < 10000; i++) {
		slice = kpmc_mux_slice_ns(&rs, 4, 2);
		assert_true(slice >= 2000000 && slice <= 6000000);
		lo = slice < lo ? slice : lo;
		hi = slice > hi ? slice : hi;
		sum += slice;
	}
	assert_true(lo < 2100000 && hi > 5900000);
	assert_true(sum / 10000 > 3950000 && sum / 10000 < 4050000);
	/* A randomized order: every cycle a permutation, each set first about a quarter of the time. */
	{
		u8 ord[KPMC_MAX_SETS];
		unsigned int first[KPMC_MAX_SETS] = { 0 }, k, seen;

		for (i = 0; i < 4000; i++) {
			kpmc_mux_shuffle(&rs, ord, 4);
			for (seen = 0, k = 0; k < 4; k++)
				seen |= 1u << ord[k];
			assert_int_equal(seen, 0xf);
			first[ord[0]]++;
		}
		for (k = 0; k < 4; k++)
			assert_true(first[k] > 900 && first[k] < 1100);
		kpmc_mux_shuffle(&rs, ord, 1);
		assert_int_equal(ord[0], 0);
	}
	/* Round-robin over 3 sets. */
	for (i = 0; i < 9; i++) {
		order[i] = set;
		set = kpmc_mux_next_set(set, 3);
	}
	for (i = 0; i < 9; i++)
		assert_int_equal(order[i], i % 3);
	assert_int_equal(kpmc_mux_next_set(0, 1), 0);
}

/* What of a user's write reaches dmesg is printable and bounded. */
static void test_quote_token(void **state)
{
	(void)state;
	char q[KPMC_QUOTE_MAX + 2];
	char long_tok[100];

	kpmc_quote_token(q, sizeof(q), "pid=1\n\x1b[31mred", 14);
	assert_string_equal(q, "pid=1??[31mred");
	memset(long_tok, 'a', sizeof(long_tok));
	kpmc_quote_token(q, sizeof(q), long_tok, sizeof(long_tok));
	assert_int_equal(strlen(q), KPMC_QUOTE_MAX + 1);
	assert_int_equal(q[KPMC_QUOTE_MAX], '~');
	kpmc_quote_token(q, sizeof(q), "x\0y", 3);
	assert_string_equal(q, "x?y");
	kpmc_quote_token(q, 4, "abcdef", 6);
	assert_string_equal(q, "ab~");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_configs),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_nul_and_binary),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_counter_delta),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_ebs_configs),
		cmocka_unit_test(test_random_periods),
		cmocka_unit_test(test_config_sets),
		cmocka_unit_test(test_mux_schedule),
		cmocka_unit_test(test_quote_token),
	};

	return cmocka_run_group_tests_name("kpmc_core_pure", tests, NULL, NULL);
}
