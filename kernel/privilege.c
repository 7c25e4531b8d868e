// SPDX-License-Identifier: GPL-2.0
/*
 * Who may count what: perf's rules, applied where perf applies them (at
 * perf_event_open, which for kpmc is the enable that starts counting), so
 * that a user gets from kpmc exactly what perf would give them.
 *
 *   perf_event_paranoid  without CAP_PERFMON (or CAP_SYS_ADMIN)
 *   >= 3 (Debian)        nothing at all (perf asks for CAP_SYS_ADMIN)
 *   2                    own threads, user mode only
 *   1                    own threads, user and kernel mode
 *   0 / -1               also CPU-wide counting and AnyThread
 *
 * "Own threads" is ptrace's PTRACE_MODE_ATTACH rule (control.c checks it on
 * the same struct pid that gets attached). The value of the sysctl is not
 * exported to modules, so it is read from its file, opened once at load.
 * Process context only.
 */
#include <linux/kernel.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/err.h>
#include <linux/perf_event.h>

#include "kpmc/compat.h"
#include "layer_configs.h"
#include "layer_rules.h"

static struct file *paranoid_file;

void kpmc_privilege_init(void)
{
	struct file *f = filp_open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY, 0);

	if (IS_ERR(f)) {
		pr_warn("kpmc: cannot read /proc/sys/kernel/perf_event_paranoid (%ld): users without CAP_PERFMON are refused\n",
			PTR_ERR(f));
		return;
	}
	paranoid_file = f;
}

void kpmc_privilege_exit(void)
{
	if (paranoid_file)
		filp_close(paranoid_file, NULL);
	paranoid_file = NULL;
}

/* The current perf_event_paranoid; unreadable: the strictest level. */
int kpmc_perf_paranoid(void)
{
	char buf[16];
	loff_t pos = 0;
	ssize_t n;
	int v;

	if (!paranoid_file)
		return INT_MAX;
	n = kernel_read(paranoid_file, buf, sizeof(buf) - 1, &pos);
	if (n <= 0)
		return INT_MAX;
	buf[n] = '\0';
	if (kstrtoint(strim(buf), 10, &v))
		return INT_MAX;
	return v;
}

static int may_count(const struct kpmc_shared_config *conf, bool cpu_wide, bool capable,
		     char *why, size_t len)
{
	int paranoid;
	unsigned int s, i;
	bool kernel = false, any = false;

	if (capable)
		return 0;
	paranoid = kpmc_perf_paranoid();
	/* Debian asks for CAP_SYS_ADMIN here, which perfmon_capable() covers. */
	if (kpmc_paranoid_blocks_all(paranoid)) {
		snprintf(why, len,
			 "perf_event_paranoid is %d: performance monitoring needs CAP_PERFMON or CAP_SYS_ADMIN (as perf does)",
			 paranoid);
		return -EACCES;
	}
	for (s = 0; s < conf->sets.nr; s++) {
		const struct kpmc_config *cfg = &conf->sets.set[s];

		for (i = 0; i < KPMC_MAX_COUNTERS; i++) {
			if (!(cfg->mask & BIT(i)))
				continue;
			kernel |= cfg->ctr[i].os;
			any |= cfg->ctr[i].any;
		}
	}
	if (kernel && paranoid > 1) {
		snprintf(why, len,
			 "perf_event_paranoid is %d: counting kernel mode (osN=1) needs paranoid <= 1 or CAP_PERFMON",
			 paranoid);
		return -EACCES;
	}
	if (cpu_wide && paranoid > 0) {
		snprintf(why, len,
			 "perf_event_paranoid is %d: system-wide monitoring needs paranoid <= 0 or CAP_PERFMON",
			 paranoid);
		return -EACCES;
	}
	if (any && paranoid > 0) {
		snprintf(why, len,
			 "perf_event_paranoid is %d: anyN=1 (the sibling hyperthread's events) needs paranoid <= 0 or CAP_PERFMON",
			 paranoid);
		return -EACCES;
	}
	return 0;
}

/*
 * Every start of counting asks here first, so this is also where a
 * configuration gets what counting it needs from the backend (the perf
 * backend's events): only once it may count, never at the configuration
 * write any user may make.
 */
int kpmc_may_count(const struct kpmc_shared_config *conf, bool cpu_wide, bool capable,
		   char *why, size_t len)
{
	int err = may_count(conf, cpu_wide, capable, why, len);

	return err ? err : kpmc_shared_config_prepare(conf, !perfmon_capable(), why, len);
}
