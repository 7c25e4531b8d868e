// SPDX-License-Identifier: GPL-2.0
/* Unit tests of metric expressions (kpmc -m) and group files (kpmc -g). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "metrics/metricexpr.h"
#include "metrics/metricgroup.h"

/* Compile, give each variable the value its name says ("v4" = 4; "time" = 2.5), evaluate. */
static double eval_named(const char *text)
{
	char err[256];
	double vars[KPMC_MEXPR_MAX_VARS], v;
	struct kpmc_mexpr *e = kpmc_mexpr_compile(text, 0, err, sizeof(err));

	if (!e)
		fail_msg("'%s' refused: %s", text, err);
	for (unsigned int i = 0; i < kpmc_mexpr_nvars(e); i++) {
		const char *n = kpmc_mexpr_var(e, i);

		vars[i] = !strcmp(n, "time") ? 2.5 : n[0] == 'v' ? atof(n + 1) : 1000.0 * (i + 1);
	}
	v = kpmc_mexpr_eval(e, vars);
	kpmc_mexpr_free(e);
	return v;
}

static void test_arithmetic(void **state)
{
	(void)state;
	assert_true(eval_named("1+2*3") == 7);
	assert_true(eval_named("(1+2)*3") == 9);
	assert_true(eval_named("10-4-3") == 3);		/* left to right */
	assert_true(eval_named("64/4/2") == 8);
	assert_true(eval_named("-v3*2") == -6);
	assert_true(eval_named("2--3") == 5);
	assert_true(eval_named("-(v2+v3)") == -5);
	assert_true(eval_named(" 1.5e3 / v3 ") == 500);
	assert_true(eval_named(".25*v8") == 2);
	assert_true(eval_named("min(v3, v1, v2)") == 1);
	assert_true(eval_named("max(v3, v7, v2) - abs(-v2)") == 5);
	assert_true(eval_named("v10/time") == 4);
	assert_true(isnan(eval_named("v5/v0")));		/* ratio-safe division */
	assert_true(isnan(eval_named("1 + v5/(v2-v2)")));	/* NaN propagates */
	assert_true(isnan(eval_named("max(v1, v1/v0)")));	/* and min/max keep it */
	assert_true(eval_named("v0/v5") == 0);
}

static void test_variables(void **state)
{
	char err[256];
	struct kpmc_mexpr *e;
	double vars[3] = { 6e9, 3e9, 0 };

	(void)state;
	/* libpfm4 names with modifiers, pmcN, each variable once in order of appearance. */
	e = kpmc_mexpr_compile("INST_RETIRED:u / pmc0 + INST_RETIRED:u * 0 + UOPS_ISSUED.ANY:c=1 * 0", 0,
			       err, sizeof(err));
	assert_non_null(e);
	assert_int_equal(kpmc_mexpr_nvars(e), 3);
	assert_string_equal(kpmc_mexpr_var(e, 0), "INST_RETIRED:u");
	assert_string_equal(kpmc_mexpr_var(e, 1), "pmc0");
	assert_string_equal(kpmc_mexpr_var(e, 2), "UOPS_ISSUED.ANY:c=1");
	assert_true(kpmc_mexpr_eval(e, vars) == 2);
	assert_false(kpmc_mexpr_is_name(e));
	kpmc_mexpr_free(e);
	e = kpmc_mexpr_compile("arm_ac57::INST_RETIRED:k", 0, err, sizeof(err));
	assert_non_null(e);
	assert_true(kpmc_mexpr_is_name(e));
	kpmc_mexpr_free(e);
}

static int lookup(const char *name, double *value, void *arg)
{
	(void)arg;
	if (!strcmp(name, "cycles")) {
		*value = 400;
		return 0;
	}
	if (!strcmp(name, "instr")) {
		*value = 100;
		return 0;
	}
	return -1;
}

