// SPDX-License-Identifier: GPL-2.0
/* kpmc's options (and kpmc mem's), checked before anything is opened. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/pfm_events.h"
#include "options.h"

/* The options' values, one at a time: 0, or the exit status (2: bad). */
static int take_option(struct kpmc_run_opts *o, int opt, char *arg)
{
	char *end, why[512];

	switch (opt) {
	case 'e':
	case 'n':
	case 3:
		return kpmc_mem_option(o, opt, arg);
	case 'm':
		if (kpmc_mbind_add_metric(o->metrics, arg, why, sizeof(why))) {
			fprintf(stderr, "kpmc: -m '%s': %s\n", arg, why);
			return 2;
		}
		return 0;
	case 'g':
		if (o->ngroups == KPMC_MBIND_MAX_GROUPS) {
			fprintf(stderr, "kpmc: at most %d groups (-g)\n", KPMC_MBIND_MAX_GROUPS);
			return 2;
		}
		o->groups[o->ngroups++] = arg;
		return 0;
	case 'c':
		if (o->nconfigs == KPMC_MAX_SETS) {
			fprintf(stderr, "kpmc: at most %d event sets (-c)\n", KPMC_MAX_SETS);
			return 2;
		}
		o->configs[o->nconfigs++] = arg;
		return 0;
	case 'T':
		o->tbs_ms = kpmc_parse_period_ms(arg);
		if (o->tbs_ms < 0) {
			fprintf(stderr, "kpmc: -T '%s': want a period in seconds, at least 0.001 and at most 86400\n",
				arg);
			return 2;
		}
		return 0;
	case 'o':
		o->outfile = arg;
		return 0;
	case 'A':
		o->aggregate = 1;
		return 0;
	case 'p': {
		long v = strtol(arg, &end, 10);

		if (*end || v <= 0) {
			fprintf(stderr, "kpmc: -p '%s': want a thread id\n", arg);
			return 2;
		}
		o->attach = (pid_t)v;
		return 0;
	}
	case 'k': {
		unsigned long v = strtoul(arg, &end, 10);

		if (*end || v < 2 || v > (1ul << 20) || (v & (v - 1))) {
			fprintf(stderr, "kpmc: -k '%s': want the ring size in records, a power of two from 2 to 1048576\n",
				arg);
			return 2;
		}
		o->ring_records = v;
		return 0;
	}
	case 'S':
		o->system_wide = 1;
		return 0;
	case 'G':
		if (kpmc_check_cgroup_path(arg)) {
			fprintf(stderr, "kpmc: -G '%s': want a cgroup below /sys/fs/cgroup, such as jobs/a (no '..', no leading '/')\n",
				arg);
			return 2;
		}
		o->cgroup = arg;
		o->system_wide = 1;
		return 0;
	case 'C':
		if (strlen(arg) > 40 || strspn(arg, "0123456789,-") != strlen(arg)) {
			fprintf(stderr, "kpmc: -C '%s': want a CPU list such as 0-3,6\n", arg);
			return 2;
		}
		o->cpus = arg;
		return 0;
	case 'X':
		o->exclude_idle = 1;
		return 0;
	case 'V':
		o->virt_wanted = arg;
		return 0;
	case 'r':
		o->raw_only = 1;
		return 0;
	case 1:
	case 2:
		/* --csv, --json: kpmc mem's report, or the records. */
		if (o->mem)
			o->memo.form = opt == 1 ? KPMC_MEMREP_CSV : KPMC_MEMREP_JSON;
		else
			o->format = opt == 1 ? KPMC_OUT_CSV : KPMC_OUT_JSON;
		return 0;
	case 4:
		o->noloss = 1;
		return 0;
	case 5:
		o->no_mmap = 1;
		return 0;
	case 6:
		if (kpmc_check_wakeup(arg)) {
			fprintf(stderr, "kpmc: --wakeup '%s': want a delay in ms (0 to 60000) or watermark\n",
				arg);
			return 2;
		}
		o->wakeup = arg;
		return 0;
	case 7:
		o->anchor = kpmc_parse_anchor(arg);
		if (!o->anchor) {
			fprintf(stderr, "kpmc: --anchor '%s': want a counter, pmcN (N below %d)\n",
				arg, KPMC_MAX_COUNTERS);
			return 2;
		}
		return 0;
	case 'w':
		o->rawfile = arg;
		return 0;
	case 'R':
		o->replay = arg;
		return 0;
	default:
		kpmc_usage(stderr);
		return 2;
	}
}

