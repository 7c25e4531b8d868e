// SPDX-License-Identifier: GPL-2.0
/*
 * Shared configurations: a parsed configuration with the backend's register
 * encoding of each set, immutable once made, shared by a thread, the
 * threads it forks or attaches, and system-wide or kernel-API monitoring.
 * Freed an RCU grace period after the last reference, from a work item (a
 * backend's release may sleep; readers of a thread's configuration hold
 * only rcu_read_lock()).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/atomic.h>
#include <linux/workqueue.h>

#include "layer_base.h"
#include "layer_formats.h"
#include "layer_configs.h"
#include "kpmc/format.h"

static atomic_t kpmc_configs_live_nr = ATOMIC_INIT(0);
static atomic64_t kpmc_config_generation = ATOMIC64_INIT(0);

static void shared_config_free(struct work_struct *work)
{
	struct kpmc_shared_config *c = container_of(to_rcu_work(work), struct kpmc_shared_config,
						    free_work);
	unsigned int i;

	for (i = 0; i < c->sets.nr; i++) {
		if (kpmc_backend->release)
			kpmc_backend->release(&c->hw[i]);
		if (c->fmt[i])
			kpmc_format_put(c->fmt[i], c->fmt_priv[i]);
	}
	kfree(c);
	atomic_dec(&kpmc_configs_live_nr);
}

/*
 * May be called in any context: a backend's release may sleep, so it is
 * deferred, and only after an RCU grace period, since readers of a thread's
 * configuration (kpmc_thread_metrics) hold nothing but rcu_read_lock().
 */
void kpmc_shared_config_put(struct kpmc_shared_config *c)
{
	if (c && refcount_dec_and_test(&c->ref)) {
		INIT_RCU_WORK(&c->free_work, shared_config_free);
		kpmc_defer_rcu(&c->free_work);
	}
}

/* Parsed sets, encoded by the backend (process context); or ERR_PTR with why. */
struct kpmc_shared_config *kpmc_shared_config_new(const struct kpmc_config_sets *sets,
						  char *why, size_t len)
{
	struct kpmc_shared_config *c;
	unsigned int i;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&kpmc_configs_live_nr);
	refcount_set(&c->ref, 1);
	c->generation = atomic64_add_return(KPMC_MAX_SETS, &kpmc_config_generation);
	c->sets = *sets;
	for (i = 0; i < sets->nr; i++) {
		const struct kpmc_config *cfg = &sets->set[i];
		struct kpmc_format *f = NULL;

		why[0] = '\0';
		if (cfg->mem || cfg->fmt_name[0]) {
			f = kpmc_format_get(cfg->mem ? "mem" : cfg->fmt_name, cfg->fmt_args,
					    &c->fmt_priv[i], why, len);
			if (IS_ERR(f)) {
				c->sets.nr = i;
				kpmc_shared_config_put(c);
				return ERR_CAST(f);
			}
		}
		err = kpmc_backend->encode(cfg, &c->hw[i], why, len);
		if (err && f)
			kpmc_format_put(f, c->fmt_priv[i]);
		else
			c->fmt[i] = f;
		if (!err)
			c->records_per_sample = max(c->records_per_sample,
						    1 + kpmc_format_parts(f, c->fmt_priv[i]));
		if (err) {
			if (!why[0])
				snprintf(why, len, "the backend cannot encode it");
			/* Only the sets before i hold backend resources. */
			c->sets.nr = i;
			kpmc_shared_config_put(c);
			return ERR_PTR(err);
		}
	}
	return c;
}

/*
 * Before c counts for the first time, once allowed to (process context):
 * the backend makes what counting needs. user_limited: for a user without
 * CAP_PERFMON, within the backend's per-user limits.
 */
int kpmc_shared_config_prepare(const struct kpmc_shared_config *c, bool user_limited,
			       char *why, size_t len)
{
	unsigned int i;
	int err;

	if (!kpmc_backend->prepare)
		return 0;
	for (i = 0; i < c->sets.nr; i++) {
		err = kpmc_backend->prepare(&c->hw[i], user_limited, why, len);
		if (err)
			return err;
	}
	return 0;
}

/* Configurations allocated and not yet freed (RCU included). */
int kpmc_configs_live(void)
{
	return atomic_read(&kpmc_configs_live_nr);
}
