// SPDX-License-Identifier: GPL-2.0
/*
 * fmt=callstack: the call stack of each sample (struct kpmc_callstack).
 * Options: fmt.depth=N (1..127 frames of each mode, default 64) and
 * fmt.stack=kernel|user|both (default both).
 *
 * Kernel frames come from the kernel's own unwinder: stack_trace_save()
 * from the interrupt, cut at the interrupted pc (the unwinder crosses the
 * exception frame and reports it), so the interrupt's own frames are left
 * out. User frames are a frame-pointer walk from the user registers saved
 * at the entry into the kernel, each frame read with a non-faulting copy: a
 * frame that is paged out, or code without frame pointers, ends the walk
 * (flagged). Programs want -fno-omit-frame-pointer (and, on arm64,
 * -mno-omit-leaf-frame-pointer, or a leaf's caller is missed as with
 * perf's fp call graphs).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "kpmc/backend.h"
#include "kpmc/format.h"
#include "formats.h"

#define CALLSTACK_DEFAULT_DEPTH	64
/* Frames of the interrupt and of kpmc above the interrupted pc, at most. */
#define CALLSTACK_IRQ_FRAMES	64

struct callstack_opts {
	unsigned int depth;
	bool kernel, user;
};

/* The kernel unwinder's output, before the cut (IRQs off: this CPU's). */
static unsigned long __percpu *callstack_scratch;
#define CALLSTACK_SCRATCH (KPMC_STACK_MAX_DEPTH + CALLSTACK_IRQ_FRAMES)

