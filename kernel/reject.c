// SPDX-License-Identifier: GPL-2.0
/*
 * Refusals: why a write to /proc/kpmc or a kernel request was refused, kept
 * for the thread that asked (last_error) and told to dmesg, rate-limited.
 */
#include <linux/kernel.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "layer_base.h"

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
