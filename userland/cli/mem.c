// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc mem: a run whose event sets sample memory accesses (mem=1); every
 * sample is kept (sinks/memory.c) and reported at the end by instruction,
 * data object and CPU (mem/memreport.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/eventspec.h"
#include "options.h"

void kpmc_mem_opts_init(struct kpmc_mem_opts *m)
{
	memset(m, 0, sizeof(*m));
	m->form = KPMC_MEMREP_TEXT;
	m->period = 20000;
	m->top = 20;
}

/* -e PERIOD, -n TOP, --heatmap NAME:ROWSxCOLS:FILE: kpmc mem's alone. */
int kpmc_mem_option(struct kpmc_run_opts *o, int opt, const char *arg)
{
	struct kpmc_mem_opts *m = &o->memo;
	unsigned long v;
	char *end;

	if (opt == 3) {
		if (!o->mem || m->nheat == KPMC_MEM_MAX_HEATMAPS ||
		    sscanf(arg, "%63[^:]:%ux%u:%255s", m->heat[m->nheat].name, &m->heat[m->nheat].rows,
			   &m->heat[m->nheat].cols, m->heat[m->nheat].file) != 4) {
			fprintf(stderr, "kpmc: --heatmap '%s': want NAME:ROWSxCOLS:FILE, with kpmc mem, at most %d\n",
				arg, KPMC_MEM_MAX_HEATMAPS);
			return 2;
		}
		m->nheat++;
		return 0;
	}
	v = strtoul(arg, &end, 10);
	if (!o->mem || *end || !v || (opt == 'e' && v < 10000)) {
		fprintf(stderr, o->mem ? "kpmc: mem: -%c '%s': want a number%s\n" :
			"kpmc: -%c goes with kpmc mem%.0s%s\n", opt, arg,
			opt == 'e' ? " of at least 10000" : "");
		return 2;
	}
	if (opt == 'e')
		m->period = v;
	else
		m->top = v;
	return 0;
}

/*
 * Without -c, the source's event (options.c): on arm64 the cycle counter,
 * exact in QEMU's -icount; PEBS load latency; IBS's cycles. Randomized by
 * a quarter, the period staying above the kernel's minimum.
 */
static int default_config(struct kpmc_mem_opts *m, char *out, size_t len)
{
	unsigned long rnd = m->period / 4;
	struct kpmc_info info;
	unsigned int pmc = 0;
	char ev[64];

	kpmc_info_read(&info);
	if (kpmc_mem_default_event(info.text, ev, sizeof(ev)) || sscanf(ev, "pmc%u", &pmc) != 1) {
		fprintf(stderr, "kpmc: mem: this machine has no memory-sampling source (/proc/kpmc/info: memory_sampling)\n");
		return 1;
	}
	if (m->period - rnd < 10000)
		rnd = m->period - 10000;
	if (rnd)
		snprintf(out, len, "%s,ebs%u=%lu,rnd=%lu", ev, pmc, m->period, rnd);
	else
		snprintf(out, len, "%s,ebs%u=%lu", ev, pmc, m->period);
	return 0;
}

int kpmc_mem_configs(struct kpmc_run_opts *o)
{
	struct kpmc_mem_opts *m = &o->memo;

	if (!o->nconfigs) {
		if (default_config(m, m->cfg[0], sizeof(m->cfg[0])))
			return 1;
		o->configs[o->nconfigs++] = m->cfg[0];
	}
	for (int i = 0; i < o->nconfigs; i++) {
		const char *raw = kpmc_config_is_raw(o->configs[i]) || o->raw_only ? o->configs[i] :
				  kpmc_names_to_raw_config(o->configs[i]);
		char with_mem[sizeof(m->cfg[0])];

		if (!raw)
			return 2;
		if (snprintf(with_mem, sizeof(with_mem), "%s,mem=1", raw) >= (int)sizeof(with_mem)) {
			fprintf(stderr, "kpmc: mem: configuration too long\n");
			return 2;
		}
		strcpy(m->cfg[i], with_mem);
		o->configs[i] = m->cfg[i];
	}
	return -1;
}

unsigned int kpmc_mem_report(const struct kpmc_mem_opts *m, struct kpmc_memrep *rep, FILE *report)
{
	unsigned int failed = 0;
	char why[256];

	kpmc_memrep_print(rep, report, (unsigned int)m->top, m->form);
	for (unsigned int h = 0; h < m->nheat; h++) {
		if (kpmc_memrep_heatmap(rep, m->heat[h].name, m->heat[h].rows, m->heat[h].cols,
					m->heat[h].file, why, sizeof(why))) {
			fprintf(stderr, "kpmc: mem: --heatmap: %s\n", why);
			failed++;
		}
	}
	return failed;
}
