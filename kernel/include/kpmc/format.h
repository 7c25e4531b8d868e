/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling formats (perfmon2's idea: no single sample layout satisfies every
 * need): what follows each sample of a set that names one with fmt=NAME.
 * A format is built into kpmc.ko or registered by another module; this
 * header is all such a module needs (tests/kmod/kpmc_fmt_example.c is one).
 *
 * The core asks the format for the bytes of each TBS or EBS sample and cuts
 * them into records of kind KPMC_REC_FORMAT (struct kpmc_format_part: the
 * format's UUID, part k of n), which the ring takes together with their
 * sample record, whole or not at all.
 */
#ifndef KPMC_FORMAT_H
#define KPMC_FORMAT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/module.h>
#include <uapi/linux/kpmc.h>

struct pt_regs;
struct task_struct;

/* The most parts one sample may take, and so the most bytes a format writes. */
#define KPMC_FORMAT_MAX_PARTS	16
#define KPMC_FORMAT_MAX_BYTES	(KPMC_FORMAT_MAX_PARTS * KPMC_FORMAT_PART_BYTES)

/**
 * struct kpmc_format_sample - what a format sees of the sample it follows
 * @regs: the interrupted context (the counter's overflow interrupt, the
 *	sampling tick), or %NULL for a sample taken elsewhere (an overflow
 *	noticed at a context switch or a read)
 * @task: the sampled thread
 * @record: the sample itself: kind, counts, period
 * @kernel_allowed: does the set count kernel mode (may the sample reveal
 *	kernel addresses)?
 */
struct kpmc_format_sample {
	struct pt_regs *regs;
	struct task_struct *task;
	const struct kpmc_record *record;
	bool kernel_allowed;
};

/**
 * struct kpmc_format - a sampling format: what its module fills in
 *
 * The module fills in the members up to @release and passes the struct to
 * kpmc_format_register(); the rest is the core's.
 */
struct kpmc_format {
	/** @name: fmt=NAME: [a-z0-9_], at most 23 characters. */
	const char *name;
	/** @uuid: names the format in its records. */
	u8 uuid[16];
	/** @owner: THIS_MODULE, required: held while a configuration uses the format. */
	struct module *owner;
	/**
	 * @validate: process context, when a configuration naming the format
	 * is made: check the options args (the set's fmt.KEY=VALUE tokens as
	 * "KEY=VALUE,...", "" for none) and make the state *priv (NULL before)
	 * that the other calls get. On error, -EINVAL (or another errno, which
	 * the configuration's write returns) and why (len bytes) names the bad
	 * token; left empty, the core says the options were refused.
	 */
	int (*validate)(const char *args, void **priv, char *why, size_t len);
	/**
	 * @max_bytes: the most bytes @write may produce per sample (perfmon2's
	 * getsize); more than %KPMC_FORMAT_MAX_BYTES refuses the configuration.
	 */
	size_t (*max_bytes)(const void *priv);
	/**
	 * @write: the sample's bytes into buf (room: at least what @max_bytes
	 * said). Hard IRQ or scheduler context with IRQs off: no allocation,
	 * no sleeping, no printk. Returns the bytes written (0: the sample goes
	 * alone), or -ENOSPC: the format's buffer is full, the sample is dropped
	 * (and counted lost, as when the ring is full).
	 */
	long (*write)(void *priv, const struct kpmc_format_sample *s, void *buf, size_t room);
	/**
	 * @release: optional: the configuration is freed, or @max_bytes refused
	 * it (process context): priv goes.
	 */
	void (*release)(void *priv);

	/* private: the core's */
	struct list_head node;
	u8 kind;			/* KPMC_REC_FORMAT, or a built-in's own */
	atomic_t users;			/* configurations using it */
};

/**
 * kpmc_format_register() - make a format available to fmt=NAME
 * @f: the format, its members up to @f->release filled in
 *
 * Context: process context.
 * Return: 0, or -EINVAL for a bad name, a missing op (validate, max_bytes or
 * write) or no .owner, -EEXIST for a name or UUID taken.
 */
int kpmc_format_register(struct kpmc_format *f);
/**
 * kpmc_format_unregister() - withdraw a format from fmt=NAME
 * @f: the format
 *
 * Call it from the module's exit, where it cannot fail: a configuration
 * using the format holds the module. Called elsewhere (or after a forced
 * unload) it fails while configurations use the format, which then stays
 * registered and usable.
 *
 * Context: process context.
 * Return: 0, or -EBUSY while configurations use the format.
 */
int kpmc_format_unregister(struct kpmc_format *f);

/*
 * The formats built into kpmc.ko (formats/registry.c lists them): each has
 * its own record kind; they are registered and unregistered by the
 * module's init and exit.
 */
int kpmc_format_register_builtin(struct kpmc_format *f, u8 kind);
int kpmc_builtin_formats_init(void);
void kpmc_builtin_formats_exit(void);

#endif /* KPMC_FORMAT_H */