/*
 * -m, -g: bound to the configuration's counters; without -c, their events
 * are what is counted. A replay binds them to the saved records' counters.
 */
static int bind_metrics(struct kpmc_run_opts *o)
{
	char why[512];

	for (unsigned int g = 0; g < o->ngroups; g++)
		if (kpmc_mbind_add_group(o->metrics, o->groups[g], KPMC_PROC_INFO, why, sizeof(why))) {
			fprintf(stderr, "kpmc: -g %s: %s\n", o->groups[g], why);
			return 2;
		}
	if (!kpmc_mbind_active(o->metrics))
		return -1;
	if (o->format != KPMC_OUT_TABLE || o->system_wide || o->mem) {
		fprintf(stderr, "kpmc: -m and -g print a table of threads: not with --csv, --json, -S or kpmc mem\n");
		return 2;
	}
	if (!o->replay && !kpmc_module_loaded())
		return 1;
	if (!o->nconfigs && !o->replay) {
		if (kpmc_mbind_event_list(o->metrics, o->metric_events, sizeof(o->metric_events), why,
					  sizeof(why))) {
			fprintf(stderr, "kpmc: -m/-g: %s\n", why);
			return 2;
		}
		o->configs[o->nconfigs++] = o->metric_events;
	}
	if (kpmc_mbind_resolve(o->metrics, o->configs, o->nconfigs,
			       o->replay && !kpmc_proc_present() ? NULL : KPMC_PROC_INFO, why, sizeof(why))) {
		fprintf(stderr, "kpmc: -m/-g: %s\n", why);
		return 2;
	}
	return -1;
}

/* What goes together, for a run (not a replay). */
static int check_run(struct kpmc_run_opts *o)
{
	int rc;

	if ((o->cpus[0] != 'a' || o->exclude_idle) && (!o->system_wide || o->cgroup)) {
		fprintf(stderr, "kpmc: -C and -X go with -S (system-wide), not -G\n");
		return 2;
	}
	if (o->system_wide && o->attach) {
		fprintf(stderr, "kpmc: -S monitors CPUs, -p a thread: choose one\n");
		return 2;
	}
	if (o->mem) {
		if (o->attach || o->system_wide || o->aggregate || o->format != KPMC_OUT_TABLE) {
			fprintf(stderr, "kpmc: mem: runs a program (-- PROG); -p, -S, -A are not for it\n");
			return 2;
		}
		rc = kpmc_mem_configs(o);
		if (rc >= 0)
			return rc;
	}
	if (o->anchor && (!o->aggregate || o->nconfigs < 2)) {
		fprintf(stderr, "kpmc: --anchor: for -A with several event sets (-c ... -c ...)\n");
		return 2;
	}
	if (!o->nconfigs || (!o->attach && !o->prog) || (o->attach && o->prog)) {
		kpmc_usage(stderr);
		return 2;
	}
	return -1;
}

int kpmc_args_parse(int argc, char **argv, struct kpmc_run_opts *o)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 1 },
		{ "json", no_argument, NULL, 2 },
		{ "help", no_argument, NULL, 'h' },
		{ "heatmap", required_argument, NULL, 3 },
		{ "no-loss", no_argument, NULL, 4 },
		{ "no-mmap", no_argument, NULL, 5 },
		{ "wakeup", required_argument, NULL, 6 },
		{ "anchor", required_argument, NULL, 7 },
		{ NULL, 0, NULL, 0 },
	};
	static struct kpmc_mbind metrics;
	int opt, rc;

	o->cpus = "all";
	o->metrics = &metrics;
	kpmc_mem_opts_init(&o->memo);
	while ((opt = getopt_long(argc, argv, "+c:T:o:Ap:k:SG:C:XV:rL::w:R:Ihe:n:m:g:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'L':
			/* -L or -LFILTER, or -L FILTER as the last argument. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			return kpmc_pfm_list(stdout, optarg, KPMC_PROC_INFO,
					     "/sys/bus/event_source/devices") ? 1 : 0;
		case 'I':
			return kpmc_print_info();
		case 'h':
			kpmc_usage(stdout);
			return 0;
		default:
			rc = take_option(o, opt, optarg);
			if (rc)
				return rc;
		}
	}
	o->prog = optind < argc ? argv + optind : NULL;
	rc = bind_metrics(o);
	if (rc >= 0 || o->replay)
		return rc;
	return check_run(o);
}
