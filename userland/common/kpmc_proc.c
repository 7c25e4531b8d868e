// SPDX-License-Identifier: GPL-2.0
/* The /proc/kpmc client (see kpmc_proc.h). */
#include "kpmc_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kpmc_proc_present(void)
{
	struct stat st;

	return stat(KPMC_PROC_DIR, &st) == 0;
}

int kpmc_proc_open(const char *file, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), KPMC_PROC_DIR "/%s", file);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* open() and read(), as libkpmc did: no FILE allocated inside the programs that link libkpmc. */
void kpmc_proc_reason(int err, char *why, size_t len)
{
	ssize_t n = 0;
	int fd;

	if (!len)
		return;
	fd = kpmc_proc_open("last_error", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, why, len - 1);
		close(fd);
	}
	why[n > 0 ? n : 0] = '\0';
	why[strcspn(why, "\n")] = '\0';
	if (!why[0])
		snprintf(why, len, "%s", strerror(err));
}

int kpmc_proc_request(int fd, const char *req, char *why, size_t len)
{
	size_t want = strlen(req);
	ssize_t n = write(fd, req, want);
	int err;

	if (n == (ssize_t)want)
		return 0;
	err = n < 0 ? errno : EIO;
	kpmc_proc_reason(err, why, len);
	return -err;
}

int kpmc_proc_write(const char *file, const char *req, char *why, size_t len)
{
	int fd = kpmc_proc_open(file, O_WRONLY), err;

	if (fd < 0) {
		kpmc_proc_reason(-fd, why, len);
		return fd;
	}
	err = kpmc_proc_request(fd, req, why, len);
	close(fd);
	return err;
}

int kpmc_proc_session_open(const char *raw, unsigned int ring, int unprivileged,
			   int *capable_owner, char *err, size_t len)
{
	char why[512], req[32];
	int fd = kpmc_proc_open("monitor", O_RDWR | O_NONBLOCK), e;

	if (capable_owner)
		*capable_owner = 0;
	if (fd < 0) {
		kpmc_proc_reason(-fd, why, sizeof(why));
		snprintf(err, len, "cannot start a monitoring session: %s", why);
		return -1;
	}
	/* First, before anything is counted: the session is then an unprivileged owner's. */
	if (unprivileged) {
		e = kpmc_proc_request(fd, "unprivileged", why, sizeof(why));
		if (e && e != -EINVAL) {
			snprintf(err, len, "unprivileged: %s", why);
			goto fail;
		}
		if (e && capable_owner)
			*capable_owner = 1;
	}
	snprintf(req, sizeof(req), "ring=%u", ring);
	if (kpmc_proc_request(fd, req, why, sizeof(why))) {
		snprintf(err, len, "%s: %s", req, why);
		goto fail;
	}
	if (kpmc_proc_write("config", raw, why, sizeof(why))) {
		snprintf(err, len, "configuration '%s' rejected: %s", raw, why);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * The names of each "virtual_counters: virt0=a virt1=b" line of info->text,
 * and whether "virtual_counters_self_read: yes" says a thread reads them.
 */
static void parse_virtual_counters(struct kpmc_info *info)
{
	static const char key[] = "virtual_counters:";
	static const char self_read[] = "virtual_counters_self_read: yes";
	const char *line, *end;
	char buf[512], *p, *eq, *save;
	unsigned int i;
	size_t n;

	memset(info->virt_name, 0, sizeof(info->virt_name));
	info->virt_self_read = 0;
	for (line = info->text; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		if ((size_t)(end - line) == sizeof(self_read) - 1 &&
		    !strncmp(line, self_read, sizeof(self_read) - 1))
			info->virt_self_read = 1;
		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		n = (size_t)(end - line) - (sizeof(key) - 1);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line + sizeof(key) - 1, n);
		buf[n] = '\0';
		save = NULL;
		for (p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
			eq = strchr(p, '=');
			if (eq && sscanf(p, "virt%u=", &i) == 1 && i < KPMC_MAX_VIRT)
				snprintf(info->virt_name[i], sizeof(info->virt_name[i]), "%s", eq + 1);
		}
	}
}

void kpmc_info_parse(struct kpmc_info *info, const char *text)
{
	snprintf(info->text, sizeof(info->text), "%s", text);
	parse_virtual_counters(info);
}

int kpmc_info_read(struct kpmc_info *info)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd = kpmc_proc_open("info", O_RDONLY), err = 0;

	if (fd < 0) {
		err = fd;
	} else {
		while (got < sizeof(info->text) - 1 &&
		       (n = read(fd, info->text + got, sizeof(info->text) - 1 - got)) > 0)
			got += (size_t)n;
		if (n < 0) {
			err = -errno;
			got = 0;
		}
		close(fd);
	}
	info->text[got] = '\0';
	parse_virtual_counters(info);
	return err;
}
