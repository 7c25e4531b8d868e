// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc-top: a live ncurses view of what kpmc monitors.
 *
 *   kpmc-top [-d SECS] [KPMC OPTIONS] -- PROG [ARGS]   live, per thread
 *   kpmc-top [-d SECS] -S [KPMC OPTIONS] -- PROG       live, per CPU
 *   kpmc-top -R FILE                                   records saved with kpmc -w
 *
 * Live, it runs the kpmc CLI with the options given and reads the raw
 * records kpmc writes (-w) to a pipe; the program's own output is discarded.
 * Keys: 0-9 sort by that column, s next column, r reverse, q quit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topmodel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void comm_of(uint32_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", tid);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "-");
}

static void draw(struct kpmc_top *t, unsigned int sort_col, int asc, const char *what,
		 int replay)
{
	unsigned int i, col;
	int y = 2, maxy, maxx;
	size_t r;
	char comm[32], hdr[512], label[24];
	int n;

	getmaxyx(stdscr, maxy, maxx);
	erase();
	kpmc_top_sort(t, sort_col, asc);
	mvprintw(0, 0, "kpmc top: %s  threads %zu  lost %llu%s", what, t->nr,
		 (unsigned long long)t->lost, replay ? "  (replay)" : "");
	n = snprintf(hdr, sizeof(hdr), "%7s %7s %4s %8s %10s", "0:TID", "1:PID", "2:CPU",
		     "3:RECS", "4:RUN_MS");
	col = 5;
	for (i = 0; i < KPMC_MAX_COUNTERS + KPMC_MAX_VIRT; i++) {
		int virt = i >= KPMC_MAX_COUNTERS;
		unsigned int b = virt ? i - KPMC_MAX_COUNTERS : i;

		if (!((virt ? t->virt_mask : t->counter_mask) & (1u << b)))
			continue;
		snprintf(label, sizeof(label), virt ? "%u:virt%u" : "%u:pmc%u/ms", col++, b);
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, " %12s", label);
	}
	snprintf(hdr + n, sizeof(hdr) - (size_t)n, "  COMM");
	attron(A_REVERSE);
	mvprintw(1, 0, "%-*.*s", maxx, maxx, hdr);
	attroff(A_REVERSE);
	for (r = 0; r < t->nr && y < maxy - 1; r++, y++) {
		const struct kpmc_top_row *row = &t->rows[r];

		comm_of(row->tid, comm, sizeof(comm));
		mvprintw(y, 0, "%7u %7u %4u %8llu %10.1f", row->tid, row->pid, row->cpu,
			 (unsigned long long)row->records, (double)row->run_ns / 1e6);
		for (i = 0; i < KPMC_MAX_COUNTERS; i++)
			if (t->counter_mask & (1u << i))
				printw(" %12llu", (unsigned long long)row->rate[i]);
		for (i = 0; i < KPMC_MAX_VIRT; i++)
			if (t->virt_mask & (1u << i))
				printw(" %12llu", (unsigned long long)row->virt[i]);
		printw("  %s%s", comm, row->exited ? " (exited)" : "");
	}
	attron(A_REVERSE);
	mvprintw(maxy - 1, 0, "%-*s", maxx, "");
	mvprintw(maxy - 1, 0, " sort: column %u %s | 0-9 sort by column, s next, r reverse, q quit",
		 sort_col, asc ? "ascending" : "descending");
	attroff(A_REVERSE);
	refresh();
}

/* Read whole records from fd; a partial one waits in buf for the rest. */
static int pump(int fd, struct kpmc_top *t, char *buf, size_t *have)
{
	ssize_t n = read(fd, buf + *have, sizeof(struct kpmc_record) * 64 - *have);
	size_t off = 0;

	if (n <= 0)
		return n == 0 || errno != EAGAIN ? -1 : 0;
	*have += (size_t)n;
	while (*have - off >= sizeof(struct kpmc_record)) {
		struct kpmc_record rec;

		memcpy(&rec, buf + off, sizeof(rec));
		kpmc_top_add(t, &rec);
		off += sizeof(rec);
	}
	memmove(buf, buf + off, *have - off);
	*have -= off;
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kpmc-top [-d SECS] [KPMC OPTIONS] -- PROG [ARGS...]\n"
		"       kpmc-top -R FILE\n"
		"  -d SECS    refresh period (default 1)\n"
		"  -R FILE    show records saved with kpmc -w\n"
		"  other options go to kpmc (-c, -T, -S, -p ...; see kpmc -h)\n"
		"keys: 0-9 sort by column, s next column, r reverse, q quit\n");
}

