// SPDX-License-Identifier: LGPL-2.1
/*
 * Memory samples in libkpmc, after Mitos: the program names its data
 * objects (kpmc_add_symbol: an address, an element size and dimensions),
 * and every sample whose data address falls in one says which object and
 * which element, as a multi-dimensional index. Samples are kept for
 * kpmc_mem_samples() and the CSV writer, and passed to the handler as they
 * arrive (from libkpmc's reader thread).
 */
#define _GNU_SOURCE
#include "memsample.h"
#include "common/memaccess.h"
#include "common/growarray.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OBJECTS	256

struct object {
	char name[KPMC_MEM_NAME_MAX];
	uint64_t base;
	size_t elem, bytes;
	size_t dims[KPMC_MEM_MAX_DIMS];
	unsigned int ndims;
};

/* Objects: written by the program's threads, read by the reader thread. */
static pthread_mutex_t obj_lock = PTHREAD_MUTEX_INITIALIZER;
static struct object objects[MAX_OBJECTS];
static unsigned int nobjects;

/* Samples kept and the handler: under libkpmc's rec_lock (the caller's). */
static struct kpmc_mem_sample *kept;
static size_t nkept, kept_cap;
static kpmc_mem_fn handler;
static void *handler_arg;
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;

int kpmc_mem_index(uint64_t base, size_t elem, const size_t *dims, unsigned int ndims,
		   uint64_t addr, uint64_t *idx)
{
	uint64_t off, bytes = elem;
	unsigned int d;

	for (d = 0; d < ndims; d++)
		bytes *= dims[d];
	if (!elem || addr < base || addr - base >= bytes)
		return -1;
	off = (addr - base) / elem;
	for (d = ndims; d-- > 0;) {
		idx[d] = off % dims[d];
		off /= dims[d];
	}
	return 0;
}

int kpmc_add_symbol(const char *name, const void *addr, size_t elem_size, const size_t *dims,
		    unsigned int ndims)
{
	struct object *o;
	unsigned int d, i;
	size_t bytes;

	if (!name || !name[0] || strlen(name) >= KPMC_MEM_NAME_MAX || !addr || !elem_size ||
	    ndims < 1 || ndims > KPMC_MEM_MAX_DIMS || !dims)
		return -EINVAL;
	bytes = elem_size;
	for (d = 0; d < ndims; d++) {
		if (!dims[d] || bytes > SIZE_MAX / dims[d])
			return -EINVAL;
		bytes *= dims[d];
	}
	pthread_mutex_lock(&obj_lock);
	for (i = 0; i < nobjects; i++) {
		if (!strcmp(objects[i].name, name)) {
			pthread_mutex_unlock(&obj_lock);
			return -EEXIST;
		}
	}
	if (nobjects == MAX_OBJECTS) {
		pthread_mutex_unlock(&obj_lock);
		return -ENOSPC;
	}
	o = &objects[nobjects++];
	memset(o, 0, sizeof(*o));
	strcpy(o->name, name);
	o->base = (uintptr_t)addr;
	o->elem = elem_size;
	o->bytes = bytes;
	o->ndims = ndims;
	memcpy(o->dims, dims, ndims * sizeof(dims[0]));
	pthread_mutex_unlock(&obj_lock);
	return 0;
}

int kpmc_remove_symbol(const char *name)
{
	unsigned int i;

	pthread_mutex_lock(&obj_lock);
	for (i = 0; i < nobjects; i++) {
		if (!strcmp(objects[i].name, name)) {
			objects[i] = objects[--nobjects];
			pthread_mutex_unlock(&obj_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&obj_lock);
	return -ENOENT;
}

/* Name the object addr is in, and its index; "" if none. */
static void attribute(struct kpmc_mem_sample *s)
{
	unsigned int i;

	pthread_mutex_lock(&obj_lock);
	for (i = 0; i < nobjects; i++) {
		const struct object *o = &objects[i];

		if (!kpmc_mem_index(o->base, o->elem, o->dims, o->ndims, s->addr, s->index)) {
			strcpy(s->object, o->name);
			s->object_bytes = o->bytes;
			s->ndims = o->ndims;
			break;
		}
	}
	pthread_mutex_unlock(&obj_lock);
}

void kpmc_lib_mem_take(const struct kpmc_record *r, uint64_t time_ns)
{
	struct kpmc_mem_sample s;
	kpmc_mem_fn fn;
	void *arg;

	memset(&s, 0, sizeof(s));
	s.ip = r->mem.ip;
	s.addr = r->mem.addr;
	s.size = r->mem.size;
	s.op = r->mem.op;
	s.flags = r->mem.flags;
	s.latency = r->mem.latency;
	s.source = r->mem.source;
	s.cpu = r->cpu;
	s.tid = r->tid;
	s.time_ns = time_ns;
	if (s.flags & KPMC_MEM_F_ADDR)
		attribute(&s);
	/* Out of memory: not kept, still handed to the handler. */
	if (!grow_array((void **)&kept, &kept_cap, nkept + 1, sizeof(*kept), 256))
		kept[nkept++] = s;
	pthread_mutex_lock(&handler_lock);
	fn = handler;
	arg = handler_arg;
	pthread_mutex_unlock(&handler_lock);
	if (fn)
		fn(&s, arg);
}

void kpmc_lib_mem_forget(void)
{
	free(kept);
	kept = NULL;
	nkept = kept_cap = 0;
}

int kpmc_mem_set_handler(kpmc_mem_fn fn, void *arg)
{
	pthread_mutex_lock(&handler_lock);
	handler = fn;
	handler_arg = arg;
	pthread_mutex_unlock(&handler_lock);
	return 0;
}

void kpmc_lib_mem_each(kpmc_mem_fn fn, void *arg, long *n)
{
	size_t i;

	for (i = 0; i < nkept; i++)
		fn(&kept[i], arg);
	*n = (long)nkept;
}

/* Mitos's processed samples.csv, the kpmc CLI's columns (memaccess.c). */
static void csv_row(const struct kpmc_mem_sample *s, void *arg)
{
	FILE *f = arg;
	struct kpmc_mem_access a = {
		.ip = s->ip, .addr = s->addr, .size = s->size, .op = (uint16_t)s->op,
		.flags = (uint16_t)s->flags, .latency = s->latency, .source = s->source,
	};
	struct kpmc_mem_row row = {
		.pid = (int)getpid(), .tid = s->tid, .cpu = s->cpu, .time_ns = s->time_ns,
	};

	if (s->object[0]) {
		row.variable = s->object;
		row.buffer_size = s->object_bytes;
		row.ndims = s->ndims;
		row.index = s->index;
	}
	kpmc_mem_csv_row(f, &a, &row);
}

void kpmc_lib_mem_csv(FILE *f, long *n)
{
	kpmc_mem_csv_header(f);
	kpmc_lib_mem_each(csv_row, f, n);
}
