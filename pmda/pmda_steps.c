// SPDX-License-Identifier: GPL-2.0
/* Slurm steps from the SPANK plugin's spool (see pmda_steps.h). */
#include "pmda_steps.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/growarray.h"

/* A report is one line of a few hundred bytes; anything bigger is not one. */
#define STEP_FILE_MAX 8192

/* The value after "KEY": (a number or a string's first character), or NULL. */
static const char *field(const char *text, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(text, k);
	return p ? p + strlen(k) : NULL;
}

static int number(const char *p, uint64_t *v)
{
	char *end;

	if (!p || !isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtoull(p, &end, 10);
	return errno ? -1 : 0;
}

/* A quoted string of label-safe characters into out: the end quote's next, or NULL. */
static const char *string(const char *p, char *out, size_t len)
{
	size_t n = 0;

	if (!p || *p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if (!isalnum((unsigned char)*p) && !strchr(",:=_.-/+", *p))
			return NULL;
		if (n + 1 >= len)
			return NULL;
		out[n++] = *p;
	}
	if (*p != '"')
		return NULL;
	out[n] = '\0';
	return p + 1;
}

int kpmc_pmda_step_parse(const char *text, struct kpmc_pmda_step *s)
{
	unsigned int inst = s->inst;
	const char *p;
	uint64_t v;
	int n = 0;

	memset(s, 0, sizeof(*s));
	s->inst = inst;
	if (number(field(text, "job"), &v) || v > UINT32_MAX)
		return -1;
	s->job = (uint32_t)v;
	if (number(field(text, "uid"), &v) || v > UINT32_MAX)
		return -1;
	s->uid = (uint32_t)v;
	if (!string(field(text, "step"), s->step, sizeof(s->step)) || !s->step[0] ||
	    !string(field(text, "events"), s->events, sizeof(s->events)))
		return -1;
	if (number(field(text, "run_ns"), &s->run_ns) || number(field(text, "lost"), &s->lost))
		return -1;
	p = field(text, "counts");
	if (!p || *p++ != '{')
		return -1;
	while (*p != '}') {
		if (n == KPMC_MAX_COUNTERS)
			return -1;
		p = string(p, s->name[n], sizeof(s->name[n]));
		if (!p || !s->name[n][0] || *p++ != ':' || number(p, &s->count[n]))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
		n++;
		if (*p == ',')
			p++;
		else if (*p != '}')
			return -1;
	}
	return 0;
}

/* The file's text, if root owns it and it is a report's size. */
static int read_report(int dfd, const char *name, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_size >= (off_t)len) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static struct kpmc_pmda_step *find_step(struct kpmc_pmda_steps *t, uint32_t job, const char *step)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].job == job && !strcmp(t->v[i].step, step))
			return &t->v[i];
	return NULL;
}

int kpmc_pmda_steps_read(struct kpmc_pmda_steps *t, const char *dir)
{
	struct kpmc_pmda_step s;
	char buf[STEP_FILE_MAX];
	struct dirent *e;
	struct stat st;
	size_t keep = 0;
	DIR *d;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(dfd);
		errno = EPERM;
		return -1;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++)
		t->v[i].seen = 0;
	while ((e = readdir(d)) != NULL) {
		struct kpmc_pmda_step *old;
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "kpmc-", 5) || len < 10 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (read_report(dirfd(d), e->d_name, buf, sizeof(buf)))
			continue;
		s.inst = 0;
		if (kpmc_pmda_step_parse(buf, &s))
			continue;
		old = find_step(t, s.job, s.step);
		if (old) {
			s.inst = old->inst;
			*old = s;
			old->seen = 1;
			continue;
		}
		if (grow_array((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v), 16))
			break;
		s.inst = t->next_inst++;
		s.seen = 1;
		t->v[t->n++] = s;
		t->changed = 1;
	}
	closedir(d);
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].seen)
			t->v[keep++] = t->v[i];
		else
			t->changed = 1;
	}
	t->n = keep;
	return (int)t->n;
}

const struct kpmc_pmda_step *kpmc_pmda_steps_find(const struct kpmc_pmda_steps *t, unsigned int inst)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].inst == inst)
			return &t->v[i];
	return NULL;
}

void kpmc_pmda_steps_free(struct kpmc_pmda_steps *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
