// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc_fmt_example: a sampling format in a module of its own, built out of
 * tree against kpmc.ko's exported symbols (scripts/build-module.sh), to
 * show and test the format interface (kernel/include/kpmc/format.h).
 *
 * fmt=example writes, after each sample, struct fmt_example_sample:
 * the interrupted pc, whether it was user mode, the sample's period and
 * tid, and the format's own sequence number of the sample; then fmt.pad=N
 * bytes (0..2000) of the pattern byte i = i & 0xff, so that a reader can
 * check that a payload of several parts comes back whole. fmt.max=N: the
 * format's buffer holds N samples; later ones are refused (-ENOSPC) and
 * the core counts them lost. tests/progs/fmtcheck.c reads it back.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/atomic.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#include "kpmc/format.h"

#define FMT_EXAMPLE_MAX_PAD	2000

struct fmt_example_sample {
	__u64 ip;		/* the interrupted pc (0: the sample was taken elsewhere) */
	__u64 seq;		/* 1, 2, ... over the configuration's samples */
	__u64 period;		/* the sample record's period */
	__u32 tid;
	__u32 user;		/* 1: the pc is user mode */
};

struct fmt_example_opts {
	unsigned int pad;
	u64 max;		/* 0: no limit */
	atomic64_t seq;
};

static int fmt_example_option(struct fmt_example_opts *o, const char *tok, size_t n,
			      char *why, size_t len)
{
	char val[24];
	const char *eq = memchr(tok, '=', n);
	size_t klen = eq ? (size_t)(eq - tok) : n, vlen = eq ? n - klen - 1 : 0;
	unsigned long long v;

	if (!eq || !vlen || vlen >= sizeof(val))
		goto bad;
	memcpy(val, eq + 1, vlen);
	val[vlen] = '\0';
	if (kstrtoull(val, 10, &v))
		goto bad;
	if (klen == 3 && !memcmp(tok, "pad", 3) && v <= FMT_EXAMPLE_MAX_PAD) {
		o->pad = v;
		return 0;
	}
	if (klen == 3 && !memcmp(tok, "max", 3) && v) {
		o->max = v;
		return 0;
	}
bad:
	snprintf(why, len, "fmt.%.*s: fmt=example knows fmt.pad=0..%d and fmt.max=N (N > 0)",
		 (int)n, tok, FMT_EXAMPLE_MAX_PAD);
	return -EINVAL;
}

static int fmt_example_validate(const char *args, void **priv, char *why, size_t len)
{
	struct fmt_example_opts *o = kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT);
	const char *a = args;
	int err;

	if (!o)
		return -ENOMEM;
	while (*a) {
		const char *comma = strchr(a, ',');
		size_t n = comma ? (size_t)(comma - a) : strlen(a);

		err = fmt_example_option(o, a, n, why, len);
		if (err) {
			kfree(o);
			return err;
		}
		a += n + (comma ? 1 : 0);
	}
	*priv = o;
	return 0;
}

static size_t fmt_example_max_bytes(const void *priv)
{
	const struct fmt_example_opts *o = priv;

	return sizeof(struct fmt_example_sample) + o->pad;
}

static long fmt_example_write(void *priv, const struct kpmc_format_sample *s, void *buf,
			      size_t room)
{
	struct fmt_example_opts *o = priv;
	struct fmt_example_sample *e = buf;
	u8 *pad = (u8 *)(e + 1);
	unsigned int i;
	u64 seq;

	if (room < fmt_example_max_bytes(o))
		return 0;
	seq = atomic64_inc_return(&o->seq);
	if (o->max && seq > o->max)
		return -ENOSPC;
	e->ip = s->regs ? instruction_pointer(s->regs) : 0;
	e->user = s->regs ? user_mode(s->regs) : 0;
	e->seq = seq;
	e->period = s->record->period;
	e->tid = s->record->tid;
	for (i = 0; i < o->pad; i++)
		pad[i] = i & 0xff;
	return sizeof(*e) + o->pad;
}

static void fmt_example_release(void *priv)
{
	kfree(priv);
}

static struct kpmc_format fmt_example = {
	.name = "example",
	.uuid = { 0xe4, 0x7a, 0x19, 0x3c, 0x55, 0x0f, 0x4d, 0x2b,
		  0x9e, 0x61, 0xc8, 0x02, 0x7d, 0xb3, 0x46, 0xf1 },
	.owner = THIS_MODULE,
	.validate = fmt_example_validate,
	.max_bytes = fmt_example_max_bytes,
	.write = fmt_example_write,
	.release = fmt_example_release,
};

/*
 * Tests of the registry: no_owner=1 registers without .owner (refused);
 * writing 1 to the unregister parameter unregisters at once, refused
 * (-EBUSY, the write fails) while a configuration uses the format.
 */
static bool no_owner;
module_param(no_owner, bool, 0444);
MODULE_PARM_DESC(no_owner, "register without .owner (kpmc must refuse it)");

static DEFINE_MUTEX(fmt_example_lock);
static bool fmt_example_registered;

static int fmt_example_unregister(void)
{
	int err = 0;

	mutex_lock(&fmt_example_lock);
	if (fmt_example_registered) {
		err = kpmc_format_unregister(&fmt_example);
		if (!err)
			fmt_example_registered = false;
	}
	mutex_unlock(&fmt_example_lock);
	return err;
}

static int unregister_set(const char *val, const struct kernel_param *kp)
{
	bool now;
	int err = kstrtobool(val, &now);

	if (err)
		return err;
	return now ? fmt_example_unregister() : 0;
}

static const struct kernel_param_ops unregister_ops = {
	.set = unregister_set,
};
module_param_cb(unregister, &unregister_ops, NULL, 0200);
MODULE_PARM_DESC(unregister, "1: unregister the format now");

static int __init fmt_example_init(void)
{
	int err;

	if (no_owner)
		fmt_example.owner = NULL;
	err = kpmc_format_register(&fmt_example);
	fmt_example_registered = !err;
	return err;
}

static void __exit fmt_example_exit(void)
{
	/* No configuration holds the module: this cannot fail. */
	WARN_ON(fmt_example_unregister());
}

module_init(fmt_example_init);
module_exit(fmt_example_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kpmc: an example sampling format (tests)");
