/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test programs' writes to /proc/kpmc/FILE: one write() of s, through fd
 * when it is open (fd >= 0), or through a file opened for it. Any failure
 * ends the program (exit 1) with the file and the error.
 */
#ifndef KPMC_TEST_PROCPUT_H
#define KPMC_TEST_PROCPUT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void put(int fd, const char *file, const char *s)
{
	char path[64];
	int own = fd < 0;

	snprintf(path, sizeof(path), "/proc/kpmc/%s", file);
	if (own)
		fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (own)
		close(fd);
}

#endif
