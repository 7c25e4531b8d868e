// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of sampling formats (kpmc/format.h) and the hot-path step
 * that runs a set's format after each sample: its bytes are cut into parts
 * in a per-CPU scratch area and go to the ring with their sample, whole or
 * not at all.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/irqflags.h>

#include "layer_ring.h"
#include "layer_objects.h"
#include "layer_formats.h"
#include "kpmc/format.h"

static LIST_HEAD(kpmc_formats);
static DEFINE_MUTEX(kpmc_formats_lock);

/* A sample and its parts, or a format's bytes before they are cut. */
struct kpmc_format_scratch {
	struct kpmc_record recs[1 + KPMC_FORMAT_MAX_PARTS];
	u8 bytes[KPMC_FORMAT_MAX_BYTES];
};
static struct kpmc_format_scratch __percpu *kpmc_format_scratch;

static bool name_valid(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (!n || n > KPMC_FMT_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_'))
			return false;
	return true;
}

/* Caller holds kpmc_formats_lock. */
static struct kpmc_format *find_locked(const char *name)
{
	struct kpmc_format *f;

	list_for_each_entry(f, &kpmc_formats, node)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static int register_kind(struct kpmc_format *f, u8 kind)
{
	struct kpmc_format *o;
	int err = 0;

	BUILD_BUG_ON(sizeof(struct kpmc_format_part) !=
		     sizeof(((struct kpmc_record *)NULL)->counts) +
		     sizeof(((struct kpmc_record *)NULL)->virt));
	if (!name_valid(f->name) || !f->validate || !f->max_bytes || !f->write) {
		pr_err("kpmc: format %s: a name of [a-z0-9_] and validate, max_bytes, write are needed\n",
		       name_valid(f->name) ? f->name : "(bad name)");
		return -EINVAL;
	}
	mutex_lock(&kpmc_formats_lock);
	list_for_each_entry(o, &kpmc_formats, node) {
		if (!strcmp(o->name, f->name) || !memcmp(o->uuid, f->uuid, sizeof(f->uuid))) {
			pr_err("kpmc: format %s: its name or UUID is %s's\n", f->name, o->name);
			err = -EEXIST;
			break;
		}
	}
	if (!err) {
		f->kind = kind;
		atomic_set(&f->users, 0);
		list_add_tail(&f->node, &kpmc_formats);
	}
	mutex_unlock(&kpmc_formats_lock);
	if (!err && f->owner && f->owner != THIS_MODULE)
		pr_info("kpmc: format %s registered by %s\n", f->name, module_name(f->owner));
	return err;
}

int kpmc_format_register(struct kpmc_format *f)
{
	/*
	 * A configuration pins its format's code by the owner's module count:
	 * without an owner the module could unload while f->write is still
	 * called from the overflow interrupt.
	 */
	if (!f->owner) {
		pr_err("kpmc: format %s: no owner: set .owner = THIS_MODULE\n",
		       name_valid(f->name) ? f->name : "(bad name)");
		return -EINVAL;
	}
	return register_kind(f, KPMC_REC_FORMAT);
}
EXPORT_SYMBOL_GPL(kpmc_format_register);

int kpmc_format_register_builtin(struct kpmc_format *f, u8 kind)
{
	return register_kind(f, kind);
}

/*
 * Users are counted under kpmc_formats_lock (kpmc_format_get), so none can
 * appear once f is off the list. From a module's exit this cannot fail: a
 * configuration using f holds the module. It can from elsewhere (or after
 * a forced unload): f then stays registered and usable.
 */
int kpmc_format_unregister(struct kpmc_format *f)
{
	int users;

	mutex_lock(&kpmc_formats_lock);
	users = atomic_read(&f->users);
	if (!users)
		list_del(&f->node);
	mutex_unlock(&kpmc_formats_lock);
	if (users) {
		pr_err("kpmc: format %s: not unregistered, %d configurations use it\n",
		       f->name, users);
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kpmc_format_unregister);

struct kpmc_format *kpmc_format_get(const char *name, const char *args, void **priv,
				    char *why, size_t len)
{
	struct kpmc_format *f;
	size_t bytes;
	int err;

	mutex_lock(&kpmc_formats_lock);
	f = find_locked(name);
	/* A module on its way out has no count to give: as if gone. */
	if (f && f->owner && !try_module_get(f->owner))
		f = NULL;
	if (f)
		atomic_inc(&f->users);
	mutex_unlock(&kpmc_formats_lock);
	if (!f) {
		snprintf(why, len, "fmt=%s: no such sampling format (/proc/kpmc/formats)", name);
		return ERR_PTR(-EINVAL);
	}
	*priv = NULL;
	why[0] = '\0';
	err = f->validate(args, priv, why, len);
	if (!err) {
		bytes = f->max_bytes(*priv);
		if (bytes > KPMC_FORMAT_MAX_BYTES) {
			snprintf(why, len, "fmt=%s: %zu bytes a sample, the most is %lu",
				 name, bytes, (unsigned long)KPMC_FORMAT_MAX_BYTES);
			if (f->release)
				f->release(*priv);
			err = -EINVAL;
		}
	} else if (!why[0]) {
		snprintf(why, len, "fmt=%s: options '%s' refused", name, args);
	}
	if (err) {
		kpmc_format_put(f, NULL);
		return ERR_PTR(err);
	}
	return f;
}

/* The most records f adds to a sample (0 for no format). */
unsigned int kpmc_format_parts(const struct kpmc_format *f, const void *priv)
{
	if (!f)
		return 0;
	if (f->kind == KPMC_REC_MEM)
		return 1;
	return DIV_ROUND_UP(f->max_bytes(priv), KPMC_FORMAT_PART_BYTES);
}

/* Process context: the configuration using f with priv is freed. */
void kpmc_format_put(struct kpmc_format *f, void *priv)
{
	struct module *owner = f->owner;

	if (priv && f->release)
		f->release(priv);
	atomic_dec(&f->users);
	if (owner)
		module_put(owner);
}

/* The parts' header fields a reader matches with the sample. */
static void part_header(struct kpmc_record *part, const struct kpmc_record *sample, u8 kind)
{
	memset(part, 0, offsetof(struct kpmc_record, counts));
	part->version = KPMC_RECORD_VERSION;
	part->size = sizeof(*part);
	part->kind = kind;
	part->set = sample->set;
	part->cpu = sample->cpu;
	part->pid = sample->pid;
	part->tid = sample->tid;
	part->nsample = sample->nsample;
}

void kpmc_format_emit(struct kpmc_session *session, struct kpmc_format *f, void *priv,
		      const struct kpmc_record *sample, struct kpmc_format_sample *fs)
{
	struct kpmc_format_scratch *sc;
	unsigned long flags;
	unsigned int n = 0, i;
	long bytes;

	/* The scratch is this CPU's: nothing else may take it meanwhile. */
	local_irq_save(flags);
	sc = this_cpu_ptr(kpmc_format_scratch);
	sc->recs[0] = *sample;
	fs->record = &sc->recs[0];
	if (f->kind == KPMC_REC_MEM) {
		/* The built-in memory format fills one MEM record's payload. */
		part_header(&sc->recs[1], sample, KPMC_REC_MEM);
		memset(&sc->recs[1].part, 0, sizeof(sc->recs[1].part));
		bytes = f->write(priv, fs, &sc->recs[1].mem, sizeof(sc->recs[1].mem));
		n = bytes > 0;
	} else {
		bytes = f->write(priv, fs, sc->bytes, KPMC_FORMAT_MAX_BYTES);
		if (bytes > KPMC_FORMAT_MAX_BYTES)
			bytes = KPMC_FORMAT_MAX_BYTES;
		if (bytes > 0)
			n = DIV_ROUND_UP(bytes, KPMC_FORMAT_PART_BYTES);
		for (i = 0; i < n; i++) {
			struct kpmc_record *r = &sc->recs[1 + i];
			size_t off = (size_t)i * KPMC_FORMAT_PART_BYTES;
			size_t chunk = min_t(size_t, bytes - off, KPMC_FORMAT_PART_BYTES);

			part_header(r, sample, f->kind);
			memcpy(r->part.uuid, f->uuid, sizeof(r->part.uuid));
			r->part.part = i;
			r->part.parts = n;
			r->part.bytes = chunk;
			memcpy(r->part.data, sc->bytes + off, chunk);
			memset(r->part.data + chunk, 0, KPMC_FORMAT_PART_BYTES - chunk);
		}
	}
	if (bytes == -ENOSPC)
		kpmc_ring_lose(session->ring, 1);
	else
		kpmc_ring_push_n(session->ring, sc->recs, 1 + n);
	local_irq_restore(flags);
}

/* /proc/kpmc/formats: name, UUID, users, module. */
void kpmc_formats_show(struct seq_file *m)
{
	struct kpmc_format *f;

	mutex_lock(&kpmc_formats_lock);
	list_for_each_entry(f, &kpmc_formats, node)
		seq_printf(m, "%s %pUb users %d module %s\n", f->name, f->uuid,
			   atomic_read(&f->users),
			   f->owner ? module_name(f->owner) : "kpmc");
	mutex_unlock(&kpmc_formats_lock);
}

int kpmc_formats_init(void)
{
	kpmc_format_scratch = alloc_percpu(struct kpmc_format_scratch);
	return kpmc_format_scratch ? 0 : -ENOMEM;
}

void kpmc_formats_exit(void)
{
	struct kpmc_format *f, *tmp;

	/* Only the built-ins are left: a module's keeps kpmc.ko loaded. */
	mutex_lock(&kpmc_formats_lock);
	list_for_each_entry_safe(f, tmp, &kpmc_formats, node)
		list_del(&f->node);
	mutex_unlock(&kpmc_formats_lock);
	free_percpu(kpmc_format_scratch);
	kpmc_format_scratch = NULL;
}