static void test_lookup_and_metric(void **state)
{
	struct kpmc_metric m;
	char err[256], buf[32];
	double v;

	(void)state;
	assert_int_equal(kpmc_metric_parse("cpi = cycles / instr", &m, err, sizeof(err)), 0);
	assert_string_equal(m.name, "cpi");
	assert_int_equal(kpmc_mexpr_eval_lookup(m.expr, lookup, NULL, &v, err, sizeof(err)), 0);
	assert_true(v == 4);
	kpmc_metric_free(&m);
	assert_int_equal(kpmc_metric_parse("x=instr/branches", &m, err, sizeof(err)), 0);
	assert_int_equal(kpmc_mexpr_eval_lookup(m.expr, lookup, NULL, &v, err, sizeof(err)), -1);
	assert_string_equal(err, "unknown name 'branches'");
	kpmc_metric_free(&m);

	kpmc_metric_format_value(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "nan");
	kpmc_metric_format_value(2.0 / 3.0, buf, sizeof(buf));
	assert_string_equal(buf, "0.6666666667");
	kpmc_metric_format_value(-0.0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	kpmc_metric_format_value(12345678901.0, buf, sizeof(buf));
	assert_string_equal(buf, "12345678901");
}

/* Every refusal names the token and its column in the whole -m argument. */
static void test_errors(void **state)
{
	static const struct { const char *def, *msg; } bad[] = {
		{ "ipc=INST_RETIRED/", "expected an operand after '/' at column 18 (end of expression)" },
		{ "ipc=INST_RETIRED//CPU_CYCLES", "expected an operand after '/' but found '/' at column 18" },
		{ "ipc=(INST_RETIRED/CPU_CYCLES", "'(' at column 5 is never closed" },
		{ "ipc=INST_RETIRED/CPU_CYCLES)", "')' at column 28 closes no '('" },
		{ "ipc=INST_RETIRED CPU_CYCLES", "expected an operator but found 'CPU_CYCLES' at column 18" },
		{ "ipc=INST_RETIRED$CPU_CYCLES", "unexpected character '$' at column 17" },
		{ "ipc=12abc/3", "bad number '12abc' at column 5" },
		{ "ipc=1.5.2", "bad number '1.5.2' at column 5" },
		{ "ipc=sqrt(INST_RETIRED)", "unknown function 'sqrt' at column 5 (there are min, max, abs)" },
		{ "ipc=min(INST_RETIRED)", "min() at column 5 takes 2 to 16 arguments, not 1" },
		{ "ipc=abs(1,2)", "abs() at column 5 takes 1 argument, not 2" },
		{ "ipc=max(1,2", "'(' of max at column 8 is never closed" },
		{ "ipc=", "empty expression" },
		{ "ipc=*3", "expected an operand but found '*' at column 5" },
		{ "ipc=INST_RETIRED:", "'INST_RETIRED:' at column 5: a modifier is missing after ':'" },
		{ "ipc=1,2", "',' at column 6 outside a function's arguments" },
		{ "INST_RETIRED/CPU_CYCLES", "want NAME=EXPRESSION (no '=')" },
		{ "=a/b", "a metric needs a name before '=' at column 1" },
		{ "9ipc=a/b", "bad metric name '9ipc': character '9' at column 1 (a name is a letter or '_', then letters, digits, '_', '.')" },
		{ "i-pc=a/b", "bad metric name 'i-pc': character '-' at column 2 (a name is a letter or '_', then letters, digits, '_', '.')" },
	};
	struct kpmc_metric m;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = kpmc_metric_parse(bad[i].def, &m, err, sizeof(err));

		if (rc != -1 || strcmp(err, bad[i].msg))
			fail_msg("'%s': rc %d, message '%s', want '%s'", bad[i].def, rc, err, bad[i].msg);
	}
}

static void test_nesting_limit(void **state)
{
	char text[400], err[256];

	(void)state;
	memset(text, '(', 200);
	strcpy(text + 200, "1");
	assert_null(kpmc_mexpr_compile(text, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "nested too deeply"));
}

static const char group_text[] =
	"# IPC\n"
	"description Instructions per cycle\n"
	"event INST_RETIRED:u\n"
	"event CPU_CYCLES:u\n"
	"define k = 1000\n"
	"metric ipc = INST_RETIRED:u / CPU_CYCLES:u\n"
	"metric kips = INST_RETIRED:u / time / k   \r\n"
	"\n";

