// SPDX-License-Identifier: GPL-2.0
/*
 * The fast read path: one page per thread (struct kpmc_self_page), mapped
 * read-only into its process by mmap of /proc/kpmc/self, that holds what a
 * read() of /proc/kpmc/self would fold: per counter a base count and the raw
 * value the counter held at that base. The thread itself, while it runs,
 * adds the live counter's progress since raw, so it reads its counts with no
 * system call where the backend lets user space read the counters.
 *
 * Writers run on the thread's CPU with IRQs off (the switch hook, the fold
 * timer, the thread's own /proc calls), so a reader that is the thread
 * itself sees a rewrite only as an interruption: the seq check around its
 * read catches every one, including a switch-out and back (which rewrites the
 * page at switch-in).
 *
 * Lifetime: the thread state holds a reference to the page and every mapping
 * holds its own (vm_insert_page takes one on the struct page), so the page
 * lives until both the thread state (exit, unload) and the last mapping are
 * gone, in either order; the mapping needs nothing of kpmc's code.
 *
 * User access is granted lazily off: a thread that stops being monitored
 * keeps the backend's grant until it leaves the CPU. Revoking it at once
 * would turn a read that another CPU's stop raced with into an
 * undefined-instruction trap; a late read only sees stopped counters and a
 * moved seq, then the page's flags.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/gfp.h>
#include <linux/moduleparam.h>

#include "kpmc/compat.h"
#include "layer_base.h"
#include "layer_objects.h"

static bool user_access = true;
module_param(user_access, bool, 0644);
MODULE_PARM_DESC(user_access,
		 "let fast-path threads read their counters from user space (0: pages say use read())");

/* Can t's counters, loaded on this CPU, be read by t from user space? */
static bool user_readable(const struct kpmc_thread *t, const struct kpmc_hw_config *hw)
{
	/*
	 * Multiplexed and sampling configurations reprogram counters from the
	 * interrupt and tick paths: those keep to read(), which folds.
	 */
	return READ_ONCE(user_access) && kpmc_backend->user_access && kpmc_backend->user_index &&
	       t->conf->sets.nr == 1 && !hw->sampling;
}

/*
 * Between two threads that may both read, the grant stays on. The backend
 * zeroes the counters a thread does not use when the grant goes on
 * (user_access), and at every load() while it is on those the previous
 * configuration used: no thread reads another's counts at EL0.
 */
static void grant(struct kpmc_cpu *c, bool on)
{
	if (c->user_access != on) {
		kpmc_backend->user_access(on);
		c->user_access = on;
	}
}

/* Rewrite t's page; returns whether it says "read the live counters". */
static bool write_page(struct kpmc_cpu *c, struct kpmc_thread *t, struct kpmc_self_page *p)
{
	bool live = t->state == KPMC_COUNTING && t->conf && c->cur == t;
	const struct kpmc_hw_config *hw;
	u32 flags = 0, old = p->counter_mask;
	bool user;
	unsigned int i;

	WRITE_ONCE(p->seq, p->seq + 1);
	smp_wmb();
	p->tid = t->own_tid;
	p->nr = 0;
	/* The lean entries of the counters the page named before: unreadable. */
	for (i = 0; old && i < KPMC_MAX_COUNTERS; i++)
		if (old & BIT(i))
			p->by_pmc[i].user_index = 0;
	p->counter_mask = 0;
	if (t->state == KPMC_COUNTING && t->conf) {
		hw = &t->conf->hw[t->set];
		user = live && user_readable(t, hw);
		flags = KPMC_PAGE_COUNTING;
		p->counter_mask = hw->mask;
		p->set = t->set;
		for (i = 0; i < hw->nr; i++) {
			struct kpmc_page_counter *pc = &p->ctr[i];
			int index = user ? kpmc_backend->user_index(hw, i) : 0;

			if (index < 0)
				user = false;
			pc->pmc = hw->slot[i];
			pc->index = index;
			pc->base = t->total[hw->slot[i]] + t->acc[i];
			pc->raw = live ? c->last_raw[i] : 0;
			pc->width_mask = hw->width_mask[i];
		}
		p->nr = hw->nr;
		p->run_ns = t->total_run_ns + t->run_ns;
		p->since_ns = t->switched_in_ns;
		if (user)
			flags |= KPMC_PAGE_USER_READ;
		/* The same per pmc, with the readable ones' indices (+ 1). */
		for (i = 0; i < hw->nr; i++) {
			const struct kpmc_page_counter *pc = &p->ctr[i];
			struct kpmc_page_pmc *e = &p->by_pmc[pc->pmc];

			e->base = pc->base;
			e->raw = pc->raw;
			e->width_mask = pc->width_mask;
			e->user_index = user ? pc->index + 1 : 0;
		}
	}
	p->flags = flags;
	smp_wmb();
	WRITE_ONCE(p->seq, p->seq + 1);
	return flags & KPMC_PAGE_USER_READ;
}

