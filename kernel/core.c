// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc: per-thread performance-monitoring counters.
 * Module entry, backend selection and the PMU claim policy.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/utsname.h>

#include "kpmc/core.h"
#include "kpmc/hooks.h"

static char *hooks = "auto";
module_param(hooks, charp, 0444);
MODULE_PARM_DESC(hooks, "auto (pmc_ops where the kernel has them), pmc_ops or tracepoint");

static char *backend;
module_param(backend, charp, 0444);
MODULE_PARM_DESC(backend, "force a PMU backend by name (default: first that probes)");

const struct kpmc_backend *kpmc_backend;
struct kpmc_pmu_desc kpmc_pmu;
char kpmc_no_pmu_reason[KPMC_ERR_MAX];
const struct kpmc_hook_source *kpmc_hooks;

DEFINE_STATIC_KEY_FALSE(kpmc_monitoring);

/*
 * The PMU is claimed from perf while at least one session exists: sessions
 * are created and freed in process context, where claiming may sleep.
 */
static DEFINE_MUTEX(kpmc_pmu_lock);
static unsigned int kpmc_pmu_users;

static u32 kpmc_all_counters(void)
{
	return kpmc_pmu.nr_counters >= 32 ? ~0u : (1u << kpmc_pmu.nr_counters) - 1;
}

int kpmc_pmu_acquire(char *why, size_t len)
{
	int err = 0;

	if (!kpmc_backend) {
		snprintf(why, len, "no supported PMU found: %s", kpmc_no_pmu_reason);
		return -ENODEV;
	}
	mutex_lock(&kpmc_pmu_lock);
	if (!kpmc_pmu_users) {
		err = kpmc_backend->claim(kpmc_all_counters(), why, len);
		if (!err)
			static_branch_enable(&kpmc_monitoring);
	}
	if (!err)
		kpmc_pmu_users++;
	mutex_unlock(&kpmc_pmu_lock);
	return err;
}

void kpmc_pmu_release(void)
{
	mutex_lock(&kpmc_pmu_lock);
	if (!--kpmc_pmu_users) {
		static_branch_disable(&kpmc_monitoring);
		kpmc_backend->unclaim(kpmc_all_counters());
	}
	mutex_unlock(&kpmc_pmu_lock);
}

/* Up to 100 rejections per 5 s reach dmesg: enough for a test, not a flood. */
static DEFINE_RATELIMIT_STATE(kpmc_reject_rs, 5 * HZ, 100);

void kpmc_reject(struct kpmc_thread *t, const char *file, const char *fmt, ...)
{
	char msg[KPMC_ERR_MAX];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	if (t)
		strscpy(t->last_error, msg, sizeof(t->last_error));
	if (__ratelimit(&kpmc_reject_rs))
		pr_warn("kpmc: %s: %s (pid %d)\n", file, msg, task_pid_nr(current));
}

/*
 * The first direct backend that probes, else the generic perf backend (last
 * in the table); backend= forces one by name. kpmc_no_pmu_reason keeps why
 * the direct backends were refused, for /proc/kpmc/info.
 */
static void select_backend(void)
{
	const struct kpmc_backend *const *b;
	char why[KPMC_ERR_MAX];
	int n = 0, direct = 0;

	for (b = kpmc_backend_table; *b; b++) {
		bool fallback = !b[1];

		if (backend && strcmp(backend, (*b)->name))
			continue;
		if (fallback && !backend && !n && !direct)
			n += scnprintf(kpmc_no_pmu_reason, sizeof(kpmc_no_pmu_reason),
				       "kpmc has no direct PMU backend for %s yet",
				       utsname()->machine);
		direct += !fallback;
		why[0] = '\0';
		memset(&kpmc_pmu, 0, sizeof(kpmc_pmu));
		if (!(*b)->probe(&kpmc_pmu, why, sizeof(why))) {
			kpmc_backend = *b;
			return;
		}
		n += scnprintf(kpmc_no_pmu_reason + n, sizeof(kpmc_no_pmu_reason) - n,
			       "%s%s: %s", n ? "; " : "", (*b)->name, why);
	}
	if (backend && !n)
		snprintf(kpmc_no_pmu_reason, sizeof(kpmc_no_pmu_reason),
			 "no backend named '%s' in this build", backend);
}

/* pmc_ops where the kernel has kpmc's scheduler patch, else tracepoints. */
static const struct kpmc_hook_source *select_hooks(void)
{
	bool want_tp = !strcmp(hooks, "tracepoint"), want_ops = !strcmp(hooks, "pmc_ops");

	if (!want_tp && !want_ops && strcmp(hooks, "auto"))
		return NULL;
#ifdef CONFIG_PMC_OPS
	if (!want_tp)
		return &kpmc_pmc_ops_hooks;
#endif
#ifdef CONFIG_TRACEPOINTS
	if (!want_ops)
		return &kpmc_tracepoint_hooks;
#endif
	return NULL;
}

static int __init kpmc_init(void)
{
	int err;

	BUILD_BUG_ON(KPMC_MAX_COUNTERS > 32);
	BUILD_BUG_ON(KPMC_MAX_VIRT > 32);

	select_backend();
	if (kpmc_backend)
		pr_info("kpmc: backend %s: %s, %u counters%s%s\n", kpmc_backend->name,
			kpmc_pmu.model, kpmc_pmu.nr_counters,
			kpmc_no_pmu_reason[0] ? "; direct backends refused: " : "",
			kpmc_no_pmu_reason);
	else
		pr_info("kpmc: no supported PMU found: %s\n", kpmc_no_pmu_reason);

	err = kpmc_mm_activate(0);
	if (err)
		goto out_backend;
	err = kpmc_sessions_init();
	if (err)
		goto out_backend;
	err = kpmc_threads_init();
	if (err)
		goto out_sessions;
	kpmc_hooks = select_hooks();
	if (!kpmc_hooks) {
		pr_err("kpmc: no hook source: hooks=%s (this kernel: tracepoints %s, pmc_ops %s)\n",
		       hooks, IS_ENABLED(CONFIG_TRACEPOINTS) ? "yes" : "no",
		       IS_ENABLED(CONFIG_PMC_OPS) ? "yes" : "no");
		err = -EINVAL;
		goto out_threads;
	}
	err = kpmc_hooks->attach();
	if (err) {
		pr_err("kpmc: cannot attach %s hooks: %d\n", kpmc_hooks->name, err);
		goto out_threads;
	}
	err = kpmc_proc_init();
	if (err)
		goto out_hooks;
	return 0;

out_hooks:
	kpmc_hooks->detach();
out_threads:
	kpmc_threads_exit();
out_sessions:
	kpmc_sessions_exit();
out_backend:
	if (kpmc_backend && kpmc_backend->remove)
		kpmc_backend->remove();
	return err;
}

static void __exit kpmc_exit(void)
{
	kpmc_system_exit();
	/* Wake blocked readers, then close every open session file. */
	kpmc_sessions_shutdown();
	kpmc_proc_exit();
	kpmc_hooks->detach();
	kpmc_kernel_api_stop();
	kpmc_threads_exit();
	kpmc_mm_exit();
	kpmc_kernel_api_exit();
	kpmc_sessions_exit();
	if (kpmc_backend && kpmc_backend->remove)
		kpmc_backend->remove();
}

module_init(kpmc_init);
module_exit(kpmc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc: per-thread performance-monitoring counters");
