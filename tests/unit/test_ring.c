// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the mapped ring's position arithmetic: the kernel's side
 * (kernel/include/kpmc/ring.h: the untrusted reader tail, the mmap
 * geometry, the no-loss marks) and the readers' (userland/common/ringmap.h), on
 * memory of the test's own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "kpmc/ring.h"
#include "common/ringmap.h"

#define PAGE 4096ull

/* A tail behind the kernel's is ignored, one past head is head, any in between taken. */
static void test_clamp_tail(void **state)
{
	struct kpmc_ring_pos r = { .head = 100, .tail = 90, .capacity = 16 };

	(void)state;
	assert_true(kpmc_ring_clamp_tail(&r, 90) == 90);
	assert_true(kpmc_ring_clamp_tail(&r, 95) == 95);
	assert_true(kpmc_ring_clamp_tail(&r, 100) == 100);
	assert_true(kpmc_ring_clamp_tail(&r, 101) == 100);
	assert_true(kpmc_ring_clamp_tail(&r, UINT64_MAX) == 90);
	assert_true(kpmc_ring_clamp_tail(&r, 89) == 90);
	assert_true(kpmc_ring_clamp_tail(&r, 0) == 90);
	assert_true(kpmc_ring_clamp_tail(&r, 90 + (1ull << 62)) == 100);
	/* Across 2^64: head wrapped, the reader's tail between. */
	r.tail = UINT64_MAX - 3;
	r.head = 4;
	assert_true(kpmc_ring_used(&r) == 8);
	assert_true(kpmc_ring_clamp_tail(&r, UINT64_MAX) == UINT64_MAX);
	assert_true(kpmc_ring_clamp_tail(&r, 2) == 2);
	assert_true(kpmc_ring_clamp_tail(&r, 5) == 4);
	assert_true(kpmc_ring_clamp_tail(&r, UINT64_MAX - 4) == UINT64_MAX - 3);
	/* An empty ring: only its own tail. */
	r.tail = r.head = 7;
	assert_true(kpmc_ring_clamp_tail(&r, 8) == 7);
	assert_true(kpmc_ring_clamp_tail(&r, 6) == 7);
}

/* Whatever the reader writes, the kernel's tail stays in [old tail, head]. */
static void test_clamp_tail_any_value(void **state)
{
	struct kpmc_ring_pos r = { .capacity = 8 };
	uint64_t x = 0x9e3779b97f4a7c15ull, old, t;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (kpmc_ring_has_room(&r) && (x & 1)) {
			kpmc_ring_reserve(&r);
			kpmc_ring_produced(&r);
		}
		old = r.tail;
		/* Half the time a plausible tail, half anything at all. */
		t = (x & 2) ? r.tail + ((x >> 8) % 10) : x;
		r.tail = kpmc_ring_clamp_tail(&r, t);
		assert_true(r.tail - old <= r.head - old);
		assert_true(kpmc_ring_used(&r) <= r.capacity);
	}
}

static void test_map_geometry(void **state)
{
	(void)state;
	assert_true(kpmc_ring_data_bytes(16, 256, PAGE) == 4096);
	assert_true(kpmc_ring_data_bytes(2, 256, PAGE) == 4096);
	assert_true(kpmc_ring_data_bytes(32, 256, PAGE) == 8192);
	assert_true(kpmc_ring_data_bytes(4096, 256, PAGE) == 1048576);
	assert_true(kpmc_ring_data_bytes(1u << 20, 256, PAGE) == 256ull << 20);
	assert_true(kpmc_ring_data_bytes(2, 256, 65536) == 65536);
	assert_int_equal(kpmc_ring_map_part(0, PAGE, PAGE, 8192), KPMC_RING_MAP_CONTROL);
	assert_int_equal(kpmc_ring_map_part(1, 8192, PAGE, 8192), KPMC_RING_MAP_DATA);
	assert_int_equal(kpmc_ring_map_part(0, 2 * PAGE, PAGE, 8192), KPMC_RING_MAP_BAD_LENGTH);
	assert_int_equal(kpmc_ring_map_part(1, PAGE, PAGE, 8192), KPMC_RING_MAP_BAD_LENGTH);
	assert_int_equal(kpmc_ring_map_part(1, 3 * PAGE, PAGE, 8192), KPMC_RING_MAP_BAD_LENGTH);
	assert_int_equal(kpmc_ring_map_part(2, PAGE, PAGE, 8192), KPMC_RING_MAP_BAD_OFFSET);
	assert_int_equal(kpmc_ring_map_part(~0ull, PAGE, PAGE, 8192), KPMC_RING_MAP_BAD_OFFSET);
}