int main(int argc, char **argv)
{
	char buf[sizeof(struct kpmc_record) * 64], self[PATH_MAX], kpmc[PATH_MAX + 8], fdarg[32];
	struct kpmc_top t = { 0 };
	const char *replay = NULL;
	unsigned int sort_col = 4;
	int asc = 0, delay_ms = 1000, fd = -1, i, done = 0;
	pid_t child = -1;
	size_t have = 0;
	char **args;
	int nargs = 0;

	args = calloc((size_t)argc + 8, sizeof(*args));
	if (!args)
		return 1;
	/* Our options; everything else is kpmc's. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-R") && i + 1 < argc) {
			replay = argv[++i];
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			delay_ms = (int)(atof(argv[++i]) * 1000);
			if (delay_ms < 100)
				delay_ms = 100;
		} else if (!strcmp(argv[i], "-h")) {
			usage();
			return 0;
		} else {
			break;
		}
	}
	if (replay) {
		FILE *f = fopen(replay, "rb");
		struct kpmc_record rec;

		if (!f) {
			fprintf(stderr, "kpmc-top: %s: %s\n", replay, strerror(errno));
			return 1;
		}
		while (fread(&rec, sizeof(rec), 1, f) == 1)
			kpmc_top_add(&t, &rec);
		fclose(f);
	} else {
		int p[2];
		ssize_t n;

		if (i >= argc) {
			usage();
			return 2;
		}
		/* The kpmc CLI next to us. */
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		snprintf(kpmc, sizeof(kpmc), "%s/kpmc", self);
		if (pipe(p)) {
			perror("kpmc-top: pipe");
			return 1;
		}
		snprintf(fdarg, sizeof(fdarg), "/dev/fd/%d", p[1]);
		args[nargs++] = kpmc;
		args[nargs++] = "-o";
		args[nargs++] = "/dev/null";
		args[nargs++] = "-w";
		args[nargs++] = fdarg;
		for (; i < argc; i++)
			args[nargs++] = argv[i];
		child = fork();
		if (child == 0) {
			int null = open("/dev/null", O_RDWR);

			/* Its own group: quitting ends kpmc and the program together. */
			setpgid(0, 0);
			close(p[0]);
			dup2(null, 0);
			dup2(null, 1);
			execv(kpmc, args);
			_exit(127);
		}
		close(p[1]);
		fd = p[0];
		fcntl(fd, F_SETFL, O_NONBLOCK);
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	initscr();
	cbreak();
	noecho();
	curs_set(0);
	keypad(stdscr, TRUE);
	timeout(0);
	while (!stop) {
		int ch;

		if (fd >= 0 && !done) {
			fd_set rd;
			struct timeval tv = { delay_ms / 1000, (delay_ms % 1000) * 1000 };

			FD_ZERO(&rd);
			FD_SET(fd, &rd);
			FD_SET(0, &rd);
			if (select(fd + 1, &rd, NULL, NULL, &tv) > 0 && FD_ISSET(fd, &rd))
				while (pump(fd, &t, buf, &have) > 0)
					;
			if (pump(fd, &t, buf, &have) < 0) {
				done = 1;
				waitpid(child, NULL, 0);
			}
		} else {
			fd_set rd;
			struct timeval tv = { 0, 200000 };

			FD_ZERO(&rd);
			FD_SET(0, &rd);
			select(1, &rd, NULL, NULL, &tv);
		}
		draw(&t, sort_col, asc, replay ? replay : (done ? "program ended" : "monitoring"),
		     replay != NULL);
		while ((ch = getch()) != ERR) {
			if (ch == 'q') {
				stop = 1;
			} else if (ch == 'r') {
				asc = !asc;
			} else if (ch == 's') {
				sort_col = (sort_col + 1) % kpmc_top_columns(&t);
			} else if (ch >= '0' && ch <= '9' &&
				   (unsigned int)(ch - '0') < kpmc_top_columns(&t)) {
				sort_col = (unsigned int)(ch - '0');
			}
		}
	}
	endwin();
	if (child > 0 && !done) {
		kill(-child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	kpmc_top_free(&t);
	free(args);
	return 0;
}