/*
 * After t's counts or its counters' starting points changed. When t is what
 * this CPU counts, the backend's user access follows t's page.
 */
void kpmc_selfpage_sync(struct kpmc_cpu *c, struct kpmc_thread *t)
{
	bool user = false;

	if (t->self_page)
		user = write_page(c, t, page_address(t->self_page));
	if (c->cur == t && kpmc_backend->user_access)
		grant(c, user);
}

/* This CPU switches to a thread kpmc does not count. */
void kpmc_selfpage_leave(struct kpmc_cpu *c)
{
	if (unlikely(c->user_access))
		grant(c, false);
}

/* Process context: current maps its own page (t is current's state). */
int kpmc_selfpage_mmap(struct kpmc_thread *t, struct vm_area_struct *vma)
{
	struct page *page;
	unsigned long flags;

	if (vma->vm_end - vma->vm_start != PAGE_SIZE || vma->vm_pgoff) {
		kpmc_reject(t, "self", "mmap of %lu bytes at page %lu: map one page at offset 0",
			    vma->vm_end - vma->vm_start, vma->vm_pgoff);
		return -EINVAL;
	}
	if (vma->vm_flags & VM_WRITE) {
		kpmc_reject(t, "self", "mmap with PROT_WRITE: the page is read-only");
		return -EINVAL;
	}
	/*
	 * VM_DONTCOPY: the page is this thread's; a child of fork() must not
	 * inherit it and take the parent's counts, or its USER_READ flag, as
	 * its own. It maps /proc/kpmc/self for a page of its own. VM_IO makes
	 * that stick: madvise(MADV_DOFORK) refuses to clear VM_DONTCOPY of a
	 * VM_IO mapping. It also keeps get_user_pages() (ptrace peeks,
	 * /proc/PID/mem, process_vm_readv) off the page, which no reader needs.
	 */
	kpmc_vm_flags_mod(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY, VM_MAYWRITE);

	page = t->self_page;
	if (!page) {
		struct kpmc_self_page *p;

		page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!page)
			return -ENOMEM;
		p = page_address(page);
		p->version = KPMC_PAGE_VERSION;
		local_irq_save(flags);
		t->self_page = page;
		kpmc_selfpage_sync(this_cpu_ptr(&kpmc_cpus), t);
		local_irq_restore(flags);
	}
	return vm_insert_page(vma, vma->vm_start, page);
}

/* The thread state goes (exit or unload): mappings keep the page, saying "not counting". */
void kpmc_selfpage_free(struct kpmc_thread *t)
{
	struct kpmc_self_page *p;

	if (!t->self_page)
		return;
	p = page_address(t->self_page);
	WRITE_ONCE(p->seq, p->seq + 1);
	smp_wmb();
	p->flags = 0;
	p->nr = 0;
	memset(p->by_pmc, 0, sizeof(p->by_pmc));
	smp_wmb();
	WRITE_ONCE(p->seq, p->seq + 1);
	put_page(t->self_page);
	t->self_page = NULL;
}