static void test_noloss_marks(void **state)
{
	uint32_t high = 99, low = 99;

	(void)state;
	/* 3 samples of 2 records and 2 more in flight: 8 above high. */
	assert_true(kpmc_ring_noloss_headroom(2) == 8);
	assert_int_equal(kpmc_ring_noloss_marks(16, 2, &high, &low), 0);
	assert_int_equal(high, 8);
	assert_int_equal(low, 4);
	assert_int_equal(kpmc_ring_noloss_marks(8, 2, &high, &low), 0);
	assert_int_equal(high, 0);
	assert_int_equal(low, 0);
	high = low = 99;
	assert_int_equal(kpmc_ring_noloss_marks(4, 2, &high, &low), -ENOSPC);
	assert_int_equal(high, 99);
	assert_int_equal(kpmc_ring_noloss_marks(16, 0, &high, &low), -ENOSPC);
	/* A format's 8 parts after each sample: 3 x 9 + 2 = 29. */
	assert_int_equal(kpmc_ring_noloss_marks(16, 9, &high, &low), -ENOSPC);
	assert_int_equal(kpmc_ring_noloss_marks(32, 9, &high, &low), 0);
	assert_int_equal(high, 3);
	assert_int_equal(low, 3);
	assert_int_equal(kpmc_ring_noloss_marks(4096, 2, &high, &low), 0);
	assert_int_equal(high, 4088);
	assert_int_equal(low, 1024);
	/* No overflow for absurd sample sizes. */
	assert_int_equal(kpmc_ring_noloss_marks(1u << 20, UINT32_MAX, &high, &low), -ENOSPC);
	assert_true(kpmc_ring_noloss_min_capacity(2) == 8);
	assert_true(kpmc_ring_noloss_min_capacity(1) == 8);
	assert_true(kpmc_ring_noloss_min_capacity(9) == 32);
	assert_true(kpmc_ring_noloss_min_capacity(0) == 8);
}

/* A fake control page and data area of 8 records. */
struct fake_ring {
	struct kpmc_ring_control ctrl;
	struct kpmc_record rec[8];
};

static void fake_init(struct fake_ring *f)
{
	memset(f, 0, sizeof(*f));
	f->ctrl.version = KPMC_RING_CONTROL_VERSION;
	f->ctrl.record_size = sizeof(struct kpmc_record);
	f->ctrl.capacity = 8;
	f->ctrl.data_offset = PAGE;
	f->ctrl.data_size = PAGE;
}

/* The kernel's side: n records numbered from head's nsample. */
static void fake_produce(struct fake_ring *f, unsigned int n)
{
	while (n--) {
		f->rec[f->ctrl.data_head & 7].nsample = f->ctrl.data_head;
		f->ctrl.data_head++;
	}
}

static void test_ringmap_check(void **state)
{
	struct fake_ring f;
	char why[128];

	(void)state;
	fake_init(&f);
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, PAGE, why, sizeof(why)), 0);
	f.ctrl.version = 2;
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, PAGE, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "version 2"));
	fake_init(&f);
	f.ctrl.record_size = 128;
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, PAGE, why, sizeof(why)), -1);
	fake_init(&f);
	f.ctrl.capacity = 12;
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, PAGE, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "power of two"));
	fake_init(&f);
	f.ctrl.capacity = 32;	/* 8 KiB of records in a page */
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, PAGE, why, sizeof(why)), -1);
	fake_init(&f);
	f.ctrl.data_offset = 0;
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, PAGE, why, sizeof(why)), -1);
	fake_init(&f);
	assert_int_equal(kpmc_ringmap_check(&f.ctrl, 65536, why, sizeof(why)), -1);
}

static void test_ringmap_positions(void **state)
{
	struct kpmc_ringmap m = { 0 };
	struct fake_ring f;
	char why[128];
	uint64_t want = 0;
	int round, i;

	(void)state;
	fake_init(&f);
	/* read() took 3 records before the reader attached: it starts there. */
	f.ctrl.data_head = f.ctrl.data_tail = 3;
	want = 3;
	assert_int_equal(kpmc_ringmap_attach(&m, &f.ctrl, f.rec, PAGE, why, sizeof(why)), 0);
	assert_true(m.tail == 3);
	assert_int_equal(kpmc_ringmap_ready(&m), 0);
	/* Round the ring many times, in batches of 1 to 8: records in order. */
	for (round = 0; round < 200; round++) {
		unsigned int n = 1 + round % 8;

		fake_produce(&f, n);
		assert_int_equal(kpmc_ringmap_ready(&m), n);
		for (i = 0; i < (int)n; i++)
			assert_true(kpmc_ringmap_record(&m, i)->nsample == want + i);
		kpmc_ringmap_consume(&m, n);
		want += n;
		assert_true(f.ctrl.data_tail == want);
		assert_int_equal(kpmc_ringmap_ready(&m), 0);
	}
	/* A head more than a ring ahead, or behind: not a ring this reader knows. */
	f.ctrl.data_head = m.tail + 9;
	assert_int_equal(kpmc_ringmap_ready(&m), -1);
	f.ctrl.data_head = m.tail - 1;
	assert_int_equal(kpmc_ringmap_ready(&m), -1);
	f.ctrl.data_head = m.tail + 8;
	assert_int_equal(kpmc_ringmap_ready(&m), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clamp_tail),
		cmocka_unit_test(test_clamp_tail_any_value),
		cmocka_unit_test(test_map_geometry),
		cmocka_unit_test(test_noloss_marks),
		cmocka_unit_test(test_ringmap_check),
		cmocka_unit_test(test_ringmap_positions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
