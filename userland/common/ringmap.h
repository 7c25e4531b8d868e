/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of a session's mapped ring (struct kpmc_ring_control, whose
 * comment in <linux/kpmc.h> is the protocol): the CLI's and libkpmc's.
 * Records are handed to the caller where the kernel wrote them; the tail
 * moves past them only after the caller is done with them.
 *
 * The position arithmetic (check, ready, record, consume) is pure and works
 * on any control page and data area, mapped or not: tests/unit drives it on
 * memory of its own.
 */
#ifndef KPMC_RINGMAP_H
#define KPMC_RINGMAP_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

struct kpmc_ringmap {
	struct kpmc_ring_control *ctrl;		/* NULL: not mapped (use read()) */
	const struct kpmc_record *data;
	size_t ctrl_size, data_size;		/* the two mappings' lengths */
	uint32_t capacity;
	uint64_t tail;				/* the reader's: what it stores in data_tail */
	uint64_t lost_polled;			/* the control page's lost at the last poll() */
};

/* Can this reader use the ring that c describes? 0, or -1 and why. */
static inline int kpmc_ringmap_check(const struct kpmc_ring_control *c, uint64_t page_size,
				     char *why, size_t len)
{
	if (c->version != KPMC_RING_CONTROL_VERSION) {
		snprintf(why, len, "control page version %u, this reader knows %u", c->version,
			 KPMC_RING_CONTROL_VERSION);
		return -1;
	}
	if (c->record_size != sizeof(struct kpmc_record)) {
		snprintf(why, len, "records of %u bytes, this reader's are %zu", c->record_size,
			 sizeof(struct kpmc_record));
		return -1;
	}
	if (!c->capacity || (c->capacity & (c->capacity - 1))) {
		snprintf(why, len, "capacity %u is not a power of two", c->capacity);
		return -1;
	}
	if (c->data_offset != page_size || c->data_size % page_size ||
	    c->data_size < (uint64_t)c->capacity * c->record_size) {
		snprintf(why, len, "data area of %llu bytes at offset %llu for %u records",
			 (unsigned long long)c->data_size, (unsigned long long)c->data_offset,
			 c->capacity);
		return -1;
	}
	return 0;
}

/*
 * Records ready to take, from m->tail on; -1 when data_head is not a
 * position the kernel could have written (behind the tail, or more than
 * a ring ahead): the control page is not what this reader mapped.
 */
static inline int64_t kpmc_ringmap_ready(const struct kpmc_ringmap *m)
{
	uint64_t head = __atomic_load_n(&m->ctrl->data_head, __ATOMIC_ACQUIRE);
	uint64_t n = head - m->tail;

	return n > m->capacity ? -1 : (int64_t)n;
}

/* The i-th ready record (i < kpmc_ringmap_ready()), in place. */
static inline const struct kpmc_record *kpmc_ringmap_record(const struct kpmc_ringmap *m,
							    uint64_t i)
{
	return &m->data[(m->tail + i) & (m->capacity - 1)];
}

/* The caller is done with n records: the kernel may write over them. */
static inline void kpmc_ringmap_consume(struct kpmc_ringmap *m, uint64_t n)
{
	m->tail += n;
	__atomic_store_n(&m->ctrl->data_tail, m->tail, __ATOMIC_RELEASE);
}

/* Attach m to a control page and data area (mapped, or the unit tests' own). */
static inline int kpmc_ringmap_attach(struct kpmc_ringmap *m, struct kpmc_ring_control *c,
				      const void *data, uint64_t page_size, char *why, size_t len)
{
	if (kpmc_ringmap_check(c, page_size, why, len))
		return -1;
	m->ctrl = c;
	m->data = data;
	m->capacity = c->capacity;
	/* Where read() left off, if it took records before. */
	m->tail = __atomic_load_n(&c->data_tail, __ATOMIC_ACQUIRE);
	return 0;
}

static inline void kpmc_ringmap_close(struct kpmc_ringmap *m)
{
	if (m->data)
		munmap((void *)m->data, m->data_size);
	if (m->ctrl)
		munmap(m->ctrl, m->ctrl_size);
	memset(m, 0, sizeof(*m));
}

/*
 * Map the ring of the monitor file fd (open O_RDWR). 0; or -errno and why,
 * m left unmapped: EIO is a module without the mapped ring (read() it).
 */
static inline int kpmc_ringmap_open(struct kpmc_ringmap *m, int fd, char *why, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	struct kpmc_ring_control *c;
	void *data;
	int err;

	memset(m, 0, sizeof(*m));
	c = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED) {
		err = -errno;
		snprintf(why, len, "mapping the ring's control page: %s", strerror(-err));
		return err;
	}
	m->ctrl = c;
	m->ctrl_size = (size_t)page;
	if (kpmc_ringmap_check(c, (uint64_t)page, why, len)) {
		kpmc_ringmap_close(m);
		return -EPROTO;
	}
	data = mmap(NULL, c->data_size, PROT_READ, MAP_SHARED, fd, (off_t)c->data_offset);
	if (data == MAP_FAILED) {
		err = -errno;
		snprintf(why, len, "mapping the ring's %llu bytes of records: %s",
			 (unsigned long long)c->data_size, strerror(-err));
		kpmc_ringmap_close(m);
		return err;
	}
	m->data_size = c->data_size;
	return kpmc_ringmap_attach(m, c, data, (uint64_t)page, why, len);
}

/*
 * Hand every record in the ring to fn, then give their slots back; when the
 * ring is empty, one poll() has the kernel put a loss it has not told yet
 * in the ring (and see the tail, for threads waiting in no-loss mode). That
 * poll() is left out when it has nothing to do: no record dropped since the
 * last one (the control page's lost has not moved) and no-loss mode off.
 * Returns the records taken, or -1: EIO, the module is being unloaded;
 * EPROTO, the control page makes no sense.
 */
static inline long kpmc_ringmap_drain(struct kpmc_ringmap *m, int fd,
				      void (*fn)(const struct kpmc_record *rec, void *arg),
				      void *arg)
{
	long total = 0;
	uint64_t lost;
	int polled = 0;

	for (;;) {
		int64_t n = kpmc_ringmap_ready(m), i;

		if (n < 0) {
			errno = EPROTO;
			return -1;
		}
		if (!n) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			/* Once /proc/kpmc is gone, poll() no longer says so. */
			if (__atomic_load_n(&m->ctrl->flags, __ATOMIC_RELAXED) & KPMC_RING_F_UNLOADING) {
				errno = EIO;
				return -1;
			}
			if (polled)
				return total;
			lost = __atomic_load_n(&m->ctrl->lost, __ATOMIC_RELAXED);
			if (lost == m->lost_polled &&
			    !(__atomic_load_n(&m->ctrl->flags, __ATOMIC_RELAXED) & KPMC_RING_F_NOLOSS))
				return total;
			m->lost_polled = lost;
			if (poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL))) {
				errno = EIO;
				return -1;
			}
			polled = 1;
			continue;
		}
		for (i = 0; i < n; i++)
			fn(kpmc_ringmap_record(m, (uint64_t)i), arg);
		kpmc_ringmap_consume(m, (uint64_t)n);
		total += (long)n;
		polled = 0;
	}
}

#endif /* KPMC_RINGMAP_H */