static void test_group_parse(void **state)
{
	struct kpmc_mfile f;
	char err[300];
	double ev[2] = { 3000, 1200 }, out[KPMC_MFILE_MAX_ENTRIES];
	int i;

	(void)state;
	assert_int_equal(kpmc_mfile_parse(&f, KPMC_MFILE_GROUP, group_text, "IPC.txt", err, sizeof(err)), 0);
	assert_string_equal(f.description, "Instructions per cycle");
	assert_int_equal(f.nevents, 2);
	assert_string_equal(f.events[1], "CPU_CYCLES:u");
	assert_int_equal(f.nentries, 3);
	assert_true(f.uses_time);
	kpmc_mfile_eval(&f, ev, 0.5, out);
	i = kpmc_mfile_next_shown(&f, -1);
	assert_string_equal(f.entries[i].name, "ipc");
	assert_true(out[i] == 2.5);
	i = kpmc_mfile_next_shown(&f, i);
	assert_string_equal(f.entries[i].name, "kips");
	assert_true(out[i] == 6);
	assert_int_equal(kpmc_mfile_next_shown(&f, i), -1);
	kpmc_mfile_free(&f);
}

static void test_group_errors(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "event A\nmetric x = A / B\n",
		  "G.txt:2: 'B' in x's expression is neither a declared event ('event B') nor a name defined above" },
		{ "event A\nmetrics x = A\n",
		  "G.txt:2: unknown keyword 'metrics' (a group file has: description, event, define, metric)" },
		{ "event A\ncomponent x = A\n",
		  "G.txt:2: unknown keyword 'component' (a group file has: description, event, define, metric)" },
		{ "event A\nmetric x = A /\n", "G.txt:2: expected an operand after '/' at column 15 (end of expression)" },
		{ "event A\nmetric x A\n", "G.txt:2: expected '=' after 'x' at column 10, found 'A'" },
		{ "event A B\nmetric x = A\n", "G.txt:1: one event per line: unexpected 'B'" },
		{ "event A\nevent A\nmetric x = A\n", "G.txt:2: event 'A' is declared twice" },
		{ "event A\nmetric x = A\nmetric x = 2*A\n", "G.txt:3: 'x' is already defined" },
		{ "event 3A\nmetric x = 1\n", "G.txt:1: bad number '3A' at column 7" },
		{ "event A\nmetric time = A\n", "G.txt:2: 'time' is already defined" },
		{ "# nothing\n", "G.txt:2: no 'event' line: nothing to count" },
		{ "event A\ndefine y = A\n", "G.txt:3: no 'metric' line" },
		{ "event A\nmetric x = A/(\n", "G.txt:2: expected an operand after '(' at column 15 (end of expression)" },
	};
	struct kpmc_mfile f;
	char err[300];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = kpmc_mfile_parse(&f, KPMC_MFILE_GROUP, bad[i].text, "G.txt", err, sizeof(err));

		if (rc != -1 || strcmp(err, bad[i].msg))
			fail_msg("case %zu: rc %d, message '%s', want '%s'", i, rc, err, bad[i].msg);
	}
}

/* The groups kpmc installs: each parses, and its metrics over known counts. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(buf);
	(void)!fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static void test_shipped_groups(void **state)
{
	static const char *const files[] = {
		"armv8_cortex_a57/IPC.txt", "armv8_cortex_a57/CPI_STACK.txt", "armv8_pmuv3/IPC.txt",
		"arm_neoverse_n1/IPC.txt", "arm_neoverse_n1/TOPDOWN.txt", "intel/IPC.txt",
		"intel/TMA_L1.txt", "amd_zen/IPC.txt", "amd_zen/PIPELINE.txt",
	};
	char path[512], err[300];
	struct kpmc_mfile f;
	double ev[KPMC_MFILE_MAX_EVENTS], out[KPMC_MFILE_MAX_ENTRIES];

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *text;

		snprintf(path, sizeof(path), "%s/groups/%s", KPMC_SHARE_DIR, files[i]);
		text = slurp(path);
		if (kpmc_mfile_parse(&f, KPMC_MFILE_GROUP, text, files[i], err, sizeof(err)))
			fail_msg("%s", err);
		free(text);
		assert_true(f.nevents >= 2);
		if (strstr(files[i], "IPC.txt")) {
			/* Instructions first, cycles second: ipc 0.25, cpi 4, 100 MIPS over 0.08 s. */
			ev[0] = 8e6;
			ev[1] = 32e6;
			kpmc_mfile_eval(&f, ev, 0.08, out);
			assert_true(out[0] == 0.25 && out[1] == 4 && fabs(out[2] - 100) < 1e-12);
		}
		kpmc_mfile_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_lookup_and_metric),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_group_parse),
		cmocka_unit_test(test_group_errors),
		cmocka_unit_test(test_shipped_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
