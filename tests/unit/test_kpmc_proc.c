// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc/kpmc client (userland/common/kpmc_proc.c) that the CLI, libkpmc
 * and pmdakpmc share: the info file's virtual counter names and the text
 * kept for the line parsers (kpmc mem's memory_sampling), from sample info
 * texts; a refused request's reason without the module (strerror).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/kpmc_proc.h"
#include "cli/options.h"

/* As the kernel's info_show writes it (kernel/proc.c), an Intel machine with RAPL active. */
static const char intel_info[] =
	"version: 1\n"
	"hooks: tracepoints\n"
	"backend: intel\n"
	"pmu: Intel Core (arch perfmon v5)\n"
	"counters: 11\n"
	"fixed_counters: 3 pmc0=instr(0xc0) pmc1=cycles(0x3c) pmc2=ref_cycles(0x300)\n"
	"general_counters: 8 (pmc3-pmc10)\n"
	"memory_sampling: PEBS load latency (record format 4) (ldlat)\n"
	"counter_width: 48 48 48 48 48 48 48 48 48 48 48\n"
	"monitoring_module: rapl\n"
	"virtual_counters: virt0=energy_pkg_uj virt1=energy_dram_uj virt3=power_mw\n"
	"virtual_counters_self_read: no\n"
	"threads_monitored: 0\n"
	"threads_known: 2\n"
	"threads_lost: 0\n"
	"sessions: 0\n"
	"ring_records: 4096\n"
	"live_objects: 2 (thread states 2, configurations 0, sessions 0)\n";

static struct kpmc_info info;

static void test_virtual_counter_names(void **state)
{
	(void)state;
	kpmc_info_parse(&info, intel_info);
	assert_string_equal(info.virt_name[0], "energy_pkg_uj");
	assert_string_equal(info.virt_name[1], "energy_dram_uj");
	assert_string_equal(info.virt_name[2], "");
	assert_string_equal(info.virt_name[3], "power_mw");
	for (unsigned int i = 4; i < KPMC_MAX_VIRT; i++)
		assert_string_equal(info.virt_name[i], "");
	/* The text as read, for the parsers of the other lines. */
	assert_string_equal(info.text, intel_info);
}

/* kpmc mem's default event comes from the text kept. */
static void test_text_for_memory_sampling(void **state)
{
	char ev[64];

	(void)state;
	kpmc_info_parse(&info, intel_info);
	assert_int_equal(kpmc_mem_default_event(info.text, ev, sizeof(ev)), 0);
	assert_string_equal(ev, "pmc3=0x1cd,ldlat=30");
	kpmc_info_parse(&info, "backend: perf\nmemory_sampling: none\nvirtual_counters:\n");
	assert_int_equal(kpmc_mem_default_event(info.text, ev, sizeof(ev)), -1);
}

/* No module active, no line, nothing read: no names, and none left from before. */
static void test_no_virtual_counters(void **state)
{
	(void)state;
	kpmc_info_parse(&info, intel_info);
	kpmc_info_parse(&info, "monitoring_module: none\nvirtual_counters:\nthreads_monitored: 0\n");
	for (unsigned int i = 0; i < KPMC_MAX_VIRT; i++)
		assert_string_equal(info.virt_name[i], "");
	kpmc_info_parse(&info, intel_info);
	kpmc_info_parse(&info, "version: 1\n");
	assert_string_equal(info.virt_name[0], "");
	kpmc_info_parse(&info, "");
	assert_string_equal(info.text, "");
	assert_string_equal(info.virt_name[3], "");
}

/* Whether a thread's read of self gives the virtual counters: only an exact "yes" line. */
static void test_virtual_counters_self_read(void **state)
{
	(void)state;
	kpmc_info_parse(&info, intel_info);
	assert_int_equal(info.virt_self_read, 0);
	kpmc_info_parse(&info, "monitoring_module: schedstats\nvirtual_counters: virt0=run_ns\n"
			       "virtual_counters_self_read: yes\nthreads_monitored: 0\n");
	assert_int_equal(info.virt_self_read, 1);
	assert_string_equal(info.virt_name[0], "run_ns");
	kpmc_info_parse(&info, "virtual_counters_self_read: yesno\nxvirtual_counters_self_read: yes\n");
	assert_int_equal(info.virt_self_read, 0);
	/* The last line without its newline. */
	kpmc_info_parse(&info, "virtual_counters:\nvirtual_counters_self_read: yes");
	assert_int_equal(info.virt_self_read, 1);
	kpmc_info_parse(&info, "version: 1\n");
	assert_int_equal(info.virt_self_read, 0);
}

/* What the kernel never writes does not crash or land anywhere. */
static void test_odd_lines(void **state)
{
	char text[256];

	(void)state;
	/* Out of range, no '=', not virtN, extra blanks, a key not at the line's start. */
	kpmc_info_parse(&info, "xvirtual_counters: virt0=nope\n"
			       "virtual_counters:  virt8=x virt5 pmc1=y  virt2=ok\n");
	for (unsigned int i = 0; i < KPMC_MAX_VIRT; i++)
		assert_string_equal(info.virt_name[i], i == 2 ? "ok" : "");
	/* The last line without its newline; a name longer than 31 characters is cut. */
	snprintf(text, sizeof(text), "version: 1\nvirtual_counters: virt7=%s", "abcdefghijklmnopqrstuvwxyz0123456789");
	kpmc_info_parse(&info, text);
	assert_string_equal(info.virt_name[7], "abcdefghijklmnopqrstuvwxyz01234");
}

/* A longer file keeps its beginning, where the fixed lines are. */
static void test_long_text(void **state)
{
	size_t n = 2 * KPMC_INFO_TEXT;
	char *text = malloc(n + 1);

	(void)state;
	assert_non_null(text);
	snprintf(text, n + 1, "virtual_counters: virt1=ipc_milli\n");
	for (size_t i = strlen(text); i < n; i++)
		text[i] = i % 64 == 63 ? '\n' : 's';
	text[n] = '\0';
	kpmc_info_parse(&info, text);
	assert_int_equal(strlen(info.text), KPMC_INFO_TEXT - 1);
	assert_memory_equal(info.text, text, KPMC_INFO_TEXT - 1);
	assert_string_equal(info.virt_name[1], "ipc_milli");
	free(text);
}

/*
 * Refusals without a kernel reason: this thread never had a request
 * refused by kpmc, so its last_error (if kpmc is loaded here) is empty
 * and the reason is strerror's.
 */
static void test_reason_without_kernel(void **state)
{
	char why[128];
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(kpmc_proc_request(p[1], "ring=16384", why, sizeof(why)), 0);
	assert_int_equal(kpmc_proc_request(p[0], "ring=16384", why, sizeof(why)), -EBADF);
	assert_string_equal(why, strerror(EBADF));
	close(p[0]);
	close(p[1]);
	assert_int_equal(kpmc_proc_write("no_such_file", "1", why, sizeof(why)), -ENOENT);
	assert_string_equal(why, strerror(ENOENT));
	assert_true(kpmc_proc_open("no_such_file", 0) == -ENOENT);
	/* No buffer: the caller does not want the reason. */
	assert_int_equal(kpmc_proc_write("no_such_file", "1", NULL, 0), -ENOENT);
	strcpy(why, "kept");
	kpmc_proc_reason(EPERM, why, 0);
	assert_string_equal(why, "kept");
	kpmc_proc_reason(EPERM, why, 4);
	assert_string_equal(why, "Ope");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtual_counter_names),
		cmocka_unit_test(test_text_for_memory_sampling),
		cmocka_unit_test(test_no_virtual_counters),
		cmocka_unit_test(test_virtual_counters_self_read),
		cmocka_unit_test(test_odd_lines),
		cmocka_unit_test(test_long_text),
		cmocka_unit_test(test_reason_without_kernel),
	};

	return cmocka_run_group_tests_name("kpmc_proc", tests, NULL, NULL);
}
