// SPDX-License-Identifier: LGPL-2.1
#include "kpmc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <uapi/linux/kpmc.h>

#define MAX_REGIONS	64

struct region {
	char name[48];
	uint64_t calls;
	uint64_t total[KPMC_LIB_COUNTERS];
	uint64_t open[KPMC_LIB_COUNTERS];	/* counts at begin (per thread) */
	int active;
};

static int session_fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct region totals[MAX_REGIONS];	/* over all threads, under lock */
static __thread struct region mine[MAX_REGIONS];
static __thread int self_fd = -1;

static int put(const char *file, const char *s)
{
	char path[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = -errno;
	close(fd);
	return err;
}

int kpmc_start(const char *config)
{
	int err;

	if (session_fd >= 0)
		return -EBUSY;
	/* The session: records (exits) go there; nobody needs to read them. */
	session_fd = open("/proc/kpmc/monitor", O_RDONLY | O_CLOEXEC);
	if (session_fd < 0)
		return -errno;
	err = put("config", config);
	if (!err)
		err = put("enable", "1");
	if (err) {
		close(session_fd);
		session_fd = -1;
	}
	return err;
}

int kpmc_stop(void)
{
	if (session_fd < 0)
		return -EINVAL;
	put("enable", "0");
	close(session_fd);
	session_fd = -1;
	return 0;
}

int kpmc_read(struct kpmc_counts *c)
{
	struct kpmc_self_counts sc;
	ssize_t n;

	if (self_fd < 0) {
		self_fd = open("/proc/kpmc/self", O_RDONLY | O_CLOEXEC);
		if (self_fd < 0)
			return -errno;
	}
	n = pread(self_fd, &sc, sizeof(sc), 0);
	if (n != (ssize_t)sizeof(sc))
		return n < 0 ? -errno : -EIO;
	c->counter_mask = sc.counter_mask;
	c->run_ns = sc.run_ns;
	memcpy(c->counts, sc.counts, sizeof(c->counts));
	return 0;
}

static struct region *find(struct region *table, const char *name, int create)
{
	int i;

	for (i = 0; i < MAX_REGIONS && table[i].name[0]; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	if (!create || i == MAX_REGIONS || strlen(name) >= sizeof(table[i].name))
		return NULL;
	strcpy(table[i].name, name);
	return &table[i];
}

int kpmc_region_begin(const char *name)
{
	struct region *r = find(mine, name, 1);
	struct kpmc_counts c;
	int err;

	if (!r)
		return -ENOSPC;
	if (r->active)
		return -EALREADY;
	err = kpmc_read(&c);
	if (err)
		return err;
	memcpy(r->open, c.counts, sizeof(r->open));
	r->active = 1;
	return 0;
}

int kpmc_region_end(const char *name)
{
	struct region *r, *g;
	struct kpmc_counts c;
	unsigned int i;
	/* Read first: the lookup must not count in the region (its cost varies). */
	int err = kpmc_read(&c);

	r = find(mine, name, 0);
	if (!r || !r->active)
		return -EINVAL;
	if (err)
		return err;
	r->active = 0;
	pthread_mutex_lock(&lock);
	g = find(totals, name, 1);
	if (g) {
		g->calls++;
		for (i = 0; i < KPMC_LIB_COUNTERS; i++)
			g->total[i] += c.counts[i] - r->open[i];
	}
	pthread_mutex_unlock(&lock);
	return g ? 0 : -ENOSPC;
}

int64_t kpmc_region_total(const char *name, unsigned int pmc)
{
	struct region *g;
	int64_t v = -1;

	if (pmc >= KPMC_LIB_COUNTERS)
		return -1;
	pthread_mutex_lock(&lock);
	g = find(totals, name, 0);
	if (g)
		v = (int64_t)g->total[pmc];
	pthread_mutex_unlock(&lock);
	return v;
}

void kpmc_region_report(FILE *f)
{
	int i;
	unsigned int c;

	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_REGIONS && totals[i].name[0]; i++) {
		fprintf(f, "region %s calls=%llu", totals[i].name, (unsigned long long)totals[i].calls);
		for (c = 0; c < KPMC_LIB_COUNTERS; c++)
			if (totals[i].total[c])
				fprintf(f, " pmc%u=%llu", c, (unsigned long long)totals[i].total[c]);
		fputc('\n', f);
	}
	pthread_mutex_unlock(&lock);
}
