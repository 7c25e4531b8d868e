// SPDX-License-Identifier: GPL-2.0
/* kpmc's command table and the run of a separately built command (kpmc-WORD). */
#define _GNU_SOURCE
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plotcmd.h"
#include "stacks/stackreport.h"

struct kpmc_command {
	const char *name;
	/* Built in; NULL: the program kpmc-NAME. */
	int (*run)(int argc, char **argv);
	/* A program's make target and libraries, said when it is not found. */
	const char *built;
};

static const struct kpmc_command commands[] = {
	{ "report", kpmc_report_main, NULL },
	{ "plot", kpmc_plot_main, NULL },
	{ "fold", NULL, "make -C userland fold, with GSL" },
	{ "top", NULL, "make -C userland top, with ncurses" },
	{ "flame", NULL, "make -C userland flame, with cairo" },
};

/* A command's name: what kpmc-NAME may be (no path, no option). */
static int valid_name(const char *w)
{
	size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789-");

	return n > 0 && n <= 64 && !w[n] && w[0] != '-';
}

/*
 * Run kpmc-NAME: the one next to this kpmc (the programs are installed
 * together), else the one on PATH. Returns only if neither runs.
 */
static void exec_program(const char *name, char **argv)
{
	char self[4096], prog[80], *slash;
	ssize_t n;

	snprintf(prog, sizeof(prog), "kpmc-%s", name);
	n = readlink("/proc/self/exe", self, sizeof(self) - sizeof(prog));
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			strcpy(slash + 1, prog);
			execv(self, argv);
		}
	}
	execvp(prog, argv);
}

int kpmc_command_run(int argc, char **argv)
{
	const char *name = argv[0];
	size_t i;
	int err;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(name, commands[i].name))
			continue;
		if (commands[i].run)
			return commands[i].run(argc, argv);
		exec_program(name, argv);
		fprintf(stderr, "kpmc: %s: cannot run kpmc-%s (%s); it is built for the host (%s)\n",
			name, name, strerror(errno), commands[i].built);
		return 2;
	}
	if (valid_name(name)) {
		exec_program(name, argv);
		err = errno;
		if (err != ENOENT) {
			fprintf(stderr, "kpmc: %s: cannot run kpmc-%s: %s\n", name, name, strerror(err));
			return 2;
		}
	}
	fprintf(stderr, "kpmc: '%s' is not a kpmc command (report, plot, mem, fold, top, flame, or a "
		"kpmc-WORD program); a program to count goes after --: kpmc -c CONFIG -- PROG\n", name);
	return 2;
}
