// SPDX-License-Identifier: GPL-2.0
/*
 * fmt=mem (mem=1): each event-based sample is followed by the data access it
 * hit (a KPMC_REC_MEM record, struct kpmc_mem_access), as the backend's
 * memory source finds it: decoded from the instruction (arm64), or tagged by
 * a hardware sampler (PEBS, IBS, perf's precise events).
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <asm/ptrace.h>
#include <asm/processor.h>

#include "kpmc/compat.h"
#include "kpmc/backend.h"
#include "kpmc/format.h"
#include "formats.h"

/* No options: the ldlat threshold is the set's own token (the backend programs it). */
static int mem_validate(const char *args, void **priv, char *why, size_t len)
{
	if (args[0]) {
		snprintf(why, len, "fmt=mem has no fmt.KEY options (ldlat=N is the set's)");
		return -EINVAL;
	}
	if (!kpmc_backend->mem_sample) {
		snprintf(why, len, "mem=1: the %s backend has no memory sampling", kpmc_backend->name);
		return -EOPNOTSUPP;
	}
	return 0;
}

static size_t mem_max_bytes(const void *priv)
{
	return sizeof(struct kpmc_mem_access);
}

/*
 * A sample taken away from its interrupt (at a switch, a fold tick, a read)
 * carries no access, but still its MEM record: every EBS record has one.
 */

/*
 * A set that may not count kernel mode may not learn kernel addresses
 * either (perf_event_paranoid 2: they would give away the KASLR slide): a
 * sample of kernel code keeps its KERNEL flag and loses ip and addr.
 */
static void hide_kernel(struct kpmc_mem_access *a)
{
	if ((a->flags & KPMC_MEM_F_KERNEL) || kpmc_beyond_user(a->ip)) {
		a->flags |= KPMC_MEM_F_KERNEL;
		a->flags &= ~(KPMC_MEM_F_ADDR | KPMC_MEM_F_EXACT);
		a->ip = 0;
		a->addr = 0;
	} else if (kpmc_beyond_user(a->addr)) {
		/* A user instruction's access there faulted: no address to give. */
		a->flags &= ~KPMC_MEM_F_ADDR;
		a->addr = 0;
	}
}

static long mem_write(void *priv, const struct kpmc_format_sample *s, void *buf, size_t room)
{
	struct kpmc_mem_access *a = buf;

	if (s->record->kind != KPMC_REC_EBS || room < sizeof(*a))
		return 0;
	if (s->regs) {
		kpmc_backend->mem_sample(s->regs, s->kernel_allowed, a);
		/*
		 * Without the access's own IP, the interrupted one: on x86 the
		 * regs may be an irq_work's, taken wherever IRQs came back on,
		 * often in the kernel; only a set that may count kernel mode
		 * gets such a PC.
		 */
		if (!a->ip && (s->kernel_allowed || user_mode(s->regs)))
			a->ip = instruction_pointer(s->regs);
	}
	if (!s->kernel_allowed)
		hide_kernel(a);
	return sizeof(*a);
}

struct kpmc_format kpmc_format_mem = {
	.name = "mem",
	.uuid = { 0x9c, 0x41, 0x0b, 0x7e, 0x23, 0xd6, 0x4a, 0x15,
		  0x8f, 0x52, 0xe1, 0x3a, 0x6d, 0xc0, 0x94, 0x27 },
	.validate = mem_validate,
	.max_bytes = mem_max_bytes,
	.write = mem_write,
};

int kpmc_format_mem_init(void)
{
	return kpmc_format_register_builtin(&kpmc_format_mem, KPMC_REC_MEM);
}