/* "depth=N,stack=kernel|user|both" */
static int callstack_validate(const char *args, void **priv, char *why, size_t len)
{
	struct callstack_opts o = { CALLSTACK_DEFAULT_DEPTH, true, true };
	struct callstack_opts *p;
	const char *a = args;

	while (*a) {
		const char *comma = strchr(a, ',');
		size_t n = comma ? (size_t)(comma - a) : strlen(a);
		const char *eq = memchr(a, '=', n);
		size_t klen = eq ? (size_t)(eq - a) : n, vlen = eq ? n - klen - 1 : 0;
		u64 v;

		if (klen == 5 && !memcmp(a, "depth", 5)) {
			if (!eq || kpmc_parse_u64(eq + 1, vlen, &v) || !v || v > KPMC_STACK_MAX_DEPTH) {
				snprintf(why, len, "fmt.%.*s: depth wants 1 to %d frames", (int)n, a,
					 KPMC_STACK_MAX_DEPTH);
				return -EINVAL;
			}
			o.depth = v;
		} else if (klen == 5 && !memcmp(a, "stack", 5)) {
			if (eq && vlen == 6 && !memcmp(eq + 1, "kernel", 6)) {
				o.kernel = true;
				o.user = false;
			} else if (eq && vlen == 4 && !memcmp(eq + 1, "user", 4)) {
				o.kernel = false;
				o.user = true;
			} else if (eq && vlen == 4 && !memcmp(eq + 1, "both", 4)) {
				o.kernel = o.user = true;
			} else {
				snprintf(why, len, "fmt.%.*s: stack wants kernel, user or both",
					 (int)n, a);
				return -EINVAL;
			}
		} else {
			snprintf(why, len,
				 "fmt.%.*s: fmt=callstack knows fmt.depth=N and fmt.stack=kernel|user|both",
				 (int)n, a);
			return -EINVAL;
		}
		a += n + (comma ? 1 : 0);
	}
	p = kmemdup(&o, sizeof(o), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	*priv = p;
	return 0;
}

static size_t callstack_max_bytes(const void *priv)
{
	const struct callstack_opts *o = priv;

	return sizeof(struct kpmc_callstack) +
	       sizeof(__u64) * o->depth * ((o->kernel ? 1 : 0) + (o->user ? 1 : 0));
}

/* The kernel frames from the interrupted pc outwards; regs: kernel mode. */
static unsigned int kernel_frames(struct pt_regs *regs, __u64 *ip, unsigned int depth,
				  __u16 *flags)
{
	unsigned long *entries = this_cpu_ptr(callstack_scratch);
	unsigned long pc = instruction_pointer(regs);
	unsigned int nr, i, n = 0;

	nr = stack_trace_save(entries, CALLSTACK_SCRATCH, 0);
	for (i = 0; i < nr && entries[i] != pc; i++)
		;
	if (i == nr) {
		/* This unwinder did not cross the exception frame: the pc alone. */
		ip[0] = pc;
		*flags |= KPMC_STACK_F_KERNEL_PARTIAL;
		return 1;
	}
	for (; i < nr && n < depth; i++)
		ip[n++] = entries[i];
	if (i < nr || nr == CALLSTACK_SCRATCH)
		*flags |= KPMC_STACK_F_KERNEL_TRUNC;
	return n;
}

#if defined(CONFIG_ARM64)
static bool user_frames_walkable(struct pt_regs *uregs)
{
	return !compat_user_mode(uregs);
}

static unsigned long user_frame_pointer(struct pt_regs *uregs)
{
	return uregs->regs[29];
}
#elif defined(CONFIG_X86_64)
static bool user_frames_walkable(struct pt_regs *uregs)
{
	return user_64bit_mode(uregs);
}

static unsigned long user_frame_pointer(struct pt_regs *uregs)
{
	return uregs->bp;
}
#else
static bool user_frames_walkable(struct pt_regs *uregs)
{
	return false;
}

static unsigned long user_frame_pointer(struct pt_regs *uregs)
{
	return 0;
}
#endif

/*
 * The user frames: the pc, then the return address of each frame record
 * (both ABIs: [fp] = the caller's fp, [fp + 8] = the return address), while
 * frames go up the stack.
 */
static unsigned int user_frames(struct pt_regs *uregs, __u64 *ip, unsigned int depth,
				__u16 *flags)
{
	unsigned long fp = user_frame_pointer(uregs);
	unsigned int n = 0;

	ip[n++] = instruction_pointer(uregs);
	while (fp) {
		unsigned long frame[2];

		if (n == depth) {
			*flags |= KPMC_STACK_F_USER_TRUNC;
			break;
		}
		if ((fp & (sizeof(long) - 1)) ||
		    copy_from_user_nofault(frame, (const void __user *)fp, sizeof(frame))) {
			*flags |= KPMC_STACK_F_USER_FAULT;
			break;
		}
		if (!frame[1])
			break;
		ip[n++] = frame[1];
		/* The stack grows down: a caller's frame is higher, or the chain is bad. */
		if (frame[0] && frame[0] <= fp) {
			*flags |= KPMC_STACK_F_USER_FAULT;
			break;
		}
		fp = frame[0];
	}
	return n;
}

static long callstack_write(void *priv, const struct kpmc_format_sample *s, void *buf,
			    size_t room)
{
	const struct callstack_opts *o = priv;
	struct kpmc_callstack *cs = buf;
	struct pt_regs *regs = s->regs;
	__u16 flags = 0;
	unsigned int nk = 0, nu = 0;

	if (room < callstack_max_bytes(o))
		return 0;
	/* Kernel addresses only to whom may count kernel mode (perf's rule). */
	if (o->kernel && s->kernel_allowed && regs && !user_mode(regs))
		nk = kernel_frames(regs, cs->ip, o->depth, &flags);
	/* A thread's user registers are at hand only on its own CPU, as current. */
	if (o->user && s->task == current && current->mm && !(current->flags & PF_KTHREAD)) {
		struct pt_regs *uregs = regs && user_mode(regs) ? regs : task_pt_regs(current);

		if (user_frames_walkable(uregs))
			nu = user_frames(uregs, cs->ip + nk, o->depth, &flags);
	}
	cs->nr_kernel = nk;
	cs->nr_user = nu;
	cs->flags = flags;
	cs->reserved = 0;
	return sizeof(*cs) + sizeof(__u64) * (nk + nu);
}

static void callstack_release(void *priv)
{
	kfree(priv);
}

static struct kpmc_format callstack_format = {
	.name = "callstack",
	/* Drawn once at random; it names this layout for good. */
	.uuid = { 0x5b, 0x2e, 0x8c, 0x41, 0x7a, 0x0d, 0x4f, 0x93,
		  0xb1, 0x6e, 0x2c, 0xd4, 0x90, 0x17, 0xa3, 0x58 },
	.validate = callstack_validate,
	.max_bytes = callstack_max_bytes,
	.write = callstack_write,
	.release = callstack_release,
};

int kpmc_format_callstack_init(void)
{
	int err;

	callstack_scratch = __alloc_percpu(sizeof(unsigned long) * CALLSTACK_SCRATCH,
					   sizeof(unsigned long));
	if (!callstack_scratch)
		return -ENOMEM;
	err = kpmc_format_register_builtin(&callstack_format, KPMC_REC_STACK);
	if (err) {
		free_percpu(callstack_scratch);
		callstack_scratch = NULL;
	}
	return err;
}

void kpmc_format_callstack_exit(void)
{
	free_percpu(callstack_scratch);
	callstack_scratch = NULL;
}
